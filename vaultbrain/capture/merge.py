"""A merge proposal decided: accepted (one note kept, the other's properties, text and links
moved into it, every link in the vault rewritten, the other archived) or rejected (never
proposed again).

Accepting is the person's request (a tick in Needs Review, or ``vaultbrain tend accept``),
so it writes the notes it must, each through :meth:`Vault.edit` (compare-and-swap). Nothing
is deleted: the other note moves to ``Brain/Archive/`` with ``archived: true`` and
``replaced_by``, so it can be put back by hand or with ``vaultbrain tend undo ID`` (which
puts it back and restores the kept note when nobody has changed it since).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.graph.extract import base_key, link_key, note_key
from vaultbrain.graph.index import ARCHIVE
from vaultbrain.vault.inbox import split_lines
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.vault.files import NoteFile

log = logging.getLogger("vaultbrain.tend")

# The merge proposals of ``vaultbrain tend`` (vaultbrain/tend/consolidate.py makes them),
# kept here with the person's decisions on them: Needs Review lists them and its gestures
# carry them out, as for the other items a person decides (capture/ is below tend/).
COLLECTION = "merges"
OPEN, ACCEPTED, REJECTED, GONE = "open", "accepted", "rejected", "gone"
# Proposals of another ``kind`` kept here too (decided by the same gestures, rejected alike):
# the module that makes them carries out an accepted one (its ``accept(brain, rec)``).
KINDS = {"backlink": "vaultbrain.tend.backlinks"}


def proposals(brain: Brain, status: str | None = OPEN) -> list[dict[str, Any]]:
    """The merge proposals (of ``status``; None: all), oldest first."""
    col = brain.store.collection(COLLECTION)
    out = [r for r in col.all() if status is None or r.get("status") == status]
    out.sort(key=lambda r: (str(r.get("created") or ""), r["id"]))
    return out


# A wiki link whole: embed mark, target, #heading or ^block, |display.
LINK = re.compile(r"(!?)\[\[([^\]\|#\^\n]*)([#\^][^\]\|\n]*)?(?:\|([^\]\n]*))?\]\]")
_KEEP_OUT = frozenset({"type", "id", "created", "archived", "archived_reason", "replaced_by"})


def _proposal(brain: Brain, merge_id: str) -> dict[str, Any]:
    rec = brain.store.collection(COLLECTION).get(merge_id)
    if rec is None:
        raise UserError(f"no merge proposal {merge_id}; `vaultbrain tend list` shows them")
    return rec


def reject(brain: Brain, merge_id: str) -> dict[str, Any]:
    """The two notes are two records: never proposed again."""
    rec = _proposal(brain, merge_id)
    if rec.get("status") != OPEN:
        return rec
    rec = dict(rec, status=REJECTED, decided=brain.now().isoformat())
    brain.store.collection(COLLECTION).put(rec)
    _audit(brain, "merge-rejected", rec)
    log.info("merge %s rejected: %s and %s stay apart", merge_id, rec["keep"], rec["other"])
    return rec


def _audit(brain: Brain, decision: str, rec: dict[str, Any], **more: Any) -> None:
    brain.store.audit(
        {
            "at": brain.now().isoformat(),
            "kind": "resolution",
            "decision": decision,
            "merge": rec["id"],
            "keep": rec["keep"],
            "other": rec["other"],
            **more,
        }
    )


def _union(a: list[Any], b: list[Any]) -> list[Any]:
    out = list(a)
    for item in b:
        if item not in out:
            out.append(item)
    return out


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list) else [value]


def merged_text(kept: str, other: str, other_title: str, title_key: str) -> str:
    """The kept note with the other's properties and text added (nothing of the kept note's
    rewritten: a value it has stays; lists gain what they lack)."""
    pk, po = parse_note(kept), parse_note(other)
    changes: dict[str, Any] = {}
    leftovers: list[str] = []
    for key, value in po.data.items():
        if key in _KEEP_OUT or key == title_key or value in (None, "", []):
            continue
        have = pk.data.get(key)
        if have in (None, "", []):
            changes[key] = value
        elif isinstance(have, list) or isinstance(value, list):
            merged = _union(_as_list(have), _as_list(value))
            if merged != _as_list(have):
                changes[key] = merged
        elif have != value:
            leftovers.append(f"- {key}: {value}")
    names = _as_list(pk.data.get("aliases"))
    kept_title = str(pk.data.get(title_key) or "")
    extra = [n for n in [other_title, *(_as_list(po.data.get("aliases")))] if n != kept_title]
    aliases = _union(names, extra)
    if aliases != names:
        changes["aliases"] = aliases
    text = update_frontmatter(kept, changes) if changes else kept
    body = po.body.strip("\n")
    if body.strip() or leftovers:
        nl = "\r\n" if "\r\n" in text else "\n"
        section = [f"## Merged from {other_title}"]
        section += leftovers
        if body.strip():
            section.append(body)
        if not text.endswith("\n"):
            text += nl
        text += nl + nl.join(section) + nl
    return text


def relink(text: str, olds: set[str], new_target: str, display: str) -> str:
    """``text`` with every link whose key is in ``olds`` pointing at ``new_target``."""

    def swap(m: re.Match[str]) -> str:
        embed, target, anchor, shown = m.group(1), m.group(2), m.group(3), m.group(4)
        if link_key(target) not in olds:
            return m.group(0)
        label = shown if shown is not None else (target.strip() if anchor is None else None)
        if label is not None and "/" in label and shown is None:
            label = display
        out = f"{embed}[[{new_target}{anchor or ''}"
        return out + (f"|{label}]]" if label else "]]")

    return LINK.sub(swap, text)


def _inbox_relink(text: str, olds: set[str], new_target: str, display: str) -> str:
    """The inbox: the lines vaultbrain took (``^vb-``) are redrawn from their captures."""
    lines = split_lines(text)  # (a U+2028 in a thought is no line break)
    return "".join(
        line if "^vb-" in line else relink(line, olds, new_target, display) for line in lines
    )


def accept(brain: Brain, merge_id: str) -> dict[str, Any]:
    """Merge the proposal's other note into its kept note; what was done."""
    from vaultbrain.filing.index import records
    from vaultbrain.filing.refile import archive
    from vaultbrain.filing.sync import notes_sync

    rec = _proposal(brain, merge_id)
    if rec.get("kind") in KINDS:
        import importlib

        decided: dict[str, Any] = importlib.import_module(KINDS[rec["kind"]]).accept(brain, rec)
        return decided
    if rec.get("status") == ACCEPTED:
        return rec
    if rec.get("status") not in (OPEN, REJECTED):
        raise UserError(f"merge {merge_id} is {rec.get('status')}: its notes are not both there")
    keep, other = rec["keep"], rec["other"]
    vault = brain.vault
    other_note = vault.try_read(other)
    if other_note is None or vault.try_read(keep) is None:
        brain.store.collection(COLLECTION).put(dict(rec, status=GONE))
        raise UserError(f"merge {merge_id}: {keep} or {other} is no longer in the vault")
    ptype = brain.pack.get_type(rec["type"])
    title_key = ptype.title_key if ptype is not None else "title"
    other_data = parse_note(other_note.text).data
    other_title = str(other_data.get(title_key) or other.rsplit("/", 1)[-1][:-3])
    sync = notes_sync(brain)

    def build(note: NoteFile | None) -> str | None:
        if note is None:
            raise UserError(f"{keep} vanished while merging")
        return merged_text(note.text, other_note.text, other_title, title_key)

    edit = vault.edit(keep, build)
    keep_before = edit.before.text if edit.before is not None else None
    sync.sync_path(keep)
    # Which links reach the other note: its path, and its file name when no other note
    # has that name (after the move the archived copy would answer to it).
    olds = {note_key(other)}
    base = base_key(other)
    if not any(base_key(r) == base and r != other for r, _ in vault.iter_notes()):
        olds.add(base)
    hit = records(brain).by_path(other)
    dest = {"path": other, "type": rec["type"], "record_id": hit[1].get("id") if hit else None}
    archived = archive(brain, dest, "merged", replaced_by=keep)
    sync.sync_path(other)
    new_target = keep[:-3] if keep.lower().endswith(".md") else keep
    display = other_title
    from vaultbrain.filing.inbox import REVIEW_NOTE

    inbox = brain.inbox_rel
    relinked: list[str] = []
    for rel, _ in vault.iter_notes():
        if rel.startswith(ARCHIVE + "/") or rel == REVIEW_NOTE:
            continue
        fix = _inbox_relink if rel == inbox else relink

        def rewrite(note: NoteFile | None, fix: Any = fix) -> str | None:
            if note is None or "[[" not in note.text:
                return None
            return str(fix(note.text, olds, new_target, display))

        try:
            done = vault.edit(rel, rewrite)
        except UserError as exc:
            log.warning("links in %s not rewritten: %s", rel, exc)
            continue
        if done.written:
            relinked.append(rel)
            if rel != inbox:
                sync.sync_path(rel)
    moved = _follow_captures(brain, other, keep)
    rec = dict(
        rec,
        status=ACCEPTED,
        decided=brain.now().isoformat(),
        archived=archived,
        relinked=relinked,
        keep_before=keep_before,
        keep_after=edit.hash,
    )
    brain.store.collection(COLLECTION).put(rec)
    _audit(brain, "merge-accepted", rec, archived=archived, relinked=len(relinked))
    log.info(
        "merged %s into %s (archived as %s; links rewritten in %d notes, %d captures)",
        other,
        keep,
        archived,
        len(relinked),
        moved,
    )
    return rec


def _follow_captures(brain: Brain, old: str, new: str) -> int:
    """The captures filed into the archived note point at the kept one; their inbox lines
    are drawn again."""
    from vaultbrain.capture.journal import Journal
    from vaultbrain.capture.lines import finish_line

    journal = Journal(brain)
    n = 0
    for cap in brain.store.inbox.all():
        for d in cap.get("destinations") or ():
            if d.get("path") != old:
                continue
            try:
                after = journal.moved(cap["id"], d.get("record_id"), old, new)
                finish_line(brain, journal, after)
                n += 1
            except UserError as exc:
                log.info("capture %s does not follow the merge: %s", cap["id"], exc)
            break
    return n


def undo(brain: Brain, merge_id: str) -> dict[str, Any]:
    """Put an accepted merge's other note back where it was; the kept note goes back to its
    text from before the merge when nobody has changed it since. Links stay on the kept
    note (both notes exist again, so none dangles)."""
    from vaultbrain.filing.sync import notes_sync

    rec = _proposal(brain, merge_id)
    if rec.get("status") != ACCEPTED or not rec.get("archived"):
        raise UserError(f"merge {merge_id} was not accepted; nothing to undo")
    vault = brain.vault
    archived, other, keep = rec["archived"], rec["other"], rec["keep"]
    if vault.exists(other):
        raise UserError(f"{other} exists again; move {archived} back by hand")
    if not vault.exists(archived):
        raise UserError(f"the archived copy {archived} is gone")
    vault.edit(
        archived,
        lambda note: (
            update_frontmatter(note.text, {}, remove=("archived", "archived_reason", "replaced_by"))
            if note
            else None
        ),
    )
    vault.move(archived, other)
    restored = False
    before = rec.get("keep_before")
    if before is not None:
        done = vault.edit(
            keep,
            lambda note: (
                before if note is not None and note.hash == rec.get("keep_after") else None
            ),
        )
        restored = done.written
    sync = notes_sync(brain)
    sync.sync_path(other)
    sync.sync_path(keep)
    rec = dict(rec, status=REJECTED, undone=brain.now().isoformat())
    brain.store.collection(COLLECTION).put(rec)
    _audit(brain, "merge-undone", rec, restored_keep=restored)
    return rec
