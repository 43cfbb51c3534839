"""How a record note vaultbrain makes looks: ``note_style`` minimal (the default) or full.

A person who opens a note vaultbrain made should see what they would have written: with
``minimal`` the Properties are ``type``, the type's fields that have a value (in the pack's
order), ``created``, and ``id`` last; with ``full`` (the notes of earlier versions) also
``source``, ``confidence``, ``classified_by``, ``confirmed`` and ``updated``. Those machine
keys (:data:`MACHINE_KEYS`) are the store's either way: :func:`machine_values` gives them to
the record (``record_from_note(..., machine=…)``), Trust, Needs Review and ``db show`` read
them there, and a note that does not carry one never loses it in the store.

``id`` stays on every note vaultbrain creates. The store keeps what the note leaves out by
the record's id, and the id is what lets the record follow its note when the person renames
and edits it at once (a note without one is known by its path and content: a rename plus an
edit would start a new record and lose the machine keys). Hand-made notes get one only when
asked (``vaultbrain adopt``).

The H1 that repeats the title is left out when Obsidian shows the title above the note
(``showInlineTitle`` in ``.obsidian/app.json``, on unless turned off) and the style is
minimal. A style change rewrites nothing by itself: ``vaultbrain restyle``
(:mod:`vaultbrain.filing.restyle`) does, on request.

What the capture pipeline calls: :func:`style_of` once per unit of work,
:func:`record_note` to render a new record note, :func:`machine_values` for the store,
:func:`note_changes` on the changes it writes into an existing note (so an update never adds
``updated`` to a minimal note). A note a suggestion created carries ``suggested: true`` in
every style (full also keeps ``confirmed: false``); a confirmed suggestion's note loses both,
whatever its style (vaultbrain/capture/resolution.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.filing.records import MACHINE_KEYS, ordered_frontmatter, render_body, typed_values
from vaultbrain.filing.records import note_changes as _note_changes
from vaultbrain.packs import PageType
from vaultbrain.vault.note import render_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

STYLES = ("minimal", "full")
_MAX_CONFIG = 1_000_000


@dataclass(frozen=True)
class NoteStyle:
    """The look of new record notes: ``name`` (minimal | full) and whether Obsidian shows
    inline titles in this vault."""

    name: str = "minimal"
    inline_title: bool = True

    @property
    def full(self) -> bool:
        return self.name == "full"

    @property
    def h1(self) -> bool:
        """Whether a note starts with ``# Title``."""
        return self.full or not self.inline_title


def inline_title_shown(root: Path, config_dir: str = ".obsidian") -> bool:
    """Obsidian's "Show inline title" (``showInlineTitle`` in ``app.json``); on by default,
    and when the file is missing or unreadable."""
    path = root / config_dir / "app.json"
    try:
        if path.stat().st_size > _MAX_CONFIG:
            return True
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return True
    value = data.get("showInlineTitle") if isinstance(data, dict) else None
    return value is not False


def style_of(brain: Brain) -> NoteStyle:
    """The vault's note style now (the ``note_style`` setting and Obsidian's inline title)."""
    name = str(brain.settings.get("note_style") or "minimal")
    return NoteStyle(name if name in STYLES else "minimal", inline_title_shown(brain.vault.root))


def record_properties(
    style: NoteStyle,
    ptype: PageType,
    core: Mapping[str, Any],
    fields: dict[str, Any],
    rel: str | None = None,
) -> dict[str, Any]:
    """A new record note's Properties, in order. ``core``: ``type``, ``id``, ``created`` and
    the machine keys (None: none); ``fields``: the type's values; ``rel``: where the note
    is (the pack's ``subtypes:`` may give it a subtype by its path)."""
    if style.full:
        return _marked(ordered_frontmatter(ptype, dict(core), fields, rel), core)
    typed = typed_values(ptype, fields)
    out: dict[str, Any] = {"type": core["type"]}
    subtype = ptype.subtype_for(rel, typed) if rel is not None and ptype.subtypes else None
    if subtype is not None:
        out["subtype"] = subtype
    for name in ptype.fields:
        if name in typed and typed[name] not in (None, "", []):
            out[name] = typed[name]
    for name, value in typed.items():
        if name not in out and value not in (None, "", []) and name not in MACHINE_KEYS:
            out[name] = value
    if core.get("created") is not None:
        out["created"] = core["created"]
    return _marked(out, core) | {"id": core["id"]}


SUGGESTED = "suggested"


def _marked(props: dict[str, Any], core: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` with ``suggested: true`` when the note is a suggestion's (``confirmed`` is
    False in ``core``): in every style, so a Dataview query (``WHERE suggested``) or a
    search tells a guess from a fact. Confirmation removes it (capture/resolution.py)."""
    if core.get("confirmed") is False:
        props[SUGGESTED] = True
    return props


def record_body(
    style: NoteStyle,
    ptype: PageType,
    title: str,
    fields: dict[str, Any],
    log_line: str,
    line_fields: dict[str, Any] | None = None,
) -> str:
    """A new record note's body from the type's template, without its ``# {{title}}`` line
    when the style has no H1."""
    body = render_body(ptype, title, fields, log_line, line_fields)
    return body if style.h1 else drop_title_heading(body, title)


def record_note(
    style: NoteStyle,
    ptype: PageType,
    core: Mapping[str, Any],
    fields: dict[str, Any],
    title: str,
    log_line: str,
    line_fields: dict[str, Any] | None = None,
    rel: str | None = None,
) -> str:
    """A new record note's whole text."""
    return render_note(
        record_properties(style, ptype, core, fields, rel),
        record_body(style, ptype, title, fields, log_line, line_fields),
    )


def machine_values(core: Mapping[str, Any]) -> dict[str, Any]:
    """What the store keeps of a new note's machine keys (those with a value)."""
    return {k: core[k] for k in MACHINE_KEYS if core.get(k) is not None}


def note_changes(
    style: NoteStyle, current: Mapping[str, Any], changes: Mapping[str, Any]
) -> dict[str, Any]:
    """``changes`` as they may be written into a note whose Properties are ``current``: a
    machine key the style leaves out is written only where the note already has it."""
    return _note_changes(style.full, dict(current), dict(changes))


def drop_title_heading(body: str, title: str) -> str:
    """``body`` without a first line ``# <title>`` (and the blank line after it)."""
    lines = body.splitlines(keepends=True)
    if not lines:
        return body
    first = lines[0].rstrip("\r\n")
    if not re.fullmatch(r"#[ \t]+.*", first):
        return body
    if _heading_text(first) != " ".join(str(title).split()):
        return body
    rest = lines[1:]
    if rest and not rest[0].strip():
        rest = rest[1:]
    return "".join(rest)


def _heading_text(line: str) -> str:
    text = line.lstrip("#").strip()
    return " ".join(re.sub(r"\\([\[\]#%|^])", r"\1", text).split())


__all__ = [
    "MACHINE_KEYS",
    "SUGGESTED",
    "NoteStyle",
    "drop_title_heading",
    "inline_title_shown",
    "machine_values",
    "note_changes",
    "record_body",
    "record_note",
    "record_properties",
    "style_of",
]
