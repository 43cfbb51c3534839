"""Step 4 of filing: write each planned note, compare-and-swap, and let the store follow.

A note that already holds ``^vb-<capture id>`` was written by an earlier run and is not
written again. An update never overwrites what the person wrote: lists grow, empty fields
fill, a date the pack stamps on capture only moves forward, and one log line is appended.

A ``link`` op (an existing note that is not a record of the type) is never written: the
capture only points at it. A suggestion (not ``confirmed``) writes nothing into an existing
note: its updates are kept ``held`` on the capture's destinations and written by
:func:`write_held` when the person confirms; :func:`unwrite` takes a capture's log line back
out of the notes it updated (a dismissal). Nothing here changes the capture: each function
returns what it did, and the caller records it through the journal.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture, Filed, OpKind, PlannedOp
from vaultbrain.classify.result import Classification
from vaultbrain.errors import VaultbrainError
from vaultbrain.filing.index import records
from vaultbrain.filing.names import free_path, names_to_links
from vaultbrain.filing.records import (
    block_link,
    link_to,
    new_id,
    record_from_note,
    sync_task_line,
    typed_values,
)
from vaultbrain.filing.style import machine_values, note_changes, record_note, style_of
from vaultbrain.filing.typed import line_fields
from vaultbrain.packs import PageType
from vaultbrain.vault import NoteFile
from vaultbrain.vault.note import append_to_section, parse_note, update_frontmatter
from vaultbrain.vault.typed import inert, parse_typed

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

LOG_HEADING = "## Log"
CREATE_ATTEMPTS = 5


@dataclass(frozen=True)
class Written:
    """What writing a plan did: each op as it ended up (a note found gone gets one of its
    own, a taken path another), what the capture became in each note, and warnings."""

    plan: tuple[PlannedOp, ...]
    destinations: tuple[Filed, ...]
    warnings: tuple[str, ...] = ()


def write(brain: Brain, cap: Capture, result: Classification, confirmed: bool) -> Written:
    """Write every op of the capture's plan.

    A capture this machine took over from a waiting line it did not anchor (the filer role
    moved, or the state dir was lost) may have been filed by the machine that anchored it:
    notes that already hold its id are what it became, and nothing is written.
    """
    if cap.adopted:
        found = filed_in(brain, cap.id)
        if found:
            return Written(cap.plan or (), tuple(found))
    ops = list(cap.plan or ())
    out: list[Filed] = []
    warnings: list[str] = []
    for i, op in enumerate(ops):
        others, related = _context(ops, i)
        if op.op is OpKind.LINK:
            out.append(op.filed())
            continue
        if op.op is OpKind.UPDATE and not confirmed:
            out.append(op.filed(held=True))  # written when the person confirms
            continue
        if op.op is OpKind.UPDATE:
            moved_to = _update(brain, cap, op, others, related, warnings)
            if moved_to is None:
                # The note is gone from the vault (not moved: _update follows a move), so
                # the thought gets a note of its own, as if planned after the delete.
                ptype = _type(brain, op)
                op = op.but(
                    op=OpKind.CREATE, record_id=new_id(), path=free_path(brain, ptype, op.title)
                )
            else:
                op = op.but(path=moved_to)
        if op.op is OpKind.CREATE:
            op = op.but(path=_create(brain, cap, op, others, related, result, confirmed))
        ops[i] = op
        out.append(op.filed())
    return Written(tuple(ops), tuple(out), tuple(warnings))


def _context(ops: Sequence[PlannedOp], i: int) -> tuple[list[str], dict[str, list[str]]]:
    """Links to the other notes of the same thought: all of them, and by type."""
    links = [link_to(op.path, op.title) for op in ops]
    others = [link for j, link in enumerate(links) if j != i]
    related: dict[str, list[str]] = {}
    for j, other in enumerate(ops):
        if j != i:
            related.setdefault(other.type, []).append(links[j])
    return others, related


def write_held(brain: Brain, cap: Capture) -> Written:
    """A confirmed suggestion: write the updates it held back.

    An update whose note is gone since is dropped from the destinations with a warning (the
    person confirmed a link to a note that no longer exists; nothing is created unasked).
    """
    ops = list(cap.plan or ())
    out: list[Filed] = []
    warnings: list[str] = []
    for d in cap.destinations:
        if not d.held:
            out.append(d)
            continue
        i = next(
            (k for k, op in enumerate(ops) if op.op is OpKind.UPDATE and op.path == d.path), None
        )
        if i is None:
            continue
        others, related = _context(ops, i)
        now_at = _update(brain, cap, ops[i], others, related, warnings)
        if now_at is not None:
            # The note may have moved since the suggestion was made: where it is now.
            ops[i] = ops[i].but(path=now_at)
            out.append(d.but(held=False, path=now_at))
        else:
            warnings.append(f"{d.path} is gone; the suggestion was not added to it")
    return Written(tuple(ops), tuple(out), tuple(warnings))


def unwrite(brain: Brain, cap: Capture, only: Iterable[Filed] | None = None) -> list[str]:
    """Take the capture's log line (the one carrying its ``^vb-<id>`` link) back out of every
    note it updated (``only``: of these), compare-and-swap; the store forgets the capture
    on those records. Returns the notes changed."""
    marker = f"#^vb-{cap.id}|"
    changed: list[str] = []
    for d in cap.destinations if only is None else only:
        if d.op is not OpKind.UPDATE or d.held:
            continue

        def build(note: NoteFile | None) -> str | None:
            if note is None or marker not in note.text:
                return None
            parsed = parse_note(note.text)
            start = parsed.body_start if parsed.has_frontmatter else 0
            body = note.text[start:]
            kept = [
                line
                for line in body.splitlines(keepends=True)
                if not (marker in line and line.lstrip().startswith("- "))
            ]
            return note.text[:start] + "".join(kept)

        if brain.vault.edit(d.path, build).written:
            changed.append(d.path)
        ptype = brain.pack.get_type(d.type)
        if ptype is None or not d.record_id:
            continue
        col = brain.store.collection(ptype.store_collection)
        rec = col.get(d.record_id)
        if rec is not None and cap.id in rec.get("sources", []):
            rec["sources"] = [s for s in rec["sources"] if s != cap.id]
            rec["log"] = [e for e in rec.get("log", []) if e.get("capture") != cap.id]
            col.put(rec)
            records(brain).upsert(ptype.store_collection, rec)
    return changed


def _type(brain: Brain, op: PlannedOp) -> PageType:
    ptype = brain.pack.get_type(op.type)
    if ptype is None:
        from vaultbrain.errors import UserError

        raise UserError(f"the active pack has no type {op.type!r} for {op.path}")
    return ptype


def log_line(brain: Brain, cap: Capture, others: list[str]) -> str:
    # The thought's words, without its Tasks or Dataview fields (the note has them as
    # properties): a copy that never becomes a second task or field for Dataview.
    text = inert(parse_typed(cap.text).words or cap.text)
    if len(text) > 500:
        text = text[:499] + "…"
    text = text.replace("\n", " ")
    tail = f" → {' · '.join(others)}" if others else ""
    when = str(cap.created)[:10]
    # (the note it was typed in: the inbox, or a daily note's capture section)
    return f"- {when} {text}{tail} ({block_link(cap.note or brain.inbox_rel, cap.id, 'capture')})"


def fields_for(
    brain: Brain, ptype: PageType, op: PlannedOp, related: dict[str, list[str]]
) -> dict[str, Any]:
    """The fields a new note of ``ptype`` gets: defaults, the classifier's values, the title,
    the dates the pack stamps on capture, and links to the other notes of the same thought."""
    fields: dict[str, Any] = {}
    for name, spec in ptype.fields.items():
        if spec.default is not None:
            fields[name] = spec.default
    # A link field the classifier filled with a name holds a link when a note has that name
    # (Dataview and `links` see a link, not text).
    fields.update(names_to_links(brain, ptype, dict(op.fields or {})))
    fields[ptype.title_key] = op.title
    for name, spec in ptype.fields.items():
        if spec.on_capture == "today":
            fields[name] = brain.today().isoformat()
        if spec.collects is None:
            continue
        wanted = [link for t, links in related.items() if spec.collects_type(t) for link in links]
        if wanted:
            current = list(fields.get(name) or [])
            fields[name] = current + [w for w in wanted if w not in current]
    return fields


def _create(
    brain: Brain,
    cap: Capture,
    op: PlannedOp,
    others: list[str],
    related: dict[str, list[str]],
    result: Classification,
    confirmed: bool,
) -> str:
    """Create the op's note; returns where it was made (a path taken since the plan was
    made moves it to a free one)."""
    vault = brain.vault
    ptype = _type(brain, op)
    existing = vault.try_read(op.path)
    if existing is not None and f"^vb-{cap.id}" in existing.text:
        store_note(brain, op, existing, cap)
        return op.path
    if existing is not None:  # someone took the path since the plan was made
        op = op.but(path=free_path(brain, ptype, op.title))
    now = brain.now().isoformat()
    fields = fields_for(brain, ptype, op, related)
    core = {
        "type": ptype.name,
        "id": op.record_id,
        "source": block_link(cap.note or brain.inbox_rel, cap.id),
        "confidence": round(result.confidence, 2),
        "classified_by": result.classified_by,
        "confirmed": None if confirmed else False,
        "created": now,
        "updated": now,
    }
    text = record_note(
        style_of(brain),
        ptype,
        core,
        fields,
        op.title,
        log_line(brain, cap, others),
        line_fields(parse_typed(cap.text)),
        rel=op.path,
    )
    for _ in range(CREATE_ATTEMPTS):
        try:
            vault.create(op.path, text)
            break
        except FileExistsError:
            there = vault.try_read(op.path)
            if there is not None and f"^vb-{cap.id}" in there.text:
                # Made for this very capture a moment ago (another machine, as the filer
                # role moved): the thought is filed there, never in a second note.
                store_note(brain, op, there, cap)
                return op.path
            op = op.but(path=free_path(brain, ptype, op.title))
    store_note(brain, op, vault.read(op.path), cap, machine_values(core))
    return op.path


def _update(
    brain: Brain,
    cap: Capture,
    op: PlannedOp,
    others: list[str],
    related: dict[str, list[str]],
    warnings: list[str],
) -> str | None:
    """Add the capture to an existing note; returns where the note is (None: it is gone).

    A note renamed or moved since the plan was made (``People/Sarah.md`` → ``People/Sarah
    Smith.md`` while a burst of captures about her is in flight) is found again by its
    record (:func:`relocate`) and updated where it is now.
    """
    ptype = _type(brain, op)
    line = log_line(brain, cap, others)
    outcome: dict[str, Any] = {}

    def build(note: NoteFile | None) -> str | None:
        outcome.clear()
        if note is None:
            outcome["gone"] = True
            return None
        if f"^vb-{cap.id}" in note.text:
            return None  # written by an earlier run
        if not note.text.strip():
            # An emptied note is what an editor's save looks like halfway (truncate, then
            # write). Writing now would replace the file under the editor, so the update
            # waits on the record and is applied when the note next changes.
            outcome["deferred"] = True
            return None
        parsed = parse_note(note.text)
        text = note.text
        if parsed.error is None:
            changes = merge_changes(brain, ptype, parsed.data, op, related)
            changes = note_changes(style_of(brain), parsed.data, changes)
            text = sync_task_line(text, ptype, changes, brain.today())
            text = update_frontmatter(text, typed_values(ptype, changes))
        else:
            outcome["warning"] = f"{op.path}: {parsed.error}; only the log line was added"
        return append_to_section(text, LOG_HEADING, line)

    edit = brain.vault.edit(op.path, build)
    if outcome.get("gone"):
        moved_to = relocate(brain, op)
        if moved_to is None:
            return None
        op = op.but(path=moved_to)
        edit = brain.vault.edit(op.path, build)
        if outcome.get("gone"):
            return None
    if outcome.get("deferred"):
        warnings.append(_defer(brain, op, cap, others, related))
        return op.path
    if outcome.get("warning"):
        warnings.append(outcome["warning"])
    note = edit.before
    assert note is not None  # not gone: build saw a note
    if edit.written and edit.text is not None and edit.hash is not None:
        # What was just written, not a second read: the note may be renamed in between.
        note = dataclasses.replace(note, text=edit.text, hash=edit.hash)
    store_note(brain, op, note, cap)
    return op.path


ADOPTED_WINDOW = 24 * 3600.0  # how far back a note another machine wrote is looked at


def filed_in(brain: Brain, capture_id: str, since: float | None = ADOPTED_WINDOW) -> list[Filed]:
    """The destinations of a capture that notes already hold (written by another machine
    before the filer role moved): each note of a pack type changed within ADOPTED_WINDOW
    whose text names ``^vb-<id>``. Reads only recently changed notes."""
    marker = f"^vb-{capture_id}"
    cutoff = time.time() - since if since is not None else 0.0
    out: list[Filed] = []
    for rel, entry in brain.vault.iter_notes():
        if rel == brain.inbox_rel:
            continue
        ptype = brain.pack.type_for_path(rel)
        try:
            if ptype is None or entry.stat(follow_symlinks=False).st_mtime < cutoff:
                continue
            note = brain.vault.read(rel, entry)
        except (OSError, VaultbrainError):
            continue
        if marker not in note.text:
            continue
        parsed = parse_note(note.text)
        data = parsed.data if parsed.error is None else {}
        created = f"#{marker}" in str(data.get("source") or "")
        rid = str(data.get("id") or "")
        hit = records(brain).by_path(rel)
        if not rid and hit is not None:
            rid = str(hit[1].get("id") or "")
        title = str(data.get(ptype.title_key) or rel.rsplit("/", 1)[-1][:-3])
        out.append(Filed(ptype.name, title, rel, rid, OpKind.CREATE if created else OpKind.UPDATE))
    return out


def relocate(brain: Brain, op: PlannedOp) -> str | None:
    """Where the note of ``op``'s record is now that ``op.path`` is gone, or None (deleted).

    First the store (the daemon's sync may have seen the move already), then the vault
    itself, since a capture in flight can get here before the sync does: a note of the
    type's folders (its folder first) whose frontmatter ``id`` is the record's, or, for a
    hand-made note without one, whose content is the record's last known content.
    """
    if not op.record_id or not op.collection:
        return None
    rec = brain.store.collection(op.collection).get(op.record_id)
    if rec is None:
        return None  # tombstoned: the person deleted it, and the sync saw it
    known = str(rec.get("path") or "")
    if known and known != op.path and brain.vault.exists(known):
        return known
    ptype = _type(brain, op)
    base = rec.get("base_hash")
    folders = [ptype.folder] + [
        f for f in (p.replace("\\", "/").strip("/") for p in ptype.path_prefixes) if f
    ]
    seen: set[str] = {op.path}
    for folder in folders:
        try:
            found = list(brain.vault.iter_notes(folder))
        except (OSError, VaultbrainError):
            continue
        for rel, entry in found:
            if rel in seen or not rel.lower().endswith(".md"):
                continue
            seen.add(rel)
            try:
                note = brain.vault.read(rel, entry)
            except (OSError, VaultbrainError):
                continue
            if base and note.hash == base:
                return rel
            parsed = parse_note(note.text)
            if parsed.error is None and str(parsed.data.get("id") or "") == op.record_id:
                return rel
    return None


def _defer(
    brain: Brain,
    op: PlannedOp,
    cap: Capture,
    others: list[str],
    related: dict[str, list[str]],
) -> str:
    col = brain.store.collection(op.collection)
    target = col.get(op.record_id)
    if target is None:
        return f"{op.path}: its record is gone; the update was not written"
    waiting = target.setdefault("deferred_updates", [])
    if not any(w["capture"] == cap.id for w in waiting):
        waiting.append(
            {"capture": cap.id, "op": op.to_dict(), "others": others, "related": related}
        )
        col.put(target)
    return f"{op.path} was empty (being saved?); the update waits until it changes"


def apply_deferred(brain: Brain, collection: str, record_id: str) -> int:
    """Updates that waited for a note caught mid-save; applied once it has content again."""
    col = brain.store.collection(collection)
    target = col.get(record_id)
    if not target or not target.get("deferred_updates"):
        return 0
    note = brain.vault.try_read(target["path"])
    if note is None or not note.text.strip():
        return 0
    done = 0
    with brain.filing_lock, brain.store.locked():
        for item in list(target["deferred_updates"]):
            record = brain.store.inbox.get(item["capture"])
            if record is not None:
                waiting = Capture.from_record(record)
                op = PlannedOp.from_dict(dict(item["op"], path=target["path"]))
                _update(brain, waiting, op, item["others"], item["related"], [])
                done += 1
        fresh = col.get(record_id) or target
        fresh.pop("deferred_updates", None)
        col.put(fresh)
    return done


def merge_changes(
    brain: Brain,
    ptype: PageType,
    data: dict[str, Any],
    op: PlannedOp,
    related: dict[str, list[str]],
) -> dict[str, Any]:
    """New values for an existing note: lists grow, empty fields fill, nothing is overwritten."""
    wanted = fields_for(brain, ptype, op, related)
    wanted.pop(ptype.title_key, None)
    changes: dict[str, Any] = {}
    for name, value in wanted.items():
        spec = ptype.fields.get(name)
        current = data.get(name)
        if spec is not None and spec.type in ("list", "links"):
            cur = current if isinstance(current, list) else ([current] if current else [])
            merged = cur + [v for v in value if v not in cur]
            if merged != cur:
                changes[name] = merged
        elif spec is not None and spec.on_capture == "today":
            if str(current or "") < str(value):
                changes[name] = value
        elif current in (None, "", []) and name not in data:
            if spec is not None and spec.default is not None and value == spec.default:
                continue  # a default does not belong in a note the person already has
            changes[name] = value
    changes["updated"] = brain.now().isoformat()
    return changes


def store_note(
    brain: Brain,
    op: PlannedOp,
    note: NoteFile,
    cap: Capture,
    machine: dict[str, Any] | None = None,
) -> None:
    """The store follows the note just written (idempotent); ``machine``: the values a note
    vaultbrain creates gives the store (filing/style.py machine_values)."""
    ptype = _type(brain, op)
    col = brain.store.collection(op.collection)
    existing = col.get(op.record_id, include_deleted=True)
    parsed = parse_note(note.text)
    if parsed.error is None:
        rec = record_from_note(note.rel, parsed, ptype, existing, note.hash, machine)
    else:
        rec = dict(
            existing or {"id": op.record_id, "type": ptype.name, "title": op.title, "fields": {}}
        )
        rec.update({"path": note.rel, "base_hash": note.hash})
    rec["id"] = op.record_id
    index = records(brain)
    sources = rec.setdefault("sources", [])
    if cap.id not in sources:
        sources.append(cap.id)
        rec.setdefault("log", []).append(
            {"date": str(cap.created)[:10], "text": cap.text[:500], "capture": cap.id}
        )
    col.put(rec, durable=False)  # the note is the truth: a rescan rebuilds this from it
    index.upsert(op.collection, rec)
