"""Vectors of the vault's notes for search by meaning, beside the FTS5 index.

The rows live in the graph index's SQLite file (:mod:`vaultbrain.graph.index`), the vectors
in a file next to it, ``<state_dir>/graph/<sha8>.vec``: float32 rows, one per chunk, at the
chunk's *slot*, L2-normalised so a dot product is the cosine. A query maps the file
(``numpy.memmap``) and multiplies: 25,000 chunks of 384 numbers are 38 MB the page cache
keeps, read without copying, and no process holds them in its own memory.

Why not sqlite-vec: its loadable extension needs a Python whose ``sqlite3`` allows
``enable_load_extension``, and many do not (pyenv's builds, the one CI runs here, and
macOS's system Python); and where it loads (Debian's Python 3.11), its brute-force ``vec0``
search over the 14,452 chunk vectors of the 10,000-note bench vault took 178 ms against 46
ms for numpy over the mapped file (k = 400, the same loaded 2-core machine, medians of 30;
``bench/bench_embed.py`` measures both where it can). numpy needs nothing but numpy.

Tables (all cache, rebuilt by embedding again):
- ``vec_notes``: each embedded note's stat as the graph index had it when its text was
  embedded (``notes.mtime_ns``, ``size``): a note whose row differs is *stale*;
- ``vec_chunks``: one row per chunk: its slot, note, heading, a preview, and the hash of
  the text embedded, so a chunk whose text did not change keeps its vector (and a moved
  note's chunks are copied, not embedded again);
- ``vec_free``: slots given back (zeroed in the file), reused first;
- ``vec_failed``: notes the server would not embed at their present stat (a 500, a vector
  with NaN or infinity, of the wrong size, all zeros): why, how many tries, and when the
  next try is due (backoff doubling from :data:`RETRY_FIRST` to :data:`RETRY_MOST`); they
  wait, listed by ``embed --status`` and ``doctor``, and never stop the other notes;
- ``meta`` keys ``vec_model`` (the :attr:`EmbedInfo.identity` of the vectors), ``vec_dim``
  and ``vec_rows`` (slots handed out so far).

A write takes SQLite's write lock first (``BEGIN IMMEDIATE``: a daemon and a command never
hand out one slot twice), writes the vectors to their slots, syncs the file, then commits
the rows that point at them: a reader sees either the old rows or the new ones.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.graph.hits import ARCHIVE_LIKE, notes_of
from vaultbrain.graph.index import GraphIndex

if TYPE_CHECKING:
    import numpy as np


_SCHEMA = """
CREATE TABLE IF NOT EXISTS vec_notes(rel TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER);
CREATE TABLE IF NOT EXISTS vec_chunks(
    slot INTEGER PRIMARY KEY, rel TEXT NOT NULL, ord INTEGER NOT NULL,
    heading TEXT, preview TEXT, hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS vec_chunks_rel ON vec_chunks(rel);
CREATE INDEX IF NOT EXISTS vec_chunks_hash ON vec_chunks(hash);
CREATE TABLE IF NOT EXISTS vec_free(slot INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS vec_failed(
    rel TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, why TEXT NOT NULL,
    tries INTEGER NOT NULL, retry_at REAL NOT NULL
);
"""
RETRY_FIRST = 60.0  # seconds before a note the server refused is tried again; doubled each time
RETRY_MOST = 6 * 3600.0
# A note waits while it failed at the stat it still has and its next try is not due.
_WAITING = (
    "EXISTS (SELECT 1 FROM vec_failed f WHERE f.rel = n.rel AND f.mtime_ns IS n.mtime_ns "
    "AND f.size IS n.size AND f.retry_at > ?)"
)


def numpy() -> Any:
    """numpy, its BLAS held to one thread when nothing else set it: a product over a few
    tens of MB is bound by memory, so a second thread adds nothing, and on a busy machine
    its spin-waiting made a query two to three times slower (bench/bench_embed.py)."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    import numpy as np

    return np


def vector_path(index: GraphIndex) -> Path:
    return Path(index.path).with_suffix(".vec")


@dataclass
class ChunkRow:
    """A chunk as written: its place in the note, heading, preview and text hash."""

    ord: int
    heading: str
    preview: str
    hash: str


@dataclass
class NoteVectors:
    """What one note's write needs: the stat it was read at, its chunks, and a vector for
    each chunk whose hash has none yet (by hash)."""

    rel: str
    stamp: tuple[int, int]
    chunks: list[ChunkRow]
    fresh: dict[str, Sequence[float]]


class VectorStore:
    """The vectors of one graph index. Uses the index's connection and lock."""

    def __init__(self, index: GraphIndex) -> None:
        self.index = index
        self.path = vector_path(index)
        if not getattr(index, "vec_tables", False):  # once per connection, not per query
            with index.lock:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        index.db.execute(statement)
            index.vec_tables = True  # type: ignore[attr-defined]

    # -- meta ----------------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        row = self.index.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.index.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    @property
    def identity(self) -> str | None:
        """The model (and size) the stored vectors come from; None before any."""
        with self.index.lock:
            return self._meta("vec_model")

    @property
    def dim(self) -> int:
        with self.index.lock:
            return int(self._meta("vec_dim") or 0)

    def checked(self) -> bool:
        """Whether every stored vector was checked (finite, not zeros) as it was written."""
        with self.index.lock:
            return self._meta("vec_checked") == "1"

    def set_checked(self) -> None:
        with self._write():
            self._set_meta("vec_checked", "1")

    def count(self) -> tuple[int, int]:
        """(notes embedded, chunks)."""
        with self.index.lock:
            db = self.index.db
            notes = db.execute("SELECT count(*) FROM vec_notes").fetchone()[0]
            chunks = db.execute("SELECT count(*) FROM vec_chunks").fetchone()[0]
        return int(notes), int(chunks)

    def empty(self) -> bool:
        """Whether no note is embedded (one row looked at, not every row counted)."""
        with self.index.lock:
            return self.index.db.execute("SELECT 1 FROM vec_notes LIMIT 1").fetchone() is None

    def size_bytes(self) -> int:
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """SQLite's write lock for the whole of a write (see the module doc)."""
        with self.index.lock:
            db = self.index.db
            if db.in_transaction:  # inside a reindex's bulk transaction: part of it
                yield db
                return
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def reset(self, identity: str, dim: int) -> None:
        """Forget every vector: the model changed (vectors of two models do not compare)."""
        with self._write() as db:
            for table in ("vec_notes", "vec_chunks", "vec_free", "vec_failed"):
                db.execute(f"DELETE FROM {table}")  # noqa: S608
            self._set_meta("vec_model", identity)
            self._set_meta("vec_dim", str(dim))
            self._set_meta("vec_rows", "0")
            self._set_meta("vec_checked", "1")  # (every vector from here on is checked)
            # A new empty file in its place, inside the write lock: no slot of the old model
            # survives, and a reader still mapping the old file keeps it whole (truncating a
            # mapped file would fault that reader).
            fresh = self.path.with_name(self.path.name + ".new")
            with open(fresh, "wb"):
                pass
            os.replace(fresh, self.path)

    # -- what needs embedding --------------------------------------------------------------
    def stale(self, limit: int, skip: Iterable[str] = ()) -> list[tuple[str, int, int]]:
        """Notes (rel, mtime_ns, size) the index holds at another stat than their vectors
        were made at, or not at all; the newest first. The archive is never embedded, nor a
        note the server refused until its next try is due."""
        skipped = json.dumps(sorted(set(skip)))
        with self.index.lock:
            rows = self.index.db.execute(
                "SELECT n.rel, n.mtime_ns, n.size FROM notes n "
                "LEFT JOIN vec_notes v ON v.rel = n.rel "
                "WHERE (v.rel IS NULL OR v.mtime_ns IS NOT n.mtime_ns OR v.size IS NOT n.size) "
                f"AND n.rel NOT LIKE ? AND n.rel NOT IN (SELECT value FROM json_each(?)) "
                f"AND NOT {_WAITING} ORDER BY n.mtime_ns DESC LIMIT ?",
                (ARCHIVE_LIKE, skipped, time.time(), limit),
            ).fetchall()
        return [(r, m, s) for r, m, s in rows]

    def stale_of(self, rels: Iterable[str], skip: Iterable[str] = ()) -> list[tuple[str, int, int]]:
        """Of ``rels``, those :meth:`stale` would name."""
        wanted = json.dumps(sorted(set(rels) - set(skip)))
        with self.index.lock:
            rows = self.index.db.execute(
                "SELECT n.rel, n.mtime_ns, n.size FROM notes n "
                "LEFT JOIN vec_notes v ON v.rel = n.rel "
                "WHERE n.rel IN (SELECT value FROM json_each(?)) AND n.rel NOT LIKE ? "
                "AND (v.rel IS NULL OR v.mtime_ns IS NOT n.mtime_ns OR v.size IS NOT n.size) "
                f"AND NOT {_WAITING}",
                (wanted, ARCHIVE_LIKE, time.time()),
            ).fetchall()
        return [(r, m, s) for r, m, s in rows]

    def gone(self) -> list[str]:
        """Embedded notes the index no longer holds, or that moved into the archive."""
        with self.index.lock:
            return [
                rel
                for (rel,) in self.index.db.execute(
                    "SELECT rel FROM vec_notes WHERE rel LIKE ? "
                    "OR NOT EXISTS (SELECT 1 FROM notes n WHERE n.rel = vec_notes.rel)",
                    (ARCHIVE_LIKE,),
                )
            ]

    def gone_of(self, rels: Iterable[str]) -> list[str]:
        """Of ``rels``, the embedded ones :meth:`gone` would name."""
        wanted = json.dumps(sorted(set(rels)))
        with self.index.lock:
            return [
                rel
                for (rel,) in self.index.db.execute(
                    "SELECT rel FROM vec_notes WHERE rel IN (SELECT value FROM json_each(?)) "
                    "AND (rel LIKE ? OR NOT EXISTS (SELECT 1 FROM notes n WHERE n.rel = vec_notes.rel))",
                    (wanted, ARCHIVE_LIKE),
                )
            ]

    def pending(self) -> int:
        """How many notes wait to be embedded (stale or gone)."""
        with self.index.lock:
            n = self.index.db.execute(
                "SELECT count(*) FROM notes n LEFT JOIN vec_notes v ON v.rel = n.rel "
                "WHERE (v.rel IS NULL OR v.mtime_ns IS NOT n.mtime_ns OR v.size IS NOT n.size) "
                "AND n.rel NOT LIKE ?",
                (ARCHIVE_LIKE,),
            ).fetchone()[0]
        return int(n) + len(self.gone())

    # -- notes the server refused ------------------------------------------------------------
    def mark_failed(self, failed: Iterable[tuple[str, tuple[int, int], str]]) -> int:
        """Notes (rel, the stat they were read at, why) the server would not embed: each
        waits, its next try later each time it fails again at the same stat."""
        now = time.time()
        n = 0
        with self._write() as db:
            for rel, stamp, why in failed:
                row = db.execute(
                    "SELECT mtime_ns, size, tries FROM vec_failed WHERE rel=?", (rel,)
                ).fetchone()
                tries = int(row[2]) + 1 if row is not None and tuple(row[:2]) == stamp else 1
                wait = min(RETRY_MOST, RETRY_FIRST * 2 ** min(tries - 1, 20))
                db.execute(
                    "INSERT OR REPLACE INTO vec_failed(rel, mtime_ns, size, why, tries, retry_at) "
                    "VALUES(?,?,?,?,?,?)",
                    (rel, *stamp, " ".join(why.split())[:300], tries, now + wait),
                )
                n += 1
        return n

    def failed(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The notes waiting because the server refused them, as their present stat still
        is: path, why, tries, when the next try is due (time.time()); the soonest first."""
        with self.index.lock:
            rows = self.index.db.execute(
                "SELECT f.rel, f.why, f.tries, f.retry_at FROM vec_failed f "
                "JOIN notes n ON n.rel = f.rel AND n.mtime_ns IS f.mtime_ns AND n.size IS f.size "
                "ORDER BY f.retry_at LIMIT ?",
                (limit,),
            ).fetchall()
        return [{"path": r, "why": w, "tries": t, "retry_at": a} for r, w, t, a in rows]

    def next_retry(self) -> float | None:
        """When the soonest waiting note is due again (time.time()), or None."""
        with self.index.lock:
            row = self.index.db.execute("SELECT min(retry_at) FROM vec_failed").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def unsound(self) -> list[str]:
        """Notes with a stored vector that is not finite or all zeros (written before
        vectors were checked): their vectors are dropped, so they are embedded again."""
        np = numpy()
        mat = self.matrix()
        if mat is None:
            return []
        # (a zero row is a free slot: those have no chunk row, and are not asked about)
        bad = np.flatnonzero(~np.isfinite(mat).all(axis=1) | ~mat.any(axis=1))
        if not len(bad):
            return []
        with self.index.lock:
            rows = self.index.db.execute(
                "SELECT DISTINCT rel FROM vec_chunks WHERE slot IN (SELECT value FROM json_each(?))",
                (json.dumps([int(s) for s in bad]),),
            ).fetchall()
        return [r for (r,) in rows]

    def note_text(self, rel: str) -> tuple[tuple[int, int], str, str, str] | None:
        """(stat, title, fields, body) of a note as the index holds it."""
        with self.index.lock:
            row = self.index.db.execute(
                "SELECT n.mtime_ns, n.size, n.title, f.fields, f.body FROM notes n "
                "JOIN notes_fts f ON f.rowid = n.id WHERE n.rel = ?",
                (rel,),
            ).fetchone()
        if row is None:
            return None
        return (row[0], row[1]), row[2] or "", row[3] or "", row[4] or ""

    def known_hashes(self, hashes: Iterable[str]) -> set[str]:
        """Of ``hashes``, those some chunk already has a vector for (any note)."""
        wanted = json.dumps(sorted(set(hashes)))
        with self.index.lock:
            return {
                h
                for (h,) in self.index.db.execute(
                    "SELECT DISTINCT hash FROM vec_chunks "
                    "WHERE hash IN (SELECT value FROM json_each(?))",
                    (wanted,),
                )
            }

    # -- writing -------------------------------------------------------------------------
    def write(self, notes: list[NoteVectors]) -> int:
        """Each note's chunks as given: unchanged chunks keep their slot, a chunk whose
        text some chunk already has gets a copy of that vector, the rest the vector given.
        A note whose index row moved on since it was read is left for the next round.
        Returns how many notes were written."""
        np = numpy()
        dim = self.dim
        row_bytes = dim * 4
        done = 0
        with self._write() as db, open(self.path, "r+b" if self.path.exists() else "w+b") as fh:
            fd = fh.fileno()
            free = [s for (s,) in db.execute("SELECT slot FROM vec_free ORDER BY slot")]
            next_slot = int(self._meta("vec_rows") or 0)

            def take() -> int:
                nonlocal next_slot
                if free:
                    slot = free.pop(0)
                    db.execute("DELETE FROM vec_free WHERE slot=?", (slot,))
                    return slot
                next_slot += 1
                return next_slot - 1

            for nv in notes:
                now = db.execute(
                    "SELECT mtime_ns, size FROM notes WHERE rel=?", (nv.rel,)
                ).fetchone()
                if now is None or tuple(now) != nv.stamp:
                    continue  # changed (or gone) since it was read: the next round
                old = {
                    h: slot
                    for slot, h in db.execute(
                        "SELECT slot, hash FROM vec_chunks WHERE rel=?", (nv.rel,)
                    )
                }
                keep: set[int] = set()
                placed: list[tuple[ChunkRow, int | None, bytes | None]] = []
                for c in nv.chunks:
                    slot = old.get(c.hash)
                    if slot is not None and slot not in keep:
                        keep.add(slot)
                        placed.append((c, slot, None))
                        continue
                    vec = nv.fresh.get(c.hash)
                    data: bytes | None
                    if vec is not None:
                        data = _unit(np.asarray(vec, dtype="<f4"), dim)
                    else:
                        data = self._copy_of(db, fd, c.hash, row_bytes)
                    if data is None:
                        break  # no sound vector for it: the note is not written, not half
                    placed.append((c, None, data))
                if len(placed) != len(nv.chunks):
                    continue  # (its old vectors stay until a whole set replaces them)
                rows: list[tuple[int, str, int, str, str, str]] = []
                for c, kept, data in placed:
                    if kept is None:
                        kept = take()
                        os.pwrite(fd, data or b"", kept * row_bytes)
                    rows.append((kept, nv.rel, c.ord, c.heading, c.preview, c.hash))
                gone = [s for s in old.values() if s not in keep]
                self._free(db, fd, gone, row_bytes)
                db.execute("DELETE FROM vec_chunks WHERE rel=?", (nv.rel,))
                db.executemany(
                    "INSERT INTO vec_chunks(slot, rel, ord, heading, preview, hash) "
                    "VALUES(?,?,?,?,?,?)",
                    rows,
                )
                db.execute(
                    "INSERT OR REPLACE INTO vec_notes(rel, mtime_ns, size) VALUES(?,?,?)",
                    (nv.rel, *nv.stamp),
                )
                db.execute("DELETE FROM vec_failed WHERE rel=?", (nv.rel,))
                done += 1
            self._set_meta("vec_rows", str(next_slot))
            fh.flush()
            os.fdatasync(fd)  # the vectors on disk before the rows that point at them
        return done

    def drop(self, rels: Iterable[str]) -> int:
        """Forget the vectors of notes that are gone (or archived)."""
        rels = list(rels)
        if not rels:
            return 0
        dim = self.dim
        with self._write() as db, open(self.path, "r+b" if self.path.exists() else "w+b") as fh:
            for rel in rels:
                slots = [
                    s for (s,) in db.execute("SELECT slot FROM vec_chunks WHERE rel=?", (rel,))
                ]
                self._free(db, fh.fileno(), slots, dim * 4)
                db.execute("DELETE FROM vec_chunks WHERE rel=?", (rel,))
                db.execute("DELETE FROM vec_notes WHERE rel=?", (rel,))
                db.execute("DELETE FROM vec_failed WHERE rel=?", (rel,))
        return len(rels)

    @staticmethod
    def _free(db: sqlite3.Connection, fd: int, slots: list[int], row_bytes: int) -> None:
        zero = bytes(row_bytes)
        for slot in slots:
            os.pwrite(fd, zero, slot * row_bytes)  # scores 0: never a near neighbour
        db.executemany("INSERT OR IGNORE INTO vec_free(slot) VALUES(?)", [(s,) for s in slots])

    @staticmethod
    def _copy_of(db: sqlite3.Connection, fd: int, digest: str, row_bytes: int) -> bytes | None:
        row = db.execute("SELECT slot FROM vec_chunks WHERE hash=? LIMIT 1", (digest,)).fetchone()
        if row is None:
            return None
        data = os.pread(fd, row_bytes, row[0] * row_bytes)
        return data if len(data) == row_bytes else None

    # -- reading -------------------------------------------------------------------------
    def matrix(self) -> np.ndarray | None:
        """Every slot's vector, mapped from the file (no copy); None when there is none."""
        np = numpy()
        dim = self.dim
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        rows = st.st_size // (dim * 4) if dim else 0
        if rows == 0:
            return None
        # The map is kept while the file is the same file of the same size: a shared map
        # sees the slots rewritten in place, and mapping 10,000 notes' vectors anew (its
        # pages faulted in again) was a tenth of a query.
        key = (st.st_dev, st.st_ino, rows, dim)
        kept = self.index.kept.get("vectors")
        if kept is not None and kept[0] == key:
            return kept[1]
        mat = np.memmap(self.path, dtype="<f4", mode="r", shape=(rows, dim))
        self.index.kept["vectors"] = (key, mat)
        return mat

    def nearest(
        self,
        query: np.ndarray,
        limit: int,
        type_name: str | None = None,
        exclude: str | None = None,
    ) -> list[dict[str, Any]]:
        """Notes whose chunks are nearest ``query`` (a unit vector), best first: each with
        its best chunk (heading, preview) and that chunk's cosine. The archive and
        ``exclude`` (a note's path) are left out."""
        np = numpy()
        mat = self.matrix()
        if mat is None or query.shape != (mat.shape[1],):
            return []
        scores = mat @ query
        if not np.isfinite(scores).all():  # (a row no check saw: never a neighbour)
            scores = np.where(np.isfinite(scores), scores, -np.inf)
        # A few chunks per note, and a few archived or excluded: twice as many chunks as
        # notes asked for are looked up, and four times more while that finds too few.
        k = min(len(scores), max(limit * 2, 32))
        while True:
            top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
            top = top[np.argsort(-scores[top], kind="stable")]
            out = notes_of(self.index, top, scores, limit, type_name, exclude)
            if len(out) >= limit or k >= len(scores):
                return out
            k = min(len(scores), k * 4)

    def note_vector(self, rel: str) -> np.ndarray | None:
        """The unit mean of a note's chunk vectors: what the note is about as a whole."""
        np = numpy()
        mat = self.matrix()
        if mat is None:
            return None
        with self.index.lock:
            slots = [
                s
                for (s,) in self.index.db.execute(
                    "SELECT slot FROM vec_chunks WHERE rel=? ORDER BY ord", (rel,)
                )
            ]
        slots = [s for s in slots if s < mat.shape[0]]
        if not slots:
            return None
        mean = np.asarray(mat[slots], dtype="<f4").mean(axis=0)
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm > 0 and math.isfinite(norm) else None


def unit(vec: Sequence[float] | np.ndarray) -> np.ndarray:
    """A vector scaled to length 1 (float32), as stored and as a query is asked."""
    np = numpy()
    arr = np.asarray(vec, dtype="<f4")
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


def _unit(arr: np.ndarray, dim: int) -> bytes | None:
    """The row stored for ``arr``; None for a vector no search could use (another size,
    NaN or infinity, all zeros)."""
    if arr.shape != (dim,) or not bool(numpy().isfinite(arr).all()):
        return None
    norm = float(numpy().linalg.norm(arr))
    if not math.isfinite(norm) or norm == 0.0:
        return None
    return (arr / norm).astype("<f4").tobytes()
