"""A collection's loaded index kept beside it (``index.snap``), so a new process starts from it.

Loading a collection of 10,000 records parses its ``index.json`` and index log (every
summary) and reads its whole ``records.pack`` to see that no record is missing from the
index: a cold ``vaultbrain capture`` spent a fifth of its time there. The snapshot is what a
process had loaded (the summaries, the pack's table of offsets) with the files' stamps it
was read at. A later process takes it only when those files are the ones it was read from
(``index.json``'s inode, mtime and size; the same log and the same pack, grown or not), then
reads what was appended since, exactly as a process that had kept the index in memory does;
the check for records the index does not name reads only the pack's new lines. Anything else (a snapshot torn, from another Python, of other files) is ignored and the
collection loaded in full. The snapshot is a cache: losing it costs one full load.
"""

from __future__ import annotations

import binascii
import marshal
import os
import sys
from pathlib import Path
from typing import Any

from vaultbrain.errors import StorageError
from vaultbrain.vault.atomic import atomic_write_file

SNAP_FILE = "index.snap"
_MAGIC = b"vbsnap1 "
_PY = f"{sys.version_info[0]}.{sys.version_info[1]}".encode()
# A collection this small loads faster than a snapshot is written.
MIN_RECORDS = 200


def read_snap(path: Path) -> dict[str, Any] | None:
    """The snapshot at ``path`` if it is whole and from this Python, else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = _MAGIC + _PY + b" "
    if not data.startswith(head) or len(data) < len(head) + 8:
        return None
    body = data[len(head) + 8 :]
    try:
        if int(data[len(head) : len(head) + 8], 16) != binascii.crc32(body):
            return None
        doc = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None
    return doc if isinstance(doc, dict) else None


def write_snap(path: Path, doc: dict[str, Any]) -> None:
    """Keep ``doc`` at ``path`` (atomic, not synced: a cache); a failure is no error."""
    try:
        body = marshal.dumps(doc)
        data = _MAGIC + _PY + b" " + b"%08x" % binascii.crc32(body) + body
        atomic_write_file(path, data, durable=False)
    except (OSError, ValueError, StorageError):
        pass


def file_stamp(path: Path) -> tuple[int, int] | None:
    """(inode, size) of a file that only grows (the log, the pack), None when missing."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size)


class SnappedIndex:
    """The snapshot part of a collection (vaultbrain/store/collection.py's
    :class:`Collection`): :meth:`_restore` on a full load, :meth:`_keep` after one."""

    dir: Path
    name: str
    deferred: bool
    _index: dict[str, dict[str, Any]] | None
    _index_stamp: tuple[int, int, int] | None
    _log_path: Path
    _log_ino: int | None
    _log_pos: int
    _log_lines: int
    _pack_path: Path
    _packed: dict[str, tuple[int, int]]
    _pack_seen: tuple[int, int]
    _pending: dict[str, dict[str, Any]]
    _held: dict[str, tuple[str, bool]]
    _snap_at: tuple[int, int] = (0, 0)  # (log, pack) bytes the snapshot in use had read

    def _snap_path(self) -> Path:
        # Beside the collections, not in the collection's folder: a dot-name no collection
        # has (:func:`validate_id`), so nothing that lists a collection's records sees it.
        return self.dir.parent / ".snap" / self.name

    def _restore(self) -> bool:
        """The index, the log and pack positions and the pack's table as the snapshot holds
        them, if it was read from the files there now (the same ``index.json``, the same log
        and pack, grown or not). The caller reads on from those positions."""
        snap = read_snap(self._snap_path())
        if snap is None:
            return False
        try:
            stamp, (log_ino, log_pos, log_lines), (pack_ino, pack_seen) = (
                snap["stamp"],
                snap["log"],
                snap["pack"],
            )
            index, packed = snap["index"], snap["packed"]
            if tuple(stamp or ()) != tuple(self._index_stamp or ()):
                return False
            if not isinstance(index, dict) or not isinstance(packed, dict):
                return False
            if log_ino is not None and not _grown(self._log_path, log_ino, log_pos):
                return False
            if pack_ino and not _grown(self._pack_path, pack_ino, pack_seen):
                return False
        except (KeyError, TypeError, ValueError):
            return False
        self._index = index
        self._log_ino, self._log_pos, self._log_lines = log_ino, log_pos, log_lines
        self._packed, self._pack_seen = packed, (pack_ino, pack_seen)
        self._snap_at = (log_pos, pack_seen)
        return True

    def _keep(self, since: tuple[int, int] | None = None) -> None:
        """A snapshot of what is loaded now, unless ``since`` (the positions the snapshot in
        use had read) is recent enough to spare the next process little. Not in bulk mode,
        nor with writes held back (the snapshot holds only what the files say)."""
        index = self._index
        if index is None or self.deferred or self._pending or self._held:
            return
        if len(index) < MIN_RECORDS:
            return
        if since is not None:
            grown = self._log_pos - since[0] + self._pack_seen[1] - since[1]
            if grown < _KEEP_AFTER_BYTES:
                return
        doc = {
            "stamp": tuple(self._index_stamp or ()),
            "log": (self._log_ino, self._log_pos, self._log_lines),
            "pack": self._pack_seen,
            "index": index,
            "packed": self._packed,
        }
        write_snap(self._snap_path(), doc)
        self._snap_at = (self._log_pos, self._pack_seen[1])


# Bytes of log and pack read past a snapshot before a process writes a new one (the lines a
# cold process reads and parses after taking the snapshot: a few hundred).
_KEEP_AFTER_BYTES = 128 * 1024


def _grown(path: Path, ino: int, size: int) -> bool:
    """Whether ``path`` is the file of inode ``ino``, at least ``size`` bytes long."""
    now = file_stamp(path)
    return now is not None and now[0] == ino and now[1] >= size
