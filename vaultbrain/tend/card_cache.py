"""What each note gave the last tending cycle, kept in the state dir's database
(``tend_cards``, m005_tend_cards) by the note's stat and the pack: a cycle reads again only
the notes that changed since the last one looked."""

from __future__ import annotations

import datetime as dt
import json
import logging
import sqlite3
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError
from vaultbrain.tend.card import DATE_TAG, DATETIME_TAG, DAY, Card

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.store import Store

log = logging.getLogger("vaultbrain.tend")


CACHE_VERSION = "4"
NO_CARD = "-"  # (a note of a record folder that is no record; NULL: not looked at as one)


def _freeze(value: Any) -> Any:
    """A note's properties as JSON can hold them, dates tagged (TypeError: a value JSON
    cannot hold as it was, so the card is not kept)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, dt.datetime):
        return {DATETIME_TAG: value.isoformat()}
    if isinstance(value, dt.date):
        return {DATE_TAG: value.isoformat()}
    if isinstance(value, list):
        return [_freeze(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _freeze(v) for k, v in value.items()}
    raise TypeError(type(value).__name__)


def _tag(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {DATETIME_TAG: value.isoformat()}
    if isinstance(value, dt.date):
        return {DATE_TAG: value.isoformat()}
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


def pack_card(card: Card, props_json: str | None = None) -> str | None:
    """A card as the cache keeps it: its fields joined by NUL (split in C), the properties
    as JSON last (None: a card the cache cannot hold as it is; it is read each time).
    ``props_json``: the properties as JSON already (what the graph index keeps of them)."""
    if props_json is not None:
        data = props_json
    else:
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
        # (as written; ``dates`` reads the days of them)
        ",".join(DAY.findall(card.body)) if "-" in card.body else "",
        str(len(card.data)),
        json.dumps(card.typed, ensure_ascii=False) if card.typed else "",
    ]
    if any("\x00" in part for part in head):
        return None
    return "\x00".join([*head, data])


def unpack_cards(kept: list[tuple[str, str, int]]) -> list[Card]:
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


class CardCache:
    """What each note gave the last cycle, by its stat: the table ``tend_cards`` of the
    state dir's database (m005_tend_cards). A speed-up only: a failure to read it reads
    every note, a failure to write it is forgotten."""

    def __init__(self, brain: Brain) -> None:
        self.store: Store | None = brain.store
        self.failed = False
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
                    conn.execute("DELETE FROM tend_cards_meta WHERE key = 'last'")
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
            self.failed = True  # (what the rows say is then no account of what changed)
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

    def texts_of(self, rels: list[str]) -> dict[str, tuple[int, int, str]]:
        """:meth:`texts` of ``rels`` only."""
        out: dict[str, tuple[int, int, str]] = {}
        for i in range(0, len(rels), 500):
            part = rels[i : i + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT rel, mtime_ns, size, card FROM tend_cards WHERE rel IN ({marks})"  # noqa: S608
            out.update(
                (r[0], (r[1], r[2], r[3]))
                for r in self._query(sql, tuple(part))
                if r[3] not in (None, NO_CARD)
            )
        return out

    def old(self, rels: list[str]) -> dict[str, tuple[str | None, str | None]]:
        """The rows kept for ``rels``: (packed card or NO_CARD or None, links) each."""
        out: dict[str, tuple[str | None, str | None]] = {}
        for i in range(0, len(rels), 500):
            part = rels[i : i + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT rel, card, links FROM tend_cards WHERE rel IN ({marks})"  # noqa: S608
            out.update((r[0], (r[1], r[2])) for r in self._query(sql, tuple(part)))
        return out

    def last(self) -> tuple[str, str, list[str]] | None:
        """The last survey's keys (cards, others) and the notes it read but did not keep."""
        rows = self._query("SELECT value FROM tend_cards_meta WHERE key = 'last'")
        if not rows:
            return None
        try:
            cards_key, others_key, unkept = json.loads(rows[0][0])
        except (ValueError, TypeError):
            return None
        return str(cards_key), str(others_key), [str(r) for r in unkept]

    def save(
        self,
        put: list[tuple[Any, ...]],
        gone: list[str],
        last: tuple[str, str, list[str]] | None = None,
    ) -> None:
        """The rows read anew, the notes gone, and (``last``) this survey's keys with the
        notes it read but did not keep, in one transaction: what the next survey finds
        changed is what changed since this one."""
        if self.store is None:
            return

        def write(conn: sqlite3.Connection, _: int) -> None:
            conn.executemany("DELETE FROM tend_cards WHERE rel = ?", [(r,) for r in gone])
            conn.executemany("INSERT OR REPLACE INTO tend_cards VALUES (?, ?, ?, ?, ?)", put)
            if last is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO tend_cards_meta VALUES ('last', ?)",
                    (json.dumps(list(last)),),
                )

        try:
            self.store.write(write, durable=False, size=sum(len(p[3] or "") for p in put))
        except StorageError as exc:
            log.info("tend's cards not kept: %s", exc)

    def close(self) -> None:
        self.store = None
