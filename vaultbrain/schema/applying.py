"""Applying a planned schema verb: the notes first (a rename-field, a batch at a time, its
progress kept), then the manifest, compare-and-swap, then the audit line."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.choice import (
    DEFAULT_PACKS_FOLDER,
    PACKS_FOLDER_KEY,
    vault_packs_dir,
)
from vaultbrain.packs.loader import (
    clear_cache,
    home_dir,
)
from vaultbrain.schema.audit import record_change
from vaultbrain.schema.planning import NoteChange, Plan
from vaultbrain.schema.rename import JOB, pending_job, rename_key
from vaultbrain.vault.atomic import atomic_write_file

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


BATCH = 64  # notes renamed per flush to disk (and per progress record)


@dataclass
class Applied:
    plan: Plan
    written: list[str] = field(default_factory=list)
    skipped: list[NoteChange] = field(default_factory=list)
    entry: dict[str, Any] = field(default_factory=dict)


def apply(brain: Brain, p: Plan) -> Applied:
    out = Applied(p, skipped=list(p.skipped))
    t = p.target
    now = brain.now()
    if p.verb == "rename-field":
        job = pending_job(brain)
        if job is None:
            job = {
                "verb": p.verb,
                "args": p.args,
                "at": now.isoformat(timespec="seconds"),
                "notes": [n.path for n in p.notes],
                "done": [],
                "skipped": [[n.path, n.change] for n in p.skipped],
                "before": p.before,
                "version_before": p.version[0],
                "version_after": p.version[1],
            }
            brain.store.write_json(JOB, job)
        _rename_in_notes(brain, p, job, out)
        if not p.pack_done:
            _write_pack(brain, p, t.digest if t.exists else None)
    else:
        _write_pack(brain, p, t.digest if t.exists else None)
    out.entry = record_change(brain, p, len(out.written), len(out.skipped), now)
    if p.verb == "rename-field":
        brain.store.remove_json(JOB)
    clear_cache()
    brain.refresh()
    return out


def _rename_in_notes(brain: Brain, p: Plan, job: dict[str, Any], out: Applied) -> None:
    """Rename the property in the plan's notes, a batch at a time (one flush to disk for a
    batch, as ``adopt`` writes), the progress kept in the state store after each batch. A
    note renamed but not yet counted when the process stops is found renamed on the rerun
    (it has no old property left) and left as it is."""
    done = list(job.get("done", []))
    old, new = p.args["old"], p.args["new"]
    problems: dict[str, str] = {}

    def build(rel: str, note: Any) -> str | None:
        if note is None:
            problems[rel] = "the note is gone"
            return None
        text, why = rename_key(note.text, old, new)
        if why:
            problems[rel] = why
        return text

    rels = [n.path for n in p.notes]
    for i in range(0, len(rels), BATCH):
        batch = rels[i : i + BATCH]
        results = brain.vault.edit_many(batch, build)
        failed: UserError | None = None
        for rel in batch:
            result = results.get(rel)
            if isinstance(result, UserError):
                failed = failed or result
                continue
            if result is not None and result.written:
                out.written.append(rel)
            elif rel in problems:
                out.skipped.append(NoteChange(rel, problems[rel]))
            done.append(rel)
        job["done"] = done
        brain.store.write_json(JOB, job)
        if failed is not None:
            raise failed


def _write_pack(brain: Brain, p: Plan, expected: str | None) -> None:
    """Write the manifest if it is still what the plan read (compare-and-swap)."""
    from vaultbrain.vault import yml

    t = p.target
    root = brain.vault.root
    brain.vault.resolve(t.path.relative_to(root).as_posix())  # stays inside the vault
    if expected is not None:
        try:
            now = t.path.read_text("utf-8")
        except FileNotFoundError:
            now = ""
        if hashlib.sha256(now.encode("utf-8")).hexdigest() != expected:
            raise UserError(
                f"{t.path} changed while the verb ran; nothing more was written, run it again"
            )
    elif t.path.exists():
        raise UserError(f"{t.path} appeared while the verb ran; run it again")
    if vault_packs_dir(root) is None:
        yml.set_key(
            brain.vault,
            PACKS_FOLDER_KEY,
            DEFAULT_PACKS_FOLDER,
            comment="Schema packs kept in the vault, so every machine that files it has them.",
        )
    if not t.exists and t.source == "installed":
        from vaultbrain.packs.config import keep_in_vault

        keep_in_vault(brain.vault, t.pack.name, home_dir(brain.env))  # its other files too
    t.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_file(t.path, p.text)
    if not t.exists and t.source == "bundled":
        from vaultbrain.packs.config import set_vault_pack

        clear_cache()
        set_vault_pack(root, t.name, verb="fork", at=brain.now(), home=home_dir(brain.env))
