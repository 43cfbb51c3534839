"""A collection's loaded index kept beside it (``index.snap``), so a new process starts from it.

Loading a collection of 10,000 records parses its ``index.json`` and index log (every
summary) and reads its whole ``records.pack`` to see that no record is missing from the
index: a cold ``vaultbrain capture`` spent a fifth of its time there. The snapshot is what a
process had loaded (the summaries, the pack's table of offsets) with the files' stamps it
was read at. A later process takes it only when those files are the ones it was read from
(``index.json``'s inode, mtime and size; the same log and the same pack, grown or not), then
reads what was appended since, exactly as a process that had kept the index in memory does;
the check for records the index does not name reads only the pack's new lines. Anything
else (a snapshot torn, from another Python, of other files) is ignored and the collection
loaded in full. The snapshot is a cache: losing it costs one full load.

The summaries are kept as rows (the ids as one string, each summary marshalled on its own)
and read into :class:`Summaries`, which decodes a summary when it is first read: a cold
capture reads a few of 10,000, and unmarshalling all of them was a tenth of its time. The
records' names and their notes' paths are kept as sorted rows too (:class:`KeyedRows`), so a
name or a path is looked up without a table of every record's. The rows are read from the
file as they are asked for, 16 KB at a time, each chunk checked against its own checksum
(:class:`Blob`); a chunk that is not what was kept (a disk that lost it in a crash) sets
the snapshot aside, and what it held comes from the store's own files.
"""

from __future__ import annotations

import binascii
import itertools
import marshal
import os
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, KeysView, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError
from vaultbrain.procs import collector_paused
from vaultbrain.vault.atomic import atomic_write_file

SNAP_FILE = "index.snap"
_MAGIC = b"vbsnap6 "
_PY = f"{sys.version_info[0]}.{sys.version_info[1]}".encode()
# A collection this small loads faster than a snapshot is written.
MIN_RECORDS = 200


def read_snap(path: Path) -> dict[str, Any] | None:
    """The snapshot at ``path`` if it is whole and from this Python, else None. Its large
    strings of bytes (see :func:`write_snap`) come as :class:`Blob`: read from the file a
    chunk at a time as they are sliced, each chunk checked against its own checksum. A cold
    capture looks up a few of 10,000 rows: reading and checking the 5 MB of its snapshots
    whole was more of its time than all it does with them."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        file = _SnapFile(fd, path)
    except BaseException:
        os.close(fd)
        raise
    try:
        head = _MAGIC + _PY + b" "
        first = os.pread(fd, _FIRST_READ, 0)
        start = len(head) + 8 + 16
        if not first.startswith(head) or len(first) < start:
            return None
        size = int(first[len(head) + 8 : start], 16)
        meta = first[start : start + size]
        if len(meta) < size:
            meta += os.pread(fd, size - len(meta), start + len(meta))
        crc = int(first[len(head) : len(head) + 8], 16)
        if len(meta) != size or crc != binascii.crc32(meta):
            return None
        with collector_paused():
            doc = marshal.loads(meta)
        if not isinstance(doc, dict):
            return None
        crcs, total = doc.pop(_CHUNKS)
        file.crcs.frombytes(crcs)
        file.base = start + size
        if os.fstat(fd).st_size != file.base + total or len(file.crcs) * _CHUNK < total:
            return None  # (cut short by a crash, or grown: not the file that was kept)
        for key, value in doc.items():
            if _is_blob(value):
                doc[key] = _blob(file, value)
            elif isinstance(value, tuple) and any(_is_blob(v) for v in value):
                doc[key] = tuple(_blob(file, v) if _is_blob(v) else v for v in value)
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None
    return doc


def write_snap(path: Path, doc: dict[str, Any]) -> None:
    """Keep ``doc`` at ``path`` (atomic, not synced: a cache); a failure is no error. A large
    string of bytes that is a value of ``doc`` or an item of a tuple that is one is kept
    after the rest, in chunks with a checksum each (read back as a :class:`Blob`)."""
    tail: list[bytes] = []
    at = 0

    def out(value: Any) -> Any:
        nonlocal at
        if isinstance(value, bytes) and len(value) >= _BLOB_AT_LEAST:
            tail.append(value)
            at += len(value)
            return (_BLOB, at - len(value), len(value))
        return value

    try:
        flat = {
            key: tuple(out(v) for v in value) if isinstance(value, tuple) else out(value)
            for key, value in doc.items()
        }
        blobs = b"".join(tail)
        crcs = [binascii.crc32(blobs[i : i + _CHUNK]) for i in range(0, len(blobs), _CHUNK)]
        flat[_CHUNKS] = (array("I", crcs).tobytes(), len(blobs))
        meta = marshal.dumps(flat)
        head = _MAGIC + _PY + b" " + b"%08x" % binascii.crc32(meta) + b"%016x" % len(meta)
        atomic_write_file(path, head + meta + blobs, durable=False)
    except (OSError, ValueError, StorageError):
        pass


_BLOB = "\x00blob"  # (a tuple naming where a string of bytes kept after the rest is)
_CHUNKS = "\x00chunks"  # (the checksums of the chunks those are kept in)
_BLOB_AT_LEAST = 4096
_CHUNK = 16384
_FIRST_READ = 65536  # (the start of the file, read at once: most of what is not blobs)


class SnapshotDamaged(StorageError):
    """A chunk of a snapshot, read after the snapshot was taken, is not what its checksum
    says (a disk that lost what was written before a crash)."""


_damages = 0  # how many this process met


def damages() -> int:
    """How many damaged snapshots this process met (each set aside): what was built from one
    (the record index, the name index, a collection's index) is built again when it changed."""
    return _damages


class _SnapFile:
    """An open snapshot, its large strings of bytes read a chunk at a time (each checked once
    against its checksum, and kept). Closed when no :class:`Blob` of it is left."""

    __slots__ = ("base", "chunks", "crcs", "damaged", "fd", "ino", "path")

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path
        self.ino = os.fstat(fd).st_ino
        self.base = 0
        self.crcs = array("I")
        self.chunks: dict[int, bytes] = {}
        self.damaged = False

    def __del__(self) -> None:
        try:
            os.close(self.fd)
        except (OSError, AttributeError, TypeError):
            pass

    def chunk(self, i: int) -> bytes:
        data = self.chunks.get(i)
        if data is not None:
            return data
        try:
            data = os.pread(self.fd, _CHUNK, self.base + i * _CHUNK)
        except OSError:
            data = b""
        if self.damaged or i >= len(self.crcs) or binascii.crc32(data) != self.crcs[i]:
            self._damaged()
        self.chunks[i] = data
        return data

    def _damaged(self) -> None:
        """Set the snapshot aside (unless another process has kept a new one since), and say
        so: the command stops with one line, and what was built from the snapshot is built
        again from the store's own files (:func:`damages`)."""
        global _damages
        if not self.damaged:
            self.damaged = True
            _damages += 1
            try:
                if os.stat(self.path).st_ino == self.ino:
                    os.unlink(self.path)
            except OSError:
                pass
        raise SnapshotDamaged(
            f"the state dir's snapshot {self.path} was damaged: it is set aside and what it "
            "held is read from the store's own files from now on; run the command again"
        )


class Blob:
    """A large string of bytes kept in a snapshot: sliced, it reads the chunks the slice
    covers (``len`` and slices as of ``bytes``; :meth:`tobytes` reads it whole)."""

    __slots__ = ("_at", "_file", "_size")

    def __init__(self, file: _SnapFile, at: int, size: int) -> None:
        self._file = file
        self._at = at
        self._size = size

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, where: slice) -> bytes:
        start, stop, step = where.indices(self._size)
        if step != 1:
            raise ValueError("a snapshot's string of bytes is sliced in order")
        if start >= stop:
            return b""
        lo, hi = self._at + start, self._at + stop
        first, last = lo // _CHUNK, (hi - 1) // _CHUNK
        chunk = self._file.chunk
        data = chunk(first) if first == last else b"".join(map(chunk, range(first, last + 1)))
        at = lo - first * _CHUNK
        return data[at : at + hi - lo]

    def tobytes(self) -> bytes:
        return self[0 : self._size]


def whole(value: bytes | Blob) -> bytes:
    """A snapshot's string of bytes, read whole if it is a :class:`Blob`."""
    return value.tobytes() if isinstance(value, Blob) else bytes(value)


def _is_blob(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 3 and value[0] == _BLOB


def _blob(file: _SnapFile, ref: tuple[str, int, int]) -> Blob:
    _, at, size = ref
    chunks = (at + size + _CHUNK - 1) // _CHUNK if isinstance(at, int) else 0
    if not (isinstance(size, int) and 0 <= at <= at + size and chunks <= len(file.crcs)):
        raise ValueError("a snapshot's string of bytes out of its file")
    return Blob(file, at, size)


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
    _index: dict[str, dict[str, Any]] | Summaries | None
    _index_stamp: tuple[int, int, int] | None
    _log_path: Path
    _log_ino: int | None
    _log_pos: int
    _log_lines: int
    _pack_path: Path
    _packed: dict[str, tuple[int, int]]
    _pack_kept: Callable[[], dict[str, tuple[int, int]]] | None
    _pack_seen: tuple[int, int]
    _pack_grown: list[str] | None
    _pending: dict[str, dict[str, Any]]
    _held: dict[str, tuple[str, bool]]
    _snap_at: tuple[int, int] = (0, 0)  # (log, pack) bytes the snapshot in use had read
    # The records' names and paths as the snapshot kept them, and the change-feed mark they
    # are true at: kind -> (rows, mark).
    _rows_kept: dict[str, tuple[KeyedRows, tuple[int, int]]] = {}  # (set per instance)
    _snap_damages = 0  # damaged snapshots the process had met when those were kept

    if TYPE_CHECKING:  # the collection's

        def changes_since(
            self, mark: tuple[int, int] | None
        ) -> tuple[tuple[int, int], list[str] | None]: ...

        def changes_since_now(self) -> tuple[int, int]: ...

        def _summary_of_record(self, rid: str) -> dict[str, Any] | None: ...

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
            if tuple(stamp or ()) != tuple(self._index_stamp or ()):
                return False
            if log_ino is not None and not _grown(self._log_path, log_ino, log_pos):
                return False
            if pack_ino and not _grown(self._pack_path, pack_ino, pack_seen):
                return False
            index = Summaries.from_rows(*snap["index"])
            pack_ids, offsets, sizes = snap["packed"]
            packed = _pack_table_from(pack_ids, offsets, sizes, index.keys())  # (not a dict yet)
        except (KeyError, TypeError, ValueError):
            return False
        index.fallback = self._summary_of_record
        self._index = index
        self._log_ino, self._log_pos, self._log_lines = log_ino, log_pos, log_lines
        self._packed = {}
        self._pack_kept, self._pack_seen = packed, (pack_ino, pack_seen)
        self._pack_grown = []  # (the lines read from here on: checked against the index)
        self._snap_at = (log_pos, pack_seen)
        mark = self.changes_since_now()
        self._rows_kept = {}
        self._snap_damages = _damages
        for kind in ("names", "paths"):
            try:
                kept = snap.get(kind)
                if kept is not None:
                    self._rows_kept[kind] = (KeyedRows(*kept), mark)
            except (TypeError, ValueError):
                pass
        return True

    def _all_read(self) -> dict[str, dict[str, Any]]:
        """The index loaded, every summary read (a snapshot's are read as they are first
        asked for): for what needs them all (a compaction, a snapshot kept, a listing)."""
        index = self._index
        if isinstance(index, Summaries):
            index = self._index = index.whole()
        assert index is not None
        return index

    def kept_rows(self, kind: str) -> tuple[KeyedRows, list[str]] | None:
        """The records' ``"names"`` (title and aliases, lower-cased) or ``"paths"`` (their
        notes', lower-cased) as the snapshot in use held them, and the ids whose entry changed
        since (theirs are the index's now); None when there is no such snapshot (a full
        load, a repair since)."""
        kept = self._rows_kept.get(kind)
        if kept is None or self._snap_damages != _damages:
            return None  # (none kept, or a snapshot this process met was damaged since)
        rows, mark = kept
        _, changed = self.changes_since(mark)
        return (rows, changed) if changed is not None else None

    def kept_names(self) -> tuple[KeyedRows, list[str]] | None:
        return self.kept_rows("names")

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
        index = self._all_read()  # (the names and paths need every summary)
        rows = _summary_rows(index)
        if rows is None:
            return
        names, paths = _name_rows(index), _path_rows(index)
        doc = {
            "stamp": tuple(self._index_stamp or ()),
            "log": (self._log_ino, self._log_pos, self._log_lines),
            "pack": self._pack_seen,
            "index": rows,
            "packed": _pack_table_rows(self._packed, index.keys()),
            "names": names,
            "paths": paths,
        }
        write_snap(self._snap_path(), doc)
        self._snap_at = (self._log_pos, self._pack_seen[1])
        mark = self.changes_since_now()
        self._snap_damages = _damages
        self._rows_kept = {
            kind: (KeyedRows(*kept), mark)
            for kind, kept in (("names", names), ("paths", paths))
            if kept is not None
        }


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


def _name_rows(index: dict[str, dict[str, Any]]) -> tuple[bytes, bytes, list[bytes]] | None:
    """``name NUL id`` for each name of each record (tombstones aside), as :func:`pack_rows`
    keeps them; None when a name holds a NUL."""
    return _keyed_rows(
        (key, rid)
        for rid, summary in index.items()
        if not summary.get("deleted")
        for key in record_names(summary)
    )


def _path_rows(index: dict[str, dict[str, Any]]) -> tuple[bytes, bytes, list[bytes]] | None:
    """``path NUL id`` for each record's note path (lower-cased; tombstones aside), as
    :func:`_name_rows` keeps names."""
    return _keyed_rows(
        (summary["path"].lower(), rid)
        for rid, summary in index.items()
        if summary.get("path") and not summary.get("deleted")
    )


def _keyed_rows(pairs: Iterable[tuple[str, str]]) -> tuple[bytes, bytes, list[bytes]] | None:
    rows = [f"{key}\x00{rid}".encode("utf-8", "surrogatepass") for key, rid in pairs]
    if any(row.count(b"\x00") != 1 for row in rows):
        return None
    return pack_rows(rows)


def _summary_rows(index: dict[str, dict[str, Any]]) -> tuple[str, bytes, bytes, list[str]] | None:
    """What :meth:`Summaries.from_rows` reads: the ids joined by newlines, each summary
    marshalled, where each starts, and the tombstones' ids. None when an id holds a newline
    (none does: :func:`validate_id`)."""
    if any("\n" in rid for rid in index):
        return None
    rows, starts = _joined([marshal.dumps(summary) for summary in index.values()])
    dead = [rid for rid, summary in index.items() if summary.get("deleted")]
    return "\n".join(index), rows, starts, dead


def _joined(rows: list[bytes]) -> tuple[bytes, bytes]:
    """``rows`` as one string of bytes, and where each starts (an ``array("I")``'s bytes)."""
    starts = array("I", [0])
    at = 0
    for row in rows:
        at += len(row)
        starts.append(at)
    return b"".join(rows), starts.tobytes()


def _pack_table_rows(
    packed: dict[str, tuple[int, int]], ids: Iterable[str]
) -> tuple[str | int, bytes, bytes]:
    """The pack's table as rows: its ids joined by newlines (or, when they are the first
    ``ids`` of the index in order, as a first reindex made them, how many), their offsets
    and lengths."""
    first = list(itertools.islice(ids, len(packed)))
    return (
        len(packed) if first == list(packed) else "\n".join(packed),
        array("Q", [at for at, _ in packed.values()]).tobytes(),
        array("Q", [size for _, size in packed.values()]).tobytes(),
    )


def _pack_table_from(
    ids: str | int, offsets: bytes | Blob, sizes: bytes | Blob, index: Iterable[str]
) -> Callable[[], dict[str, tuple[int, int]]]:
    """The pack's table as :func:`_pack_table_rows` kept it, made a dict when called (when
    first looked up: vaultbrain/store/packfile.py)."""
    if isinstance(ids, int):
        keys = list(itertools.islice(index, ids))
    elif isinstance(ids, str):
        keys = ids.split("\n") if ids else []
    else:
        raise ValueError("not a pack table")
    if not (len(offsets) == len(sizes) == 8 * len(keys)):
        raise ValueError("not a pack table")

    def table() -> dict[str, tuple[int, int]]:
        at, size = array("Q"), array("Q")
        at.frombytes(whole(offsets))
        size.frombytes(whole(sizes))
        return dict(zip(keys, zip(at, size, strict=True), strict=True))

    return table


class Summaries(MutableMapping[str, dict[str, Any]]):
    """id -> summary, as a snapshot kept them: a row is unmarshalled when first read (a
    value that is an ``int`` is the number of its row not read yet). Keeps the order of a
    dict; which rows are tombstones is known without reading them (:meth:`live`)."""

    __slots__ = ("_d", "_dead", "_rows", "_starts", "fallback")

    def __init__(
        self, d: dict[str, Any], rows: bytes | Blob, starts: array[int], dead: set[str]
    ) -> None:
        self._d = d
        self._rows = rows
        self._starts = starts
        self._dead = dead  # the ids of the tombstones among the rows not read
        # A row the snapshot lost (:class:`SnapshotDamaged`) is made again from the record
        # itself, by what this is set to (the collection's: the summary is the record's).
        self.fallback: Callable[[str], dict[str, Any] | None] | None = None

    @classmethod
    def from_rows(
        cls, ids: str, rows: bytes | Blob, starts: bytes | Blob, dead: list[str]
    ) -> Summaries:
        at = array("I")
        at.frombytes(whole(starts))
        keys = ids.split("\n") if ids else []
        if not isinstance(rows, bytes | Blob) or len(at) != len(keys) + 1:
            raise ValueError("not a table of summaries")
        if at[-1] != len(rows):
            raise ValueError("not a table of summaries")
        return cls(dict(zip(keys, range(len(keys)), strict=True)), rows, at, set(dead))

    def _read(self, rid: str, row: int) -> dict[str, Any]:
        try:
            summary = marshal.loads(self._rows[self._starts[row] : self._starts[row + 1]])
            if not isinstance(summary, dict):
                raise ValueError(summary)
        except (SnapshotDamaged, ValueError, EOFError, TypeError) as exc:
            made = self.fallback(rid) if self.fallback is not None else None
            if made is None:
                if isinstance(exc, SnapshotDamaged):
                    raise
                raise SnapshotDamaged(
                    f"the state dir's snapshot holds no summary of {rid}: run the command again"
                ) from exc
            summary = made
        self._d[rid] = summary
        self._dead.discard(rid)
        return summary

    def __getitem__(self, rid: str) -> dict[str, Any]:
        value = self._d[rid]
        return self._read(rid, value) if type(value) is int else value  # type: ignore[no-any-return]

    def get(self, rid: str, default: Any = None) -> Any:
        value = self._d.get(rid, default)
        return self._read(rid, value) if type(value) is int else value

    def __contains__(self, rid: object) -> bool:
        return rid in self._d

    def __setitem__(self, rid: str, summary: dict[str, Any]) -> None:
        self._d[rid] = summary
        self._dead.discard(rid)

    def __delitem__(self, rid: str) -> None:
        del self._d[rid]
        self._dead.discard(rid)

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def keys(self) -> KeysView[str]:
        return self._d.keys()

    def raw_row(self, rid: str) -> bytes | None:
        """A row not read yet, as the snapshot kept it (None once read or replaced): what
        is read and what is not, for a look from outside."""
        value = self._d.get(rid)
        if type(value) is not int:
            return None
        return bytes(self._rows[self._starts[value] : self._starts[value + 1]])

    def live(self) -> Summaries:
        """A copy without the tombstones (the rows not read yet shared, read on their own)."""
        d = dict(self._d)
        for rid in self._dead:
            d.pop(rid, None)
        for rid in [r for r, v in d.items() if type(v) is not int and v.get("deleted")]:
            del d[rid]
        live = Summaries(d, self._rows, self._starts, set())
        live.fallback = self.fallback
        return live

    def whole(self) -> dict[str, dict[str, Any]]:
        """Every summary read, as a plain dict (in order)."""
        for rid, value in self._d.items():
            if type(value) is int:
                self._read(rid, value)
        return self._d


def pack_rows(rows: list[bytes]) -> tuple[bytes, bytes, list[bytes]]:
    """``rows`` sorted into one string of bytes, where each starts (an ``array("I")``'s
    bytes), and every ``_SAMPLE``-th row: what :class:`KeyedRows` reads."""
    rows.sort()
    return (*_joined(rows), rows[::_SAMPLE])


_SAMPLE = 32  # (rows apart in a table's sample: a bisection's first steps, made in memory)


class KeyedRows:
    """Rows ``key NUL value`` sorted by key in one string of bytes: a key's values are found
    by bisection and decoded alone (a cold process does not build 10,000 entries to look up
    the few names a thought holds)."""

    def __init__(
        self, rows: bytes | Blob, starts: bytes | Blob, sample: list[bytes] | None = None
    ) -> None:
        self._rows = rows  # (read a chunk at a time from the snapshot: read_snap)
        self._starts = array("I")
        self._starts.frombytes(whole(starts))
        if not isinstance(rows, bytes | Blob) or not self._starts or self._starts[-1] != len(rows):
            raise ValueError("not a table of rows")
        self._n = len(self._starts) - 1
        # Every _SAMPLE-th row, kept with the rest of what is read at once: a bisection's
        # first steps are made among them, in memory, and its last few among the rows.
        self._sample = sample
        if sample is not None and (
            not isinstance(sample, list)
            or len(sample) != (self._n + _SAMPLE - 1) // _SAMPLE
            or not all(isinstance(row, bytes) for row in sample)
        ):
            raise ValueError("not a sample of the rows")

    def __len__(self) -> int:
        return self._n

    def _row(self, i: int) -> bytes:
        return bytes(self._rows[self._starts[i] : self._starts[i + 1]])

    def _key(self, i: int) -> bytes:
        row = self._row(i)
        return row[: row.index(b"\x00")]

    def _first(self, at_least: bytes) -> int:
        """The first row not below ``at_least``. (Rows sort as their keys do: a NUL, below
        any byte of a key, ends each. So ``key NUL`` is found among whole rows, each cut
        from the string once per step, not cut again at its NUL.)"""
        lo, hi = 0, self._n
        if self._sample:
            j = bisect_left(self._sample, at_least)  # (sampled rows below: row j*S is not)
            if j == 0:
                return 0
            lo, hi = (j - 1) * _SAMPLE + 1, min(j * _SAMPLE, self._n)
        return bisect_left(range(self._n), at_least, lo, hi, key=self._row)

    def values(self, key: str) -> list[str]:
        want = key.encode("utf-8", "surrogatepass") + b"\x00"
        out = []
        i = self._first(want)
        while i < self._n:
            row = self._row(i)
            if not row.startswith(want):
                break
            out.append(row[len(want) :].decode("utf-8", "surrogatepass"))
            i += 1
        return out
