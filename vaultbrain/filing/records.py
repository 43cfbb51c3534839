"""Record notes: how a record looks as a Markdown note, and how a note becomes a record.

The note is the person's; the store mirrors it. In the full style (``note_style: full``,
:mod:`vaultbrain.filing.style`) core properties (``type``, ``id``, the type's fields in the
pack's order, then ``source``, ``confidence``, ``classified_by``, ``confirmed``,
``created``, ``updated``); the minimal style leaves the machine keys to the store.

A type with a ``tasks:`` block has one Obsidian Tasks line that always agrees with its
frontmatter: :mod:`vaultbrain.filing.tasknote` (its names are importable from here too).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vaultbrain.filing.tasknote import (
    LINE_ONLY,
    PRIORITY_EMOJI,
    _open_like,
    _status_symbol,
    _status_value,
    close_task,
    new_task_line,
    retype_task_line,
    settle_fields,
    settle_note,
    settle_task_note,
    sync_task_line,
    task_done,
    task_line,
    tasks_spec,
)
from vaultbrain.filing.tasknote import _current as _current_task
from vaultbrain.ids import new_id  # (filing's callers take it from here)
from vaultbrain.packs import PageType
from vaultbrain.resources import data_dir
from vaultbrain.vault import tasks as tk
from vaultbrain.vault.note import ParsedNote, Text, parse_note, update_frontmatter
from vaultbrain.vault.tags import merge_tags

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

__all__ = [
    "CORE_KEYS",
    "LINE_ONLY",
    "MACHINE_KEYS",
    "PRIORITY_EMOJI",
    "STORE_KEYS",
    "block_link",
    "close_task",
    "fields_into_note",
    "link_to",
    "load_template",
    "new_id",
    "new_task_line",
    "note_changes",
    "ordered_frontmatter",
    "record_from_note",
    "render_body",
    "retype_task_line",
    "settle_fields",
    "settle_note",
    "settle_task_note",
    "sync_task_line",
    "task_done",
    "task_line",
    "tasks_spec",
    "typed_values",
]

CORE_KEYS = (
    "type",
    "subtype",
    "id",
    "created",
    "updated",
    "source",
    "confidence",
    "classified_by",
    "confirmed",
    "suggested",
)


def link_to(path: str, title: str) -> str:
    """An Obsidian wikilink to a note, by its path without ``.md``, showing the title."""
    target = path[:-3] if path.lower().endswith(".md") else path
    shown = title.replace("|", "-").replace("]", ")").replace("[", "(")
    return f"[[{target}|{shown}]]"


def block_link(inbox_note: str, capture_id: str, shown: str | None = None) -> str:
    target = inbox_note[:-3] if inbox_note.lower().endswith(".md") else inbox_note
    return f"[[{target}#^vb-{capture_id}|{shown}]]" if shown else f"[[{target}#^vb-{capture_id}]]"


def load_template(ptype: PageType) -> str:
    folder = data_dir("templates")
    for name in (ptype.template, f"{ptype.name}.md", "default.md"):
        if name and (folder / name).is_file():
            return (folder / name).read_text("utf-8")
    return "# {{title}}\n\n## Log\n{{log}}\n"


def render_body(
    ptype: PageType,
    title: str,
    fields: dict[str, Any],
    log_line: str,
    line_fields: dict[str, Any] | None = None,
) -> str:
    """A new note's body from the type's template (``line_fields``: see :func:`new_task_line`;
    the note's look, H1 or not, is :mod:`vaultbrain.filing.style`'s)."""
    template = load_template(ptype)
    values = {
        "title": title,
        "log": log_line,
        "task": new_task_line(ptype, title, fields, line_fields=line_fields),
        "url": str(fields.get("url", "")),
    }
    return re.sub(r"\{\{\s*([a-z_]+)\s*\}\}", lambda m: values.get(m.group(1), ""), template)


_TEXT_TYPES = ("text", "enum", "link")


def typed_values(ptype: PageType | None, fields: dict[str, Any]) -> dict[str, Any]:
    """Values as they must be written to keep their type in Obsidian, Dataview and PyYAML:
    a text field's value (or a list item) that looks like a date stays text, and ``tags``
    are normalised (:mod:`vaultbrain.vault.tags`)."""
    out: dict[str, Any] = {}
    specs = ptype.fields if ptype is not None else {}
    for name, value in fields.items():
        spec = specs.get(name)
        if name == "tags" and isinstance(value, list | str):
            out[name] = merge_tags(value)
        elif spec is not None and spec.type in _TEXT_TYPES and isinstance(value, str):
            out[name] = Text(value)
        elif spec is not None and spec.type in ("list", "links") and isinstance(value, list):
            out[name] = [Text(v) if isinstance(v, str) else v for v in value]
        else:
            out[name] = value
    return out


def ordered_frontmatter(
    ptype: PageType, core: dict[str, Any], fields: dict[str, Any], rel: str | None = None
) -> dict[str, Any]:
    """Properties in a stable order: type (and the subtype the pack's ``subtypes:`` give the
    note at ``rel``), id, the type's fields, then provenance and times."""
    fields = typed_values(ptype, fields)
    out: dict[str, Any] = {"type": core["type"]}
    subtype = ptype.subtype_for(rel, fields) if rel is not None and ptype.subtypes else None
    if subtype is not None:
        out["subtype"] = subtype
    out["id"] = core["id"]
    for name in ptype.fields:
        if name in fields and fields[name] not in (None, ""):
            out[name] = fields[name]
    for name, value in fields.items():
        if name not in out and value not in (None, ""):
            out[name] = value
    for key in ("source", "confidence", "classified_by", "confirmed", "created", "updated"):
        if key in core and core[key] is not None:
            out[key] = core[key]
    return out


# The keys vaultbrain manages that a note may or may not carry (note_style, filing/style.py):
# the store keeps them whatever the note shows.
STORE_KEYS = ("confidence", "classified_by", "confirmed")
MACHINE_KEYS = ("source", "confidence", "classified_by", "confirmed", "updated")


def note_changes(full: bool, current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` as they may be written into a note whose Properties are ``current``: a
    machine key goes only where the note has it, unless the style is full."""
    if full:
        return dict(changes)
    return {k: v for k, v in changes.items() if k not in MACHINE_KEYS or k in current}


def record_from_note(
    rel: str,
    note: ParsedNote,
    ptype: PageType,
    existing: dict[str, Any] | None,
    note_hash: str,
    machine: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The store's view of a note: its frontmatter, plus what only the store keeps.

    The store and the note agree on every property the note carries. For the machine keys
    (``confidence``, ``classified_by``, ``confirmed``), which a minimal note leaves to the
    store: a key the note carries is the note's value; a key the note carried at the last
    read and no longer does was dropped (a confirmation, the person's edit) and goes from
    the store too; a key the note never carried keeps the store's value. ``machine``: the
    values vaultbrain is giving the record now (a note it creates, a confirmation), which
    win over what the store had; a note given them is one vaultbrain made (``made``)."""
    data = note.data
    rec: dict[str, Any] = dict(existing or {})
    fields = {k: v for k, v in data.items() if k not in CORE_KEYS}
    spec = tasks_spec(ptype)
    if spec is not None and spec.status and not note.error:
        # Read the line even when its agreement could not be written (a read-only vault).
        group = tk.task_group(tk.find_task_lines(note.body.splitlines()))
        current = _current_task(group)
        if current is not None and current.task.is_closed:
            value = _status_value(spec, current.task.status, fields.get(spec.status))
            if value is not None:
                fields[spec.status] = value
    title = fields.get(ptype.title_key) or rec.get("title") or rel.rsplit("/", 1)[-1][:-3]
    aliases = fields.get("aliases") or []
    rec.update(
        {
            "id": str(data.get("id") or rec.get("id")),
            "type": ptype.name,
            "title": str(title),
            "aliases": [str(a) for a in aliases] if isinstance(aliases, list) else [str(aliases)],
            "path": rel,
            "fields": fields,
            "created": str(data.get("created") or rec.get("created") or ""),
            "updated": str(data.get("updated") or rec.get("updated") or ""),
            "base_hash": note_hash,
            "deleted": False,
        }
    )
    # A record from before note_style knew no note_keys: its note carried every machine key.
    carried = set(rec.get("note_keys", STORE_KEYS if existing else ()))
    if "subtype" in data:  # the note says it (the pack's subtypes: wrote it)
        rec["subtype"] = data["subtype"]
    else:
        rec.pop("subtype", None)
    for key in STORE_KEYS:
        if key in data:
            rec[key] = data[key]
        elif key in carried:
            rec.pop(key, None)
    for key, value in (machine or {}).items():
        if key in STORE_KEYS or key in ("source", "updated"):
            if value is None:
                rec.pop(key, None)
            else:
                rec[key] = value
    if machine is not None:
        rec["made"] = True
    rec["note_keys"] = [k for k in STORE_KEYS if k in data]
    rec.setdefault("sources", [])
    rec.setdefault("log", [])
    return rec


def fields_into_note(brain: Brain, type_name: str, text: str, changes: dict[str, Any]) -> str:
    """What sync's export writes: the frontmatter ``changes`` and the Tasks line that shows
    them (a reopened task loses its completion date). A machine key (``updated`` …) goes
    only into a note that has it, unless the vault's ``note_style`` is full."""
    ptype = brain.pack.get_type(type_name)
    full = str(brain.settings.get("note_style")) == "full"
    current = parse_note(text).data
    changes = note_changes(full, current, changes)
    text = sync_task_line(text, ptype, changes, brain.today())
    spec = tasks_spec(ptype)
    remove: tuple[str, ...] = ()
    if spec is not None and spec.status and spec.completed and spec.completed not in changes:
        if spec.status in changes and _open_like(_status_symbol(spec, changes[spec.status])):
            remove = (spec.completed,)
    return update_frontmatter(text, typed_values(ptype, changes), remove)
