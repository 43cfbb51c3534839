"""The store: collections of records, the audit trail, logs and small JSON documents, all in
the state dir's ``state.db`` (vaultbrain/store/db.py), or in memory (:meth:`Store.memory`).

Every write is one transaction, committed (and synced) before it returns. ``locked()`` is
the store's write mutex, re-entrant within the process, held across a read-modify-write of
several records and notes (a capture's plan, its notes, its settling): each write inside it
still commits by itself, so a capture's write-ahead journal entry is on the disk before its
note is written, and a kill -9 in the middle loses nothing the journal said. Across
processes the mutex is a ``flock`` of the state dir itself (no file of its own); the
transactions are SQLite's. ``bulk()`` (a first import) keeps one transaction open and
commits it a batch at a time.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vaultbrain.errors import StorageError
from vaultbrain.store import db
from vaultbrain.store.collection import Collection
from vaultbrain.store.db import MEMORY, Database, storage_error
from vaultbrain.store.records import to_json

if TYPE_CHECKING:
    pass

T = TypeVar("T")
AUDIT = "audit.jsonl"
_BULK_HOLD_S = 0.2  # a bulk batch is committed (and the mutex let go) at least this often
_BULK_BATCH = 2000  # writes per bulk batch at most


def _wal_bytes(size: int) -> int:
    """What a transaction of ``size`` bytes of rows appends to the write-ahead log: whole
    pages, each with its frame header (at least one)."""
    page = 4096
    return (page + 24) * max(1, -(-size // page))


class _Writer:
    """The write mutex (see :class:`Store`) and bulk mode's open transaction."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.rlock = threading.RLock()
        self.depth = 0
        self.fd: int | None = None
        self.bulk = False
        self.batch: sqlite3.Connection | None = None  # bulk mode's open transaction
        self.batch_at = 0.0
        self.batch_writes = 0

    @contextlib.contextmanager
    def hold(self, store: Store) -> Iterator[None]:
        with self.rlock:
            if self.depth == 0 and self.batch is not None and self._batch_due():
                store.commit_batch()
                time.sleep(0.002)  # another process waiting for the mutex takes it now
            if self.fd is None:
                self._take()
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
                if self.depth == 0 and self.batch is None:
                    self.let_go()

    def _batch_due(self) -> bool:
        return (
            not self.bulk
            or self.batch_writes >= _BULK_BATCH
            or time.monotonic() - self.batch_at > _BULK_HOLD_S
        )

    def _take(self) -> None:
        if self.root is None:
            return
        from vaultbrain.store.perms import private_dir

        private_dir(self.root)
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise StorageError.from_os(exc, f"the state dir {self.root}") from exc
        fcntl.flock(fd, fcntl.LOCK_EX)
        self.fd = fd

    def let_go(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


# The write mutex of each state dir this process writes (one per state dir, shared by every
# Store object of it: a thread holding it through one object re-enters it through another,
# where two flocks of one process would wait for each other for ever).
_WRITERS: dict[str, _Writer] = {}
_WRITERS_LOCK = threading.Lock()
# A live Store object of each state dir, for the parts of vaultbrain that are handed a state
# dir, not a store (the LLM's forms, the machine's id, its settings): see Store.of.
_LIVE: weakref.WeakValueDictionary[str, Store] = weakref.WeakValueDictionary()


def _writer_of(root: Path) -> _Writer:
    key = os.path.abspath(root)
    with _WRITERS_LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            writer = _WRITERS[key] = _Writer(root)
        return writer


class Store:
    def __init__(self, state_dir: Path | str) -> None:
        self.in_memory = str(state_dir) == MEMORY
        self.root = Path(state_dir)
        self._db = Database(state_dir, self._setup)
        self._collections: dict[str, Collection] = {}
        self._writer = _Writer(None) if self.in_memory else _writer_of(self.root)
        self._set_aside_checked = False
        if not self.in_memory:
            with _WRITERS_LOCK:
                _LIVE[os.path.abspath(self.root)] = self  # (the newest: a command's own)

    @classmethod
    def memory(cls) -> Store:
        """A store in memory (``:memory:``): the file store's twin, for tests."""
        return cls(MEMORY)

    @classmethod
    def of(cls, state_dir: Path | str) -> Store:
        """A store of ``state_dir`` this process already has open (the command's or the
        daemon's), else a new one: for the parts handed a state dir, not a store."""
        if str(state_dir) == MEMORY:
            return cls(MEMORY)
        with _WRITERS_LOCK:
            store = _LIVE.get(os.path.abspath(state_dir))
        return store if store is not None else cls(state_dir)

    # -- the database --------------------------------------------------------------------
    def _setup(self, conn: sqlite3.Connection) -> None:
        from vaultbrain.store import legacy
        from vaultbrain.store.migrations import migrate

        migrate(conn, None if self.in_memory else self.root)
        if not self.in_memory and not self._set_aside_checked:
            self._set_aside_checked = True
            legacy.set_aside(self.root)  # (an import committed, its files not yet moved)
            legacy.take_side_files(conn, self.root)  # (files of their own before m004)

    def take_file(self, name: str) -> None:
        """The file ``name`` beside ``state.db`` (one of legacy.SIDE_FILES an earlier version
        kept, or a person wrote by hand), if there, taken into the database and removed."""
        if self.in_memory or not os.path.lexists(self.root / name):
            return
        from vaultbrain.store import legacy

        with self.locked():
            legacy.take_side_files(self.conn(), self.root, only=name)

    def conn(self) -> sqlite3.Connection:
        """This thread's connection to the database."""
        return self._db.conn()

    @property
    def path(self) -> Path | None:
        """The database file (None in memory)."""
        return self._db.path

    def close(self) -> None:
        self.commit_batch()
        self._db.close()

    @staticmethod
    def head(conn: sqlite3.Connection) -> tuple[str, int]:
        """(the database's id, the last change's number)."""
        store_id, seq = conn.execute("SELECT store_id, seq FROM counter").fetchone()
        return store_id, seq

    def identity(self) -> str | None:
        """The database's id (made with it, never reused); None when its file is gone (a
        state dir deleted under the process: nothing is made again by asking)."""
        if self.path is not None and not self.path.exists():
            return None
        return self.head(self.conn())[0]

    def reading(self, conn: sqlite3.Connection, fn: Callable[[], T]) -> T:
        """``fn`` inside one read transaction (one view of the database), unless ``conn``
        is already in one (bulk mode's; in memory, one connection serves every thread)."""
        if conn.in_transaction or self.in_memory:
            return fn()
        conn.execute("BEGIN")
        try:
            return fn()
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def collection(self, name: str) -> Collection:
        col = self._collections.get(name)
        if col is None:
            col = self._collections[name] = Collection(self, name)
        return col

    @property
    def inbox(self) -> Collection:
        return self.collection("inbox")

    # -- writing -------------------------------------------------------------------------
    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Hold the store's write mutex (re-entrant within the process)."""
        return self._writer.hold(self)

    @property
    def in_bulk(self) -> bool:
        return self._writer.bulk

    def write(
        self,
        fn: Callable[[sqlite3.Connection, int], object],
        *,
        durable: bool = True,
        size: int = 0,
    ) -> None:
        """``fn(conn, seq)`` in a write transaction, with the next number of the change
        sequence; committed now (or with bulk mode's batch). A failure (a full disk) rolls
        the transaction back and raises StorageError: nothing half-written."""
        w = self._writer
        with self.locked():
            conn = self.conn()
            try:
                if w.bulk:
                    if w.batch is not None and w.batch is not conn:
                        self.commit_batch()  # (another thread's batch: ours from here)
                    if w.batch is None:
                        conn.execute("BEGIN IMMEDIATE")
                        w.batch, w.batch_at, w.batch_writes = conn, time.monotonic(), 0
                    w.batch_writes += 1
                    fn(conn, self._next_seq(conn))
                    db.spend(_wal_bytes(size))
                    return
                if w.batch is not None:
                    self.commit_batch()
                if not durable:
                    conn.execute("PRAGMA synchronous = NORMAL")
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    fn(conn, self._next_seq(conn))
                    db.spend(_wal_bytes(size))
                    conn.execute("COMMIT")
                except BaseException:
                    self._rolled_back(conn)
                    raise
                finally:
                    if not durable and not conn.in_transaction:
                        conn.execute("PRAGMA synchronous = FULL")
            except sqlite3.Error as exc:
                self._rolled_back(conn)
                raise storage_error(exc, self._db.where()) from exc
            except BaseException:
                self._rolled_back(conn)
                raise

    @staticmethod
    def _next_seq(conn: sqlite3.Connection) -> int:
        seq: int = conn.execute("UPDATE counter SET seq = seq + 1 RETURNING seq").fetchone()[0]
        return seq

    def _rolled_back(self, conn: sqlite3.Connection) -> None:
        if self._writer.batch is conn:
            self._writer.batch = None
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        for col in self._collections.values():
            col.forget_cache()

    def commit_batch(self) -> None:
        """Commit bulk mode's open transaction, if any (and let the mutex go when idle)."""
        w = self._writer
        with w.rlock:
            conn, w.batch = w.batch, None
            if conn is not None and conn.in_transaction:
                try:
                    conn.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._rolled_back(conn)
                    raise storage_error(exc, self._db.where()) from exc
            if w.depth == 0:
                w.let_go()

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Many writes (a first import of 10,000 notes): one transaction, committed a batch
        at a time (every :data:`_BULK_BATCH` writes or :data:`_BULK_HOLD_S` seconds, so a
        daemon's write waits at most that long), and at the end."""
        w = self._writer
        was = w.bulk
        w.bulk = True
        try:
            yield
        finally:
            w.bulk = was
            if not was:
                self.commit_batch()

    def settle(self) -> None:
        """In bulk mode: what the open batch holds committed now, so the collections'
        versions are the ones the end of bulk mode leaves."""
        if self._writer.batch is not None:
            self.commit_batch()

    # -- logs and documents --------------------------------------------------------------
    def append_jsonl(self, name: str, entry: dict[str, Any]) -> None:
        """An entry appended to the log ``name`` (``audit.jsonl``: the audit trail)."""
        text = to_json(entry)
        if name == AUDIT:
            self.write(
                lambda conn, _: conn.execute("INSERT INTO audit (entry) VALUES (?)", (text,))
            )
        else:
            self.write(
                lambda conn, _: conn.execute(
                    "INSERT INTO logs (name, entry) VALUES (?, ?)", (name, text)
                )
            )

    def audit(self, event: dict[str, Any]) -> None:
        """An entry of the trust trail."""
        self.append_jsonl(AUDIT, event)

    def _log_rows(self, name: str, after: int = 0) -> list[tuple[int, str]]:
        conn = self.conn()
        if name == AUDIT:
            return conn.execute(
                "SELECT seq, entry FROM audit WHERE seq > ? ORDER BY seq", (after,)
            ).fetchall()
        return conn.execute(
            "SELECT seq, entry FROM logs WHERE name = ? AND seq > ? ORDER BY seq", (name, after)
        ).fetchall()

    def read_jsonl(self, name: str) -> Iterator[dict[str, Any]]:
        for _, text in self._log_rows(name):
            entry = json.loads(text)
            if isinstance(entry, dict):
                yield entry

    def read_jsonl_since(
        self, name: str, mark: Any
    ) -> tuple[list[Any], list[dict[str, Any]] | None]:
        """(the mark of now, the entries of log ``name`` appended since ``mark``); the
        entries are None when ``mark`` is of another database or None: read them all."""
        store_id, _ = self.head(self.conn())
        after = 0
        whole = True
        if isinstance(mark, list | tuple) and len(mark) == 2 and mark[0] == store_id:
            after, whole = int(mark[1]), False
        rows = self._log_rows(name, after)
        entries = [e for e in (json.loads(t) for _, t in rows) if isinstance(e, dict)]
        now = [store_id, rows[-1][0] if rows else after]
        return now, (None if whole else entries)

    def log_head(self, name: str) -> int:
        """The number of the log ``name``'s last entry (0: none); grows with each entry."""
        if name == AUDIT:
            row = self.conn().execute("SELECT max(seq) FROM audit").fetchone()
        else:
            row = (
                self.conn().execute("SELECT max(seq) FROM logs WHERE name = ?", (name,)).fetchone()
            )
        return int(row[0] or 0)

    def log_after(self, name: str, after: int) -> list[tuple[int, dict[str, Any]]]:
        """(number, entry) of the log ``name``'s entries after number ``after``, in order."""
        out = []
        for seq, text in self._log_rows(name, after):
            entry = json.loads(text)
            if isinstance(entry, dict):
                out.append((seq, entry))
        return out

    def replace_jsonl(self, name: str, entries: list[dict[str, Any]]) -> None:
        """The log ``name`` made exactly ``entries`` (none: gone), in one transaction."""
        texts = [(name, to_json(e)) for e in entries]

        def write(conn: sqlite3.Connection, _: int) -> None:
            conn.execute("DELETE FROM logs WHERE name = ?", (name,))
            conn.executemany("INSERT INTO logs (name, entry) VALUES (?, ?)", texts)

        self.write(write, size=sum(len(t) + 1 for _, t in texts))

    def has_entries(self, name: str) -> bool:
        """Whether the log ``name`` holds an entry."""
        table, args = ("audit", ()) if name == AUDIT else ("logs WHERE name = ?", (name,))
        return self.conn().execute(f"SELECT 1 FROM {table} LIMIT 1", args).fetchone() is not None

    def read_json(self, name: str, default: Any = None) -> Any:
        row = self.conn().execute("SELECT value FROM kv WHERE name = ?", (name,)).fetchone()
        return default if row is None else json.loads(row[0])

    def write_json(self, name: str, data: Any, *, durable: bool = True) -> None:
        """The document ``name`` made ``data`` (stored compact). ``durable=False``: a cache's,
        not waited for on the disk."""
        text = to_json(data)
        self.write(
            lambda conn, seq: conn.execute(
                "INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (name, text, seq)
            ),
            durable=durable,
            size=len(text),
        )

    def remove_json(self, name: str) -> None:
        self.write(lambda conn, _: conn.execute("DELETE FROM kv WHERE name = ?", (name,)))

    def json_stamp(self, name: str) -> list[Any] | None:
        """Changes whenever the document ``name`` is written; None when there is none."""
        conn = self.conn()
        row = conn.execute("SELECT seq FROM kv WHERE name = ?", (name,)).fetchone()
        return None if row is None else [self.head(conn)[0], row[0]]

    def read_blob(self, name: str) -> bytes | None:
        """The bytes kept under ``name`` (a cache a part of vaultbrain keeps in the
        database: a trained classifier, a pack's parsed form), or None."""
        row = self.conn().execute("SELECT data FROM blobs WHERE name = ?", (name,)).fetchone()
        return None if row is None else bytes(row[0])

    def write_blob(self, name: str, data: bytes) -> None:
        """Keep ``data`` under ``name`` (a cache: committed without waiting for the disk,
        which a power cut may cost, never a torn value)."""
        self.write(
            lambda conn, seq: conn.execute(
                "INSERT OR REPLACE INTO blobs VALUES (?, ?, ?)", (name, data, seq)
            ),
            durable=False,
            size=len(data),
        )

    # -- export --------------------------------------------------------------------------
    def collections(self) -> list[str]:
        """The names of the collections that hold a record."""
        rows = self.conn().execute("SELECT DISTINCT collection FROM records ORDER BY collection")
        return [r[0] for r in rows]

    def export(self, target: Path) -> int:
        """Every record (tombstones too) written as ``<collection>/<id>/index.json`` under
        ``target``, indented JSON, each file atomically; how many were written."""
        from vaultbrain.vault.atomic import atomic_write_file

        count = 0
        rows = self.conn().execute(
            "SELECT collection, id, doc FROM records ORDER BY collection, id"
        )
        for collection, rid, doc in rows:
            text = json.dumps(json.loads(doc), ensure_ascii=False, indent=1) + "\n"
            folder = target / collection / rid
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError.from_os(exc, str(folder)) from exc
            atomic_write_file(folder / "index.json", text)
            count += 1
        return count

    # -- health --------------------------------------------------------------------------
    def quick_check(self) -> list[str]:
        """``PRAGMA quick_check``: [] when the database is sound, else what SQLite found."""
        try:
            rows = [r[0] for r in self.conn().execute("PRAGMA quick_check")]
        except sqlite3.Error as exc:
            return [str(exc)]
        return [] if rows == ["ok"] else rows
