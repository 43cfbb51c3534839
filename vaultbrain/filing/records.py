"""Record notes: how a record looks as a Markdown note, and how a note becomes a record.

The note is the person's; the store mirrors it. Core properties (``type``, ``id``, ``created``,
``updated``, and for captures ``source``, ``confidence``, ``classified_by``) come first,
then the type's fields in the pack's order.
"""

from __future__ import annotations

import re
import secrets
import string
from typing import Any

from vaultbrain.packs import PageType
from vaultbrain.resources import data_dir
from vaultbrain.vault.note import ParsedNote

CORE_KEYS = (
    "type",
    "id",
    "created",
    "updated",
    "source",
    "confidence",
    "classified_by",
    "confirmed",
)
PRIORITY_EMOJI = {"highest": "🔺", "high": "⏫", "medium": "🔼", "low": "🔽", "lowest": "⏬"}
_ALPHABET = string.ascii_lowercase + string.digits
_TASK_LINE = re.compile(r"^(\s*[-*] \[)(.)(\] .*)$", re.M)


def new_id(n: int = 10) -> str:
    return secrets.choice(string.ascii_lowercase) + "".join(
        secrets.choice(_ALPHABET) for _ in range(n - 1)
    )


def link_to(path: str, title: str) -> str:
    """An Obsidian wikilink to a note, by its path without ``.md``, showing the title."""
    target = path[:-3] if path.lower().endswith(".md") else path
    shown = title.replace("|", "-").replace("]", ")").replace("[", "(")
    return f"[[{target}|{shown}]]"


def block_link(inbox_note: str, capture_id: str, shown: str | None = None) -> str:
    target = inbox_note[:-3] if inbox_note.lower().endswith(".md") else inbox_note
    return f"[[{target}#^vb-{capture_id}|{shown}]]" if shown else f"[[{target}#^vb-{capture_id}]]"


def task_line(title: str, due: str | None, priority: str | None, done: bool = False) -> str:
    parts = [f"- [{'x' if done else ' '}] {title}"]
    if due:
        parts.append(f"📅 {due}")
    if priority and priority in PRIORITY_EMOJI:
        parts.append(PRIORITY_EMOJI[priority])
    return " ".join(parts)


def task_done(body: str) -> bool | None:
    """Whether the note's first Obsidian Tasks line is ticked; None when it has none."""
    m = _TASK_LINE.search(body)
    if not m:
        return None
    return m.group(2).lower() == "x"


def load_template(ptype: PageType) -> str:
    folder = data_dir("templates")
    for name in (ptype.template, f"{ptype.name}.md", "default.md"):
        if name and (folder / name).is_file():
            return (folder / name).read_text("utf-8")
    return "# {{title}}\n\n## Log\n{{log}}\n"


def render_body(ptype: PageType, title: str, fields: dict[str, Any], log_line: str) -> str:
    template = load_template(ptype)
    values = {
        "title": title,
        "log": log_line,
        "task": task_line(title, fields.get("due"), fields.get("priority"))
        if ptype.name == "admin"
        else "",
        "url": str(fields.get("url", "")),
    }
    return re.sub(r"\{\{\s*([a-z_]+)\s*\}\}", lambda m: values.get(m.group(1), ""), template)


def ordered_frontmatter(
    ptype: PageType, core: dict[str, Any], fields: dict[str, Any]
) -> dict[str, Any]:
    """Properties in a stable order: type, id, the type's fields, then provenance and times."""
    out: dict[str, Any] = {"type": core["type"], "id": core["id"]}
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


def record_from_note(
    rel: str, note: ParsedNote, ptype: PageType, existing: dict[str, Any] | None, note_hash: str
) -> dict[str, Any]:
    """The store's view of a note: its frontmatter, plus what only the store keeps."""
    data = note.data
    rec: dict[str, Any] = dict(existing or {})
    fields = {k: v for k, v in data.items() if k not in CORE_KEYS}
    if ptype.name == "admin":
        done = task_done(note.body)
        if done is True and fields.get("status") != "done":
            fields["status"] = "done"
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
    for key in ("confidence", "classified_by", "confirmed"):
        if key in data:
            rec[key] = data[key]
    rec.setdefault("sources", [])
    rec.setdefault("log", [])
    return rec


def save_link(app: Any, **kwargs: Any) -> dict[str, Any]:
    """Create or update the Links record for a URL (see :func:`vaultbrain.filing.links.save_link`)."""
    from vaultbrain.filing.links import save_link as _save_link

    return _save_link(app, **kwargs)
