"""Re-filing a record as another type: ``vaultbrain fix``, a ``type:`` changed in a note (the
sync's Retype, vaultbrain/filing/apply.py) and the person's choice on a filed suggestion
(vaultbrain/capture/resolution.py) all end in :func:`refile`, so all give the same result.

A fix never deletes: the old note moves to ``Brain/Archive/`` with ``archived: true``; a new
note of the new type gets the fields whose names match, the rest in its body; links that
pointed at the old note (related notes) are rewritten to the new one. What the captures filed
into the record became is the layer above's to follow (vaultbrain/capture/follow.py): a
re-filing returns a :class:`~vaultbrain.filing.report.Refiled` saying what happened.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from vaultbrain.classify.result import UNKNOWN
from vaultbrain.errors import UserError
from vaultbrain.filing.index import records
from vaultbrain.filing.records import (
    CORE_KEYS,
    close_task,
    new_id,
    record_from_note,
    retype_task_line,
    settle_task_note,
)
from vaultbrain.filing.report import Refiled
from vaultbrain.filing.style import drop_title_heading, machine_values, record_properties, style_of
from vaultbrain.packs import PageType
from vaultbrain.vault.names import sanitize_filename, unique_name
from vaultbrain.vault.note import append_to_section, parse_note, render_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

ARCHIVE = "Brain/Archive"


def audit(brain: Brain, kind: str, **fields: Any) -> None:
    """One entry of the audit trail for a decision of the person's (a correction, a resolution)."""
    brain.store.audit({"at": brain.now().isoformat(), "kind": kind, **fields})


class FollowsNotes(Protocol):
    """The notes ↔ store sync, as a re-filing uses it: after our own edit of a note, the
    store follows it, so the sync sees nothing to do (vaultbrain/filing/sync.py)."""

    def sync_path(self, rel: str) -> object: ...


def fileable_type(brain: Brain, name: str) -> PageType:
    """The active pack's type ``name``, one a thought or a record can be filed as."""
    ptype = brain.pack.get_type(name)
    if ptype is None or name.lower() == UNKNOWN:
        names = ", ".join(t.name for t in brain.pack.fileable_types())
        raise UserError(f"{name!r} is not a type of the active schema pack (types: {names})")
    return ptype


# -- fix: re-file a record as another type -------------------------------------------------


def is_record_id(ref: str) -> bool:
    """Whether ``ref`` has the form of a record's (or a capture's) id, not a title."""
    from vaultbrain.store import validate_id

    try:
        validate_id(ref)
    except UserError:
        return False
    return True


def _find_record(brain: Brain, ref: str) -> tuple[str, dict[str, Any]]:
    """The record ``ref`` names: its id, or its title or an alias as `db show` takes them
    (in any type of the pack; a name two records share is refused with their ids)."""
    collections = list(dict.fromkeys(t.store_collection for t in brain.pack.types))
    if is_record_id(ref):
        for name in collections:
            rec = brain.store.collection(name).get(ref)
            if rec is not None:
                return name, rec
    low = ref.strip().lower()
    found: list[tuple[str, str]] = []
    for name in collections:
        for summary in brain.store.collection(name).summaries():
            names = [str(summary.get("title", "")).lower()]
            names += [str(a).lower() for a in summary.get("aliases", []) or []]
            if low in names:
                found.append((name, str(summary["id"])))
    if len(found) > 1:
        listed = ", ".join(f"{rid} ({name})" for name, rid in found)
        raise UserError(f"{ref!r} names {len(found)} records: {listed}; give the id of one")
    if found:
        rec = brain.store.collection(found[0][0]).get(found[0][1])
        if rec is not None:
            return found[0][0], rec
    raise UserError(f"no record {ref!r}; `vaultbrain db list TYPE` lists them")


def fix(
    brain: Brain,
    sync: FollowsNotes,
    ref: str,
    type_name: str,
    note: str | None = None,
    by: str = "cli",
) -> tuple[dict[str, Any], Refiled]:
    """Re-file record ``ref`` as ``type_name``: the new record, and what happened."""
    new_type = fileable_type(brain, type_name)
    with brain.store.locked():
        collection, rec = _find_record(brain, ref)
        if rec["type"] == new_type.name:
            raise UserError(f"{rec['title']} is already a {new_type.name}")
        return refile(brain, sync, collection, rec, new_type, by=by, note=note)


def refile(
    brain: Brain,
    sync: FollowsNotes,
    collection: str,
    rec: dict[str, Any],
    new_type: PageType,
    by: str,
    note: str | None = None,
    moved_from: str | None = None,
) -> tuple[dict[str, Any], Refiled]:
    """The re-filing every correction shares (CLI fix, Needs Review, a type changed in a note):
    the new record, and what happened (for the captures filed into it).

    ``moved_from``: the person already moved the note (now at ``rec["path"]``) into the new
    type's folder; it stays where they put it and only the store, links and trail follow.
    """
    old_type = brain.pack.get_type(rec["type"])
    old_path = rec["path"]
    keep_path = moved_from is not None
    old_note = brain.vault.try_read(old_path)
    if old_note is None:
        raise UserError(f"{old_path} is gone; nothing to re-file")
    parsed = parse_note(old_note.text)
    if parsed.error or parsed.fence_problem:  # (never a second block above the person's)
        raise UserError(f"{old_path}: {parsed.error or parsed.fence_problem}; fix the note first")
    now = brain.now().isoformat()
    index = records(brain)
    if keep_path:
        new_path = old_path
        old_note, parsed = settle_task_note(brain, old_path, old_note, parsed, new_type, None, True)
        new_rec = record_from_note(old_path, parsed, new_type, rec, old_note.hash)
        new_rec["id"] = rec["id"]  # (a note's `id:` of the person's own is not the record's)
        brain.store.collection(collection).drop(rec["id"])
        brain.store.collection(new_type.store_collection).put(new_rec)
        index.remove(collection, rec["id"])
        index.upsert(new_type.store_collection, new_rec)
    else:
        title = rec["title"]
        fields, leftovers = _map_fields(parsed.data, old_type, new_type, title)
        folder = new_type.folder
        name = unique_name(
            sanitize_filename(title), lambda n: brain.vault.resolve(f"{folder}/{n}").exists()
        )
        new_path = f"{folder}/{name}"
        core = {
            "type": new_type.name,
            "id": new_id(),
            "source": parsed.data.get("source"),
            "created": parsed.data.get("created") or now,
            "updated": now,
        }
        extra = ""
        if leftovers:
            extra = "\n## Kept from the " + (old_type.name if old_type else rec["type"]) + " note\n"
            extra += "".join(f"- {k}: {_flat(v)}\n" for k, v in leftovers.items())
        if note:
            extra += f"\n> [!note] Re-filed\n> {note}\n"
        archived = f"{ARCHIVE}/{old_path.rsplit('/', 1)[-1]}"
        log_line = f"- {now[:10]} re-filed from [[{archived[:-3]}|the {rec['type']} note]]"
        body = old_note.text[parsed.body_start :] if parsed.has_frontmatter else old_note.text
        body = append_to_section(body.rstrip("\n") + "\n" + extra, "## Log", log_line)
        style = style_of(brain)
        if not style.h1:
            body = drop_title_heading(body, str(title))
        text = render_note(record_properties(style, new_type, core, fields), body)
        text = retype_task_line(text, old_type, new_type, fields, brain.today())
        brain.vault.create(new_path, text)
        archived_path = archive(
            brain,
            {"path": old_path, "record_id": rec["id"], "type": rec["type"]},
            reason=f"re-filed as {new_type.name}",
            replaced_by=new_path,
        )
        created = brain.vault.read(new_path)
        new_rec = record_from_note(
            new_path, parse_note(created.text), new_type, None, created.hash, machine_values(core)
        )
        new_rec["sources"] = list(rec.get("sources", []))
        new_rec["log"] = list(rec.get("log", []))
        new_rec["refiled_from"] = {"id": rec["id"], "type": rec["type"], "path": archived_path}
        brain.store.collection(new_type.store_collection).put(new_rec)
        index.upsert(new_type.store_collection, new_rec)
    rewritten = rewrite_links(brain, sync, moved_from or old_path, new_path)
    at = brain.now().isoformat()
    done = Refiled(
        record_id=str(rec["id"]),
        old_type=str(rec["type"]),
        old_paths=tuple(p for p in (old_path, moved_from) if p),
        new_record_id=str(new_rec["id"]),
        new_type=new_type.name,
        new_path=new_path,
        new_title=str(new_rec["title"]),
        sources=tuple(str(c) for c in rec.get("sources") or ()),
        by=by,
        at=at,
    )
    audit(
        brain,
        "correction",
        record=rec["id"],
        new_record=new_rec["id"],
        **{"from": rec["type"]},
        to=new_type.name,
        path=old_path,
        new_path=new_path,
        by=by,
        note=note,
        links_rewritten=rewritten,
    )
    return new_rec, done


def _flat(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _map_fields(
    data: dict[str, Any], old: PageType | None, new: PageType, title: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    core = {*CORE_KEYS, "archived"}
    fields: dict[str, Any] = {new.title_key: title}
    leftovers: dict[str, Any] = {}
    old_title = old.title_key if old else "title"
    for key, value in data.items():
        if key in core or key == old_title:
            continue
        spec = new.fields.get(key)
        if spec is None:
            if key in ("tags", "aliases"):
                fields[key] = value
            elif value not in (None, "", []):
                leftovers[key] = value
            continue
        ok, coerced = spec.coerce(value)
        if ok:
            fields[key] = coerced
        elif value not in (None, "", []):
            leftovers[key] = value
    for name, spec in new.fields.items():
        if spec.default is not None:
            fields.setdefault(name, spec.default)
    return fields, leftovers


def archive(brain: Brain, dest: dict[str, Any], reason: str, replaced_by: str | None = None) -> str:
    """Move a note to Brain/Archive/ with ``archived: true``; its record is tombstoned."""
    rel = dest["path"]
    name = rel.rsplit("/", 1)[-1]
    stem = name[:-3] if name.lower().endswith(".md") else name
    target = f"{ARCHIVE}/" + unique_name(
        stem, lambda n: brain.vault.resolve(f"{ARCHIVE}/{n}").exists()
    )
    changes: dict[str, Any] = {
        "archived": True,
        "archived_reason": reason,
        "updated": brain.now().isoformat(),
    }
    if replaced_by:
        changes["replaced_by"] = f"[[{replaced_by[:-3]}]]"
    closed_type = brain.pack.get_type(dest.get("type", ""))
    brain.vault.edit(
        rel,
        lambda note: (
            update_frontmatter(close_task(note.text, closed_type, brain.today()), changes)
            if note
            else None
        ),
    )
    brain.vault.move(rel, target)
    ptype = brain.pack.get_type(dest.get("type", ""))
    if ptype is not None and dest.get("record_id"):
        col = brain.store.collection(ptype.store_collection)
        if col.get(dest["record_id"]) is not None:
            col.tombstone(dest["record_id"], archived_to=target, deleted_at=brain.now().isoformat())
        records(brain).remove(ptype.store_collection, dest["record_id"])
    return target


def rewrite_links(brain: Brain, sync: FollowsNotes, old_path: str, new_path: str) -> list[str]:
    """Point every wikilink at ``old_path`` to ``new_path`` (CAS per note); returns the notes."""
    old_target = old_path[:-3] if old_path.lower().endswith(".md") else old_path
    new_target = new_path[:-3] if new_path.lower().endswith(".md") else new_path
    if old_target == new_target:
        return []
    pattern = re.compile(r"\[\[" + re.escape(old_target) + r"(?=[\]|#])")
    changed: list[str] = []
    inbox = str(brain.settings.get("inbox_note"))
    for rel, _ in brain.vault.iter_notes():
        if rel == inbox or rel.startswith(ARCHIVE + "/"):
            continue

        def relink(note: Any) -> str | None:
            if note is None or old_target not in note.text:
                return None
            return pattern.sub("[[" + new_target, note.text)

        try:
            edit = brain.vault.edit(rel, relink)
        except UserError:
            continue  # unreadable: its links stay as they are
        if edit.written:
            sync.sync_path(rel)
            changed.append(rel)
    return changed


__all__ = ["ARCHIVE", "archive", "fileable_type", "fix", "refile", "rewrite_links"]
