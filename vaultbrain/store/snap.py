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
from array import array
from bisect import bisect_left
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError
from vaultbrain.procs import collector_paused
from vaultbrain.vault.atomic import atomic_write_file

SNAP_FILE = "index.snap"
_MAGIC = b"vbsnap2 "
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
        with collector_paused():
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
    # The kept names of the records, and the change-feed mark they are true at.
    _names_kept: tuple[KeyedRows, tuple[int, int]] | None = None

    if TYPE_CHECKING:  # the collection's

        def changes_since(
            self, mark: tuple[int, int] | None
        ) -> tuple[tuple[int, int], list[str] | None]: ...

        def changes_since_now(self) -> tuple[int, int]: ...

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
        self._names_kept = None
        try:
            rows, starts = snap.get("names") or (None, None)
            if rows is not None and starts is not None:
                self._names_kept = (KeyedRows(rows, starts), self.changes_since_now())
        except (TypeError, ValueError):
            pass
        return True

    def kept_names(self) -> tuple[KeyedRows, list[str]] | None:
        """The records' names (title and aliases, lower-cased) as the snapshot in use held
        them, and the ids whose entry changed since (their names are the index's now); None
        when there is no such snapshot (a full load, a repair since)."""
        if self._names_kept is None:
            return None
        rows, mark = self._names_kept
        _, changed = self.changes_since(mark)
        return (rows, changed) if changed is not None else None

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
        names = _name_rows(index)
        doc = {
            "stamp": tuple(self._index_stamp or ()),
            "log": (self._log_ino, self._log_pos, self._log_lines),
            "pack": self._pack_seen,
            "index": index,
            "packed": self._packed,
            "names": names,
        }
        write_snap(self._snap_path(), doc)
        self._snap_at = (self._log_pos, self._pack_seen[1])
        if names is not None:
            self._names_kept = (KeyedRows(*names), self.changes_since_now())


# Bytes of log and pack read past a snapshot before a process writes a new one (the lines a
# cold process reads and parses after taking the snapshot: a few hundred).
_KEEP_AFTER_BYTES = 128 * 1024


def _grown(path: Path, ino: int, size: int) -> bool:
    """Whether ``path`` is the file of inode ``ino``, at least ``size`` bytes long."""
    now = file_stamp(path)
    return now is not None and now[0] == ino and now[1] >= size


def record_names(summary: dict[str, Any]) -> list[str]:
    """A record's names as its summary gives them, as they are looked up: its title and
    aliases, stripped and lower-cased, each once."""
    keys = [str(summary.get("title", "")).strip().lower()]
    keys += [str(a).strip().lower() for a in summary.get("aliases", []) or []]
    return list(dict.fromkeys(k for k in keys if k))


def _name_rows(index: dict[str, dict[str, Any]]) -> tuple[bytes, bytes] | None:
    """``name NUL id`` for each name of each record (tombstones aside), sorted, as one string
    of bytes, with where each row starts; None when a name holds a NUL."""
    rows = []
    for rid, summary in index.items():
        if not summary.get("deleted"):
            rows += [
                f"{key}\x00{rid}".encode("utf-8", "surrogatepass") for key in record_names(summary)
            ]
    if any(row.count(b"\x00") != 1 for row in rows):
        return None
    return pack_rows(rows)


def pack_rows(rows: list[bytes]) -> tuple[bytes, bytes]:
    """``rows`` sorted into one string of bytes, and where each starts (an ``array("I")``'s
    bytes): what :class:`KeyedRows` reads."""
    rows.sort()
    starts = array("I", [0])
    at = 0
    for row in rows:
        at += len(row)
        starts.append(at)
    return b"".join(rows), starts.tobytes()


class KeyedRows:
    """Rows ``key NUL value`` sorted by key in one string of bytes: a key's values are found
    by bisection and decoded alone (a cold process does not build 10,000 entries to look up
    the few names a thought holds)."""

    def __init__(self, rows: bytes, starts: bytes) -> None:
        self._rows = rows
        self._starts = array("I")
        self._starts.frombytes(starts)
        if not isinstance(rows, bytes) or not self._starts or self._starts[-1] != len(rows):
            raise ValueError("not a table of rows")
        self._n = len(self._starts) - 1

    def __len__(self) -> int:
        return self._n

    def _row(self, i: int) -> bytes:
        return self._rows[self._starts[i] : self._starts[i + 1]]

    def _key(self, i: int) -> bytes:
        start = self._starts[i]
        return self._rows[start : self._rows.index(b"\x00", start)]

    def values(self, key: str) -> list[str]:
        want = key.encode("utf-8", "surrogatepass")
        out = []
        i = bisect_left(range(self._n), want, key=self._key)
        while i < self._n and self._key(i) == want:
            out.append(self._row(i)[len(want) + 1 :].decode("utf-8", "surrogatepass"))
            i += 1
        return out
