"""Notes vaultbrain cannot read, remembered until they are fixed.

A note with invalid YAML, a duplicate property, bytes that are not UTF-8 or a size past
the limit is skipped by a scan (``Skip(problem=...)`` in vaultbrain/filing/decide.py) and,
being unchanged, never read again by the next scan. So the problem is kept in the store's
``unreadable`` collection, one record per path (keyed by a hash of the path): ``doctor``
(vaultbrain/doctor.py) and the "Can't read" section of ``Brain/Needs Review.md``
(vaultbrain/capture/review.py) list it until the note parses again or is deleted
(the sync, vaultbrain/filing/sync.py, scan.py and apply.py, calls :func:`remember` and
:func:`forget`). Templates are never on the list (vaultbrain/vault/obsidian.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import VaultbrainError
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

COLLECTION = "unreadable"
VAULT_YML = "vaultbrain.yml"  # listed when the pack it names cannot be used on this machine
_LINE = LazyPattern(r"\(line (\d+)\)")


def key(rel: str) -> str:
    """The record id for a path (a path is not a usable id: slashes, spaces, length)."""
    return "u" + hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def remember(brain: Brain, rel: str, problem: str, note_hash: str | None = None) -> None:
    """Keep ``problem`` for the note at ``rel`` (written only when it is new or changed).
    A template is never listed: its placeholders are not YAML, and need not be."""
    if brain.templates.holds_note(rel):
        forget(brain, rel)
        return
    col = brain.store.collection(COLLECTION)
    rid = key(rel)
    # The problem as the parser says it, without the path the report line starts with.
    detail = problem[len(rel) + 2 :] if problem.startswith(f"{rel}: ") else problem
    found = _LINE.search(detail)
    existing = col.get(rid)
    if existing and existing.get("problem") == detail and existing.get("hash") == note_hash:
        return
    col.put(
        {
            "id": rid,
            "path": rel,
            "problem": detail,
            "line": int(found.group(1)) if found else None,
            "hash": note_hash,
            "at": (existing or {}).get("at") or brain.now().isoformat(timespec="seconds"),
        }
    )


def forget(brain: Brain, rel: str) -> None:
    """The note parses again, or is gone: it leaves the list."""
    col = brain.store.collection(COLLECTION)
    rid = key(rel)
    if col.summary(rid) is not None:
        col.drop(rid)


def forget_missing(brain: Brain, seen: Iterable[str]) -> None:
    """After a full scan: drop every entry whose note the scan did not find (the inbox's is
    the inbox pass's: a scan does not read the inbox)."""
    col = brain.store.collection(COLLECTION)
    summaries = list(col.summaries())
    if not summaries:
        return
    present = {key(rel) for rel in seen} | {key(brain.inbox_rel), key(VAULT_YML)}
    for s in summaries:
        if s["id"] not in present:
            col.drop(s["id"])


def listed(brain: Brain) -> list[dict[str, Any]]:
    """Every unreadable note the store knows of, by path."""
    if not brain.state_dir.is_dir():
        return []  # nothing scanned yet (and doctor creates nothing)
    note_pack_problem(brain)
    records = [
        r
        for r in brain.store.collection(COLLECTION).all()
        if not brain.templates.holds_note(str(r.get("path", "")))  # (listed by an older version)
    ]
    return sorted(records, key=lambda r: str(r.get("path", "")))


def describe(record: dict[str, Any]) -> str:
    """``path: the parser's message`` (the message names the line when the parser did)."""
    return f"{record.get('path')}: {record.get('problem')}"


def inbox_problem(text: str) -> str | None:
    """What "Can't read" says of an inbox whose lines hold bytes that are not UTF-8, or None."""
    from vaultbrain.vault.inbox import UNDECODABLE, undecodable_lines

    lines = undecodable_lines(text)
    if not lines:
        return None
    first = lines[0]
    byte = ord(UNDECODABLE.search(first.raw).group(0)) - 0xDC00  # type: ignore[union-attr]
    numbers = ", ".join(str(line.number + 1) for line in lines[:5])
    more = " …" if len(lines) > 5 else ""
    which = f"lines {numbers}{more} are" if len(lines) > 1 else f"line {numbers} is"
    return (
        f"{which} not UTF-8 text (line {first.number + 1}: byte 0x{byte:02x}): not filed, "
        "kept byte for byte; retype the line (or save the note as UTF-8)"
    )


def note_inbox(brain: Brain, rel: str, text: str) -> None:
    """The inbox pass read the inbox: its lines that are not UTF-8 are listed (doctor,
    "Can't read") while they are there, and leave the list once they are gone."""
    problem = inbox_problem(text)
    if problem is None:
        forget(brain, rel)
    else:
        remember(brain, rel, problem)


def note_pack_problem(brain: Brain) -> None:
    """The pack ``vaultbrain.yml`` (or another shared tier) names cannot be used on this
    machine (``brain.pack_problem``, said once in the log by the brain): one item in Needs
    Review's "Can't read" while it lasts. Looked at whenever the list is read."""
    if not brain.state_dir.is_dir():
        return  # (a command that only reads makes no state dir)
    problem = getattr(brain, "pack_problem", None)
    try:
        if problem:
            remember(brain, VAULT_YML, problem)
        else:
            forget(brain, VAULT_YML)
    except VaultbrainError:
        pass  # a read-only state dir: the log line says it
