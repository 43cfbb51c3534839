"""A note as the tending phases see it: a :class:`Card` (its title, aliases, e-mail
addresses, the notes it links, its dates), its properties decoded only when a phase reads them."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.vault.names import fold

EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# A property's day at its start: a date, or a date-time as the store keeps it (no word's end
# after the day of 2026-10-01T08:30:00: what the graph index holds where the scan filled it)
STATED_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T\d\d:\d\d|\b)")
FUTURE_KEYS = frozenset({"deadline", "due", "scheduled", "start"})


DATE_TAG = "\x00date"
DATETIME_TAG = "\x00datetime"


def _thaw(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if DATE_TAG in obj:
            return dt.date.fromisoformat(obj[DATE_TAG])
        if DATETIME_TAG in obj:
            return dt.datetime.fromisoformat(obj[DATETIME_TAG])
    return obj


_DATED = json.JSONDecoder(object_hook=_thaw)
_PLAIN = json.JSONDecoder()


@dataclass
class Card:
    rel: str
    type: str
    title: str
    # The note's properties; from the cache, their JSON, decoded when first read (``data``):
    # most phases read only a card's names and links, or one property (``get``).
    props: dict[str, Any] | str
    body: str
    hash: str
    mtime: float
    aliases: list[str] = field(default_factory=list)
    emails: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)  # link keys (lower case, no .md)
    # (a card from the cache has no body: its size and the dates it states stand for it)
    body_size: int | None = None
    body_dates: list[str] | None = None  # (as written: ISO days)
    keys: int | None = None  # how many properties (known without decoding them)
    # The typed links the pack infers from the body (its link types' ``inference``, as the
    # graph index reads them): link type -> the keys it links.
    typed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def data(self) -> dict[str, Any]:
        props = self.props
        if isinstance(props, str):
            props = self.props = (_DATED if DATE_TAG[1:] in props else _PLAIN).decode(props)
        return props

    def get(self, key: str) -> Any:
        """One property (None: not there), its JSON decoded only when it may be there (a key
        JSON writes as ``"key":`` at no other place than as a key)."""
        return self.data.get(key) if self.may_have(key) else None

    def may_have(self, key: str) -> bool:
        """False: the note has no property ``key`` (known without decoding them)."""
        return not isinstance(self.props, str) or f'"{key}":' in self.props

    @property
    def n_keys(self) -> int:
        return (
            self.keys if self.keys is not None and isinstance(self.props, str) else len(self.data)
        )

    @property
    def size(self) -> int:
        """How long the note's body is (what the kept note of a merge is chosen by)."""
        return len(self.body) if self.body_size is None else self.body_size

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
            elif isinstance(value, str) and (m := STATED_DAY.match(value.strip())):
                try:
                    found.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
                except ValueError:
                    pass
        return found + _days(
            self.body_dates if self.body_dates is not None else DAY.findall(self.body)
        )


def decode(cards: list[Card]) -> None:
    """The properties of ``cards`` decoded at once where still JSON (one decode of them all
    costs a fraction of one per card)."""
    raw = [c for c in cards if isinstance(c.props, str)]
    if not raw:
        return
    text = "[" + ",".join(c.props for c in raw if isinstance(c.props, str)) + "]"
    decoder = _DATED if DATE_TAG[1:] in text else _PLAIN  # (a hook on every object costs)
    for card, props in zip(raw, decoder.decode(text), strict=True):
        card.props = props


# (DATE's match, as one string; lookarounds, not \b: the same words, a third quicker)
DAY = re.compile(r"(?<!\w)\d{4}-\d\d-\d\d(?!\w)")


def _days(found: list[str]) -> list[dt.date]:
    """The ISO days of ``found`` that are days (``2025-02-30`` is none)."""
    out: list[dt.date] = []
    for day in found:
        try:
            out.append(dt.date.fromisoformat(day))
        except ValueError:
            continue
    return out


def prop_text(data: dict[str, Any]) -> str:
    """Every string of a note's properties (:func:`strings`), one a line: the plain values
    and lists of them, most notes' properties, without a generator per value."""
    out: list[str] = []
    for value in data.values():
        if type(value) is str:
            out.append(value)
        elif type(value) is list and all(type(x) is str for x in value):
            out.extend(value)
        else:
            out.extend(strings(value))
    return "\n".join(out)


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
