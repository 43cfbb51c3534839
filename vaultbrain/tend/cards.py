"""One walk over the pack's record folders: each note as a :class:`Card`, what the tending
phases need of it (its title, aliases, e-mail addresses, the notes it links, its dates).

A card is read from the note itself (the vault is the truth), never from the store, so a
note written by hand, on another machine or before vaultbrain knew the vault counts alike.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.graph.extract import WIKILINK, base_key, link_key, note_key
from vaultbrain.graph.index import ARCHIVE
from vaultbrain.vault.names import fold
from vaultbrain.vault.note import parse_note, simple_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
FUTURE_KEYS = frozenset({"deadline", "due", "scheduled", "start"})


@dataclass
class Card:
    rel: str
    type: str
    title: str
    data: dict[str, Any]
    body: str
    hash: str
    mtime: float
    aliases: list[str] = field(default_factory=list)
    emails: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)  # link keys (lower case, no .md)

    @property
    def stem(self) -> str:
        name = self.rel.rsplit("/", 1)[-1]
        return name[:-3] if name.lower().endswith(".md") else name

    @property
    def target(self) -> str:
        """The note as a link names it: its path without ``.md``."""
        return self.rel[:-3] if self.rel.lower().endswith(".md") else self.rel

    def names(self) -> list[str]:
        """Its title, file name and aliases, folded, without repeats."""
        out: list[str] = []
        for n in (self.title, self.stem, *self.aliases):
            f = fold(n)
            if f and f not in out:
                out.append(f)
        return out

    def dates(self) -> list[dt.date]:
        """Every date the note states (properties and body), as written."""
        found: list[dt.date] = []
        for key, value in self.data.items():
            if key in FUTURE_KEYS:
                continue  # a deadline or a due day is no activity
            if isinstance(value, dt.datetime):
                found.append(value.date())
            elif isinstance(value, dt.date):
                found.append(value)
            elif isinstance(value, str) and DATE.fullmatch(value.strip()[:10]):
                m = DATE.match(value.strip())
                if m:
                    try:
                        found.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
                    except ValueError:
                        pass
        for m in DATE.finditer(self.body):
            try:
                found.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
            except ValueError:
                continue
        return found


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


_FENCE_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)


def _read(text: str) -> tuple[dict[str, Any] | None, str]:
    """(properties, body); the plain forms read directly (as the graph index reads them),
    anything else through :func:`parse_note`. None: properties that cannot be read."""
    if text.startswith("---\n"):
        m = _FENCE_END.search(text, 4)
        if m is not None:
            block = text[4 : m.start()]
            data = simple_frontmatter(block[:-1] if block.endswith("\n") else block)
            if data is not None:
                end = text.find("\n", m.end())
                return data, "" if end < 0 else text[end + 1 :]
    parsed = parse_note(text)
    if parsed.error or parsed.fence_problem:
        return None, text
    return parsed.data, parsed.body


def card_of(brain: Brain, rel: str, entry: os.DirEntry[str] | None = None) -> Card | None:
    """The card of one note (None: not a record note of the pack, or unreadable)."""
    if rel.startswith(ARCHIVE):
        return None
    try:
        note = brain.vault.read(rel, entry)  # (a walk's entry: the path needs no resolving)
    except (UserError, OSError):
        return None
    data, body = _read(note.text)
    if data is None:
        return None
    if data.get("archived") is True:
        return None
    ptype = brain.pack.infer_type(rel, data)
    if ptype is None:
        return None
    stem = rel.rsplit("/", 1)[-1][:-3]
    title = data.get(ptype.title_key) or data.get("title") or data.get("name")
    if not isinstance(title, str) or not title.strip():
        title = stem
    aliases_raw = data.get("aliases")
    aliases = [aliases_raw] if isinstance(aliases_raw, str) else list(aliases_raw or [])
    card = Card(
        rel,
        ptype.name,
        title.strip(),
        data,
        body,
        note.hash,
        note.mtime_ns / 1e9,
        [a.strip() for a in aliases if isinstance(a, str) and a.strip()],
    )
    for text in _strings(data):
        card.emails.update(e.lower() for e in EMAIL.findall(text))
        card.links.update(link_key(t) for t, _ in WIKILINK.findall(text) if t.strip())
    card.links.update(link_key(t) for t, _ in WIKILINK.findall(body) if t.strip())
    return card


def read_cards(brain: Brain, types: set[str] | None = None) -> list[Card]:
    """Every record note of the pack's folders (of ``types`` when given)."""
    cards: list[Card] = []
    seen: set[str] = set()
    for ptype in brain.pack.types:
        if types is not None and ptype.name not in types:
            continue
        for prefix in ptype.path_prefixes:
            folder = prefix.replace("\\", "/").strip("/")
            if not folder or not brain.vault.resolve(folder).is_dir():
                continue
            for rel, entry in brain.vault.iter_notes(folder):
                if rel in seen:
                    continue
                seen.add(rel)
                card = card_of(brain, rel, entry)
                if card is not None and (types is None or card.type in types):
                    cards.append(card)
    return cards


def resolver(cards: list[Card]) -> dict[str, Card]:
    """Link key → card, as Obsidian resolves a link: the path, or a file name that only
    one note has."""
    out: dict[str, Card] = {}
    by_base: dict[str, list[Card]] = {}
    for c in cards:
        out[note_key(c.rel)] = c
        by_base.setdefault(base_key(c.rel), []).append(c)
    for key, group in by_base.items():
        if len(group) == 1:
            out.setdefault(key, group[0])
    return out
