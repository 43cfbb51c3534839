"""Records by hand: list, show, add, update, delete (the ``db`` commands' core).

A value for a ``link``/``links`` field that names a note of the vault (its file name or an
alias, any case) is written as a link to it (``[[People/José Ñúñez|José Ñúñez]]``), so
Dataview and ``vaultbrain links`` see the link; a name no note has stays text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing.index import records
from vaultbrain.filing.names import free_path, names_to_links
from vaultbrain.filing.records import new_id, record_from_note, settle_fields
from vaultbrain.filing.style import machine_values, record_note, style_of
from vaultbrain.filing.sync import notes_sync
from vaultbrain.packs import PageType
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def resolve_type(brain: Brain, name: str) -> PageType:
    ptype = brain.pack.get_type(name)
    if ptype is None:
        names = ", ".join(t.name for t in brain.pack.types)
        raise UserError(f"the active schema pack has no type {name!r} (it has: {names})")
    return ptype


def coerce_fields(
    ptype: PageType, values: dict[str, str], brain: Brain | None = None
) -> dict[str, Any]:
    """``--set`` values checked against the type's fields; a bad one is a UserError.
    With ``brain``, names in link fields become links to the notes they name
    (:func:`names_to_links`)."""
    out: dict[str, Any] = {}
    for key, raw in values.items():
        spec = ptype.fields.get(key)
        if spec is None:
            known = ", ".join(ptype.fields)
            raise UserError(f"{ptype.name} has no field {key!r} (its fields: {known})")
        value: Any = raw
        if spec.type in ("list", "links"):
            value = [v.strip() for v in raw.split(",") if v.strip()] if raw else []
        elif spec.type == "checkbox":
            value = raw.strip().lower() in ("1", "true", "yes", "on", "x")
        elif spec.type == "number":
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw
        ok, coerced = spec.coerce(value)
        if not ok and raw != "":
            hint = f" (one of {', '.join(spec.values or [])})" if spec.type == "enum" else ""
            raise UserError(f"{ptype.name}.{key}: {raw!r} is not a valid {spec.type}{hint}")
        out[key] = coerced if ok else None
    return names_to_links(brain, ptype, out) if brain is not None else out


def find_record(brain: Brain, ptype: PageType, ref: str) -> dict[str, Any]:
    col = brain.store.collection(ptype.store_collection)
    rec = col.get(ref) if _looks_like_id(ref) else None
    if rec is None:
        low = ref.strip().lower()
        for s in col.summaries():
            names = [str(s.get("title", "")).lower()] + [a.lower() for a in s.get("aliases", [])]
            if low in names:
                rec = col.get(s["id"])
                break
    if rec is None:
        raise UserError(f"no {ptype.name} {ref!r}; `vaultbrain db list {ptype.name}` lists them")
    return rec


def _looks_like_id(ref: str) -> bool:
    from vaultbrain.store import validate_id

    try:
        validate_id(ref)
        return True
    except UserError:
        return False


def list_records(brain: Brain, type_name: str) -> list[dict[str, Any]]:
    ptype = resolve_type(brain, type_name)
    rows = list(brain.store.collection(ptype.store_collection).all())
    rows.sort(key=lambda r: str(r.get("title", "")).lower())
    return rows


def add_record(brain: Brain, type_name: str, values: dict[str, str]) -> dict[str, Any]:
    ptype = resolve_type(brain, type_name)
    fields = {k: v for k, v in coerce_fields(ptype, values, brain).items() if v is not None}
    title = fields.get(ptype.title_key) or values.get("title") or values.get("name")
    if not title:
        raise UserError(f"give the {ptype.name} a {ptype.title_key}: --set {ptype.title_key}=…")
    for name, spec in ptype.fields.items():
        if spec.default is not None:
            fields.setdefault(name, spec.default)
        if spec.required and name not in fields and name != ptype.title_key:
            raise UserError(f"{ptype.name}.{name} is required: --set {name}=…")
    index = records(brain)
    with brain.store.locked():
        index.refresh(force=True)
        if index.find(ptype.name, str(title)):
            raise UserError(f"a {ptype.name} named {title!r} exists; use `db update`")
        rel = free_path(brain, ptype, str(title))
        now = brain.now().isoformat()
        core = {"type": ptype.name, "id": new_id(), "created": now, "updated": now}
        log = f"- {now[:10]} added by hand"
        text = record_note(style_of(brain), ptype, core, fields, str(title), log, rel=rel)
        brain.vault.create(rel, text)
        note = brain.vault.read(rel)
        col = brain.store.collection(ptype.store_collection)
        parsed = parse_note(note.text)
        rec = record_from_note(rel, parsed, ptype, None, note.hash, machine_values(core))
        col.put(rec)
        index.upsert(ptype.store_collection, rec)
        notes_sync(brain).sync_path(rel)
        return col.get(rec["id"]) or rec


def update_record(brain: Brain, type_name: str, ref: str, values: dict[str, str]) -> dict[str, Any]:
    ptype = resolve_type(brain, type_name)
    fields = coerce_fields(ptype, values, brain)
    sync = notes_sync(brain)
    with brain.store.locked():
        rec = find_record(brain, ptype, ref)
        sync.sync_path(rec["path"])  # take in the person's latest edit first
        now = brain.store.collection(ptype.store_collection).get(rec["id"])
        if now is None:
            raise UserError(f"the {ptype.name} {ref!r} was deleted in the vault")
        rec = now
        new_fields = dict(rec.get("fields", {}))
        for k, v in fields.items():
            if v is None:
                new_fields.pop(k, None)
            else:
                new_fields[k] = v
        rec["fields"] = settle_fields(ptype, rec.get("fields", {}), new_fields, brain.today())
        rec["store_dirty"] = True
        brain.store.collection(ptype.store_collection).put(rec)
        if not sync.export(ptype.store_collection, rec):
            raise UserError(
                f"{rec['path']} changed while it was being updated; nothing was overwritten "
                "and the conflict is listed in Brain/Needs Review.md"
            )
        return brain.store.collection(ptype.store_collection).get(rec["id"]) or rec


def delete_record(brain: Brain, type_name: str, ref: str) -> dict[str, Any]:
    """Move the note to the state dir's ``trash/`` (recoverable) and tombstone the record.

    Refused when another live record is on the same path (a copied note, a stale record):
    deleting the stale one must not trash the note the other one is.
    """
    ptype = resolve_type(brain, type_name)
    with brain.store.locked():
        rec = find_record(brain, ptype, ref)
        others = _others_on_path(brain, rec)
        if others:
            raise UserError(
                f"{rec['path']} is also the note of record {', '.join(others)}; "
                f"not deleting {rec['id']} (`vaultbrain doctor` lists records that share a path)"
            )
        vault = brain.vault
        if vault.try_read(rec["path"]) is not None:
            rec["trashed_to"] = vault.trash(rec["path"], brain.today().isoformat())
        rec["deleted"] = True
        rec["deleted_at"] = brain.now().isoformat()
        brain.store.collection(ptype.store_collection).put(rec)
        brain.store.audit(
            {
                "at": rec["deleted_at"],
                "kind": "sync",
                "decision": "delete",
                "record": rec["id"],
                "type": ptype.name,
                "path": rec["path"],
                "by": "cli",
            }
        )
        return rec


def _others_on_path(brain: Brain, rec: dict[str, Any]) -> list[str]:
    """Ids of the other live records whose note is ``rec``'s path (any collection)."""
    from vaultbrain.filing.index import collections_of

    path = str(rec.get("path") or "").lower()
    if not path:
        return []
    found = []
    for name in collections_of(brain.pack, list(brain.folder_packs)):
        for s in brain.store.collection(name).summaries():
            if str(s.get("path") or "").lower() == path and s["id"] != rec["id"]:
                found.append(s["id"])
    return found
