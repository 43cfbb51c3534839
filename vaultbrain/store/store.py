"""The store: collections, JSONL sidecars and ``meta.json`` in the state dir.

One process-wide lock file serialises writers (the daemon and a CLI command may run at the
same time); readers never block.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vaultbrain.errors import StorageError
from vaultbrain.store.collection import Collection
from vaultbrain.vault.files import atomic_write_file, write_all


class Store:
    def __init__(self, state_dir: Path) -> None:
        self.root = Path(state_dir)
        self._collections: dict[str, Collection] = {}
        self._rlock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def collection(self, name: str) -> Collection:
        col = self._collections.get(name)
        if col is None:
            col = self._collections[name] = Collection(self.root, name, lock=self.locked)
        col.durable = not self._bulk
        return col

    @property
    def inbox(self) -> Collection:
        return self.collection("inbox")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's write lock (re-entrant within the process)."""
        with self._rlock:
            if self._depth == 0:
                lock = self.root / "store.lock"
                try:
                    try:
                        self._fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
                    except FileNotFoundError:  # made only when missing, not at every write
                        self.root.mkdir(parents=True, exist_ok=True)
                        self._fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
                except OSError as exc:
                    raise StorageError.from_os(exc, f"the state dir {self.root}") from exc
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
                    os.close(self._fd)
                    self._fd = None

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Many record writes (a reindex of a new vault): no fsync per record, one sync at the
        end. A crash inside loses nothing the notes do not hold: a rescan rebuilds it."""
        self._bulk = True
        for col in self._collections.values():
            col.durable = False
        try:
            yield
        finally:
            self._bulk = False
            for col in self._collections.values():
                col.durable = True
            if hasattr(os, "sync"):
                os.sync()

    _bulk = False

    # -- sidecars ------------------------------------------------------------------------
    def append_jsonl(self, name: str, entry: dict[str, Any]) -> None:
        try:
            self._append_jsonl(name, entry)
        except OSError as exc:
            raise StorageError.from_os(exc, str(self.root / name)) from exc

    def _append_jsonl(self, name: str, entry: dict[str, Any]) -> None:
        data = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
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
            fh = open(self.root / name, encoding="utf-8")
        except FileNotFoundError:
            return
        with fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue

    def read_json(self, name: str, default: Any = None) -> Any:
        try:
            return json.loads((self.root / name).read_text("utf-8"))
        except FileNotFoundError:
            return default
        except ValueError:
            return default

    def write_json(self, name: str, data: Any) -> None:
        atomic_write_file(self.root / name, json.dumps(data, ensure_ascii=False, indent=1))

    def audit(self, event: dict[str, Any]) -> None:
        """An entry of the trust trail (``audit.jsonl``)."""
        self.append_jsonl("audit.jsonl", event)
