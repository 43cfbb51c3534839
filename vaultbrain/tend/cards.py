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

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.graph.extract import WIKILINK, base_key, link_key, note_key
from vaultbrain.graph.index import ARCHIVE
from vaultbrain.vault.note import parse_note, simple_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

from vaultbrain.tend import seed
from vaultbrain.tend.card import EMAIL, Card, prop_text
from vaultbrain.tend.card_cache import CACHE_VERSION, NO_CARD, CardCache, pack_card, unpack_cards

log = logging.getLogger("vaultbrain.tend")


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
    return card_from(brain, rel, data, body, hash_, mtime_ns)


def card_from(
    brain: Brain, rel: str, data: dict[str, Any], body: str, hash_: str, mtime_ns: int
) -> Card | None:
    """The card of a note whose properties and body are ``data`` and ``body`` (read from it,
    or from what the reindex read of it: vaultbrain/tend/seed.py)."""
    if rel.startswith(ARCHIVE) or data.get("archived") is True:
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
    # (a search only where its mark is: a pattern that may start anywhere costs the text)
    props = prop_text(data)
    if "@" in props:
        card.emails.update(e.lower() for e in EMAIL.findall(props))
    if "[[" in props:
        card.links.update(link_key(t) for t, _ in WIKILINK.findall(props) if t.strip())
    body_keys = (
        [link_key(t) for t, _ in WIKILINK.findall(body) if t.strip()] if "[[" in body else []
    )
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
        self.changes: Changes | None = None  # (set by :func:`survey`)
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
            texts: dict[str, tuple[int, int, str]] = {}
            cache = CardCache(self._brain)
            try:
                if self._kept:  # (a walk that read every card anew keeps none to fetch)
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
            unpacked = {c.rel: c for c in unpack_cards(packed)}
            out = []
            for slot, rel in zip(self._slots, self._slot_rels, strict=True):
                card = slot if slot is not None else unpacked.get(rel) or read.get(rel)
                if card is not None:
                    out.append(card)
            if self._types is not None:
                out = [c for c in out if c.type in self._types]
            self._cards = out
        return self._cards

    def some(
        self, rels: set[str], texts: dict[str, tuple[int, int, str]] | None = None
    ) -> dict[str, Card]:
        """The cards of ``rels`` (those that are cards), decoding no other (``texts``: the
        cache's, when fetched already)."""
        if self._cards is not None:
            return {c.rel: c for c in self._cards if c.rel in rels}
        out = {c.rel: c for c in self._slots if c is not None and c.rel in rels}
        stats = {k[0]: k for k in self._kept if k[0] in rels}
        if stats and texts is None:
            cache = CardCache(self._brain)
            try:
                texts = cache.texts_of(sorted(stats))
            finally:
                cache.close()
        if stats and texts is not None:
            packed = []
            for rel, (_, mtime_ns, size) in stats.items():
                got = texts.get(rel)
                if got is not None and (got[0], got[1]) == (mtime_ns, size):
                    packed.append((rel, got[2], mtime_ns))
                else:
                    card = card_of(self._brain, rel)
                    if card is not None:
                        out[rel] = card
            out.update((c.rel, c) for c in unpack_cards(packed))
        if self._types is not None:
            out = {r: c for r, c in out.items() if c.type in self._types}
        return out

    def of_types(self, types: set[str]) -> list[Card]:
        """The cards of ``types``, decoding no other (a kept card's type is its first
        field)."""
        if self._cards is not None:
            return [c for c in self._cards if c.type in types]
        rels = {c.rel for c in self._slots if c is not None and c.type in types}
        texts: dict[str, tuple[int, int, str]] | None = None
        if self._kept:
            cache = CardCache(self._brain)
            try:
                texts = cache.texts()
            finally:
                cache.close()
            for rel, mtime_ns, size in self._kept:
                got = texts.get(rel)
                if got is None or (got[0], got[1]) != (mtime_ns, size):
                    rels.add(rel)  # (changed since the walk: read, then looked at)
                elif got[2][: got[2].find("\x00")] in types:
                    rels.add(rel)
        found = self.some(rels, texts)
        return [found[r] for r in self._slot_rels if r in found and found[r].type in types]


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
    cache = CardCache(brain)
    try:
        known = cache.rows()
        last = cache.last()
        put: list[tuple[Any, ...]] = []
        cards: list[Card | None] = []  # None: one of ``kept``, decoded after the walk
        fresh: dict[str, Card | None] = {}  # a note read anew: its card (None: no card)
        fresh_links: dict[str, set[str]] = {}  # and the links it counts with (orphans)
        unkept: list[str] = []  # read anew but not kept in the cache
        kept: list[tuple[str, int, int]] = []
        other: dict[str, set[str]] = {}

        # (a first cycle, none kept yet: what the reindex read; a few notes new: read)
        new = sum(1 for rel, _ in order if rel not in known)
        seeded = seed.seeds(brain, _unknown(order, known)) if new >= seed.SEED_AT_LEAST else {}

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
            got = seeded.get(rel) if record else None
            card = None
            if got is not None:  # (what the reindex read of it, at this very stat)
                card = card_from(brain, rel, got.data, got.body, got.hash, st.st_mtime_ns)
                stat = (st.st_mtime_ns, st.st_size)
            if card is None:
                got = None  # (no card of it: its file says what it is)
                try:
                    note = vault.read(rel, entry)
                except (UserError, OSError):
                    return
                card = _card(brain, rel, note.text, note.hash, note.mtime_ns) if record else None
                stat = (note.mtime_ns, note.size)
            packed: str | None = None
            links: str | None = None
            fresh[rel] = card
            if card is None:
                keys = {link_key(t) for t, _ in WIKILINK.findall(note.text) if t.strip()}
                if not rel.startswith("Brain/"):
                    other[rel] = keys
                    fresh_links[rel] = keys
                packed, links = (NO_CARD if record else None), json.dumps(sorted(keys))
            else:
                fresh_links[rel] = card.links
                if types is None or card.type in types:
                    cards.append(card)
                packed = pack_card(card, got.json if got is not None else None)
                if packed is None:
                    unkept.append(rel)
                    return  # (properties JSON cannot hold: read again each time)
            if stat == (st.st_mtime_ns, st.st_size):  # (not changed while read)
                put.append((rel, *stat, packed, links))
            else:
                unkept.append(rel)

        for rel, entry in order:
            look(rel, entry, True)
        others = [(rel, entry) for rel, entry in walked.items() if rel not in seen]
        for rel, entry in others:
            look(rel, entry, False)
        gone = [rel for rel in known if rel not in walked and rel not in seen]
        cards_key = _digest(brain, order)
        others_key = _digest(brain, [(r, e) for r, e in others if not r.startswith("Brain/")])
        changes: Changes | None = None
        if last is not None and not (set(last[2]) & (set(fresh) | set(gone))):
            # (what changed since the last survey: the notes read anew, and those gone,
            # each as the cache kept it before; a note the last survey read but did not
            # keep has no "before": then no change set, every phase finds anew)
            before = cache.old([r for r in (*fresh, *gone) if r in known])
            if not cache.failed:
                changes = Changes(last[0], last[1], fresh, fresh_links, gone, before)
        now = (cards_key, others_key, unkept)
        if put or gone or last != now:  # (a quiet walk writes nothing)
            cache.save(put, gone, now)
    finally:
        cache.close()
    out = Survey(brain, cards, kept, types, other, list(walked), cards_key, others_key)
    out.changes = changes
    return out


def _unknown(
    entries: list[tuple[str, os.DirEntry[str]]],
    known: dict[str, tuple[int, int, str | None, str | None]],
) -> dict[str, tuple[int, int]]:
    """The notes of ``entries`` the cache holds at no stat they have now: their stats."""
    out: dict[str, tuple[int, int]] = {}
    for rel, entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)  # (cached by the entry: ``look`` asks again)
        except OSError:
            continue
        row = known.get(rel)
        if row is None or (row[0], row[1]) != (st.st_mtime_ns, st.st_size):
            out[rel] = (st.st_mtime_ns, st.st_size)
    return out


class Changes:
    """The notes that changed since the last survey (whose keys are ``cards_key`` and
    ``others_key``): each note read anew as it is now (its card, its links) and as the
    cache held it before (none: a note that came), and those gone."""

    def __init__(
        self,
        cards_key: str,
        others_key: str,
        fresh: dict[str, Card | None],
        fresh_links: dict[str, set[str]],
        gone: list[str],
        before: dict[str, tuple[str | None, str | None]],
    ) -> None:
        self.cards_key, self.others_key = cards_key, others_key
        self.now: dict[str, Card | None] = dict(fresh)
        self.now.update((r, None) for r in gone)
        self.links_now: dict[str, set[str]] = {r: fresh_links.get(r, set()) for r in self.now}
        packed = [(r, row[0], 0) for r, row in before.items() if row[0] not in (None, NO_CARD)]
        old_cards = {c.rel: c for c in unpack_cards([(r, p or "", m) for r, p, m in packed])}
        self.then: dict[str, Card | None] = {r: old_cards.get(r) for r in self.now}
        self.links_then: dict[str, set[str]] = {}
        for rel in self.now:
            card = old_cards.get(rel)
            row = before.get(rel)
            if card is not None:
                self.links_then[rel] = card.links
            elif row is not None and row[1] is not None and not rel.startswith("Brain/"):
                self.links_then[rel] = set(json.loads(row[1]))
            else:
                self.links_then[rel] = set()

    def since(self, key: Any) -> bool:
        """Whether a phase's result kept at ``key`` ([cards_key, others_key, …]) is the last
        survey's, so that these changes bring it up to date."""
        return (
            isinstance(key, list)
            and len(key) >= 2
            and key[0] == self.cards_key
            and key[1] == self.others_key
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
