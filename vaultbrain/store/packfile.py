"""A collection's ``records.pack``: the records a first ``reindex`` made, as lines of one file
(``<id>\t<json>``; a later line wins, an empty one says "gone"), read by offset and appended
to (vaultbrain/store/collection.py's :class:`Collection` holds one)."""

from __future__ import annotations

import json
import os
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError


class PackedRecords:
    """The pack part of a collection: its table of (offset, length) by record id, caught up
    with the file as it grows, and the records read from it."""

    _lock: threading.RLock
    _pack_path: Path
    _pack_seen: tuple[int, int]
    _packed_now: dict[str, tuple[int, int]]
    # A snapshot's table as kept, made a dict when first looked up (a cold capture reads a
    # record or two of one collection of four): what makes it.
    _pack_kept: Callable[[], dict[str, tuple[int, int]]] | None = None
    _pack_file: Any
    # The ids of the lines read since a snapshot was taken (None: not followed), so that a
    # load from it checks those against the index, not the 10,000 it had checked.
    _pack_grown: list[str] | None = None

    if TYPE_CHECKING:  # the collection's

        def _append_to(self, path: Path, data: bytes, durable: bool) -> tuple[int, int]: ...

    @property
    def _packed(self) -> dict[str, tuple[int, int]]:
        """Where each packed record's JSON is (offset, length), as far as read."""
        kept = self._pack_kept
        if kept is not None:
            self._pack_kept = None
            try:
                self._packed_now = kept()
            except StorageError:  # (the snapshot lost it: the pack read again from its start)
                self._packed_now, self._pack_seen = {}, (0, 0)
                self._pack_catch_up()
        return self._packed_now

    @_packed.setter
    def _packed(self, table: dict[str, tuple[int, int]]) -> None:
        self._packed_now = table
        self._pack_kept = None

    def _pack_table(self) -> dict[str, tuple[int, int]]:
        """Where each packed record's JSON is (offset, length), caught up with the file."""
        self._pack_catch_up()
        return self._packed

    def _pack_catch_up(self) -> None:
        """The lines appended to the pack since it was last read, taken in."""
        try:
            st = os.stat(self._pack_path)
        except FileNotFoundError:
            if self._pack_seen != (0, 0):
                self._forget_pack()
            return
        ino, seen = self._pack_seen
        if ino != st.st_ino or st.st_size < seen:  # replaced: read it again from the start
            self._forget_pack()
            seen = 0
        if st.st_size == seen:
            return
        with open(self._pack_path, "rb") as fh:
            fh.seek(seen)
            chunk = fh.read(st.st_size - seen)
        end = chunk.rfind(b"\n")
        if end < 0:
            return  # a line still being written
        at = seen
        for line in chunk[:end].split(b"\n"):
            rid, tab, body = line.partition(b"\t")
            if tab and (not body or body.endswith(b"}")):  # (not a line a crash tore)
                key = rid.decode("ascii", "replace")
                if body:
                    self._packed[key] = (at + len(rid) + 1, len(body))
                    if self._pack_grown is not None:
                        self._pack_grown.append(key)
                else:
                    self._packed.pop(key, None)
            at += len(line) + 1
        self._pack_seen = (st.st_ino, seen + end + 1)

    def _forget_pack(self) -> None:
        self._pack_grown = None  # (read again from the start: every line is new)
        self._packed = {}
        self._pack_seen = (0, 0)
        if self._pack_file is not None:
            self._pack_file.close()
            self._pack_file = None

    def _unpack(self, record_id: str, caught_up: bool = False) -> dict[str, Any] | None:
        """A record's line in the pack (None: it has none). ``caught_up``: the table is
        looked up as it was last caught up with the file, when it names the record."""
        with self._lock:
            where = self._packed.get(record_id) if caught_up else None
            where = where or self._pack_table().get(record_id)
            if where is None:
                return None
            try:
                if self._pack_file is None:
                    self._pack_file = open(self._pack_path, "rb")  # noqa: SIM115 (kept open)
                    weakref.finalize(self, self._pack_file.close)  # closed with us
                data = os.pread(self._pack_file.fileno(), where[1], where[0])
                rec = json.loads(data)
            except (OSError, ValueError):
                return None
        return rec if isinstance(rec, dict) else None

    def _append_pack(self, lines: list[bytes], durable: bool) -> None:
        if not lines:
            return
        data = b"".join(lines)
        try:
            with open(self._pack_path, "rb") as fh:  # a line torn by a crash stays one line
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    data = b"\n" + data
        except (FileNotFoundError, OSError):
            pass  # (no pack yet, or an empty one)
        try:
            self._append_to(self._pack_path, data, durable)
        except OSError as exc:
            raise StorageError.from_os(exc, str(self._pack_path)) from exc
