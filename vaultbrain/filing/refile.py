"""The person's decisions: confirm a suggestion, resolve a thought as a type, dismiss it, and
fix (re-file) a record as another type. The CLI's review/fix commands and the gestures in
``Brain/Needs Review.md`` all end here, so both give the same result.

A fix never deletes: the old note moves to ``Brain/Archive/`` with ``archived: true``; a new
note of the new type gets the fields whose names match, the rest in its body; links that
pointed at the old note (the inbox line, related notes) are rewritten to the new one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.errors import UserError
from vaultbrain.filing.corrections import record_correction
from vaultbrain.filing.records import (
    CORE_KEYS,
    close_task,
    link_to,
    new_id,
    ordered_frontmatter,
    record_from_note,
    retype_task_line,
    settle_task_note,
)
from vaultbrain.packs import PageType
from vaultbrain.vault.names import sanitize_filename, unique_name
from vaultbrain.vault.note import append_to_section, parse_note, render_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

ARCHIVE = "Brain/Archive"


def _capture(brain: Brain, capture_id: str) -> dict[str, Any]:
    rec = brain.store.inbox.get(capture_id)
    if rec is None:
        raise UserError(f"no capture {capture_id!r}; `vaultbrain review list` shows the queue")
    return rec


def _audit(brain: Brain, kind: str, **fields: Any) -> None:
    brain.store.audit({"at": brain.now().isoformat(), "kind": kind, **fields})


def _edit_note(
    brain: Brain, rel: str, changes: dict[str, Any], remove: tuple[str, ...] = ()
) -> None:
    edit = brain.vault.edit(
        rel, lambda note: update_frontmatter(note.text, changes, remove) if note else None
    )
    if edit.before is not None:
        _restore_base(brain, rel)


def _restore_base(brain: Brain, rel: str) -> None:
    """After our own edit the store follows the note, so the sync sees nothing to do."""
    brain.notes().sync_path(rel)


def _finish(brain: Brain, cap: dict[str, Any]) -> dict[str, Any]:
    """The capture's inbox line shows its new status (the capture as it is now)."""
    from vaultbrain.capture.journal import Journal
    from vaultbrain.capture.lines import finish_line
    from vaultbrain.capture.model import Capture

    return finish_line(brain, Journal(brain), Capture.from_record(cap)).to_record()


def confirm(brain: Brain, capture_id: str) -> dict[str, Any]:
    """Accept a suggestion: its notes lose ``confirmed: false``, the updates it held back are
    written into the existing notes now; the capture is filed."""
    from vaultbrain.capture.model import Capture
    from vaultbrain.capture.write import write_held

    with brain.store.locked():
        cap = _capture(brain, capture_id)
        if cap["status"] == "needs_review":
            dests = Classification.from_dict(cap.get("classification") or {}).fileable
            if not dests:
                raise UserError(
                    f"{capture_id} has no suggestion to accept; choose a type: "
                    f"`vaultbrain review resolve {capture_id} TYPE`"
                )
            return _file_as(brain, cap, dests, by="confirm")
        if cap["status"] != "suggested":
            raise UserError(f"{capture_id} is {cap['status']}, not a suggestion to confirm")
        for d in cap.get("destinations", []):
            if d.get("op") == "create":
                _edit_note(
                    brain, d["path"], {"updated": brain.now().isoformat()}, remove=("confirmed",)
                )
        if any(d.get("held") for d in cap.get("destinations", [])):
            held = Capture.from_record(cap)
            cap["destinations"] = write_held(brain, held)
            if held.warnings:
                cap["warnings"] = held.warnings
        cap["status"] = "filed"
        cap["confirmed_at"] = cap["updated"] = brain.now().isoformat()
        brain.store.inbox.put(cap)
    _audit(
        brain,
        "resolution",
        capture=capture_id,
        decision="confirm",
        destinations=cap.get("destinations", []),
    )
    return _finish(brain, cap)


def resolve(
    brain: Brain,
    capture_id: str,
    type_name: str,
    sets: dict[str, str] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """File a thought as ``type_name`` (one or more, comma-separated) by the person's choice."""
    from vaultbrain.filing.db import coerce_fields

    names = [t.strip() for t in re.split(r"[,\s]+", type_name) if t.strip()]
    with brain.store.locked():
        cap = _capture(brain, capture_id)
        # Records it wrote (a linked note of the person's, or an update a suggestion held back,
        # is not its to re-file).
        written = [
            d for d in cap.get("destinations", []) if d.get("record_id") and not d.get("held")
        ]
        dests_now = cap.get("destinations") or []
        if cap["status"] == "suggested" and dests_now:
            wanted = [_fileable(brain, name).name for name in names]
            one = len(written) == 1 and len(wanted) == 1
            if not (one and written[0]["type"] != wanted[0]):
                return _redecide(brain, cap, wanted, sets, title)
        if cap["status"] in ("filed", "corrected", "suggested") and written:
            if len(written) == 1:
                return fix(brain, written[0]["record_id"], type_name)
            raise UserError(f"{capture_id} is already filed; use `vaultbrain fix RECORD_ID TYPE`")
        suggested = Classification.from_dict(cap.get("classification") or {})
        dests = []
        for name in names:
            ptype = _fileable(brain, name)
            fields = coerce_fields(ptype, sets or {})
            previous = next((d for d in suggested.destinations if d.type == ptype.name), None)
            guess = title or (previous.title if previous and previous.title else None)
            if not guess:
                guess = next((d.title for d in suggested.destinations if d.title), None)
            base = dict(previous.fields) if previous else {}
            base.update({k: v for k, v in fields.items() if v is not None})
            from_url = _url_fields(ptype, cap["text"], base)
            guess = guess or from_url or _title_from(cap["text"])
            dests.append(Destination(ptype.name, guess, base))
        return _file_as(brain, cap, dests, by="resolve")


def _redecide(
    brain: Brain,
    cap: dict[str, Any],
    wanted: list[str],
    sets: dict[str, str] | None,
    title: str | None,
) -> dict[str, Any]:
    """A suggestion the person files as ``wanted`` instead (``→ project``, ``→ person, admin``):
    the suggested notes of a type still wanted stay (now confirmed), those of a type no longer
    wanted leave for the archive, and a type the classifier missed gets its note."""
    from vaultbrain.filing.db import coerce_fields

    kept = [d for d in cap["destinations"] if d["type"] in wanted]
    for d in cap["destinations"]:
        if d not in kept and d.get("op") == "create" and brain.vault.try_read(d["path"]):
            _archive(brain, d, reason=f"the person chose {', '.join(wanted)}")
    suggested = Classification.from_dict(cap.get("classification") or {})
    dests = []
    for name in dict.fromkeys(wanted):
        ptype = _fileable(brain, name)
        held = next((d for d in kept if d["type"] == name), None)
        previous = next((d for d in suggested.destinations if d.type == name), None)
        guess = (held or {}).get("title") or title or (previous.title if previous else "")
        guess = guess or next((d.title for d in suggested.destinations if d.title), "")
        fields = dict(previous.fields) if previous else {}
        fields.update({k: v for k, v in coerce_fields(ptype, sets or {}).items() if v is not None})
        from_url = _url_fields(ptype, cap["text"], fields)
        dests.append(Destination(ptype.name, guess or from_url or _title_from(cap["text"]), fields))
    filed = _file_as(brain, cap, dests, by="resolve")
    # A kept note already holds this thought (the plan found it as an existing record): it
    # stays the capture's own note, and the person's choice confirms it.
    created = {d.get("record_id") for d in kept if d.get("op") == "create"}
    for d in filed.get("destinations", []):
        if d.get("record_id") in created:
            d["op"] = "create"
            _edit_note(
                brain, d["path"], {"updated": brain.now().isoformat()}, remove=("confirmed",)
            )
    brain.store.inbox.put(filed)
    return filed


def dismiss(brain: Brain, capture_id: str) -> dict[str, Any]:
    """Not a thought: the capture is dismissed; notes it created move to the archive, its log
    line leaves the notes it updated (a suggestion held its updates back: nothing to take)."""
    from vaultbrain.capture.model import Capture
    from vaultbrain.capture.write import unwrite

    with brain.store.locked():
        cap = _capture(brain, capture_id)
        for rel in unwrite(brain, Capture.from_record(cap)):
            _restore_base(brain, rel)
        for d in cap.get("destinations", []):
            if d.get("op") == "create" and brain.vault.try_read(d["path"]) is not None:
                _archive(brain, d, reason="dismissed")
        cap["status"] = "dismissed"
        cap["dismissed_at"] = cap["updated"] = brain.now().isoformat()
        brain.store.inbox.put(cap)
    _audit(brain, "resolution", capture=capture_id, decision="dismiss")
    return _finish(brain, cap)


def _file(brain: Brain, cap: dict[str, Any]) -> dict[str, Any]:
    from vaultbrain.capture.journal import Journal
    from vaultbrain.capture.model import Capture
    from vaultbrain.capture.pipeline import file_capture

    return file_capture(brain, Journal(brain), Capture.from_record(cap)).to_record()


def _fileable(brain: Brain, name: str) -> PageType:
    ptype = brain.pack.get_type(name)
    if ptype is None or name.lower() == UNKNOWN:
        names = ", ".join(t.name for t in brain.pack.fileable_types())
        raise UserError(f"{name!r} is not a type of the active schema pack (types: {names})")
    return ptype


_URL = re.compile(r"https?://[^\s<>\]\)\"']+")


def _url_fields(ptype: PageType, text: str, fields: dict[str, Any]) -> str | None:
    """A type with a ``url`` field (a link) takes the URL from the thought when nothing else
    gave one; returns the title a link of that URL gets (None: no URL to take)."""
    from vaultbrain.filing.links import title_for_url

    if "url" not in ptype.fields:
        return None
    found = _URL.search(text)
    url = fields.get("url") or (found.group(0).rstrip(".,;:!?") if found else None)
    if not url:
        return None
    fields["url"] = url
    return title_for_url(str(url))


def _title_from(text: str) -> str:
    words = text.strip().split()
    title = " ".join(words[:8]).rstrip(".,;:!?")
    return title[:1].upper() + title[1:]


def _file_as(
    brain: Brain, cap: dict[str, Any], dests: list[Destination], by: str
) -> dict[str, Any]:
    """File a capture to ``dests`` as the person decided (confidence 1, classified by the person)."""
    result = Classification(dests, 1.0, f"decided by the person ({by})", "person")
    cap["classification_before"] = cap.get("classification")
    cap["classification"] = result.to_dict()
    cap["status"] = "pending"
    cap.pop("plan", None)
    cap.pop("last_error", None)
    brain.store.inbox.put(cap)
    filed = _file(brain, cap)
    filed["resolved_by"] = by
    brain.store.inbox.put(filed)
    before = Classification.from_dict(cap.get("classification_before") or {})
    wrong = [d.type for d in before.destinations if d.type not in {x.type for x in dests}]
    for d in dests:
        if wrong or not before.destinations:
            record_correction(
                brain.store,
                cap["text"],
                ",".join(wrong) or UNKNOWN,
                d.type,
                brain.now().isoformat(),
            )
    _audit(
        brain,
        "resolution",
        capture=cap["id"],
        decision=by,
        destinations=filed.get("destinations", []),
        before=cap.get("classification_before"),
    )
    return _finish(brain, filed)


# -- fix: re-file a record as another type -------------------------------------------------


def _find_record(brain: Brain, ref: str) -> tuple[str, dict[str, Any]]:
    for t in brain.pack.types:
        rec = brain.store.collection(t.store_collection).get(ref)
        if rec is not None:
            return t.store_collection, rec
    cap = brain.store.inbox.get(ref)
    if cap is not None:
        dests = [d for d in cap.get("destinations", []) if d.get("record_id")]
        if len(dests) == 1:
            return _find_record(brain, dests[0]["record_id"])
        if not dests:
            raise UserError(
                f"capture {ref} filed nothing; use `vaultbrain review resolve {ref} TYPE`"
            )
        listing = ", ".join(f"{d['record_id']} ({d['type']} {d['title']})" for d in dests)
        raise UserError(f"capture {ref} filed several records; fix one of them: {listing}")
    raise UserError(f"no record or capture {ref!r}")


def fix(brain: Brain, ref: str, type_name: str, note: str | None = None) -> dict[str, Any]:
    """Re-file record ``ref`` (or a capture's only record) as ``type_name``."""
    new_type = _fileable(brain, type_name)
    with brain.store.locked():
        collection, rec = _find_record(brain, ref)
        if rec["type"] == new_type.name:
            raise UserError(f"{rec['title']} is already a {new_type.name}")
        return refile(brain, collection, rec, new_type, by="cli", note=note)


def refile(
    brain: Brain,
    collection: str,
    rec: dict[str, Any],
    new_type: PageType,
    by: str,
    note: str | None = None,
    moved_from: str | None = None,
) -> dict[str, Any]:
    """The re-filing every correction shares (CLI fix, Needs Review, a type changed in a note).

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
    if parsed.error:
        raise UserError(f"{old_path}: {parsed.error}; fix the note first")
    now = brain.now().isoformat()
    index = brain.records()
    if keep_path:
        new_path = old_path
        old_note, parsed = settle_task_note(brain, old_path, old_note, parsed, new_type, None, True)
        new_rec = record_from_note(old_path, parsed, new_type, rec, old_note.hash)
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
        text = render_note(ordered_frontmatter(new_type, core, fields), body)
        text = retype_task_line(text, old_type, new_type, fields, brain.today())
        brain.vault.create(new_path, text)
        archived_path = _archive(
            brain,
            {"path": old_path, "record_id": rec["id"], "type": rec["type"]},
            reason=f"re-filed as {new_type.name}",
            replaced_by=new_path,
        )
        created = brain.vault.read(new_path)
        new_rec = record_from_note(new_path, parse_note(created.text), new_type, None, created.hash)
        new_rec["sources"] = list(rec.get("sources", []))
        new_rec["log"] = list(rec.get("log", []))
        new_rec["refiled_from"] = {"id": rec["id"], "type": rec["type"], "path": archived_path}
        brain.store.collection(new_type.store_collection).put(new_rec)
        index.upsert(new_type.store_collection, new_rec)
    rewritten = rewrite_links(brain, moved_from or old_path, new_path, new_rec["title"])
    at = brain.now().isoformat()
    for cid in rec.get("sources", []):
        cap = brain.store.inbox.get(cid)
        if cap is None:
            continue
        record_correction(brain.store, cap["text"], rec["type"], new_type.name, at)
        for d in cap.get("destinations", []):
            if d.get("record_id") == rec["id"] or d.get("path") in (old_path, moved_from):
                d.update(
                    {
                        "type": new_type.name,
                        "path": new_path,
                        "record_id": new_rec["id"],
                        "title": new_rec["title"],
                    }
                )
        cap["status"] = "corrected"
        cap["updated"] = at
        cap.setdefault("corrections", []).append(
            {"at": at, "from": rec["type"], "to": new_type.name, "by": by}
        )
        brain.store.inbox.put(cap)
        _finish(brain, cap)
    _audit(
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
    return new_rec


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


def _archive(
    brain: Brain, dest: dict[str, Any], reason: str, replaced_by: str | None = None
) -> str:
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
        brain.records().remove(ptype.store_collection, dest["record_id"])
    return target


def rewrite_links(brain: Brain, old_path: str, new_path: str, title: str) -> list[str]:
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
            _restore_base(brain, rel)
            changed.append(rel)
    return changed


__all__ = ["confirm", "dismiss", "fix", "refile", "resolve", "rewrite_links", "link_to"]
