"""The graph index: every note's text in SQLite FTS5, its names, and its links.

One file in the state dir per pack identity, ``<state_dir>/graph/<sha8>.sqlite`` (Python's
``sqlite3``; sha8 of the identity of the active pack and the folder packs); the vault is
never written here. Keyed by file, a row typed under pack A is unreachable under pack B, and
a daemon under one pack and a command run with ``--schema-pack`` never share rows;
``schema use`` back to A finds A's index as it was (no eviction, only a catch-up). It is a cache of the vault: ``reindex`` builds or catches it up, the notes ↔ store
sync keeps it in step note by note (:meth:`GraphIndex.note_changed`, called for every note
the sync reads or finds gone), and :meth:`GraphIndex.catch_up` brings it up to date by stat
before a query (notes written while no vaultbrain process watched).

Tables:
- ``notes``: path, stat, type, title, date (recency), whether vaultbrain made it;
  ``notes_fts``: FTS5 over (title, fields, body) with the same rowid, ranked by bm25;
- ``names``: the keys a wiki link may use for a note: its path (kind 0), its basename (1),
  each alias (2), lower case and without ``.md``;
- ``links``: every link out of a note, untyped (``""``) and typed, by target key;
- ``meta``: the pack identity, whether the index has been built, and ``in_step``: the
  stamp of the walk the last catch-up brought it in step with (reindex's: the notes cache
  as its scan left it, see ``NotesCache.walk``; else :func:`stat_stamp`). A trigger drops
  it when any note's row changes, so a warm ``reindex`` whose walk has that stamp knows the
  index holds every note as it is without reading the rows.

Link resolution (Obsidian's rules): a key that is a note's path (from the vault root, without
``.md``) is that note; else a key that is exactly one note's basename; else one note's alias.
Two notes with that basename (or that alias) and no path match: unresolved, as Obsidian would
have to guess.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.graph.extract import NoteDoc, base_key, link_key, note_key, read_note
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.vault.note import normalize
from vaultbrain.vault.paths import has_stray_bytes

INDEX_DIR = "graph"
# vaultbrain's archive (dismissed and re-filed notes, vaultbrain/filing/refile.py): indexed,
# so links into it still resolve, but never an answer of search, whoknows, takes or enrich.
ARCHIVE = "Brain/Archive/"
LIVE = f"substr(n.rel, 1, {len(ARCHIVE)}) != '{ARCHIVE}'"  # (a condition on `notes n`)


def index_path(state_dir: Path, identity: str) -> Path:
    """Where the index of one pack identity lives."""
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    return Path(state_dir) / INDEX_DIR / f"{digest}.sqlite"


def read_text(vault: Any, rel: str, entry: Any) -> tuple[str, int, int] | None:
    """(text, mtime_ns, size) of a note as :meth:`Vault.read` would give it, or None when it
    cannot be read or is not UTF-8 text. A regular file's directory entry (what
    ``iter_notes`` yields) is read directly: the index needs neither the content hash nor
    the symlink check, which cost as much as the read on a build of the whole vault."""
    if entry is None or entry.is_symlink():
        try:
            note = vault.read(rel, entry)
        except (UserError, OSError):
            return None
        if has_stray_bytes(note.text):
            return None  # (the inbox is read with bytes that are not UTF-8 kept: not text)
        return note.text, note.mtime_ns, note.size
    try:
        with open(entry.path, "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8"), st.st_mtime_ns, st.st_size
    except UnicodeDecodeError:
        return None


# 2: the inbox and Brain/ hold names only (no words, no links); an index of 1 is rebuilt.
SCHEMA_VERSION = "2"
# vaultbrain's own notes (Needs Review, digests, reviews, Trust, the archive): a [[link]] to
# one resolves, but their words and links are no evidence of anything.
OWN_FOLDER = "Brain/"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS notes(
    id INTEGER PRIMARY KEY,
    rel TEXT UNIQUE NOT NULL,
    mtime_ns INTEGER, size INTEGER,
    type TEXT, title TEXT, day INTEGER, own INTEGER,
    data TEXT
);
CREATE INDEX IF NOT EXISTS notes_type ON notes(type);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(
    title, fields, body, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS names(key TEXT NOT NULL, kind INTEGER NOT NULL, note INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS names_key ON names(key);
CREATE INDEX IF NOT EXISTS names_note ON names(note);
CREATE TABLE IF NOT EXISTS links(
    src INTEGER NOT NULL, link_type TEXT NOT NULL, key TEXT NOT NULL, line INTEGER,
    origin TEXT, need_type TEXT, display TEXT
);
CREATE INDEX IF NOT EXISTS links_src ON links(src);
CREATE INDEX IF NOT EXISTS links_key ON links(key);
CREATE TRIGGER IF NOT EXISTS notes_ins AFTER INSERT ON notes
    BEGIN DELETE FROM meta WHERE key = 'in_step'; END;
CREATE TRIGGER IF NOT EXISTS notes_upd AFTER UPDATE ON notes
    BEGIN DELETE FROM meta WHERE key = 'in_step'; END;
CREATE TRIGGER IF NOT EXISTS notes_del AFTER DELETE ON notes
    BEGIN DELETE FROM meta WHERE key = 'in_step'; END;
"""


Progress = Callable[[int, int], None]
PROGRESS_EVERY = 100  # notes read between two calls of a progress callback


def _as_stored(value: Any) -> Any:
    """A property JSON cannot hold, as the note's parse keeps it (a date-time as
    ``2026-10-01T08:30:00``): the index holds a note's properties one way, whether the scan's
    parse filled it or its own read of the note (YAML's objects) did."""
    got = normalize(value)
    return got if got is not value else str(value)


def stat_stamp(stats: Mapping[str, tuple[int, int]]) -> str:
    """A digest of every note's (path, mtime_ns, size), in the walk's order."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update("\0".join(stats).encode("utf-8", "surrogateescape"))
    # (the numbers as one array of 64-bit ints: a third of the time of formatting them)
    digest.update(array("q", chain.from_iterable(stats.values())).tobytes())
    return digest.hexdigest()


class GraphIndex:
    """The graph of one vault under one pack typer. Thread-safe (one connection, a lock)."""

    def __init__(
        self,
        state_dir: Path,
        typer: Callable[[str], ResolvedPack],
        identity: str,
        inbox: str = "Inbox.md",
    ) -> None:
        self.path = index_path(state_dir, identity)
        self.inbox = inbox  # the capture note: its lines are thoughts, not yet notes
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.typer = typer
        self.identity = identity
        self.lock = threading.RLock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        self._check_identity()
        self.kept: dict[str, Any] = {}  # what the modules over this index keep while it is open
        self._searching = False

    def for_search(self) -> None:
        """A connection that searches keeps the index's pages: a query of a common word reads
        most of the full-text index, which with SQLite's default 2 MB page cache is read again
        from the OS at every query (3x slower at 10,000 notes). Only a process that searches
        (`search`, the MCP server) grows its cache; the daemon, which only writes, does not."""
        if not self._searching:
            with self.lock:
                self.db.execute("PRAGMA cache_size=-32000")  # KiB: the index of 10,000 notes
            self._searching = True

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # -- meta ----------------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    # True while a reindex fills an index that is not built yet from the notes its scan
    # reads (each note parsed once); the catch-up at its end reads the rest.
    filling = False
    # While filling: the rows an interrupted fill left (rel -> stat), read once, so a note
    # needs no lookup of its own.
    _fill_known: dict[str, tuple[int, int]] | None = None

    def begin_fill(self) -> None:
        """A reindex is about to fill this index (not built yet) from the notes it reads."""
        with self.lock:
            self.filling = True
            self._fill_known = {
                rel: (m, s)
                for rel, m, s in self.db.execute("SELECT rel, mtime_ns, size FROM notes")
            }

    _built = False  # once true it stays so (asked of the file until then)
    # A child process building the index beside a reindex's scan (vaultbrain.graph.fill).
    filler_pid: int | None = None

    @property
    def built(self) -> bool:
        """True once a rebuild or a catch-up has filled the index."""
        if not self._built:
            self._built = self._meta("built") == SCHEMA_VERSION
        return self._built

    @property
    def live(self) -> bool:
        """True when changes should be indexed as they happen."""
        return self.filling or self.built

    def _check_identity(self) -> None:
        with self.lock:
            stored = self._meta("pack")
            if stored is None:
                self._set_meta("pack", self.identity)
            elif stored != self.identity:  # two identities with one digest: start afresh
                with self._tx():
                    for table in ("notes", "notes_fts", "names", "links"):
                        self.db.execute(f"DELETE FROM {table}")  # noqa: S608
                    self.db.execute("DELETE FROM meta WHERE key = 'built'")
                    self._built = False
                    self._set_meta("pack", self.identity)

    @contextmanager
    def _tx(self) -> Iterator[None]:
        with self.lock:
            if self.db.in_transaction:  # inside a bulk transaction (see begin_bulk)
                yield
                return
            self.db.execute("BEGIN")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    # -- writing -------------------------------------------------------------------------
    def _doc(self, rel: str, text: str, mtime_ns: int | None, parsed: Any = None) -> NoteDoc:
        return read_note(rel, text, self.typer(rel), mtime_ns, parsed)

    def reads(self, rel: str) -> bool:
        """Whether a note's words and links are the graph's: not the inbox (thoughts waiting
        to be filed, with our links on their lines) nor anything under ``Brain/``. Those
        are indexed by name only, so search, whoknows, related, links and takes never rank
        through them, and a link to one still resolves."""
        return rel != self.inbox and not rel.startswith(OWN_FOLDER)

    def _put(self, doc: NoteDoc, mtime_ns: int, size: int, fresh: bool = False) -> None:
        """Write one note's rows. ``fresh``: the caller knows the index has no row for it
        (a build), so there is nothing to look up or delete."""
        db = self.db
        reads = self.reads(doc.rel)
        row = (
            None if fresh else db.execute("SELECT id FROM notes WHERE rel=?", (doc.rel,)).fetchone()
        )
        data = json.dumps(doc.data, default=_as_stored, ensure_ascii=False)
        if row is None:
            cur = db.execute(
                "INSERT INTO notes(rel, mtime_ns, size, type, title, day, own, data) "
                "VALUES(?,?,?,?,?,?,?,?)",
                (doc.rel, mtime_ns, size, doc.type, doc.title, doc.day, int(doc.own), data),
            )
            nid = cur.lastrowid
        else:
            nid = row[0]
            db.execute(
                "UPDATE notes SET mtime_ns=?, size=?, type=?, title=?, day=?, own=?, data=? "
                "WHERE id=?",
                (mtime_ns, size, doc.type, doc.title, doc.day, int(doc.own), data, nid),
            )
            db.execute("DELETE FROM notes_fts WHERE rowid=?", (nid,))
            db.execute("DELETE FROM names WHERE note=?", (nid,))
            db.execute("DELETE FROM links WHERE src=?", (nid,))
        # (a note the graph does not read gets an empty text row, not none: the embedder
        # knows it as done with it)
        db.execute(
            "INSERT INTO notes_fts(rowid, title, fields, body) VALUES(?,?,?,?)",
            (nid, doc.title, doc.fields_text, doc.body) if reads else (nid, "", "", ""),
        )
        names = [(note_key(doc.rel), 0, nid), (base_key(doc.rel), 1, nid)]
        names += [(link_key(a), 2, nid) for a in doc.aliases if link_key(a)]
        db.executemany("INSERT INTO names(key, kind, note) VALUES(?,?,?)", names)
        db.executemany(
            "INSERT INTO links(src, link_type, key, line, origin, need_type, display) "
            "VALUES(?,?,?,?,?,?,?)",
            [
                (nid, r.link_type, r.key, r.line, r.origin, r.need_type, r.display)
                for r in (doc.links if reads else ())
            ],
        )

    def _drop(self, rel: str) -> None:
        row = self.db.execute("SELECT id FROM notes WHERE rel=?", (rel,)).fetchone()
        if row is None:
            return
        nid = row[0]
        for table, col in (("notes_fts", "rowid"), ("names", "note"), ("links", "src")):
            self.db.execute(f"DELETE FROM {table} WHERE {col}=?", (nid,))  # noqa: S608
        self.db.execute("DELETE FROM notes WHERE id=?", (nid,))

    def unchanged(self, rel: str, mtime_ns: int, size: int) -> bool:
        """True when the index holds the note at exactly this stat."""
        known = self._fill_known
        if known is not None:
            return known.get(rel) == (mtime_ns, size)
        with self.lock:
            row = self.db.execute("SELECT mtime_ns, size FROM notes WHERE rel=?", (rel,)).fetchone()
        return row is not None and tuple(row) == (mtime_ns, size)

    def note_changed(
        self, rel: str, text: str | None, mtime_ns: int = 0, size: int = 0, parsed: Any = None
    ) -> NoteDoc | None:
        """One note was written, edited or (``text`` None) removed: its rows follow."""
        with self._tx():
            if text is None:
                self._drop(rel)
                if self._fill_known is not None:
                    self._fill_known.pop(rel, None)
                return None
            doc = self._doc(rel, text, mtime_ns or None, parsed)
            known = self._fill_known
            fresh = known is not None and rel not in known
            self._put(doc, mtime_ns, size, fresh)
            if known is not None:
                known[rel] = (mtime_ns, size)
            return doc

    def rebuild(self, vault: Any, progress: Progress | None = None) -> int:
        """Every note of the vault, from scratch. Returns how many notes were indexed.
        ``progress(done, total)`` now and then (the notes are listed first to know the total)."""
        entries: Iterable[tuple[str, Any]] = vault.iter_notes()
        if progress is not None:
            entries = list(entries)
        with self._tx():
            for table in ("notes", "notes_fts", "names", "links"):
                self.db.execute(f"DELETE FROM {table}")  # noqa: S608
            n = self._add_all(vault, entries, fresh=lambda rel: True, progress=progress)
            self._set_meta("built", SCHEMA_VERSION)
            self._set_meta("pack", self.identity)
        self.checkpoint()
        return n

    def _add_all(
        self,
        vault: Any,
        entries: Iterable[tuple[str, Any]],
        fresh: Callable[[str], bool] = lambda rel: False,
        progress: Progress | None = None,
    ) -> int:
        n = 0
        total = len(entries) if isinstance(entries, list) else 0
        for i, (rel, entry) in enumerate(entries, 1):
            if progress is not None and (i % PROGRESS_EVERY == 0 or i == total):
                progress(i, total)
            got = read_text(vault, rel, entry)
            if got is None:
                continue  # unreadable notes are reported by the sync, not here
            text, mtime_ns, size = got
            try:
                doc = self._doc(rel, text, mtime_ns)
            except (ValueError, TypeError, RecursionError):
                continue  # a note the graph cannot read is left out; the sync reports it
            self._put(doc, mtime_ns, size, fresh(rel))
            n += 1
        return n

    def catch_up(
        self,
        vault: Any,
        stats: Mapping[str, tuple[int, int]]
        | Callable[[], Mapping[str, tuple[int, int]]]
        | None = None,
        stamp: str | None = None,
        progress: Progress | None = None,
    ) -> dict[str, int]:
        """Bring the index in step with the vault by stat: changed notes are re-read, gone
        ones dropped. The first call builds it. ``progress(done, total)`` while notes are
        read (a first build of 10,000 notes takes seconds). ``stats``: every note's (mtime_ns, size) as a
        walk of the vault just found them (reindex's scan), instead of walking again, or a
        function that makes them; ``stamp``: what identifies that walk (by default the
        :func:`stat_stamp` of ``stats``). An index stamped with it after the last catch-up,
        and no row changed since, is in step without a look at any row."""
        if not self.built and not self.filling:
            return {"indexed": self.rebuild(vault, progress), "dropped": 0}
        if stats is not None and stamp is None:
            stats = stats() if callable(stats) else stats
            stamp = stat_stamp(stats)
        with self.lock:
            if stamp is not None and not self.filling and self._meta("in_step") == stamp:
                return {"indexed": 0, "dropped": 0}  # no row changed since that same walk
            known = {
                rel: (m, s)
                for rel, m, s in self.db.execute("SELECT rel, mtime_ns, size FROM notes")
            }
        changed: list[tuple[str, Any]] = []
        seen: set[str] = set()
        if stats is not None:
            stats = stats() if callable(stats) else stats
            seen = set(stats)
            changed = [(rel, None) for rel, stat in stats.items() if known.get(rel) != stat]
        else:
            for rel, entry in vault.iter_notes():
                seen.add(rel)
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if known.get(rel) != (st.st_mtime_ns, st.st_size):
                    changed.append((rel, entry))
        gone = [rel for rel in known if rel not in seen]
        if not changed and not gone and not self.filling:
            if stamp is not None:
                with self._tx():
                    self._set_meta("in_step", stamp)
            return {"indexed": 0, "dropped": 0}
        with self._tx():
            for rel in gone:
                self._drop(rel)
            n = self._add_all(vault, changed, lambda rel: rel not in known, progress)
            if self.filling:
                self._set_meta("built", SCHEMA_VERSION)
                self._set_meta("pack", self.identity)
            if stamp is not None and n == len(changed):
                # (after the rows, whose trigger drops it; not while a note could not be
                # read: it is tried again at the next catch-up)
                self._set_meta("in_step", stamp)
        if self.filling:
            self.filling = False
            self._fill_known = None
            self.checkpoint()
        return {"indexed": n, "dropped": len(gone)}

    def begin_bulk(self) -> None:
        """Hold one transaction until :meth:`end_bulk`: a reindex's scan writes many notes,
        and a commit per note would cost more than the note."""
        with self.lock:
            if not self.db.in_transaction:
                # A page cache that holds the whole transaction: sqlite's default (2 MB)
                # spills pages to the write-ahead log note by note, which doubled the cost
                # of a first reindex's index fill.
                self.db.execute("PRAGMA cache_size=-131072")
                self.db.execute("BEGIN")

    def end_bulk(self) -> None:
        with self.lock:
            if self.db.in_transaction:
                self.db.execute("COMMIT")
            self.db.execute("PRAGMA cache_size=-2000")  # sqlite's default again

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the index file (after a bulk write)."""
        with self.lock:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reading -------------------------------------------------------------------------
    def resolve(self, key: str) -> int | None:
        """The note a link key names, by Obsidian's rules (see the module doc), or None."""
        rows = self.db.execute("SELECT kind, note FROM names WHERE key=?", (key,)).fetchall()
        for kind in (0, 1, 2):
            notes = {note for k, note in rows if k == kind}
            if len(notes) == 1:
                return notes.pop()
            if len(notes) > 1:
                return None  # ambiguous: Obsidian would have to guess
        return None

    def note_id(self, ref: str) -> int | None:
        """A note named by a person: its path (with or without .md), basename or alias."""
        with self.lock:
            return self.resolve(link_key(ref))

    def note_id_exact(self, rel: str) -> int | None:
        with self.lock:
            row = self.db.execute("SELECT id FROM notes WHERE rel=?", (rel,)).fetchone()
        return row[0] if row else None

    def note_row(self, nid: int) -> dict[str, Any]:
        row = self.db.execute(
            "SELECT rel, type, title, day, own FROM notes WHERE id=?", (nid,)
        ).fetchone()
        if row is None:
            raise KeyError(nid)
        return {"rel": row[0], "type": row[1], "title": row[2], "day": row[3], "own": bool(row[4])}

    def note_data(self, nid: int) -> dict[str, Any]:
        row = self.db.execute("SELECT data FROM notes WHERE id=?", (nid,)).fetchone()
        return json.loads(row[0]) if row and row[0] else {}

    def body(self, nid: int) -> str:
        row = self.db.execute("SELECT body FROM notes_fts WHERE rowid=?", (nid,)).fetchone()
        return row[0] if row else ""

    def named(self, key: str) -> list[str]:
        """Every note a link key could mean (its path, else its basename, else an alias):
        more than one when :meth:`resolve` would not choose."""
        with self.lock:
            rows = self.db.execute(
                "SELECT nm.kind, n.rel FROM names nm JOIN notes n ON n.id = nm.note WHERE nm.key=?",
                (key,),
            ).fetchall()
        for kind in (0, 1, 2):
            rels = sorted({rel for k, rel in rows if k == kind})
            if rels:
                return rels
        return []

    def keys_of(self, nid: int) -> list[str]:
        return [k for (k,) in self.db.execute("SELECT key FROM names WHERE note=?", (nid,))]

    def linked_own_notes(self, managed: set[str]) -> set[int]:
        """Own notes a typed link leaves or may reach, and own notes carrying a link
        property: the notes whose link properties a rebuild must check."""
        with self.lock:
            db = self.db
            out = {
                nid
                for (nid,) in db.execute(
                    "SELECT DISTINCT src FROM links JOIN notes n ON n.id = src "
                    "WHERE link_type != '' AND n.own = 1"
                )
            }
            for (key,) in db.execute("SELECT DISTINCT key FROM links WHERE link_type != ''"):
                target = self.resolve(key)
                if target is not None:
                    out.add(target)
            for key in managed:
                pattern = '%"' + key.replace('"', "") + '":%'
                out |= {
                    nid
                    for (nid,) in db.execute(
                        "SELECT id FROM notes WHERE own = 1 AND data LIKE ?", (pattern,)
                    )
                }
            own = {nid for (nid,) in db.execute("SELECT id FROM notes WHERE own = 1")}
        return out & own

    def count(self) -> int:
        with self.lock:
            return int(self.db.execute("SELECT count(*) FROM notes").fetchone()[0])

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                total += os.path.getsize(str(self.path) + suffix)
            except OSError:
                pass
        return total
