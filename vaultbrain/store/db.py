"""``state.db``: the one SQLite database a vault's state dir holds (or ``:memory:``).

One connection per thread (SQLite connections are not to be shared between threads), in WAL
mode so readers never wait for a writer, with a ``busy_timeout`` so a writer waits for
another process's transaction instead of failing. ``synchronous=FULL``: each commit is on
the disk before it returns, as each record write of the old store was fsynced (a capture's
journal entry must survive a power cut, not only a kill -9, before its note is written);
bulk imports commit a batch at a time, so the cost is one sync per batch.

The schema is made by named migrations (:mod:`vaultbrain.store.migrations`), applied once
each, in order, recorded in ``_migrations``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vaultbrain.errors import StorageError

DB_FILE = "state.db"
MEMORY = ":memory:"
BUSY_TIMEOUT_MS = 30_000


def _disk_full(where: str) -> bool:
    """Whether the file system holding ``where`` has no room left (SQLite reports a write
    refused for want of space on its write-ahead log or shared memory as an I/O error)."""
    try:
        st = os.statvfs(os.path.dirname(where) or ".")
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 256 * 1024


def storage_error(exc: sqlite3.Error, where: str) -> StorageError:
    """A SQLite failure as one line: a full disk, a read-only or refused file, damage."""
    text = str(exc)
    low = text.lower()
    if "malformed" in low or "not a database" in low or "could not decode" in low:
        return StorageError(
            f"the state database {where} is damaged ({text[:120]}); "
            "`vaultbrain doctor` says what to do"
        )
    if "full" in low or ("i/o error" in low and _disk_full(where)):
        reason = "no space left on the disk"
    elif "readonly" in low or "read-only" in low:
        reason = "the file system is read-only"
    elif "unable to open" in low or "permission" in low or "access" in low:
        reason = "permission denied"
    else:
        reason = text
    return StorageError(
        f"cannot write {where}: {reason}; nothing was changed, try again once fixed"
    )


def spend(nbytes: int) -> None:
    """Where a transaction's bytes meet the disk, before it commits (SQLite writes them
    itself): a seam for the fault-injection tests' full disk, which raise here what SQLite
    raises on one (``sqlite3.OperationalError: database or disk is full``)."""


class Cursor(sqlite3.Cursor):
    """A cursor whose failures (a damaged page met while reading rows) are one line."""

    where = "the state database"

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise storage_error(exc, self.where) from exc

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise storage_error(exc, self.where) from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise storage_error(exc, self.where) from exc


class Connection(sqlite3.Connection):
    """A connection whose failures are one line (:func:`storage_error`), not a traceback:
    a damaged page met by a read as much as a full disk met by a write."""

    where = "the state database"

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        cur = self.cursor(Cursor)
        cur.where = self.where
        try:
            return cur.execute(sql, parameters)
        except sqlite3.Error as exc:
            raise storage_error(exc, self.where) from exc

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        cur = self.cursor(Cursor)
        cur.where = self.where
        try:
            return cur.executemany(sql, parameters)
        except sqlite3.Error as exc:
            raise storage_error(exc, self.where) from exc


class Database:
    """The connections to one ``state.db`` (one per thread), opened on first use and again
    when the file was removed or replaced under the process (a lost state dir)."""

    def __init__(self, root: Path | str, on_open: Callable[[sqlite3.Connection], None]) -> None:
        self.memory = str(root) == MEMORY
        self.root = Path(root) if not self.memory else Path(MEMORY)
        self.path = self.root / DB_FILE if not self.memory else None
        self._on_open = on_open
        self._local = threading.local()
        self._shared: sqlite3.Connection | None = None  # :memory: has one, shared
        self._shared_lock = threading.RLock()
        # (weakly: a thread's connection is closed when the thread ends and its local goes)
        self._all: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()
        self._made_lock = threading.Lock()

    def where(self) -> str:
        return str(self.path) if self.path is not None else "the in-memory store"

    def conn(self) -> sqlite3.Connection:
        """This thread's connection, open on a file that is still the state dir's."""
        if self.memory:
            with self._shared_lock:
                if self._shared is None:
                    self._shared = self._open(MEMORY)
                return self._shared
        assert self.path is not None
        local = self._local
        conn: sqlite3.Connection | None = getattr(local, "conn", None)
        if conn is not None:
            if conn.in_transaction:
                return conn  # (bulk mode's batch: kept, whatever the file; no stat per write)
            try:
                st = os.stat(self.path)
                same = (st.st_ino, st.st_dev) == local.ident
            except FileNotFoundError:
                same = False
            if same:
                return conn
            self._forget(conn)
            local.conn = None
        conn = self._open(str(self.path))
        st = os.stat(self.path)
        local.conn, local.ident = conn, (st.st_ino, st.st_dev)
        return conn

    def _open(self, target: str) -> sqlite3.Connection:
        if not self.memory:
            from vaultbrain.store.perms import private_dir

            private_dir(self.root)
        try:
            conn = sqlite3.connect(
                target,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
                factory=Connection,
            )
            conn.where = self.where()
            if not self.memory:
                os.chmod(target, 0o600)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not self.memory:
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            self._on_open(conn)
        except sqlite3.Error as exc:
            raise storage_error(exc, self.where()) from exc
        except StorageError:
            raise
        except OSError as exc:
            raise StorageError.from_os(exc, self.where()) from exc
        with self._made_lock:
            self._all.add(conn)
        return conn

    def _forget(self, conn: sqlite3.Connection) -> None:
        with self._made_lock:
            self._all.discard(conn)
        try:
            conn.close()
        except sqlite3.Error:
            pass

    def close(self) -> None:
        """Close every connection this object opened (the file stays)."""
        with self._made_lock:
            conns, self._all = list(self._all), weakref.WeakSet()
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._shared = None
        self._local = threading.local()
