"""``PackedMap``: a str-keyed map that is kept (pickled) as one string of bytes, loads as that
one string, and unpacks an entry only when it is first read.

The embedded classifier's vault learning holds a row per record and per word the vault
taught it: on 10,000 notes, some 40,000 small objects, which every cold ``vaultbrain
capture`` unpickled (a tenth of its time) to read the hundred rows one thought needs. Kept
packed, the rows sit sorted by key, ``key NUL value`` with the value marshalled; a key is
found by bisection and its value unpacked when first read (and then kept: a caller may
change it in place, as the counts do). Writes and deletions go into the entries opened
since; pickling packs the map whole again, the untouched rows copied as they are.

A full pass (every entry read) is slower than a dict's; :meth:`PackedMap.unpack` opens every
entry at once first. A leaf module: it imports nothing of vaultbrain's.
"""

from __future__ import annotations

import marshal
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from typing import Any

_PY = sys.version_info[:2]  # (marshal's format is this Python's)
_GONE: Any = object()  # an opened entry that was deleted
_ABSENT: Any = object()


def _key_bytes(key: str) -> bytes:
    """``key`` as it is packed: UTF-8 (lone surrogates kept), with NUL, which ends a key in a
    row, escaped (and the escape itself), so any string can be a key."""
    raw = key.encode("utf-8", "surrogatepass")
    if b"\x00" in raw or b"\x01" in raw:
        raw = raw.replace(b"\x01", b"\x01\x01").replace(b"\x00", b"\x01\x02")
    return raw


def _key_str(raw: bytes) -> str:
    if b"\x01" in raw:  # (escaped: read pair by pair, \x01\x01 is \x01, \x01\x02 is NUL)
        out = bytearray()
        i = 0
        while i < len(raw):
            if raw[i] == 1:
                out.append(0 if raw[i + 1] == 2 else 1)
                i += 2
            else:
                out.append(raw[i])
                i += 1
        raw = bytes(out)
    return raw.decode("utf-8", "surrogatepass")


class PackedMap(MutableMapping[str, Any]):
    """A map of str to marshallable values (numbers, strings, lists, tuples, sets of them)."""

    __slots__ = ("_len", "_n", "_open", "_rows", "_starts")

    def __init__(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        self._rows = b""
        self._starts = array("I", [0])
        self._n = 0
        self._open: dict[str, Any] = dict(items)  # entries read or written since packing
        self._len = len(self._open)

    @classmethod
    def _loaded(cls, rows: bytes, starts: bytes) -> PackedMap:
        out = cls()
        out._rows = rows
        out._starts = array("I")
        out._starts.frombytes(starts)
        out._n = out._len = len(out._starts) - 1
        if out._n < 0 or out._starts[-1] != len(rows):
            raise ValueError("not a packed map")
        return out

    # -- the packed rows -------------------------------------------------------------------
    def _key_at(self, i: int) -> bytes:
        start = self._starts[i]
        return self._rows[start : self._rows.index(b"\x00", start)]

    def _find(self, key: str) -> int:
        """The row of ``key``, or -1."""
        want = _key_bytes(key)
        i = bisect_left(range(self._n), want, key=self._key_at)
        return i if i < self._n and self._key_at(i) == want else -1

    def _value_at(self, i: int) -> Any:
        start = self._rows.index(b"\x00", self._starts[i]) + 1
        return marshal.loads(self._rows[start : self._starts[i + 1]])

    def _lookup(self, key: str) -> Any:
        value = self._open.get(key, _ABSENT)
        if value is not _ABSENT:
            return value
        i = self._find(key) if self._n else -1
        if i < 0:
            return _ABSENT
        value = self._open[key] = self._value_at(i)  # (kept: the caller may change it)
        return value

    # -- the map ---------------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        value = self._lookup(key)
        if value is _ABSENT or value is _GONE:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._lookup(key)
        return default if value is _ABSENT or value is _GONE else value

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        value = self._open.get(key, _ABSENT)
        if value is not _ABSENT:
            return value is not _GONE
        return bool(self._n) and self._find(key) >= 0

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self:
            self._len += 1
        self._open[key] = value

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        if self._n and self._find(key) >= 0:
            self._open[key] = _GONE  # (the packed row stays until the map is packed again)
        else:
            del self._open[key]
        self._len -= 1

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[str]:
        opened = [k for k, v in self._open.items() if v is not _GONE]
        skip = set(self._open)
        for i in range(self._n):
            key = _key_str(self._key_at(i))
            if key not in skip:
                yield key
        yield from opened

    def __repr__(self) -> str:
        return f"PackedMap({len(self)} entries, {len(self._open)} open)"

    def unpack(self) -> None:
        """Open every entry now (before a pass over all of them): the map is a dict after."""
        for i in range(self._n):
            key = _key_str(self._key_at(i))
            if key not in self._open:
                self._open[key] = self._value_at(i)
        self._open = {k: v for k, v in self._open.items() if v is not _GONE}
        self._rows, self._starts, self._n = b"", array("I", [0]), 0

    # -- kept ------------------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, ...]:
        rows, starts = self._packed()
        return (_loaded, (rows, starts.tobytes(), _PY))

    def _packed(self) -> tuple[bytes, array[int]]:
        """Every entry as sorted rows: the packed rows as they are, with the entries opened
        since put in at their places (a map that changed a little packs in a few ms)."""
        if not self._open:
            return self._rows, self._starts
        opened = sorted((_key_bytes(k), v) for k, v in self._open.items())
        rows: list[bytes] = []
        starts = array("I", [0])
        done = 0  # packed rows before this one are in ``rows``

        def copy(upto: int) -> None:
            nonlocal done
            if upto > done:
                first, last = self._starts[done], self._starts[upto]
                rows.append(self._rows[first:last])
                shift = starts[-1] - first
                starts.extend(at + shift for at in self._starts[done + 1 : upto + 1])
                done = upto

        for raw, value in opened:
            i = bisect_left(range(done, self._n), raw, key=self._key_at) + done
            copy(i)
            if i < self._n and self._key_at(i) == raw:
                done = i + 1  # (replaced or deleted)
            if value is not _GONE:
                row = raw + b"\x00" + marshal.dumps(value)
                rows.append(row)
                starts.append(starts[-1] + len(row))
        copy(self._n)
        return b"".join(rows), starts


def _loaded(rows: bytes, starts: bytes, py: tuple[int, int]) -> PackedMap:
    """A map as it was kept (pickle's way back). Values marshalled by another Python cannot
    be read: the map is refused as a whole, now, not when an entry is first read."""
    if tuple(py) != _PY:
        raise ValueError(f"a packed map of Python {py[0]}.{py[1]}")
    return PackedMap._loaded(rows, starts)


def packed(mapping: Mapping[str, Any]) -> PackedMap:
    """``mapping`` as a PackedMap (itself if it is one), to be kept packed."""
    return mapping if isinstance(mapping, PackedMap) else PackedMap(mapping)
