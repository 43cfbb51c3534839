"""A collection: a folder with a schema-versioned ``index.json`` and its records.

A record lives in ``<id>/index.json``, or, when a first ``reindex`` made it, as lines of the
collection's ``records.pack`` (``<id>\t<json>``; a later line wins, an empty one says
"gone"). A packed record's later versions are appended to the pack (one fsync, where a file
of its own costs a folder, a temp file and two); a record made outside a bulk import has its
own file, which would win over any line. A first import of 10,000 notes then makes one file
where it made 10,000 folders and 10,000 files (on ext4 those inodes cost more than reading
and parsing every note; the records and indexes take 7.5 MB on disk where they took 82 MB).

The collection index (a small summary per record) is kept fast to update on a 10,000-record
store: each change is appended to ``index.log.jsonl`` and folded into ``index.json`` now and
then, so a write costs one small append instead of rewriting the whole index. A reader that
sees the log grow (another process wrote) reads only the new lines.

Inside :meth:`Store.bulk <vaultbrain.store.store.Store.bulk>` (a first ``reindex`` writing
10,000 records) a collection holds its records and index lines and appends them a batch at a
time (records first: an index line never names a record not written), and looks for other
writers' lines at most every quarter second.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

from vaultbrain.errors import StorageError, UserError
from vaultbrain.store.indexlog import DAMAGED_SUFFIX, damaged_in, log_entries, set_aside
from vaultbrain.store.packfile import PackedRecords
from vaultbrain.store.records import summarize, to_json, validate_id
from vaultbrain.store.snap import SnappedIndex, Summaries
from vaultbrain.vault.atomic import atomic_write_file, write_all

SCHEMA_VERSION = 1
_COMPACT_EVERY = 2000
# Bulk mode: index lines held before one append (a crash loses at most these from the
# index; their record files are written and a rescan finds them), and how often another
# writer's lines are looked for.
_BULK_BATCH = 500
_FEED_KEEP = 20_000  # change-feed entries kept in memory; an older mark reads everything
_BULK_TAIL_EVERY_S = 0.25
PACK_FILE = "records.pack"


class Collection(PackedRecords, SnappedIndex):
    def __init__(
        self,
        root: Path,
        name: str,
        lock: Callable[[], contextlib.AbstractContextManager[None]] | None = None,
    ) -> None:
        validate_id(name)
        self._write_lock = lock or contextlib.nullcontext
        self.durable = True  # off only inside Store.bulk(): one sync at the end instead
        self.name = name
        self.dir = root / name
        self._index_path = self.dir / "index.json"
        self._log_path = self.dir / "index.log.jsonl"
        self._index: dict[str, dict[str, Any]] | Summaries | None = None
        self._log_pos = 0
        self._log_ino: int | None = None
        self._log_lines = 0
        self._index_stamp: tuple[int, int, int] | None = None
        self._lock = threading.RLock()
        # Bulk mode (Store.bulk): index lines not yet appended, and when we last looked.
        self.deferred = False
        self._pending: dict[str, dict[str, Any]] = {}
        self._tailed_at = 0.0
        # The change feed (see changes_since): ids whose index entry changed, in order.
        self._epoch = 0
        self._feed: list[str] = []
        self._feed_base = 0
        # The pack (records.pack): where each packed record's JSON is, as far as read.
        self._pack_path = self.dir / PACK_FILE
        self._packed: dict[str, tuple[int, int]] = {}
        self._pack_seen: tuple[int, int] = (0, 0)  # (inode, bytes read)
        self._pack_file: Any = None  # kept open for reads, closed with the collection
        # Bulk mode: rid -> (record text not yet appended, whether the id was new to us).
        self._held: dict[str, tuple[str, bool]] = {}
        self._unsynced = False  # bulk mode appended without fsync: sync() at its end

    # -- index ---------------------------------------------------------------------------

    def _load(self) -> MutableMapping[str, dict[str, Any]]:
        with self._lock:
            if self._index is None:
                self._index = {}
                self._index_stamp = self._stamp()
                self._epoch += 1  # read afresh: every entry may have changed
                self._feed.clear()
                self._feed_base = 0
                damaged = False
                self._rows_kept = {}
                restored = self._restore()  # the snapshot a process kept, if still true
                if not restored:
                    damaged = self._read_index()
                    self._log_pos, self._log_ino, self._log_lines = 0, None, 0
                epoch = self._epoch
                self._tail()
                self._index.update(self._pending)  # ours, not yet appended (bulk mode)
                if damaged or self._unindexed():  # index files emptied, cut or deleted
                    self._repair()
                    self._index.update(self._pending)
                elif self._epoch == epoch:  # (not read afresh meanwhile: nothing repaired)
                    self._keep(self._snap_at if restored else None)
                return self._index
            if self.deferred:
                now = time.monotonic()
                if now - self._tailed_at < _BULK_TAIL_EVERY_S:
                    return self._index
                self._tailed_at = now
            self._tail()
            return self._index

    def _read_index(self) -> bool:
        """``index.json`` read into the index; True when it is damaged."""
        try:
            doc = json.loads(self._index_path.read_text("utf-8"))
            if doc.get("schema_version", 1) > SCHEMA_VERSION:
                raise UserError(
                    f"the store's {self.name} collection was written by a newer vaultbrain"
                )
            self._index = dict(doc.get("records", {}))
        except FileNotFoundError:
            pass
        except (ValueError, AttributeError):
            return True
        return False

    def _unindexed(self) -> bool:
        """Whether a record file exists that the index does not name (checked on each full
        load: the index files truncated or deleted under a running process). Loaded from a
        snapshot, of the pack's lines only those read since it (it was checked when kept)."""
        assert self._index is not None
        try:
            names = os.listdir(self.dir)
        except OSError:
            return False
        known = self._index.keys()  # (a dict's keys: looked up in C, 10,000 times)
        missing = [
            n
            for n in names
            if "." not in n and n not in known and (self.dir / n / "index.json").is_file()
        ]
        if PACK_FILE in names:
            grown = self._pack_grown
            self._pack_catch_up()  # (a snapshot's lines read since it, followed)
            self._pack_grown = None
            missing += [n for n in (self._packed if grown is None else grown) if n not in known]
        if missing:
            self._tail()  # a writer between its record and its log line: not damage
        return any(n not in self._index for n in missing)

    def _repair(self) -> None:
        """The index rebuilt from the record files (the truth); what the log holds now is
        older than them and skipped. Written back by the next :meth:`put` (under the lock)."""
        self._index = self._rebuild()
        self._epoch += 1  # read afresh: followers of the change feed look at everything
        self._feed.clear()
        self._feed_base = 0
        try:
            st = os.stat(self._log_path)
            self._log_pos, self._log_ino = st.st_size, st.st_ino
        except FileNotFoundError:
            self._log_pos, self._log_ino = 0, None
        self._log_lines = _COMPACT_EVERY  # the next put compacts: index.json made whole

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self._index_path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _tail(self) -> None:
        """Fold in index changes appended since we last looked (by us or another process)."""
        assert self._index is not None
        if self._stamp() != self._index_stamp:  # compacted by another process: start over
            self._index = None
            self._load()
            return
        try:
            st = os.stat(self._log_path)
        except FileNotFoundError:
            if self._log_ino is not None:  # compacted by another process: reload
                self._index = None
                self._log_ino = None
                self._load()
            return
        if self._log_ino is not None and st.st_ino != self._log_ino:
            self._index = None
            self._log_ino = None
            self._load()
            return
        if st.st_size < self._log_pos:
            self._index = None
            self._log_ino = None
            self._load()
            return
        self._log_ino = st.st_ino
        if st.st_size == self._log_pos:
            return
        with open(self._log_path, "rb") as fh:
            fh.seek(self._log_pos)
            chunk = fh.read()
        end = chunk.rfind(b"\n")
        if end < 0:
            return  # a partial line still being written
        entries, damaged = log_entries(chunk[: end + 1], with_damaged=True)
        for entry in entries:
            self._log_lines += 1
            if entry.get("op") == "drop":
                self._index.pop(entry["id"], None)
            else:
                self._index[entry["id"]] = entry["summary"]
            self._changed(entry["id"])
        self._log_pos += end + 1
        if damaged:
            # What the damaged line said is lost: the index comes from the record files (the
            # truth), and the next write folds the log, setting the line aside (compact).
            # Not here: a reader holds no write lock, and taking it now could deadlock.
            self._repair()

    def _changed(self, rid: str) -> None:
        self._feed.append(rid)
        if len(self._feed) > _FEED_KEEP:
            drop = len(self._feed) - _FEED_KEEP // 2
            del self._feed[:drop]
            self._feed_base += drop

    def changes_since(
        self, mark: tuple[int, int] | None
    ) -> tuple[tuple[int, int], list[str] | None]:
        """Caught up first: (the mark of now, the ids whose index entry changed since ``mark``,
        in order and possibly repeated). The ids are None when ``mark`` is None, too old, or
        from before the index was read afresh: then every summary is to be looked at. Lets a
        reader that follows 10,000 records (the embedded classifier's learning) look at the
        one a capture changed instead of all of them."""
        with self._lock:
            self._load()
            now = (self._epoch, self._feed_base + len(self._feed))
            if mark is None or mark[0] != self._epoch or mark[1] < self._feed_base:
                return now, None
            return now, self._feed[mark[1] - self._feed_base :]

    def changes_since_now(self) -> tuple[int, int]:
        """The change feed's mark of now, as :meth:`changes_since` gives it (nothing read)."""
        return (self._epoch, self._feed_base + len(self._feed))

    def _summary_of_record(self, rid: str) -> dict[str, Any] | None:
        """A record's summary made from the record itself (for a row a snapshot lost)."""
        rec = self.get(rid, include_deleted=True)
        return summarize(rec) if rec is not None else None

    def _rebuild(self) -> dict[str, dict[str, Any]]:
        index: dict[str, dict[str, Any]] = {}
        if not self.dir.is_dir():
            return index
        for child in self.dir.iterdir():
            rec = self._read_record_file(child / "index.json")
            if rec and "id" in rec:
                index[rec["id"]] = summarize(rec)
        for rid in list(self._pack_table()):
            if rid not in index:  # (a record's own file wins over its pack line)
                rec = self._unpack(rid)
                if rec and rec.get("id") == rid:
                    index[rid] = summarize(rec)
        return index

    def _append_log(self, entry: dict[str, Any], durable: bool = True) -> None:
        try:
            self._append_log_raw(entry, durable)
        except OSError as exc:
            raise StorageError.from_os(exc, str(self._log_path)) from exc

    def _append_log_raw(self, entry: dict[str, Any], durable: bool = True) -> None:
        data = (to_json(entry) + "\n").encode()
        self._append_bytes(data, durable)

    def _append_bytes(self, data: bytes, durable: bool = True) -> tuple[int, int]:
        return self._append_to(self._log_path, data, durable and self.durable)

    def _append_to(self, path: Path, data: bytes, durable: bool) -> tuple[int, int]:
        """Append ``data``; (the file's inode, the offset it was appended at), which under
        the write lock is where it landed."""
        self._unsynced = self._unsynced or not durable
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND
        try:
            fd = os.open(path, flags, 0o644)
        except FileNotFoundError:  # the folder is made only when missing, not per record
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, flags, 0o644)
        try:
            st = os.fstat(fd)
            if st.st_size and os.pread(fd, 1, st.st_size - 1) != b"\n":
                # A line torn by a crash (appends are made under the write lock, so no
                # writer is mid-line): ours starts on a line of its own, and the torn one
                # stays one damaged line, set aside when the log is folded.
                data = b"\n" + data
                st = os.fstat(fd)
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        return st.st_ino, st.st_size

    def compact(self) -> None:
        """Fold the log into ``index.json``, under the store's write lock. Lines of the log
        that are not entries are set aside first (``index.log.jsonl.damaged``)."""
        with self._write_lock(), self._lock:
            self._load()
            if self._set_aside_damaged():
                self._repair()
            index = self._all_read()
            self.dir.mkdir(parents=True, exist_ok=True)
            doc = {"schema_version": SCHEMA_VERSION, "collection": self.name, "records": index}
            atomic_write_file(self._index_path, to_json(doc))
            try:
                os.unlink(self._log_path)
            except FileNotFoundError:
                pass
            self._log_pos, self._log_ino, self._log_lines = 0, None, 0
            self._index_stamp = self._stamp()
            self._pending.clear()  # index.json holds them now
            self._keep()  # (the next process reads the new index.json from it)

    def _set_aside_damaged(self) -> bool:
        """Under the write lock (no writer is mid-line): the log's damaged lines, a torn last
        one included, appended to the quarantine file beside it. True when there were any."""
        try:
            return set_aside(self._log_path)
        except OSError as exc:
            raise StorageError.from_os(exc, str(self._log_path) + DAMAGED_SUFFIX) from exc

    def damaged_lines(self) -> int:
        """How many whole lines of the index log are damaged now (for ``doctor``; they are set
        aside at the next write)."""
        return len(damaged_in(self._log_path, torn_too=False))

    # -- records -------------------------------------------------------------------------
    def _record_path(self, record_id: str) -> Path:
        return self.dir / validate_id(record_id) / "index.json"

    @staticmethod
    def _read_record_file(path: Path) -> dict[str, Any] | None:
        try:
            return json.loads(path.read_text("utf-8"))
        except (FileNotFoundError, NotADirectoryError):
            return None
        except ValueError:
            return None

    def get(self, record_id: str, *, include_deleted: bool = False) -> dict[str, Any] | None:
        held = self._held.get(record_id) if self._held else None
        if held is not None:
            rec = json.loads(held[0])
        else:
            rec = self._read_record_file(self._record_path(record_id))
            if rec is None:
                rec = self._unpack(record_id)
        if rec is None or (rec.get("deleted") and not include_deleted):
            return None
        return rec

    def get_many(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """:meth:`get` of each id (those with no record, or deleted, left out), the folder
        listed once for the records with a file of their own (which wins over the pack)."""
        try:
            own = set(os.listdir(self.dir))
        except OSError:
            own = set()
        with self._lock:
            self._pack_table()  # caught up once, not once per record
        out = {}
        for rid in ids:
            slow = rid in own or (self._held and rid in self._held)
            rec = self.get(rid) if slow else self._unpack(rid, caught_up=True)
            if rec is not None and not rec.get("deleted"):
                out[rid] = rec
        return out

    def put(self, record: dict[str, Any], *, durable: bool = True) -> dict[str, Any]:
        """Write a record and update the index, under the store's cross-process write lock.

        Atomic always. ``durable=False`` skips the fsyncs, for a step that is redone by itself
        if a power cut loses it (what a killed process wrote is never lost either way).
        """
        rid = validate_id(record["id"])
        durable = durable and self.durable
        with self._write_lock(), self._lock:
            index = self._load()
            # (no indent: json's C encoder, several times faster on a 10,000-record import)
            text = to_json(record)
            if self.deferred:  # appended to the pack (or its own file) by flush
                fresh = rid not in index and rid not in self._packed
                self._held[rid] = (text, fresh or self._held.get(rid, ("", False))[1])
            elif rid in self._pack_table() and not os.path.isdir(self.dir / rid):
                # A packed record stays packed: its new version is a line appended (one
                # fsync, where a file of its own would cost a folder, a temp file and two).
                self._append_pack([f"{rid}\t{text}\n".encode()], durable=durable)
                self._pack_table()  # (the table points at the new line)
            else:
                atomic_write_file(self._record_path(rid), text, tmp_dir=self.dir, durable=durable)
            summary = summarize(record)
            assert self._index is not None
            if self._index.get(rid) != summary:
                if self.deferred:
                    self._index[rid] = self._pending[rid] = summary
                    self._changed(rid)
                else:
                    self._append_log({"op": "put", "id": rid, "summary": summary}, durable)
                    self._tail()  # our line, and any another process appended meanwhile
                    if self._log_lines >= _COMPACT_EVERY:
                        self.compact()
            if self.deferred and len(self._held) >= _BULK_BATCH:
                self.flush()
        return record

    def flush(self, final: bool = False) -> None:
        """Append the records and index lines bulk mode held back (one write each, records
        first), then catch up. ``final``: bulk mode ends (the index compacted if due)."""
        with self._write_lock(), self._lock:
            held, self._held = self._held, {}
            try:
                packed_lines: list[bytes] = []
                # (the folder listed once, not looked for per record: under the write lock)
                own = set(os.listdir(self.dir)) if self.dir.is_dir() else set()
                for rid, (text, fresh) in held.items():
                    # A record that has its own file is written there (it would win over
                    # the line), durably: few are; an id new to the index and the pack has
                    # none.
                    if not fresh and rid in own and os.path.isdir(self.dir / rid):
                        atomic_write_file(self._record_path(rid), text, tmp_dir=self.dir)
                    else:
                        packed_lines.append(f"{rid}\t{text}\n".encode())
                self._append_pack(packed_lines, durable=self.durable)
            except BaseException:
                # (a full disk: held again, and no index line names them before they are in)
                self._held = {**held, **self._held}
                raise
            if not self._pending:
                return
            data = "".join(
                to_json({"op": "put", "id": rid, "summary": summary}) + "\n"
                for rid, summary in self._pending.items()
            ).encode()
            if self._index is not None:
                self._tail()  # another process's lines first
            try:
                ino, at = self._append_bytes(data, durable=self.durable)
            except OSError as exc:
                raise StorageError.from_os(exc, str(self._log_path)) from exc
            lines = len(self._pending)
            self._pending.clear()
            if self._index is not None:
                if (ino, at) == (self._log_ino, self._log_pos) or (self._log_ino, at) == (None, 0):
                    # right after what we had read: our own lines, already in the index
                    self._log_ino, self._log_pos = ino, at + len(data)
                    self._log_lines += lines
                else:
                    self._tail()
                # (in bulk mode once, at the end: each compaction rewrites the whole index)
                if self._log_lines >= _COMPACT_EVERY and (final or not self.deferred):
                    self.compact()

    def sync(self) -> None:
        """What bulk mode wrote without fsync (the pack, the index log), made durable."""
        if not self._unsynced:
            return  # (a reindex that found nothing to write syncs nothing)
        self._unsynced = False
        for path in (self._pack_path, self._log_path, self.dir):
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def tombstone(self, record_id: str, **extra: Any) -> dict[str, Any] | None:
        rec = self.get(record_id, include_deleted=True)
        if rec is None:
            return None
        rec["deleted"] = True
        rec.update(extra)
        return self.put(rec)

    def drop(self, record_id: str) -> None:
        """Forget a record entirely (used when it moves to another collection)."""
        with self._write_lock(), self._lock:
            self.flush()  # a held-back put of this record goes first
            self._load()
            path = self._record_path(record_id)
            try:
                os.unlink(path)
                os.rmdir(path.parent)
            except OSError:
                pass
            if record_id in self._pack_table():  # its pack line is gone too
                self._append_pack([f"{record_id}\t\n".encode()], durable=True)
                self._pack_table()
            assert self._index is not None
            if record_id in self._index:
                self._append_log({"op": "drop", "id": record_id})
                self._tail()

    def summary(self, record_id: str, *, include_deleted: bool = False) -> dict[str, Any] | None:
        """A record's index entry, without reading its file."""
        found = self._load().get(record_id)
        if found is None or (found.get("deleted") and not include_deleted):
            return None
        return found

    def summaries_of(self, ids: Iterable[str]) -> dict[str, dict[str, Any] | None]:
        """The summary of each of ``ids`` (None: no record, or deleted), caught up once."""
        with self._lock:
            index = self._load()
            out: dict[str, dict[str, Any] | None] = {}
            for rid in ids:
                summary = index.get(rid)
                out[rid] = None if summary is None or summary.get("deleted") else summary
            return out

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Every index entry (tombstones too) as of now, caught up once: for a caller that
        looks up many records at once, instead of :meth:`summary` checking the disk for each."""
        return dict(self._whole())

    def _whole(self) -> dict[str, dict[str, Any]]:
        """The index caught up, every summary read (one a snapshot gave is read as it is
        first asked for: vaultbrain/store/snap.py's :class:`Summaries`)."""
        with self._lock:
            self._load()
            return self._all_read()

    def version(self) -> list[Any]:
        """Changes whenever the index changes, in this process or another."""
        self._load()
        return [list(self._index_stamp or ()), self._log_ino, self._log_pos]

    def disk_version(self) -> list[Any]:
        """What :meth:`version` would be once caught up, from two ``stat`` calls and without
        loading the index: the same value exactly when nothing changed since (a log line still
        being written aside)."""
        try:
            st = os.stat(self._log_path)
            log: list[int | None] = [st.st_ino, st.st_size]
        except FileNotFoundError:
            log = [None, 0]
        return [list(self._stamp() or ()), *log]

    def ids_changed_since(self, version: Any) -> list[str] | None:
        """The ids whose index entry changed since ``version`` (a :meth:`disk_version` taken
        earlier, maybe by another process and kept on disk), read from the index log's tail;
        None when that cannot be told (the index compacted or replaced since): then every
        summary is to be looked at. A cold process catching up a saved state reads a few log
        lines instead of 10,000 summaries."""
        try:
            stamp, ino, size = version
        except (TypeError, ValueError):
            return None
        now = self.disk_version()
        if list(stamp or ()) != now[0]:
            return None
        if ino is None:
            size = 0  # no log then: every line of the one there now is new
        elif ino != now[1] or not isinstance(size, int) or size > now[2]:
            return None
        if now[1] is None:
            return []
        try:
            with open(self._log_path, "rb") as fh:
                fh.seek(size)
                chunk = fh.read()
        except OSError:
            return None
        end = chunk.rfind(b"\n")
        return [e["id"] for e in log_entries(chunk[: end + 1]) if "id" in e] if end >= 0 else []

    def summaries(self, *, include_deleted: bool = False) -> Iterator[dict[str, Any]]:
        for summary in list(self._whole().values()):
            if include_deleted or not summary.get("deleted"):
                yield summary

    def live_summaries(self) -> MutableMapping[str, dict[str, Any]]:
        """id -> summary of each record not deleted: a copy the caller keeps (copied whole
        and the deleted taken out, a few times faster than built one by one; as a snapshot
        gave them, the summaries not read yet are read from the copy as it is asked)."""
        with self._lock:
            index = self._load()
            if isinstance(index, Summaries):
                return index.live()
            live = dict(index)
        for rid in [rid for rid, summary in live.items() if summary.get("deleted")]:
            del live[rid]
        return live

    def ids(self) -> list[str]:
        return [s["id"] for s in self.summaries()]

    def all(self, *, include_deleted: bool = False) -> Iterator[dict[str, Any]]:
        for summary in self.summaries(include_deleted=include_deleted):
            rec = self.get(summary["id"], include_deleted=include_deleted)
            if rec is not None:
                yield rec

    def __len__(self) -> int:
        return sum(1 for _ in self.summaries())
