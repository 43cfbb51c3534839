"""Planning a schema verb (what ``--dry-run`` prints): the new manifest, its version bumped
and linted, and every note the change concerns; a rename-field cut short is planned as what
is left of it."""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from vaultbrain.errors import UserError
from vaultbrain.packs.choice import (
    vault_packs_dir,
)
from vaultbrain.packs.loader import (
    home_dir,
    manifest_from_data,
    parse_manifest_text,
    resolve,
)
from vaultbrain.packs.resolved import ResolvedPack
from vaultbrain.schema.notes import survey_notes
from vaultbrain.schema.rename import pending_job, renamed_text
from vaultbrain.schema.target import Target, locate

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


BREAKING = frozenset({"rename-field", "retire-type"})


@dataclass
class NoteChange:
    path: str
    change: str
    after: str | None = None  # the note's new text (rename-field), None: nothing written


@dataclass
class Plan:
    verb: str
    args: dict[str, Any]
    target: Target
    text: str = ""  # the new manifest
    version: tuple[str, str] = ("", "")
    before: str = ""  # pack identities
    after: str = ""
    lint: list[dict[str, Any]] = field(default_factory=list)
    notes: list[NoteChange] = field(default_factory=list)
    skipped: list[NoteChange] = field(default_factory=list)
    pack_done: bool = False  # (a resumed rename whose manifest is written already)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        t = self.target
        return {
            "verb": self.verb,
            "args": self.args,
            "pack": t.name,
            "manifest": str(t.path),
            "forked_from": t.source_name if t.source == "bundled" and not t.exists else None,
            "copied_into_vault": t.source == "installed" and not t.exists,
            "version": {"before": self.version[0], "after": self.version[1]},
            "before": self.before,
            "after": self.after,
            "lint": self.lint,
            "notes": [
                {"path": n.path, "change": n.change, "writes": n.after is not None}
                | ({"sha256": _sha(n.after)} if n.after is not None else {})
                for n in self.notes
            ],
            "skipped": [{"path": n.path, "reason": n.change} for n in self.skipped],
            "warnings": self.warnings,
        }


Change = Callable[[dict[str, Any], ResolvedPack], None]


def _sha(text: str) -> str:
    """The hash of a note's planned text: what a dry run says the note will be, byte for
    byte (the apply that follows writes exactly it)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _bump(version: str, breaking: bool) -> str:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", str(version))
    if not m:
        return "1.0.0"
    major, minor, _patch = (int(x) for x in m.groups())
    return f"{major + 1}.0.0" if breaking else f"{major}.{minor + 1}.0"


class _Dumper(yaml.SafeDumper):
    """Safe YAML, with a multi-line text (a description) as a ``|`` block, as people write
    it in a pack."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    lines = value.splitlines()
    if len(lines) > 1 and all(line == line.rstrip() for line in lines):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)


def dump(data: dict[str, Any]) -> str:
    """A manifest as YAML, keys in their order (its comments are not kept)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _resolve_text(brain: Brain, name: str, text: str, where: str, as_json: bool) -> ResolvedPack:
    """The pack ``text`` would be, merged with its parents (those kept in the vault's packs
    folder included); nothing is written anywhere. ``where`` names it in an error."""
    manifest = manifest_from_data(parse_manifest_text(text, where, as_json), where)
    return resolve(manifest, home=home_dir(brain.env), shared=vault_packs_dir(brain.vault.root))


def _lint(brain: Brain, pack: ResolvedPack, text: str) -> list[dict[str, Any]]:
    from vaultbrain import __version__
    from vaultbrain.packs.lint import chain_layers, known_type_names, lint_pack

    own = manifest_from_data(parse_manifest_text(text, pack.name), pack.name)
    home = home_dir(brain.env)
    parents = chain_layers(pack, home)[1:] if len(pack.chain) > 1 else []
    report = lint_pack(pack, [own, *parents], known_type_names(home), __version__)
    return [{"severity": i.severity, "rule": i.rule, "message": i.message} for i in report.issues]


def plan(brain: Brain, verb: str, args: dict[str, Any], change: Change) -> Plan:
    """What ``verb`` would do: the new manifest, linted, and the notes it concerns."""
    target = locate(brain)
    p = Plan(verb, args, target)
    job = pending_job(brain)
    resuming = job is not None and job.get("verb") == verb and job.get("args") == args
    if resuming and _renamed_already(target.pack, args):
        # interrupted after its manifest was written (or the pack, synced from elsewhere,
        # no longer has the old field): the notes left, and the audit line
        assert job is not None
        p.pack_done = True
        t = target.pack.get_type(str(args.get("type")))
        if t is None or args.get("new") not in t.fields:
            p.warnings.append(
                f"the pack no longer has {args.get('type')}.{args.get('old')}; only the notes "
                "are finished"
            )
        p.version = (str(job.get("version_before", "")), str(job.get("version_after", "")))
        p.before, p.after = str(job.get("before", "")), target.pack.identity
        return _resumed(brain, p, job)
    data = copy.deepcopy(target.data)
    change(data, target.pack)
    before_version = str(data.get("version", "0.1.0"))
    data["name"] = target.name
    data["version"] = _bump(before_version, verb in BREAKING)
    if target.path.suffix == ".json":
        import json

        p.text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        p.text = dump(data)
    rel = target.path.relative_to(brain.vault.root).as_posix()
    new_pack = _resolve_text(brain, target.name, p.text, rel, target.path.suffix == ".json")
    p.version = (before_version, str(data["version"]))
    p.before, p.after = target.pack.identity, new_pack.identity
    p.lint = _lint(brain, new_pack, p.text)
    errors = [i for i in p.lint if i["severity"] == "error"]
    if errors:
        raise UserError(
            f"{verb} would leave the pack with a lint error, so nothing was changed: "
            f"{errors[0]['message']}"
        )
    if resuming:
        assert job is not None
        p.before = str(job.get("before") or p.before)
        _resumed(brain, p, job)
    else:
        _notes(brain, p, target.pack, new_pack)
    active = brain.active
    if not target.exists and target.source == "bundled" and active.tier < 5:
        p.warnings.append(
            f"the vault's pack becomes {target.name} (vaultbrain.yml), but here "
            f"{active.source} (tier {active.tier}) still chooses {active.pack.name}"
        )
    return p


def _notes(brain: Brain, p: Plan, old: ResolvedPack, new: ResolvedPack) -> None:
    notes = survey_notes(brain, old)
    a = p.args
    if p.verb == "rename-field":
        t = old.get_type(a["type"])
        assert t is not None
        for n in notes:
            if n.type != t.name or a["old"] not in n.data:
                continue
            if a["new"] in n.data:
                p.skipped.append(NoteChange(n.rel, f"has both {a['old']} and {a['new']}"))
                continue
            after, problem = renamed_text(brain, n.rel, a["old"], a["new"])
            if after is None:
                p.skipped.append(NoteChange(n.rel, problem or "cannot be read"))
            else:
                p.notes.append(NoteChange(n.rel, f"property {a['old']} -> {a['new']}", after))
        return
    retyped = {n.rel: n for n in survey_notes(brain, new, with_data=False)}

    def canon(name: Any) -> str | None:
        t = new.get_type(str(name)) if name else None
        return t.name if t is not None else None

    for n in notes:
        now = retyped.get(n.rel)
        then_type, now_type = n.type, now.type if now is not None else None
        if then_type != now_type:
            p.notes.append(
                NoteChange(
                    n.rel, f"{then_type or 'untyped'} -> {now_type or 'untyped'} (nothing written)"
                )
            )
        elif p.verb == "add-field" and n.type == canon(a["type"]):
            if a["field"] in n.data:
                p.notes.append(
                    NoteChange(
                        n.rel, f"its {a['field']} is now a field of {n.type} (nothing written)"
                    )
                )
        elif p.verb == "add-link-type" and a.get("field") and n.type == canon(a["from"]):
            if a["field"] in n.data:
                p.notes.append(
                    NoteChange(
                        n.rel, f"its {a['field']} links are now {a['name']} links (nothing written)"
                    )
                )
        elif p.verb == "retire-type" and n.type == canon(a["type"]):
            p.notes.append(
                NoteChange(n.rel, f"stays a {n.type} record; no thought is filed to its type")
            )


def _renamed_already(pack: ResolvedPack, args: dict[str, Any]) -> bool:
    t = pack.get_type(str(args.get("type")))
    return t is None or args.get("old") not in t.fields


def _resumed(brain: Brain, p: Plan, job: dict[str, Any]) -> Plan:
    """A rename-field that was interrupted: the notes of its list it has not done yet (the
    manifest is planned afresh from the file as it is now, unless it is renamed already)."""
    a = p.args
    done = set(job.get("done", []))
    for rel, why in job.get("skipped", []):
        p.skipped.append(NoteChange(rel, why))
    for rel in job.get("notes", []):
        if rel in done:
            continue
        after, problem = renamed_text(brain, rel, a["old"], a["new"])
        if after is None:
            if problem:
                p.skipped.append(NoteChange(rel, problem))
            continue
        p.notes.append(NoteChange(rel, f"property {a['old']} -> {a['new']}", after))
    return p
