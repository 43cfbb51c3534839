"""One walk over the pack's record folders: each note as a :class:`Card`, what the tending
phases need of it (its title, aliases, e-mail addresses, the notes it links, its dates).

A card is read from the note itself (the vault is the truth), never from the store, so a
note written by hand, on another machine or before vaultbrain knew the vault counts alike.
What a note gave is kept in a table of the state dir's database (``tend_cards``, by the
note's modification time and size, and the pack): a cycle reads again only the notes that changed
since the last one looked. :func:`survey` walks the vault once for every phase: the record
cards, the links of the other notes (orphans) and every note's path (schema).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError, UserError
from vaultbrain.graph.extract import WIKILINK, base_key, link_key, note_key
from vaultbrain.graph.index import ARCHIVE
from vaultbrain.vault.names import fold
from vaultbrain.vault.note import parse_note, simple_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.store import Store

log = logging.getLogger("vaultbrain.tend")

EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
FUTURE_KEYS = frozenset({"deadline", "due", "scheduled", "start"})


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
            props = self.props = (_DATED if _DATE_TAG[1:] in props else _PLAIN).decode(props)
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
            elif isinstance(value, str) and DATE.fullmatch(value.strip()[:10]):
                m = DATE.match(value.strip())
                if m:
                    try:
                        found.append(dt.date(int(m[1]), int(m[2]), int(m[3])))
                    except ValueError:
                        pass
        return found + _days(
            self.body_dates if self.body_dates is not None else _DAY.findall(self.body)
        )


def decode(cards: list[Card]) -> None:
    """The properties of ``cards`` decoded at once where still JSON (one decode of them all
    costs a fraction of one per card)."""
    raw = [c for c in cards if isinstance(c.props, str)]
    if not raw:
        return
    text = "[" + ",".join(c.props for c in raw if isinstance(c.props, str)) + "]"
    decoder = _DATED if _DATE_TAG[1:] in text else _PLAIN  # (a hook on every object costs)
    for card, props in zip(raw, decoder.decode(text), strict=True):
        card.props = props


_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")  # (DATE's match, as one string)


def _days(found: list[str]) -> list[dt.date]:
    """The ISO days of ``found`` that are days (``2025-02-30`` is none)."""
    out: list[dt.date] = []
    for day in found:
        try:
            out.append(dt.date.fromisoformat(day))
        except ValueError:
            continue
    return out


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
    return _card(brain, rel, note.text, note.hash, note.mtime_ns)


def _card(brain: Brain, rel: str, text: str, hash_: str, mtime_ns: int) -> Card | None:
    if rel.startswith(ARCHIVE):
        return None
    data, body = _read(text)
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
        hash_,
        mtime_ns / 1e9,
        [a.strip() for a in aliases if isinstance(a, str) and a.strip()],
    )
    # (the properties' strings as one text: neither pattern matches across a line's end)
    props = "\n".join(_strings(data))
    card.emails.update(e.lower() for e in EMAIL.findall(props))
    card.links.update(link_key(t) for t, _ in WIKILINK.findall(props) if t.strip())
    body_keys = [link_key(t) for t, _ in WIKILINK.findall(body) if t.strip()]
    card.links.update(body_keys)
    card.typed = _inferred(brain, ptype.name, body, body_keys)
    return card


def _inferred(
    brain: Brain, type_name: str, body: str, body_keys: list[str]
) -> dict[str, list[str]]:
    """The typed links the pack's link types infer in a note of ``type_name`` from its body:
    a regex's first group, or (no regex, a target type) every link of the body
    (vaultbrain/graph/extract.py reads them so)."""
    from vaultbrain.packs.linear import UnsupportedRegex, compile_pack_regex

    out: dict[str, list[str]] = {}
    for lt in brain.pack.manifest.link_types:
        inf = lt.inference
        if inf is None or not inf.page_type or inf.page_type != type_name:
            continue
        if inf.regex:
            try:
                rx = compile_pack_regex(inf.regex, ignore_case=True)
            except UnsupportedRegex:
                continue
            keys = [
                link_key(m.group(1))
                for line in body.split("\n")
                for m in rx.finditer(line)
                if m.groups() and m.group(1) and m.group(1).strip()
            ]
        elif inf.target_type:
            keys = body_keys
        else:
            continue
        if keys:
            out[lt.name] = sorted(set(keys))
    return out


def read_cards(brain: Brain, types: set[str] | None = None) -> list[Card]:
    """Every record note of the pack's folders (of ``types`` when given)."""
    return survey(brain, types).cards


class Survey:
    """One walk of the vault: the record cards, and what the other notes link to.

    ``cards_key``: a digest of the record folders' notes as the walk found them (path,
    modification time, size) under the pack: equal digests, equal cards, so a phase whose
    result is a function of the cards may keep it by this key and never decode a card
    (``cards`` decodes them at first use). ``others_key``: the same of the other notes
    outside ``Brain/`` (those ``other_links`` holds)."""

    def __init__(
        self,
        brain: Brain,
        slots: list[Card | None],
        kept: list[tuple[str, int, int]],  # (path, mtime_ns, size): a card in the cache
        types: set[str] | None,
        other_links: dict[str, set[str]],
        rels: list[str],
        cards_key: str,
        others_key: str,
    ) -> None:
        self._brain, self._slots, self._kept, self._types = brain, slots, kept, types
        self._cards: list[Card] | None = None
        self.other_links = other_links  # a note that is no card (not under Brain/): its links
        self.rels = rels  # every note walked, in the walk's order
        self.cards_key = cards_key
        self.others_key = others_key
        self.card_rels = {c.rel for c in slots if c is not None} | {k[0] for k in kept}
        kept_rels = iter(k[0] for k in kept)
        self._slot_rels = [c.rel if c is not None else next(kept_rels) for c in slots]

    @property
    def cards(self) -> list[Card]:
        if self._cards is None:
            cache = _Cache(self._brain)
            try:
                texts = cache.texts()
            finally:
                cache.close()
            packed: list[tuple[str, str, int]] = []
            read: dict[str, Card | None] = {}
            for rel, mtime_ns, size in self._kept:
                got = texts.get(rel)
                if got is not None and (got[0], got[1]) == (mtime_ns, size):
                    packed.append((rel, got[2], mtime_ns))
                else:  # (the cache changed since the walk: the note itself)
                    read[rel] = card_of(self._brain, rel)
            unpacked = {c.rel: c for c in _unpack_cards(packed)}
            out = []
            for slot, rel in zip(self._slots, self._slot_rels, strict=True):
                card = slot if slot is not None else unpacked.get(rel) or read.get(rel)
                if card is not None:
                    out.append(card)
            if self._types is not None:
                out = [c for c in out if c.type in self._types]
            self._cards = out
        return self._cards


CACHE_VERSION = "4"
NO_CARD = "-"  # (a note of a record folder that is no record; NULL: not looked at as one)
_DATE_TAG = "\x00date"
_DATETIME_TAG = "\x00datetime"


def _freeze(value: Any) -> Any:
    """A note's properties as JSON can hold them, dates tagged (TypeError: a value JSON
    cannot hold as it was, so the card is not kept)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, dt.datetime):
        return {_DATETIME_TAG: value.isoformat()}
    if isinstance(value, dt.date):
        return {_DATE_TAG: value.isoformat()}
    if isinstance(value, list):
        return [_freeze(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _freeze(v) for k, v in value.items()}
    raise TypeError(type(value).__name__)


def _tag(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {_DATETIME_TAG: value.isoformat()}
    if isinstance(value, dt.date):
        return {_DATE_TAG: value.isoformat()}
    raise TypeError(type(value).__name__)


def _flat(value: Any) -> bool:
    return not isinstance(value, dict | list | tuple)


def _dumps(data: dict[str, Any]) -> str:
    """:func:`_freeze`'s JSON; written straight (dates tagged as met) when the properties
    are one level of plain values and lists of them, the most of notes' (a walk of every
    value first cost a cold cycle a tenth)."""
    if all(type(k) is str for k in data) and all(
        _flat(v) or (type(v) is list and all(_flat(x) for x in v)) for v in data.values()
    ):
        return json.dumps(data, ensure_ascii=False, default=_tag)
    return json.dumps(_freeze(data), ensure_ascii=False)


def _thaw(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if _DATE_TAG in obj:
            return dt.date.fromisoformat(obj[_DATE_TAG])
        if _DATETIME_TAG in obj:
            return dt.datetime.fromisoformat(obj[_DATETIME_TAG])
    return obj


_DATED = json.JSONDecoder(object_hook=_thaw)
_PLAIN = json.JSONDecoder()


def _pack_card(card: Card) -> str | None:
    """A card as the cache keeps it: its fields joined by NUL (split in C), the properties
    as JSON last (None: a card the cache cannot hold as it is; it is read each time)."""
    try:
        data = _dumps(card.data)
    except TypeError:
        return None
    head = [
        card.type,
        card.title,
        card.hash,
        json.dumps(card.aliases, ensure_ascii=False),
        "\n".join(sorted(card.emails)),
        "\n".join(sorted(card.links)),
        str(card.size),
        ",".join(_DAY.findall(card.body)),  # (as written; ``dates`` reads the days of them)
        str(len(card.data)),
        json.dumps(card.typed, ensure_ascii=False) if card.typed else "",
    ]
    if any("\x00" in part for part in head):
        return None
    return "\x00".join([*head, data])


def _unpack_cards(kept: list[tuple[str, str, int]]) -> list[Card]:
    """The cards kept in the cache: (path, packed, mtime_ns) each; their properties left as
    JSON until a phase reads them (decoding every card's cost more than the walk)."""
    out: list[Card] = []
    for rel, packed, mtime_ns in kept:
        ptype, title, hash_, aliases, emails, links, size, dates, keys, typed, data = packed.split(
            "\x00", 10
        )
        out.append(
            Card(
                rel,
                ptype,
                title,
                data,
                "",
                hash_,
                mtime_ns / 1e9,
                json.loads(aliases) if aliases != "[]" else [],
                set(emails.split("\n")) if emails else set(),
                set(links.split("\n")) if links else set(),
                int(size),
                dates.split(",") if dates else [],
                int(keys),
                json.loads(typed) if typed else {},
            )
        )
    return out


class _Cache:
    """What each note gave the last cycle, by its stat: the table ``tend_cards`` of the
    state dir's database (m005_tend_cards). A speed-up only: a failure to read it reads
    every note, a failure to write it is forgotten."""

    def __init__(self, brain: Brain) -> None:
        self.store: Store | None = brain.store
        key = f"{CACHE_VERSION}:{brain.pack_key}"
        try:
            row = (
                brain.store.conn()
                .execute("SELECT value FROM tend_cards_meta WHERE key = 'pack'")
                .fetchone()
            )
            if row is None or row[0] != key:  # another pack reads the notes otherwise

                def reset(conn: sqlite3.Connection, _: int) -> None:
                    conn.execute("DELETE FROM tend_cards")
                    conn.execute(
                        "INSERT OR REPLACE INTO tend_cards_meta VALUES ('pack', ?)", (key,)
                    )

                brain.store.write(reset, durable=False)
        except (sqlite3.Error, StorageError):
            self.close()  # (no cache: every note is read, as before there was one)

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        if self.store is None:
            return []
        try:
            return self.store.conn().execute(sql, args).fetchall()
        except (sqlite3.Error, StorageError):
            return []

    def rows(self) -> dict[str, tuple[int, int, str | None, str | None]]:
        return {
            r[0]: (r[1], r[2], r[3], r[4])
            # (a card's text is fetched only when the cards are decoded: ``texts``)
            for r in self._query(
                "SELECT rel, mtime_ns, size, CASE WHEN card IS NULL OR card = ? THEN card "
                "ELSE '' END, links FROM tend_cards",
                (NO_CARD,),
            )
        }

    def texts(self) -> dict[str, tuple[int, int, str]]:
        """Every card kept: its note's (mtime_ns, size, packed card)."""
        return {
            r[0]: (r[1], r[2], r[3])
            for r in self._query(
                "SELECT rel, mtime_ns, size, card FROM tend_cards "
                "WHERE card IS NOT NULL AND card != ?",
                (NO_CARD,),
            )
        }

    def save(self, put: list[tuple[Any, ...]], gone: list[str]) -> None:
        if self.store is None or not (put or gone):
            return

        def write(conn: sqlite3.Connection, _: int) -> None:
            conn.executemany("DELETE FROM tend_cards WHERE rel = ?", [(r,) for r in gone])
            conn.executemany("INSERT OR REPLACE INTO tend_cards VALUES (?, ?, ?, ?, ?)", put)

        try:
            self.store.write(write, durable=False, size=sum(len(p[3] or "") for p in put))
        except StorageError as exc:
            log.info("tend's cards not kept: %s", exc)

    def close(self) -> None:
        self.store = None


def _record_folders(brain: Brain, types: set[str] | None) -> list[str]:
    out: list[str] = []
    for ptype in brain.pack.types:
        if types is not None and ptype.name not in types:
            continue
        for prefix in ptype.path_prefixes:
            folder = prefix.replace("\\", "/").strip("/")
            if folder and folder not in out:
                out.append(folder)
    return out


def survey(brain: Brain, types: set[str] | None = None) -> Survey:
    """Every record note of the pack's folders (of ``types`` when given) as a card, in the
    order the folders' walks find them, and the links of every other note outside
    ``Brain/``: read from the cache where a note's stat is the one it was read at."""
    vault = brain.vault
    walked: dict[str, os.DirEntry[str]] = dict(vault.iter_notes())
    order: list[tuple[str, os.DirEntry[str]]] = []
    seen: set[str] = set()
    root = os.path.realpath(vault.root)
    for folder in _record_folders(brain, types):
        path = vault.resolve(folder)
        if not path.is_dir():
            continue
        if os.path.realpath(path) == os.path.join(root, folder) and not any(
            part.startswith(".") for part in folder.split("/")
        ):
            start = folder + "/"
            found: Iterator[tuple[str, os.DirEntry[str]]] = (
                (r, e) for r, e in walked.items() if r.startswith(start)
            )
        else:  # (a folder the vault's walk does not enter: a link, a hidden name)
            found = vault.iter_notes(folder)
        for rel, entry in found:
            if rel not in seen:
                seen.add(rel)
                order.append((rel, entry))
    cache = _Cache(brain)
    try:
        known = cache.rows()
        put: list[tuple[Any, ...]] = []
        cards: list[Card | None] = []  # None: one of ``kept``, decoded after the walk
        kept: list[tuple[str, int, int]] = []
        other: dict[str, set[str]] = {}

        def look(rel: str, entry: os.DirEntry[str], record: bool) -> None:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return
            row = known.get(rel)
            if row is not None and (row[0], row[1]) == (st.st_mtime_ns, st.st_size):
                if record and row[2] not in (None, NO_CARD):
                    kept.append((rel, st.st_mtime_ns, st.st_size))
                    cards.append(None)
                    return
                if row[3] is not None and (row[2] == NO_CARD or not record):
                    if not rel.startswith("Brain/"):
                        other[rel] = set(json.loads(row[3]))
                    return
            try:
                note = vault.read(rel, entry)
            except (UserError, OSError):
                return
            card = _card(brain, rel, note.text, note.hash, note.mtime_ns) if record else None
            packed: str | None = None
            links: str | None = None
            if card is None:
                keys = {link_key(t) for t, _ in WIKILINK.findall(note.text) if t.strip()}
                if not rel.startswith("Brain/"):
                    other[rel] = keys
                packed, links = (NO_CARD if record else None), json.dumps(sorted(keys))
            else:
                if types is None or card.type in types:
                    cards.append(card)
                packed = _pack_card(card)
                if packed is None:
                    return  # (properties JSON cannot hold: read again each time)
            stat = (note.mtime_ns, note.size)
            if stat == (st.st_mtime_ns, st.st_size):  # (not changed while read)
                put.append((rel, *stat, packed, links))

        for rel, entry in order:
            look(rel, entry, True)
        others = [(rel, entry) for rel, entry in walked.items() if rel not in seen]
        for rel, entry in others:
            look(rel, entry, False)
        gone = [rel for rel in known if rel not in walked and rel not in seen]
        cache.save(put, gone)
    finally:
        cache.close()
    return Survey(
        brain,
        cards,
        kept,
        types,
        other,
        list(walked),
        _digest(brain, order),
        _digest(brain, [(r, e) for r, e in others if not r.startswith("Brain/")]),
    )


def _digest(brain: Brain, entries: list[tuple[str, os.DirEntry[str]]]) -> str:
    h = hashlib.sha1(f"{CACHE_VERSION}\x00{brain.pack_key}".encode())
    for rel, entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)  # (cached by the entry since the walk)
        except OSError:
            continue
        h.update(f"\x00{rel}\x00{st.st_mtime_ns}\x00{st.st_size}".encode())
    return h.hexdigest()


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
