"""What the graph learns from one note's text: its type, title, names, searchable text, date
and links, typed by the active pack's ``link_types`` and ``frontmatter_links``.

Pure functions of (path, text, pack): :mod:`vaultbrain.graph.index` stores what they return.
Links are kept by the name they were written with (a *key*: ``people/sarah`` for
``[[People/Sarah.md#Notes|Sarah]]``) and resolved when read, by Obsidian's rules (see
:mod:`vaultbrain.graph.index`), so a note created after the link was written is found
without re-reading the linking note.

Typing rules, per note of type T:
- each ``frontmatter_links`` entry with ``page_type`` T: every link in its ``fields`` is of
  its ``link_type``;
- each ``link_types[]`` with an ``inference`` whose ``page_type`` is T (or unset): with a
  ``regex``, group 1 of every match in the body names the target; without one, every link in
  the body is a candidate. Either way a ``target_type`` keeps only links whose target is of
  that type (checked when resolved, since the target may not exist yet).
Every wiki link is also kept untyped (link type ``""``): backlinks, whoknows and ``links``
read them.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.packs.linear import UnsupportedRegex, compile_pack_regex
from vaultbrain.packs.resolved import PageType, ResolvedPack
from vaultbrain.vault.note import ParsedNote, parse_note, simple_frontmatter

WIKILINK = re.compile(r"!?\[\[([^\]\|#\^\n]*)(?:[#\^][^\]\|\n]*)?(?:\|([^\]\n]*))?\]\]")
# Frontmatter keys that say nothing about what a note is about.
_QUIET_KEYS = frozenset(
    {"id", "type", "created", "updated", "source", "confidence", "classified_by", "tags_vb"}
)
_DATE_KEYS = ("updated", "last_interaction", "date", "created")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


@dataclass
class LinkRow:
    """One link out of a note: its verb (``""``: untyped), the target's key and where."""

    link_type: str
    key: str
    line: int
    origin: str  # body | frontmatter:<field> | regex
    need_type: str | None = None
    display: str | None = None


@dataclass
class NoteDoc:
    rel: str
    type: str | None
    title: str
    aliases: list[str]
    fields_text: str
    body: str
    day: int | None  # proleptic ordinal of the note's date (recency)
    own: bool  # a record note vaultbrain created (its frontmatter says so)
    links: list[LinkRow] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def link_key(target: str) -> str:
    """The key a link target is kept and resolved by: lower case, forward slashes, no
    ``.md``, no leading ``./`` or ``/``."""
    key = target.strip().replace("\\", "/").lower()
    key = key.removeprefix("./").lstrip("/")
    if key.endswith(".md"):
        key = key[:-3]
    return key.strip()


def note_key(rel: str) -> str:
    return link_key(rel)


def base_key(rel: str) -> str:
    return note_key(rel).rsplit("/", 1)[-1]


def is_own(data: dict[str, Any]) -> bool:
    """A record note vaultbrain made: an ``id`` and the marks of a capture or a `db add`."""
    return bool(data.get("id")) and ("source" in data or "classified_by" in data)


def links_in(value: Any) -> list[tuple[str, str | None]]:
    """(target, display) of every wiki link in a frontmatter value (string or list)."""
    out: list[tuple[str, str | None]] = []
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, str):
            found = WIKILINK.findall(item)
            if found:
                out.extend((t, d or None) for t, d in found if t.strip())
    return out


def _flatten(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(_flatten(v) for v in value)
    if isinstance(value, dict):
        return " ".join(_flatten(v) for v in value.values())
    if value is None or isinstance(value, bool):
        return ""
    return WIKILINK.sub(lambda m: m.group(2) or m.group(1), str(value))


def _day(data: dict[str, Any], mtime_ns: int | None) -> int | None:
    best: int | None = None
    for key in _DATE_KEYS:
        value = data.get(key)
        if isinstance(value, dt.date):
            d = value.toordinal()
        elif isinstance(value, str) and (m := _DATE.match(value)):
            try:
                d = dt.date(int(m[1]), int(m[2]), int(m[3])).toordinal()
            except ValueError:
                continue
        else:
            continue
        best = d if best is None else max(best, d)
    if best is None and mtime_ns:
        best = dt.date.fromtimestamp(mtime_ns / 1e9).toordinal()
    return best


_FENCE_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)


def _quick_parse(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter, body): the plain forms read directly; anything else goes through
    :func:`parse_note`, which knows every edge (invalid YAML, impossible dates, nesting too
    deep to read)."""
    start = 1 if text.startswith("\ufeff") else 0
    if text.startswith("---\n", start):
        m = _FENCE_END.search(text, start + 4)
        if m is not None:
            block = text[start + 4 : m.start()]
            data = simple_frontmatter(block[:-1] if block.endswith("\n") else block)
            if data is not None:
                end = text.find("\n", m.end())
                return data, "" if end < 0 else text[end + 1 :]
    parsed = parse_note(text)
    if parsed.error:
        return {}, text
    return parsed.data, parsed.body


def generated_keys(pack: ResolvedPack) -> set[str]:
    """The frontmatter properties vaultbrain writes to show typed links (never read back as
    links: they are what the links said, not what the person wrote)."""
    keys: set[str] = set()
    declared = {f for fl in pack.manifest.frontmatter_links for f in fl.fields}
    for lt in pack.manifest.link_types:
        keys.add(lt.name)
        if lt.inverse:
            keys.add(lt.inverse)
    return keys - declared


def read_note(
    rel: str,
    text: str,
    pack: ResolvedPack,
    mtime_ns: int | None = None,
    parsed: ParsedNote | None = None,
) -> NoteDoc:
    """Everything the graph keeps of one note (``parsed``: the note as the sync parsed it,
    so a note is parsed once)."""
    if parsed is not None and parsed.text == text:
        data = parsed.data if not parsed.error else {}
        body = parsed.body if not parsed.error else text
    else:
        data, body = _quick_parse(text)
    ptype = pack.infer_type(rel, data)
    title_key = ptype.title_key if ptype else "title"
    title = data.get(title_key) or data.get("title") or data.get("name")
    if not isinstance(title, str) or not title.strip():
        title = rel.rsplit("/", 1)[-1][:-3] if rel.lower().endswith(".md") else rel
    aliases = [a for a in (data.get("aliases") or []) if isinstance(a, str) and a.strip()]
    if isinstance(data.get("aliases"), str):
        aliases = [data["aliases"]]
    skip = _QUIET_KEYS | generated_keys(pack)
    fields_text = " ".join(
        f"{_flatten(v)}" for k, v in data.items() if k not in skip and k != title_key
    )
    doc = NoteDoc(
        rel,
        ptype.name if ptype else None,
        str(title).strip(),
        aliases,
        fields_text.strip(),
        body,
        _day(data, mtime_ns),
        is_own(data),
        data=data,
    )
    doc.links = infer_links(data, body, ptype, pack, skip)
    return doc


def infer_links(
    data: dict[str, Any],
    body: str,
    ptype: PageType | None,
    pack: ResolvedPack,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[LinkRow]:
    """Every link of a note: untyped wiki links, then the typed ones the pack's rules yield."""
    rows: list[LinkRow] = []
    m = pack.manifest
    type_name = ptype.name if ptype else None
    # frontmatter: every link is a link; declared fields also carry their verb
    fm_verbs: dict[str, list[str]] = {}
    for fl in m.frontmatter_links:
        if fl.page_type == type_name:
            for f in fl.fields:
                fm_verbs.setdefault(f, []).append(fl.link_type)
    for key, value in data.items():
        if key in skip and key not in fm_verbs:
            continue
        for target, display in links_in(value):
            k = link_key(target)
            rows.append(LinkRow("", k, 0, f"frontmatter:{key}", None, display))
            for verb in fm_verbs.get(key, ()):
                rows.append(
                    LinkRow(verb, k, 0, f"frontmatter:{key}", _target_type(pack, verb), display)
                )
    lines = body.split("\n")
    body_links: list[tuple[str, int, str | None]] = []
    for i, line in enumerate(lines, 1):
        if "[[" not in line:
            continue
        for mt in WIKILINK.finditer(line):
            if mt.group(1).strip():
                body_links.append((link_key(mt.group(1)), i, mt.group(2) or None))
    for key, line_no, display in body_links:
        rows.append(LinkRow("", key, line_no, "body", None, display))
    for lt in m.link_types:
        inf = lt.inference
        if inf is None or (inf.page_type and inf.page_type != type_name):
            continue
        if inf.regex:
            try:
                rx = compile_pack_regex(inf.regex, ignore_case=True)
            except UnsupportedRegex:  # (`schema lint` says why)
                continue
            for i, line in enumerate(lines, 1):
                for mt in rx.finditer(line):
                    found = mt.group(1) if mt.groups() else None
                    if found and found.strip():
                        rows.append(LinkRow(lt.name, link_key(found), i, "regex", inf.target_type))
        elif inf.page_type and inf.target_type:
            # No regex: every link in the body to a note of the target type is of this verb.
            for key, line_no, display in body_links:
                rows.append(LinkRow(lt.name, key, line_no, "body", inf.target_type, display))
    return _dedupe(rows)


def _target_type(pack: ResolvedPack, verb: str) -> str | None:
    for lt in pack.manifest.link_types:
        if lt.name == verb and lt.inference is not None:
            return lt.inference.target_type
    return None


def _dedupe(rows: list[LinkRow]) -> list[LinkRow]:
    seen: set[tuple[str, str, int]] = set()
    out = []
    for r in rows:
        k = (r.link_type, r.key, r.line)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out
