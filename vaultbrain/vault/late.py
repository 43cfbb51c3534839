"""Files a swap displaced, watched a while for an editor's late write.

A note is changed by swapping a new file in at its path (``Vault.replace``). A program that
opened the note just before the swap (an appender, an editor rewriting in place) still holds
the old file, and what it writes after the swap lands there, no longer at the note's path: it
would be lost. ``Vault.replace`` looks at the displaced file once, a couple of milliseconds
after the swap; a writer held up longer (a busy machine, a phone's sync client, a script
between its ``open`` and its ``write``) was missed. So the descriptor of the displaced file is
kept for :data:`GRACE` seconds, and :meth:`LateWrites.look` (each turn of the daemon, and as a
command ends) hands back what was written into it since, to be carried into the note.

The old file is unlinked already: nothing but the descriptor kept here can still read it.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

import hashlib

from vaultbrain.vault.atomic import read_all
from vaultbrain.vault.note import newline_of

GRACE = 5.0  # seconds a displaced file is watched
KEEP = 64  # displaced files watched at once (an open descriptor each); the oldest goes first
SETTLE = 0.02  # a command's last look waits this long after its newest swap
# Up to this size a displaced file's bytes are kept to compare with; a bigger one (a heavy
# user's inbox after a year) is kept as its size, a hash of its tail and a hash per line.
MAX_SEEN = 1 << 20
TAIL = 1 << 16
# While holding (LateWrites.holding): at most this many open (and not the last quarter of
# the descriptors the process may open), holding at most this many bytes to compare with;
# let go by this many threads side by side.
HOLD_MAX = 16_384
HOLD_BYTES = 256 << 20
FREEING = 32


@dataclass(frozen=True)
class Seen:
    """What a displaced file held: its bytes, or for a big file enough to tell an append
    (the same size and tail at the start) and which lines it had."""

    size: int
    data: bytes | None  # the bytes themselves, up to MAX_SEEN
    tail: bytes = b""  # sha256 of the last TAIL bytes (a big file)
    line_hashes: frozenset[int] = frozenset()  # hash of each line's text (a big file)

    @classmethod
    def of(cls, data: bytes) -> Seen:
        if len(data) <= MAX_SEEN:
            return cls(len(data), data)
        lines = _lines(data.decode("utf-8", "surrogateescape"))
        return cls(len(data), None, _tail_hash(data, len(data)), frozenset(map(hash, lines)))

    def same(self, after: bytes) -> bool:
        if self.data is not None:
            return after == self.data
        return len(after) == self.size and _tail_hash(after, self.size) == self.tail

    def prefix_of(self, after: bytes) -> bool:
        """Whether ``after`` is what was seen with bytes appended."""
        if self.data is not None:
            return after.startswith(self.data)
        return len(after) >= self.size and _tail_hash(after, self.size) == self.tail

    def has_line(self, line: str) -> bool:
        if self.data is not None:
            return line in self._lines()
        return hash(line) in self.line_hashes

    def _lines(self) -> set[str]:
        cached = self.__dict__.get("_line_set")
        if cached is None:
            cached = set(_lines(self.data.decode("utf-8", "surrogateescape")))  # type: ignore[union-attr]
            object.__setattr__(self, "_line_set", cached)
        return cached


def _tail_hash(data: bytes, end: int) -> bytes:
    return hashlib.sha256(memoryview(data)[max(0, end - TAIL) : end]).digest()


@dataclass(eq=False)
class Displaced:
    """One displaced file: the note it was, what it held when swapped out, and the hash of
    the text swapped in over it."""

    rel: str
    fd: int
    seen: Seen
    ours: str
    key: tuple[int, int]  # (size, mtime_ns) of what ``seen`` was read from
    until: float
    moving: tuple[int, int] | None = None  # a change seen at the last look, maybe unfinished


def _key(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_size, st.st_mtime_ns


def _close_all(kept: list[Displaced]) -> None:
    for entry in kept:
        try:
            os.close(entry.fd)
        except OSError:
            pass
    kept.clear()


class LateWrites:
    """The displaced files of one vault (shared by its threads)."""

    def __init__(self) -> None:
        self._kept: list[Displaced] = []
        self._lock = threading.Lock()
        self._newest = 0.0
        self._holding = 0  # while holding(): how many may be kept open
        self._held_bytes = 0  # what the kept ones held, kept to compare with
        self._released: list[tuple[Displaced, bytes]] = []
        # Set (see defer_frees): the files looked at for the last time, still to be closed.
        self.unfreed: list[int] | None = None
        # A vault dropped closes them; not at exit, where the last look needs them open.
        weakref.finalize(self, _close_all, self._kept).atexit = False

    def __bool__(self) -> bool:
        return bool(self._kept or self._released)

    def keep(self, rel: str, fd: int, seen: bytes, ours: str) -> list[tuple[Displaced, bytes]]:
        """Watch ``fd`` (now ours to close). Returns the late writes of the files let go to
        stay within :data:`KEEP` (looked at one last time)."""
        now = time.monotonic()
        # Its key is not taken now: a write landing between the caller's read of ``seen`` and
        # an fstat here would go unseen. The size of ``seen`` with no time has the next looks
        # read it once, and compare bytes.
        entry = Displaced(rel, fd, Seen.of(seen), ours, (len(seen), 0), now + GRACE)
        with self._lock:
            self._kept.append(entry)
            self._newest = now
            self._held_bytes += entry.seen.size
            if not self._holding:
                over = self._kept[: max(0, len(self._kept) - KEEP)]
            elif len(self._kept) > self._holding or self._held_bytes > HOLD_BYTES:
                over = self._kept[: len(self._kept) - KEEP]  # let go together, side by side
            else:
                over = []
            self._forget(over)
        # Looked at and closed outside the lock (they are no longer shared): closing the last
        # descriptor of a displaced file frees it, which waits on the disk, and threads
        # swapping side by side (Vault.edit_many) waited on each other's frees.
        return self._let_go(over)

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """Keep every displaced file open while the block runs (as many as the descriptors
        the process may open allow), then let them go together. Freeing a file waits on the
        disk (2 ms a file on a virtual disk that discards what is freed): one after another,
        the frees of 12,000 notes took half a minute; side by side a second. And a file
        system without a journal (ext4) looks past every inode freed in the last seconds to
        make a file: frees between the temp files of ``adopt --apply`` made each of them
        cost twice as much. The newest :data:`KEEP` stay watched as ever."""
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if resource else 1024
        if soft <= 0:  # (unlimited)
            soft = 2 * HOLD_MAX
        budget = max(KEEP, min(HOLD_MAX, soft - max(256, soft // 4)))
        with self._lock:
            outer, self._holding = self._holding, max(self._holding, budget)
        try:
            yield
        finally:
            with self._lock:
                self._holding = outer
                over = [] if outer else self._kept[: max(0, len(self._kept) - KEEP)]
                self._forget(over)
            self._released = self._let_go(over)

    def released(self) -> list[tuple[Displaced, bytes]]:
        """The late writes found in the files let go as :meth:`holding` ended (once)."""
        found, self._released = self._released, []
        return found

    def _forget(self, entries: list[Displaced]) -> None:
        """(under the lock) ``entries``, the oldest, are no longer watched by this object."""
        del self._kept[: len(entries)]
        self._held_bytes -= sum(e.seen.size for e in entries)

    def _let_go(self, entries: list[Displaced]) -> list[tuple[Displaced, bytes]]:
        """Each entry looked at one last time and closed; many side by side."""
        if len(entries) < 8:
            return [found for e in entries for found in self._look_at(e, final=True)]

        def let_go(some: list[Displaced]) -> list[tuple[Displaced, bytes]]:
            return [found for e in some for found in self._look_at(e, final=True)]

        from concurrent.futures import ThreadPoolExecutor  # (a command's few need none)

        n = min(FREEING, len(entries))
        with ThreadPoolExecutor(n, "vb-free") as pool:
            looks = list(pool.map(let_go, [entries[i::n] for i in range(n)]))
        return [found for look in looks for found in look]

    def look(self, final: bool = False) -> list[tuple[Displaced, bytes]]:
        """(entry, what its file holds now) for each displaced file written into since it
        was last looked at, with ``entry.seen`` still what it held before. A change is taken
        once it has held still from one look to the next (or the watch ends: ``final``, or
        :data:`GRACE` passed). Files no longer watched are closed."""
        if not self._kept:
            return []
        if final:
            wait = self._newest + SETTLE - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # a writer that opened just before the last swap
        now = time.monotonic()
        found = []
        with self._lock:  # (a writing thread's keep() may let the oldest go meanwhile)
            for entry in self._kept:
                found += self._look_at(entry, final=final or now >= entry.until)
            self._kept[:] = [e for e in self._kept if e.fd >= 0]
            self._held_bytes = sum(e.seen.size for e in self._kept)
        return found

    def close(self) -> None:
        """Stop watching: every displaced file let go (the end of a command or a daemon)."""
        with self._lock:
            if self.unfreed is not None:
                self.unfreed += [e.fd for e in self._kept if e.fd >= 0]
                self._kept.clear()
            else:
                _close_all(self._kept)
            self._held_bytes = 0

    def defer_frees(self) -> list[int]:
        """From now on a displaced file's last look does not close it: its descriptor goes
        into the list returned, for the caller to close (:func:`free_all`) once nobody waits
        on it. Closing the last descriptor of a displaced file frees it, which waits on the
        disk: 6,000 of them took a writer process of ``adopt --apply`` over half a second
        after its last look, which the command waited for."""
        self.unfreed = []
        return self.unfreed

    def _look_at(self, entry: Displaced, final: bool) -> list[tuple[Displaced, bytes]]:
        found: list[tuple[Displaced, bytes]] = []
        try:
            key = _key(entry.fd)
            if key != entry.key and (final or key == entry.moving):
                after = read_all(entry.fd)
                entry.moving = None
                # Emptied: an editor between its truncation and its write (or one that died
                # there). Nothing is taken from it; its save is, when it comes.
                if after:
                    entry.key = key
                    if not entry.seen.same(after):
                        found.append((Displaced(**{**entry.__dict__, "fd": -1}), after))
                        entry.seen = Seen.of(after)
            elif key != entry.key:
                entry.moving = key  # being written now, maybe: taken at the next look
        except OSError:
            final = True
        if final:
            if self.unfreed is not None:
                self.unfreed.append(entry.fd)
            else:
                try:
                    os.close(entry.fd)
                except OSError:
                    pass
            entry.fd = -1
        return found


def free_all(fds: list[int]) -> None:
    """Close ``fds`` (displaced files: see :meth:`LateWrites.defer_frees`), many side by side."""

    def close(some: list[int]) -> None:
        for fd in some:
            try:
                os.close(fd)
            except OSError:
                pass

    from concurrent.futures import ThreadPoolExecutor

    n = max(1, min(FREEING, len(fds) // 8))
    with ThreadPoolExecutor(n, "vb-free") as pool:
        list(pool.map(close, [fds[i::n] for i in range(n)]))


def new_lines(text: str, seen: Seen, have: str) -> str:
    """The lines of a late save ``text`` that neither the displaced file held (``seen``) nor
    the note has now (``have``), each ending in a newline."""
    now = set(_lines(have))
    nl = newline_of(have or text)
    return "".join(x + nl for x in _lines(text) if x not in now and not seen.has_line(x))


def joined(text: str, added: str) -> str:
    """``added`` (whole lines) after ``text``, on a line of their own."""
    if text and added and not text.endswith(("\n", "\r")):
        return text + newline_of(text) + added
    return text + added


_EOL = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> list[str]:
    """The lines of ``text`` as Obsidian has them: only ``\r\n``, ``\r`` and ``\n`` end
    one (``str.splitlines`` would also cut a thought at a U+2028 or a form feed)."""
    parts = _EOL.split(text)
    return parts[:-1] if parts and not parts[-1] else parts
