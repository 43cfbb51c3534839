"""Saved links: a bare-URL capture, or the link a YouTube ingest always records."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vaultbrain.errors import ConflictError, UserError
from vaultbrain.filing.records import new_id, record_from_note
from vaultbrain.filing.style import machine_values, note_changes, record_properties, style_of
from vaultbrain.vault.names import sanitize_filename, unique_name
from vaultbrain.vault.note import append_to_section, parse_note, render_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

BARE_URL = re.compile(r"^<?(https?://[^\s<>]+)>?$")


def bare_url(text: str) -> str | None:
    m = BARE_URL.match(text.strip())
    return m.group(1) if m else None


def title_for_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.removeprefix("www.")
    path = parts.path.strip("/")
    if path:
        last = path.rsplit("/", 1)[-1]
        last = re.sub(r"\.(html?|php|aspx?)$", "", last)
        last = re.sub(r"[-_+]+", " ", last).strip()
        if last:
            return f"{host} - {last}"[:120]
    return host or url[:120]


def find_link(brain: Brain, url: str) -> dict[str, Any] | None:
    ptype = brain.pack.get_type("link")
    if ptype is None:
        return None
    for rec in brain.store.collection(ptype.store_collection).all():
        if (rec.get("fields") or {}).get("url") == url:
            return rec
    return None


def save_link(
    brain: Brain,
    *,
    url: str,
    title: str,
    fields: dict[str, Any] | None = None,
    tags: list[str] | None = None,
    body: str | None = None,
    source: str | None = None,
) -> dict[str, Any]:
    """Create or update the Links note and record for ``url``; returns the record."""
    ptype = brain.pack.get_type("link")
    if ptype is None:
        raise UserError("the active schema pack has no `link` type to save links in")
    vault = brain.vault
    col = brain.store.collection(ptype.store_collection)
    now = brain.now().isoformat()
    wanted = {"url": url, **(fields or {})}
    if tags:
        wanted["tags"] = list(dict.fromkeys(tags))
    style = style_of(brain)
    with brain.store.locked():
        existing = find_link(brain, url)
        if existing and vault.try_read(existing["path"]) is not None:
            for _ in range(20):
                note = vault.read(existing["path"])
                parsed = parse_note(note.text)
                if parsed.error:
                    raise UserError(f"{existing['path']}: {parsed.error}")
                changes: dict[str, Any] = {"updated": now}
                for k, v in wanted.items():
                    cur = parsed.data.get(k)
                    if isinstance(v, list):
                        cur_list = cur if isinstance(cur, list) else ([cur] if cur else [])
                        merged = cur_list + [x for x in v if x not in cur_list]
                        if merged != cur_list:
                            changes[k] = merged
                    elif cur in (None, ""):
                        changes[k] = v
                text = update_frontmatter(note.text, note_changes(style, parsed.data, changes))
                if source and source not in text:
                    text = append_to_section(text, "## Log", f"- {now[:10]} saved again ({source})")
                try:
                    vault.replace(existing["path"], text, note.hash)
                    break
                except ConflictError:
                    continue
            note = vault.read(existing["path"])
            rec = record_from_note(note.rel, parse_note(note.text), ptype, existing, note.hash)
            col.put(rec)
            return rec
        rid = new_id()
        folder = ptype.folder
        name = unique_name(
            sanitize_filename(title), lambda n: vault.try_read(f"{folder}/{n}") is not None
        )
        rel = f"{folder}/{name}"
        wanted[ptype.title_key] = title
        core = {"type": ptype.name, "id": rid, "source": source, "created": now, "updated": now}
        log_line = f"- {now[:10]} saved" + (f" ({source})" if source else "")
        head = f"# {_plain(title)}\n\n" if style.h1 else ""
        text_body = f"{head}<{url}>\n\n" + (f"{body.rstrip()}\n\n" if body else "")
        text_body += f"## Log\n{log_line}\n"
        vault.create(rel, render_note(record_properties(style, ptype, core, wanted), text_body))
        note = vault.read(rel)
        machine = machine_values(core)
        rec = record_from_note(rel, parse_note(note.text), ptype, None, note.hash, machine)
        col.put(rec)
        return rec


def _plain(text: str) -> str:
    """A title as a heading that makes no links, tags, comments or embeds of its own."""
    text = " ".join(text.split())
    for ch in "[]#%|^":
        text = text.replace(ch, "\\" + ch)
    return text.replace("<", "&lt;")
