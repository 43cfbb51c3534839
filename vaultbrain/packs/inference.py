"""What a kind's notes suggest of its type: the fields their properties make (typed by their
values) and the primitive (temporal, media, entity, annotation, concept)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from vaultbrain.packs.naming import ascii_fold, name_words
from vaultbrain.packs.signs import FIELD_KEY, NAME_DATE, RESERVED_KEYS, SHARED
from vaultbrain.packs.survey import NoteTyping

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
_LINK = re.compile(r"^\[\[[^\]]+\]\]$")
_KEYWORDS: dict[str, tuple[str, ...]] = {
    "entity": tuple(
        "people person contact compan org client customer place team author vendor investor".split()
    ),
    "media": tuple(
        "reading book article clipping paper podcast video movie film music readwise bookmark "
        "course literature".split()
    ),
    "annotation": tuple("review comment annotation highlight feedback".split()),
    "concept": tuple("idea concept topic note zettel permanent wiki knowledge".split()),
}


def guess_primitive(name: str, notes: list[NoteTyping], fields: dict[str, Any]) -> tuple[str, str]:
    """A primitive from the notes (named by date: temporal), their properties, or the words
    of ``name`` (a folder or the vault's own name of the kind). A time-based type needs dated
    names or date properties: a word such as "log" or "journal" alone is no evidence."""
    dated = sum(1 for n in notes if NAME_DATE.search(n.title))
    if notes and dated / len(notes) >= SHARED:
        return "temporal", f"{dated} of {len(notes)} notes are named by date"
    words = [ascii_fold(w) for w in name_words(name.replace("/", " "))]
    for primitive, stems in _KEYWORDS.items():
        for stem in stems:
            if any(w.startswith(stem) for w in words):
                return primitive, f"the name suggests {primitive} ({stem!r})"
    keys = set(fields)
    if keys & {"url", "author", "isbn", "link"}:
        return "media", "its notes carry url/author properties"
    if keys & {"start", "due", "when", "date"}:
        return "temporal", "its notes carry dates"
    return "concept", "no stronger signal; concept is the neutral choice"


def infer_fields(notes: list[NoteTyping], share: float = 0.5) -> dict[str, dict[str, Any]]:
    """Fields from the frontmatter keys at least ``share`` of the notes have, typed by value."""
    values: dict[str, list[Any]] = {}
    for n in notes:
        for key, value in n.data.items():
            if isinstance(key, str) and key not in RESERVED_KEYS and FIELD_KEY.match(key):
                values.setdefault(key, []).append(value)
    out: dict[str, dict[str, Any]] = {"title": {"type": "text", "required": True}}
    need = max(1, int(len(notes) * share + 0.999))
    for key in sorted(values, key=lambda k: (-len(values[k]), k)):
        if len(values[key]) >= need:
            out[key] = _field_type(values[key])
    return out


def _field_type(vals: list[Any]) -> dict[str, Any]:
    present = [v for v in vals if v is not None and v != ""]
    if not present:
        return {"type": "text"}
    if all(isinstance(v, bool) for v in present):
        return {"type": "checkbox"}
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return {"type": "number"}
    if all(
        isinstance(v, dt.datetime) or (isinstance(v, str) and _DATETIME.match(v)) for v in present
    ):
        return {"type": "datetime"}
    if all(isinstance(v, dt.date) or (isinstance(v, str) and _DATE.match(v)) for v in present):
        return {"type": "date"}
    if all(isinstance(v, list) for v in present):
        items = [i for v in present for i in v]
        if items and all(isinstance(i, str) and _LINK.match(i.strip()) for i in items):
            return {"type": "links"}
        return {"type": "list"}
    if all(isinstance(v, str) for v in present):
        if all(_LINK.match(v.strip()) for v in present):
            return {"type": "link"}
        distinct = sorted({v.strip() for v in present})
        if (
            1 < len(distinct) <= 6
            and len(present) >= 2 * len(distinct)
            and all(len(v) <= 30 for v in distinct)
        ):
            return {"type": "enum", "values": distinct}
    return {"type": "text"}
