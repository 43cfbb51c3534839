"""What vaultbrain itself last wrote to a note, by hash: the watcher tells its own writes
from the person's, and every vaultbrain process knows which notes nobody touched since
(the inbox: a line needs no settle time in a note only vaultbrain wrote).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from vaultbrain.errors import VaultbrainError

if TYPE_CHECKING:
    from vaultbrain.store import Store

OWN_WRITES = "own-writes.json"  # a document in the state dir's store: see OwnWrites.last_written
KEEP = 4096  # hashes remembered in memory


class OwnWrites:
    """The hashes this process last wrote, and (for notes shared with other processes) the
    store's record of them (``store``: set by whoever opened the vault's store)."""

    def __init__(self) -> None:
        self._own: dict[str, str] = {}
        self._lock = threading.Lock()
        self.store: Store | None = None

    def remember(self, rel: str, digest: str, shared: bool = False) -> None:
        with self._lock:
            self._own[rel] = digest
            if len(self._own) > KEEP:
                self._own.pop(next(iter(self._own)))
        if shared:
            self._share(rel, digest)

    def forget(self, rel: str, shared: bool = False) -> None:
        with self._lock:
            self._own.pop(rel, None)
        if shared:
            self._share(rel, "")

    def is_own(self, rel: str, digest: str | None) -> bool:
        with self._lock:
            return digest is not None and self._own.get(rel) == digest

    def last_written(self, rel: str, digest: str | None) -> bool:
        """Whether ``digest`` (the note's hash now) is what a vaultbrain process last wrote."""
        if digest is None:
            return False
        if self.is_own(rel, digest):
            return True
        if self.store is None:
            return False
        try:
            doc = self.store.read_json(OWN_WRITES)
        except VaultbrainError:
            return False
        return isinstance(doc, dict) and doc.get(rel) == digest

    def _share(self, rel: str, digest: str) -> None:
        store = self.store
        if store is None:
            return
        try:
            with store.locked():  # (read, changed and written whole: no other process between)
                doc = store.read_json(OWN_WRITES)
                doc = doc if isinstance(doc, dict) else {}
                doc[rel] = digest
                # Not waiting for the disk: if it is lost, the note waits out its settle time.
                store.write_json(OWN_WRITES, doc, durable=False)
        except VaultbrainError:
            pass
