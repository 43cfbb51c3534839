"""A collection: the rows of ``records`` with one ``collection`` name, in ``state.db``.

Each record is its JSON document, beside the summary callers look up without reading it
(:func:`vaultbrain.store.records.summarize`) and the columns indexed for lookups (type,
title, path). Every write takes the next number of the store's change sequence (``seq``):
what changed since a mark is ``WHERE seq > ?``, for this process or any other.

A process keeps the collection's summaries in memory, caught up with one query when the
sequence moved (another process or thread wrote), so that a lookup of a summary costs a
dict lookup, as it did when the index was a file.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from vaultbrain.store.namekeys import key_rows
from vaultbrain.store.records import summarize, to_json, validate_id

if TYPE_CHECKING:
    from vaultbrain.store.store import Store

_BULK_CATCH_UP_S = 0.25  # in bulk mode another writer's rows are looked for this often
_IN_CHUNK = 500  # ids per `IN (...)` lookup
# Summaries read from the database one query at a time before the collection's summaries are
# all loaded and kept instead (a capture reads a handful; a scan reads them all).
_ASK_BEFORE_LOADING = 64
_epochs = itertools.count(1)


class Collection:
    def __init__(self, store: Store, name: str) -> None:
        validate_id(name)
        self.name = name
        self._store = store
        self._lock = threading.RLock()
        self._index: dict[str, dict[str, Any]] | None = None
        self._seen = 0  # the change sequence caught up to
        self._store_id: str | None = None
        self._epoch = 0
        self._marked_db: str | None = None  # the database the marks of ``_epoch`` are of
        self._asked = 0  # summaries read one by one while none is kept
        self._caught_at = 0.0

    # -- reading -------------------------------------------------------------------------
    def _load(self) -> dict[str, dict[str, Any]]:
        """The summaries (tombstones too), caught up with what was written since."""
        with self._lock:
            index = self._index
            if index is not None and self._store.in_bulk:
                now = time.monotonic()
                if now - self._caught_at < _BULK_CATCH_UP_S:
                    return index
                self._caught_at = now
            conn = self._store.conn()
            store_id, seq = self._store.head(conn)
            if index is not None and store_id == self._store_id and seq == self._seen:
                return index
            return self._store.reading(conn, lambda: self._catch_up(conn, store_id))

    def _catch_up(self, conn: sqlite3.Connection, store_id: str) -> dict[str, dict[str, Any]]:
        _, seq = self._store.head(conn)  # (inside the read transaction: one view)
        if self._index is None or store_id != self._store_id:
            # One JSON object of every summary, parsed in one call (a cold capture on 10,000
            # records spent a third of this in a row and a json.loads per record).
            (whole,) = conn.execute(
                "SELECT '{' || group_concat(json_quote(id) || ':' || summary, ',') || '}' "
                "FROM records WHERE collection = ?",
                (self.name,),
            ).fetchone()
            self._index = json.loads(whole) if whole else {}
            self._store_id = store_id
            self._epoch_of(store_id)
        else:
            index = self._index
            for rid, summary in conn.execute(
                "SELECT id, summary FROM records WHERE collection = ? AND seq > ?",
                (self.name, self._seen),
            ):
                index[rid] = json.loads(summary)
            for (rid,) in conn.execute(
                "SELECT id FROM dropped WHERE collection = ? AND seq > ?", (self.name, self._seen)
            ):
                index.pop(rid, None)
        self._seen = seq
        return self._index

    def _epoch_of(self, store_id: str) -> int:
        """The epoch of the change feed's marks in the database ``store_id``: a new one for
        another database, or after a rollback (its sequence numbers are used again), when
        followers must look at everything."""
        if store_id != self._marked_db:
            self._marked_db = store_id
            self._epoch = next(_epochs)
        return self._epoch

    def forget_cache(self) -> None:
        with self._lock:
            self._index = None
            self._marked_db = None  # (a rollback: the marks given out may name lost changes)

    def get(self, record_id: str, *, include_deleted: bool = False) -> dict[str, Any] | None:
        row = (
            self._store.conn()
            .execute(
                "SELECT doc FROM records WHERE collection = ? AND id = ?", (self.name, record_id)
            )
            .fetchone()
        )
        if row is None:
            return None
        rec: dict[str, Any] = json.loads(row[0])
        if rec.get("deleted") and not include_deleted:
            return None
        return rec

    def get_many(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """:meth:`get` of each id (those with no record, or deleted, left out)."""
        conn = self._store.conn()
        out: dict[str, dict[str, Any]] = {}
        ids = list(dict.fromkeys(ids))
        for at in range(0, len(ids), _IN_CHUNK):
            part = ids[at : at + _IN_CHUNK]
            marks = ",".join("?" * len(part))
            for rid, doc in conn.execute(
                f"SELECT id, doc FROM records WHERE collection = ? AND deleted = 0 AND id IN ({marks})",
                (self.name, *part),
            ):
                out[rid] = json.loads(doc)
        return {rid: out[rid] for rid in ids if rid in out}

    # -- writing -------------------------------------------------------------------------
    def put(self, record: dict[str, Any], *, durable: bool = True) -> dict[str, Any]:
        """Write a record (one transaction, committed before this returns; in bulk mode part
        of the batch). ``durable=False``: not synced to the disk at commit, for a step that
        is redone by itself if a power cut loses it (a killed process loses nothing)."""
        rid = validate_id(record["id"])
        text = to_json(record)
        summary = summarize(record)
        row = (
            self.name,
            rid,
            text,
            to_json(summary),
            summary.get("type"),
            summary.get("title"),
            summary.get("path"),
            1 if record.get("deleted") else 0,
        )

        def write(conn: sqlite3.Connection, seq: int) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, seq)
            )
            conn.execute("DELETE FROM dropped WHERE collection = ? AND id = ?", (self.name, rid))
            conn.execute(
                "DELETE FROM record_names WHERE collection = ? AND id = ?", (self.name, rid)
            )
            conn.executemany(
                "INSERT OR IGNORE INTO record_names VALUES (?, ?, ?, ?)",
                [(key, self.name, rid, how) for key, how in key_rows(summary)],
            )

        with self._lock:
            self._store.write(write, durable=durable, size=len(text) + len(row[3]))
            if self._index is not None:
                self._index[rid] = summary
        return record

    def tombstone(self, record_id: str, **extra: Any) -> dict[str, Any] | None:
        with self._store.locked():
            rec = self.get(record_id, include_deleted=True)
            if rec is None:
                return None
            rec["deleted"] = True
            rec.update(extra)
            return self.put(rec)

    def drop(self, record_id: str) -> None:
        """Forget a record entirely (used when it moves to another collection)."""

        def write(conn: sqlite3.Connection, seq: int) -> None:
            gone = conn.execute(
                "DELETE FROM records WHERE collection = ? AND id = ?", (self.name, record_id)
            ).rowcount
            if gone:
                conn.execute(
                    "INSERT OR REPLACE INTO dropped VALUES (?, ?, ?)", (self.name, record_id, seq)
                )
                conn.execute(
                    "DELETE FROM record_names WHERE collection = ? AND id = ?",
                    (self.name, record_id),
                )

        with self._lock:
            self._store.write(write, size=len(record_id) + 40)
            if self._index is not None:
                self._index.pop(record_id, None)

    # -- summaries -----------------------------------------------------------------------
    def _few(self, n: int) -> bool:
        """Whether ``n`` summaries are read from the database one query at a time (no
        summary is kept yet, and few have been asked for) rather than all of them loaded:
        a cold capture asks for a handful of a collection of 10,000."""
        if self._index is not None:
            return False
        self._asked += n
        return self._asked <= _ASK_BEFORE_LOADING

    def _read_summaries(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        conn = self._store.conn()
        out: dict[str, dict[str, Any]] = {}
        for at in range(0, len(ids), _IN_CHUNK):
            part = ids[at : at + _IN_CHUNK]
            for rid, summary in conn.execute(
                f"SELECT id, summary FROM records WHERE collection = ? AND id IN "
                f"({','.join('?' * len(part))})",
                (self.name, *part),
            ):
                out[rid] = json.loads(summary)
        return out

    def summary(self, record_id: str, *, include_deleted: bool = False) -> dict[str, Any] | None:
        """A record's summary, without reading its document."""
        with self._lock:
            if self._few(1):
                found = self._read_summaries([record_id]).get(record_id)
            else:
                found = self._load().get(record_id)
        if found is None or (found.get("deleted") and not include_deleted):
            return None
        return found

    def summaries_of(self, ids: Iterable[str]) -> dict[str, dict[str, Any] | None]:
        """The summary of each of ``ids`` (None: no record, or deleted), caught up once."""
        with self._lock:
            wanted = list(ids)
            index = (
                self._read_summaries(list(dict.fromkeys(wanted)))
                if self._few(len(wanted))
                else self._load()
            )
            out: dict[str, dict[str, Any] | None] = {}
            for rid in wanted:
                summary = index.get(rid)
                out[rid] = None if summary is None or summary.get("deleted") else summary
            return out

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Every summary (tombstones too) as of now: a copy the caller keeps."""
        with self._lock:
            return dict(self._load())

    def summaries(self, *, include_deleted: bool = False) -> Iterator[dict[str, Any]]:
        for summary in list(self.snapshot().values()):
            if include_deleted or not summary.get("deleted"):
                yield summary

    def live_summaries(self) -> MutableMapping[str, dict[str, Any]]:
        """id -> summary of each record not deleted: a copy the caller keeps."""
        with self._lock:
            return {rid: s for rid, s in self._load().items() if not s.get("deleted")}

    def ids(self) -> list[str]:
        return [s["id"] for s in self.summaries()]

    def all(self, *, include_deleted: bool = False) -> Iterator[dict[str, Any]]:
        sql = "SELECT doc FROM records WHERE collection = ?"
        if not include_deleted:
            sql += " AND deleted = 0"
        rows = self._store.conn().execute(sql + " ORDER BY seq", (self.name,)).fetchall()
        for (doc,) in rows:
            yield json.loads(doc)

    def __len__(self) -> int:
        return sum(1 for _ in self.summaries())

    # -- the change feed -----------------------------------------------------------------
    def version(self) -> list[Any]:
        """Changes whenever a record of the collection changes, in this process or another:
        [the database's id, the last change's number]."""
        return self.disk_version()

    def disk_version(self) -> list[Any]:
        """As :meth:`version` (one query; nothing is loaded)."""
        conn = self._store.conn()
        store_id, _ = self._store.head(conn)
        last = conn.execute(
            "SELECT max(coalesce((SELECT max(seq) FROM records WHERE collection = ?), 0),"
            " coalesce((SELECT max(seq) FROM dropped WHERE collection = ?), 0))",
            (self.name, self.name),
        ).fetchone()[0]
        return [store_id, last]

    def ids_changed_since(self, version: Any) -> list[str] | None:
        """The ids changed since ``version`` (a :meth:`disk_version` taken earlier, maybe by
        another process and kept on disk), in order; None when that cannot be told (another
        database since, or no version): then every summary is to be looked at."""
        try:
            store_id, seq = version
        except (TypeError, ValueError):
            return None
        conn = self._store.conn()
        if not isinstance(seq, int) or store_id != self._store.head(conn)[0]:
            return None
        return self._changed_ids(conn, seq)

    def _changed_ids(self, conn: sqlite3.Connection, seq: int) -> list[str]:
        rows = conn.execute(
            "SELECT id, seq FROM records WHERE collection = ? AND seq > ?"
            " UNION ALL SELECT id, seq FROM dropped WHERE collection = ? AND seq > ?"
            " ORDER BY seq",
            (self.name, seq, self.name, seq),
        )
        return [rid for rid, _ in rows]

    def changes_since(
        self, mark: tuple[int, int] | None
    ) -> tuple[tuple[int, int], list[str] | None]:
        """Caught up first: (the mark of now, the ids changed since ``mark``, in order). The
        ids are None when ``mark`` is None or from before the summaries were read afresh
        (another database): then every summary is to be looked at."""
        with self._lock:
            now = self.changes_since_now()
            if mark is None or mark[0] != now[0]:
                return now, None
            if mark[1] >= now[1]:
                return now, []
            return now, self._changed_ids(self._store.conn(), mark[1])

    def changes_since_now(self) -> tuple[int, int]:
        """The change feed's mark of now, as :meth:`changes_since` gives it (the summaries
        caught up if they are kept; none read if not: a follower reads what it needs)."""
        with self._lock:
            if self._index is not None:
                self._load()
                return (self._epoch, self._seen)
            store_id, seq = self._store.head(self._store.conn())
            return (self._epoch_of(store_id), seq)
