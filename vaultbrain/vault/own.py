"""What vaultbrain itself last wrote to a note, by hash: the watcher tells its own writes
from the person's, and every vaultbrain process knows which notes nobody touched since
(the inbox: a line needs no settle time in a note only vaultbrain wrote).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from vaultbrain.errors import StorageError
from vaultbrain.vault.atomic import atomic_write_file

OWN_WRITES = "own-writes.json"  # in the state dir: see OwnWrites.last_written
KEEP = 4096  # hashes remembered in memory


class OwnWrites:
    """The hashes this process last wrote, and (for notes shared with other processes) the
    state dir's record of them."""

    def __init__(self) -> None:
        self._own: dict[str, str] = {}
        self._lock = threading.Lock()
        self.state_dir: Path | None = None

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

    def last_written(self, rel: str, digest: str | None, state_dir: Path) -> bool:
        """Whether ``digest`` (the note's hash now) is what a vaultbrain process last wrote."""
        if digest is None:
            return False
        if self.is_own(rel, digest):
            return True
        try:
            doc = json.loads((state_dir / OWN_WRITES).read_text("utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(doc, dict) and doc.get(rel) == digest

    def _share(self, rel: str, digest: str) -> None:
        if self.state_dir is None:
            return
        path = self.state_dir / OWN_WRITES
        try:
            doc = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            doc = {}
        if not isinstance(doc, dict):
            doc = {}
        doc[rel] = digest
        try:
            # Not fsynced: if it is lost, the note just waits out its settle time.
            atomic_write_file(path, json.dumps(doc), durable=False)
        except StorageError:
            pass
