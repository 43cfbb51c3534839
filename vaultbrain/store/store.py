"""The store: collections, JSONL sidecars and ``meta.json`` in the state dir.

One process-wide lock file serialises writers (the daemon and a CLI command may run at the
same time); readers never block.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from vaultbrain.errors import StorageError
from vaultbrain.store.collection import Collection
from vaultbrain.store.records import to_json
from vaultbrain.vault.atomic import atomic_write_file, write_all

_AUDIT_BATCH = 500
_BULK_HOLD_S = 0.2


class WriteLock:
    """The store's cross-process write lock (``flock`` on ``store.lock``), re-entrant within
    the process. An object of its own, held by the store and by each of its collections: a
    collection holding the store would make them a reference cycle, and their indexes (and a
    first import's 10,000 pack entries) would wait for the cyclic collector to be freed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bulk = False  # bulk mode (Store.bulk): held between writes
        self._rlock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        self._held_at: float | None = None  # when the lock was taken, while held

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        """Hold the lock (re-entrant within the process).

        In bulk mode the lock is kept between writes and let go for a moment every
        :data:`_BULK_HOLD_S`, so a daemon's write waits at most that long while a reindex
        writes 10,000 records without two system calls per record."""
        with self._rlock:
            if self._depth == 0:
                if self._held_at is not None and time.monotonic() - self._held_at > _BULK_HOLD_S:
                    self._let_go()
                    time.sleep(0.002)  # another process waiting for the lock takes it now
                if self._held_at is None:
                    self._take()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and not self.bulk:
                    self._let_go()

    def release_idle(self) -> None:
        """Let go of the lock bulk mode kept, unless a write is under way."""
        with self._rlock:
            if self._depth == 0:
                self._let_go()

    def _take(self) -> None:
        lock = self.root / "store.lock"
        try:
            try:
                self._fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            except FileNotFoundError:  # made only when missing, not per write
                self.root.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError.from_os(exc, f"the state dir {self.root}") from exc
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._held_at = time.monotonic()

    def _let_go(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
        self._held_at = None


class Store:
    def __init__(self, state_dir: Path) -> None:
        self.root = Path(state_dir)
        self._collections: dict[str, Collection] = {}
        self._write = WriteLock(self.root)
        self._audit_held: list[dict[str, Any]] = []

    def collection(self, name: str) -> Collection:
        col = self._collections.get(name)
        if col is None:
            col = self._collections[name] = Collection(self.root, name, lock=self._write)
        col.durable = not self._bulk
        col.deferred = self._bulk
        return col

    @property
    def inbox(self) -> Collection:
        return self.collection("inbox")

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Hold the store's write lock (re-entrant within the process; see WriteLock)."""
        return self._write()

    @property
    def _bulk(self) -> bool:
        return self._write.bulk

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Many record writes (a reindex of a new vault): records (into each collection's
        pack), index lines and audit entries appended a batch at a time without fsync, each
        collection's files synced once at the end. A crash inside loses nothing the notes do
        not hold: a rescan rebuilds it."""
        self._write.bulk = True
        for col in self._collections.values():
            col.durable = False
            col.deferred = True
        try:
            yield
        finally:
            self._write.bulk = False
            cols = list(self._collections.values())
            errors: list[BaseException] = []
            flushes = [functools.partial(c.flush, final=True) for c in cols]
            steps: list[Callable[[], None]] = [self._flush_audit, *flushes, *(c.sync for c in cols)]
            for step in steps:
                try:
                    step()
                except BaseException as exc:  # every collection is still brought back
                    errors.append(exc)
            for col in cols:
                col.durable = True
                col.deferred = False
            self._write.release_idle()  # held between writes in bulk mode
            if errors:
                raise errors[0]

    def settle(self) -> None:
        """In bulk mode: what is held written now (records, index lines, a compaction due),
        so the collections' versions are the ones the end of bulk mode leaves. A scan that
        records the store's version beside its cache calls this first."""
        if self._bulk:
            for col in list(self._collections.values()):
                col.flush(final=True)

    # -- sidecars ------------------------------------------------------------------------
    def append_jsonl(self, name: str, entry: dict[str, Any]) -> None:
        try:
            self._append_jsonl(name, entry)
        except OSError as exc:
            raise StorageError.from_os(exc, str(self.root / name)) from exc

    def _append_jsonl(self, name: str, entry: dict[str, Any]) -> None:
        data = (to_json(entry) + "\n").encode()
        self._append_bytes(name, data)

    def _append_bytes(self, name: str, data: bytes) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        try:
            fd = os.open(self.root / name, flags, 0o644)
        except FileNotFoundError:  # the folder is made only when missing (once per reindex)
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root / name, flags, 0o644)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)

    def read_jsonl(self, name: str) -> Iterator[dict[str, Any]]:
        try:
            fh = open(self.root / name, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return
        with fh:
            for line in fh:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # torn by a crash or edited by hand: `doctor` names the file
                if isinstance(entry, dict):
                    yield entry

    def read_json(self, name: str, default: Any = None) -> Any:
        try:
            return json.loads((self.root / name).read_text("utf-8"))
        except FileNotFoundError:
            return default
        except ValueError:
            return default

    def write_json(self, name: str, data: Any, compact: bool = False) -> None:
        """``compact``: no indentation, for a file no one reads by hand that is read and
        written whole on every scan (the notes cache: half the bytes, parsed twice as fast
        and written four times as fast as indented)."""
        text = to_json(data) if compact else json.dumps(data, ensure_ascii=False, indent=1)
        atomic_write_file(self.root / name, text)

    def audit(self, event: dict[str, Any]) -> None:
        """An entry of the trust trail (``audit.jsonl``); held for one append in bulk mode."""
        if not self._bulk:
            self.append_jsonl("audit.jsonl", event)
            return
        self._audit_held.append(event)
        if len(self._audit_held) >= _AUDIT_BATCH:
            self._flush_audit()

    def _flush_audit(self) -> None:
        held, self._audit_held = self._audit_held, []
        if not held:
            return
        data = "".join(to_json(e) + "\n" for e in held).encode()
        try:
            self._append_bytes("audit.jsonl", data)
        except OSError as exc:
            raise StorageError.from_os(exc, str(self.root / "audit.jsonl")) from exc
