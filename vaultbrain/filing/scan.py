"""The notes cache and the scan walk of :class:`~vaultbrain.filing.sync.NoteSync`.

Each note has a cache entry of (mtime, size, hash, …): a scan stats every note and reads only
those whose entry no longer matches, then hands them to ``NoteSync.sync_path`` (records first
for paths no record is at: a renamed note is seen before a new note at its old path), then
looks for the records whose notes are gone. The cache lives in the state dir (``CACHE_FILE``).
"""

from __future__ import annotations

import base64
import os
import sys
import time
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing import unreadable
from vaultbrain.filing.index import collections_of, loaded_records, records
from vaultbrain.filing.report import SyncReport
from vaultbrain.vault.counted import index_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.decide import Action

CACHE_FILE = "notes-cache.json"
_RACY_NS = 2_000_000_000


def _as_columns(cache: dict[str, list[Any]]) -> dict[str, Any]:
    """The cache as the file keeps it: the paths, the hashes, and every number of every note
    in one array of 64-bit integers (``_WIDTH`` a note; -1 for one not known yet), in
    base64. 10,000 lists of seven values took the JSON decoder most of a warm reindex's
    load; one string decodes in microseconds."""
    numbers = array("q")
    absent = (-1, -1)
    for e in cache.values():
        numbers.extend((e[0], e[1], e[3] if len(e) > 3 else 0))
        numbers.extend((e[4], e[5]) if len(e) > 5 else absent)
        numbers.append(e[6] if len(e) > 6 else -1)
    if sys.byteorder != "little":
        numbers.byteswap()
    return {
        "paths": list(cache),
        "hashes": [e[2] for e in cache.values()],
        "numbers": base64.b64encode(numbers.tobytes()).decode("ascii"),
    }


_WIDTH = 6  # mtime_ns, size, seen_at_ns, ino, ctime_ns, is_record (see NotesCache)


class _Columns:
    """The cache as its file holds it (:func:`_as_columns`), before any entry is made of it: a
    warm scan looks notes up here (a path's position, its numbers), and 10,000 entries are
    made only when the cache changes (``NotesCache.cache``). Making them was a third of a
    warm reindex."""

    def __init__(self, paths: list[str], hashes: list[str], numbers: list[int]) -> None:
        self.paths = paths
        self.hashes = hashes
        self.numbers = numbers
        self.positions = dict(zip(paths, range(len(paths)), strict=True))

    @classmethod
    def read(cls, doc: dict[str, Any]) -> _Columns | None:
        paths, hashes, packed = doc.get("paths"), doc.get("hashes"), doc.get("numbers")
        if not (isinstance(paths, list) and isinstance(hashes, list) and isinstance(packed, str)):
            return None
        numbers = array("q")
        try:
            numbers.frombytes(base64.b64decode(packed, validate=True))
        except ValueError:
            return None  # a cache: a damaged one is read as none
        if len(paths) != len(hashes) or len(numbers) != _WIDTH * len(paths):
            return None
        if sys.byteorder != "little":
            numbers.byteswap()
        return cls(paths, hashes, numbers.tolist())

    def entries(self) -> dict[str, list[Any]]:
        """rel -> [mtime_ns, size, hash, seen_at_ns, ino, ctime_ns, is_record] (shorter where
        the file says -1: not known yet)."""
        n = self.numbers
        out = {}
        for k, (rel, digest) in enumerate(zip(self.paths, self.hashes, strict=True)):
            e: list[Any] = n[_WIDTH * k : _WIDTH * k + _WIDTH]
            e.insert(2, digest)
            if e[6] < 0:  # (rare: entries whose flag is not known yet, or older ones)
                del e[4 if e[4] < 0 else 6 :]
            out[rel] = e
        return out


class NotesCache:
    """The cache, the record index pinned during a scan, and the scan itself (a base of
    ``NoteSync``, which syncs each note the walk finds changed)."""

    # What the last scan's walk saw besides the cache: the inbox note's (mtime_ns, size)
    # and the notes it could not read (see walk()).
    _inbox_stat: tuple[int, int] | None = None
    _unread: set[str] = set()  # noqa: RUF012 (replaced per scan)
    _walked = False

    def __init__(self, app: Brain) -> None:
        self.app = app
        self._cache: dict[str, list[Any]] | None = {}
        self._columns: _Columns | None = None  # the file's, while no entry was asked for
        self._cache_loaded = False
        self._cache_dirty = False

    if TYPE_CHECKING:

        def sync_path(
            self, rel: str, report: SyncReport | None = None, entry: Any = None
        ) -> Action | None: ...

        def note_gone(self, rel: str, report: SyncReport | None = None) -> Action | None: ...

        def record_gone(
            self, collection: str, record_id: str, report: SyncReport | None = None
        ) -> Action | None: ...

        def graph_saw(self, rel: str, note: Any, parsed: Any = None) -> None: ...

        def graph_fills(self) -> bool: ...

    @property
    def cache(self) -> dict[str, list[Any]]:
        """rel -> the note's entry (see below), made from the file's columns when first asked
        (a warm scan that finds nothing changed never asks)."""
        if self._cache is None:
            self._cache = self._columns.entries() if self._columns is not None else {}
            self._columns = None
        return self._cache

    @cache.setter
    def cache(self, value: dict[str, list[Any]]) -> None:
        self._cache, self._columns = value, None

    @property
    def index(self) -> Any:
        # During a scan the index is pinned: refreshed once at the start, kept in step by
        # our own writes, instead of being checked again for each of 10,000 notes.
        return self._pinned if self._pinned is not None else records(self.app)

    _pinned: Any = None
    # True during a scan whose unchanged notes also fill the graph index (graph_fills).
    _fill_graph = False

    # -- cache of (mtime, size, hash) per note -------------------------------------------
    # Each entry: [mtime_ns, size, hash, seen_at_ns, ino, ctime_ns, is_record]. The flag and
    # the store's version beside them are written only when every record's note is in the
    # cache: then, while the store is still at that version, a scan whose notes are all
    # unchanged needs no record index at all (a restart reads two files and stats the notes).
    def load_cache(self) -> None:
        if self._cache_loaded and self._cache_pack != self.app.pack.identity:
            # The pack changed under this process (`schema use`, a schema verb): every note
            # is read again under it, as a process started now would.
            self.cache, self._cache_store, self._cache_dirty = {}, None, True
        self._cache_pack = self.app.pack.identity
        if not self._cache_loaded:
            doc = self.app.store.read_json(CACHE_FILE, {}) or {}
            if doc.get("pack") == self.app.pack.identity:
                if doc.get("version") == 2:  # (one list per note, as an older version wrote)
                    notes = doc.get("notes")
                    self.cache = dict(notes) if isinstance(notes, dict) else {}
                else:
                    self._cache, self._columns = None, _Columns.read(doc)
                store = doc.get("store")
                self._cache_store = store if isinstance(store, dict) else None
            self._cache_loaded = True

    _cache_store: dict[str, Any] | None = None
    _cache_pack: str | None = None  # the pack identity the cache was loaded under

    def save_cache(self) -> None:
        if not self._cache_dirty:
            return
        doc: dict[str, Any] = {"version": 3, "pack": self.app.pack.identity}
        index = loaded_records(self.app)
        if index is not None:
            self.app.store.settle()  # (the version recorded is the one a reindex leaves)
            index.refresh(force=True)
            for rel, entry in self.cache.items():
                if len(entry) >= 6:  # (an entry of an older cache is left without a flag)
                    del entry[6:]
                    entry.append(1 if index.by_path(rel) is not None else 0)
            live = [s["path"] for _, s in index.all() if s.get("path") and not s.get("deleted")]
            if all(path in self.cache for path in live):
                doc["store"] = index.versions()
        elif self._cache_store is not None:
            # No record was learnt here: the flags still stand for the version they were
            # written at (if this process wrote the store since, that version is gone).
            doc["store"] = self._cache_store
        doc.update(_as_columns(self.cache))
        self.app.store.write_json(CACHE_FILE, doc)
        self._cache_store = doc.get("store")
        self._cache_dirty = False

    def walk(self) -> tuple[str, Callable[[], dict[str, tuple[int, int]]]] | None:
        """What the last whole scan saw, for the graph index's catch-up (one walk serves
        both): a stamp of it, and each note's (mtime_ns, size), built only when asked.

        Every note the walk found is in the cache with the stat it was last read or trusted
        at: a note unchanged since the cache says so, a changed one was read and remembered.
        So the notes cache file as written (its inode, mtime and size: it is rewritten
        whenever any note changed, appeared or went) and the inbox note's stat identify the
        walk, and a warm reindex does not digest 10,000 stats. A note that could not be read
        is handed on as unknown (the graph tries it, and stays unstamped when it fails too).
        None before a whole scan."""
        if not self._walked:
            return None
        written = self.app.store.json_stamp(CACHE_FILE)
        # (no cache written: never taken as in step)
        stamp = f"cache {written}; inbox {self._inbox_stat}" if written is not None else ""
        inbox, unread = self.app.inbox_rel, set(self._unread)

        def stats() -> dict[str, tuple[int, int]]:
            columns = self._columns
            if columns is not None:  # (nothing changed: no entry made for this either)
                n = columns.numbers
                out = {
                    rel: (n[_WIDTH * k], n[_WIDTH * k + 1]) for k, rel in enumerate(columns.paths)
                }
            else:
                out = {rel: (e[0], e[1]) for rel, e in self.cache.items()}
            out.update((rel, (-1, -1)) for rel in unread)
            if self._inbox_stat is not None:
                out[inbox] = self._inbox_stat
            return out

        return stamp + (f"; unread {len(unread)}" if unread else ""), stats

    def _cache_current(self) -> bool:
        """True when the cache's record flags can stand in for the record index."""
        stamp = self._cache_store
        if stamp is None or loaded_records(self.app) is not None:
            return False
        collections = collections_of(self.app.pack, self.app.folder_packs)
        if sorted(stamp) != sorted(collections):
            return False
        store = self.app.store
        return all(store.collection(c).disk_version() == stamp[c] for c in collections)

    def _remember(self, rel: str, note: Any) -> None:
        self.cache[rel] = [
            note.mtime_ns,
            note.size,
            note.hash,
            time.time_ns(),
            note.ino,
            note.ctime_ns,
        ]
        self._cache_dirty = True

    def same_note(self, path: str | None, rel: str) -> bool:
        """Whether the record's ``path`` and the note at ``rel`` (the record index matches
        paths in any case) are one note, as the vault's file system says: the same path; a
        path that is gone (``sarah.md`` renamed ``Sarah.md``, a move); or the same file under
        two spellings (a case-insensitive, normalising file system: macOS, Windows). Two
        files that both exist (``a.md`` and ``A.md`` on Linux) are two notes."""
        if not path or path == rel:
            return bool(path)
        vault = self.app.vault
        try:
            old, new = vault.resolve(path), vault.resolve(rel)
            return not os.path.lexists(old) or os.path.samefile(old, new)
        except (OSError, UserError):
            return False

    def _pin(self) -> Any:
        """The record index, refreshed and pinned for the rest of the scan."""
        if self._pinned is None:
            index = records(self.app)
            index.refresh(force=True)
            self._pinned = index
        return self._pinned

    def new_paths_first(self, rels: list[str]) -> list[str]:
        """Paths no record is at before paths a record is at, each group in its order: a note
        renamed is seen at its new path before a new note at its old one, which would
        otherwise be taken for it (and no note is read to know it)."""
        if len(rels) < 2:
            return list(rels)
        index = self.index
        fresh = [rel for rel in rels if index.by_path(rel) is None]
        chosen = set(fresh)
        return fresh + [rel for rel in rels if rel not in chosen]

    def _scan_one(
        self, entry: Any, rel: str, report: SyncReport, changed: list[str], st: Any = None
    ) -> list[Any] | None:
        """One note of a scan. Returns its cache entry when the note is unchanged; a note
        that may have changed is added to ``changed``, to be synced after the walk. ``st``:
        its stat, when the walk took it."""
        vault = self.app.vault
        if st is None:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return None
        cached = self.cache.get(rel)
        # mtime and size can be set back (sync tools preserve them; two notes may swap
        # names); the inode and ctime cannot, so a cache entry counts only if they match too.
        if (
            cached
            and cached[0] == st.st_mtime_ns
            and cached[1] == st.st_size
            and (len(cached) < 6 or (cached[4] == st.st_ino and cached[5] == st.st_ctime_ns))
        ):
            # "Racily clean" (as git calls it): a note cached within a couple of seconds of
            # its mtime may have been written again in the same timestamp tick with the same
            # size. Only those are hashed again; every other is trusted.
            seen_at = cached[3] if len(cached) > 3 else 0
            if seen_at - st.st_mtime_ns > _RACY_NS:
                report.unchanged += 1
                return cached
            try:
                same = vault.read(rel, entry).hash == cached[2]
            except (UserError, FileNotFoundError) as exc:
                report.problems.append(str(exc))
                self._unread.add(rel)
                return None
            if same:
                report.unchanged += 1
                return cached
        hit = self._pin().by_path(rel)
        if hit is not None and cached is None and hit[1].get("path") == rel:
            # No cache entry but a record: hash the note and compare with its base.
            try:
                note = vault.read(rel, entry)
            except (UserError, FileNotFoundError) as exc:
                report.problems.append(str(exc))
                self._unread.add(rel)
                return None
            if note.hash == hit[1].get("base_hash"):
                self._remember(rel, note)
                if self._fill_graph:  # read once: a graph index being filled takes it too
                    self.graph_saw(rel, note)
                report.read += 1
                report.unchanged += 1
                return None
        changed.append(rel)
        return None

    # -- the whole vault -----------------------------------------------------------------
    def scan(
        self,
        report: SyncReport | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        """Every note against the cache; only changed notes are read; then deletions.

        Also counts the notes in folders that no type reaches (the untyped warning of the
        schema pack), from what the scan learns anyway: a note with no record is untyped.
        """
        from vaultbrain.packs.survey import generated_folders

        report = report or SyncReport()
        started = time.perf_counter()
        self.load_cache()
        # Unchanged notes and a store at the cache's version: the cache says which notes
        # are records, and the index is built only when a note turns out to have changed.
        from_cache = self._cache_current()
        if not from_cache:
            self._pin()
        vault = self.app.vault
        seen: set[str] = set()
        inbox = self.app.inbox_rel
        excluded = tuple(f.lower().strip("/") + "/" for f in generated_folders(self.app.settings))
        in_folders = untyped = notes = 0
        by_top: dict[str, int] = {}  # untyped notes below each top folder
        template = self.app.templates.holds
        folders: dict[str, bool] = {}  # a template or not: told by the folder alone

        def holds(rel: str) -> bool:
            folder = rel.rpartition("/")[0]
            held = folders.get(folder)
            if held is None:
                held = folders[folder] = template(rel)
            return held

        def counts_in(rel: str) -> bool:
            return not holds(rel) and not index_note(rel)

        changed: list[str] = []
        entries: dict[str, Any] = {}
        self._inbox_stat, self._unread, self._walked = None, set(), False
        self._fill_graph = self.graph_fills()
        try:
            # (the loop every warm reindex is: the common case, a note as the cache has
            # it, decided inline; anything else by _scan_one)
            columns = self._columns  # the file's numbers, while no entry was made
            positions = columns.positions.get if columns is not None else None
            numbers = columns.numbers if columns is not None else []
            cache_get = self._cache.get if self._cache is not None else None
            seen_add = seen.add
            unchanged = 0
            for rel, entry in vault.iter_notes():
                if rel == inbox:
                    try:  # not synced, but indexed by the graph: its stat is handed on too
                        inbox_st = entry.stat(follow_symlinks=False)
                        self._inbox_stat = (inbox_st.st_mtime_ns, inbox_st.st_size)
                    except OSError:
                        pass
                    continue
                seen_add(rel)
                st: os.stat_result | None
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    st = None
                flag = -1  # the cache's word on whether the note is a record (-1: none)
                clean = False
                if st is not None:
                    if positions is not None:
                        at = positions(rel)
                        if at is not None:
                            i = _WIDTH * at
                            # (a -1 for ino or ctime never matches: _scan_one decides)
                            clean = (
                                numbers[i] == st.st_mtime_ns
                                and numbers[i + 1] == st.st_size
                                and numbers[i + 3] == st.st_ino
                                and numbers[i + 4] == st.st_ctime_ns
                                and numbers[i + 2] - st.st_mtime_ns > _RACY_NS
                            )
                            flag = numbers[i + 5]
                    elif cache_get is not None:
                        cached = cache_get(rel)
                        if cached is not None and len(cached) > 5:
                            clean = (
                                cached[0] == st.st_mtime_ns
                                and cached[1] == st.st_size
                                and cached[4] == st.st_ino
                                and cached[5] == st.st_ctime_ns
                                and cached[3] - st.st_mtime_ns > _RACY_NS
                            )
                            flag = cached[6] if len(cached) > 6 else -1
                if clean:
                    unchanged += 1
                else:
                    got = self._scan_one(entry, rel, report, changed, st)
                    flag = -1 if got is None else (got[6] if len(got) > 6 else -1)
                    if changed and changed[-1] == rel:
                        entries[rel] = entry
                if rel.lower().startswith(excluded) or holds(rel):
                    continue  # (not the person's notes: vaultbrain/vault/counted.py)
                notes += 1
                if "/" in rel and not index_note(rel):
                    in_folders += 1
                    if changed and changed[-1] == rel:
                        continue  # counted once it is synced
                    if self._pinned is None and flag >= 0:
                        no_record = not flag
                    else:
                        no_record = self._pin().by_path(rel) is None
                    if no_record:
                        untyped += 1
                        top = rel.split("/", 1)[0].lower()
                        by_top[top] = by_top.get(top, 0) + 1
            report.scanned += len(seen)
            report.notes += notes
            report.unchanged += unchanged
            todo = self.new_paths_first(changed)
            reading = time.time_ns()
            try:
                for done, rel in enumerate(todo, 1):
                    self.sync_path(rel, report, entries.get(rel))
                    if progress is not None:
                        progress(done, len(todo))
                    got = self.cache.get(rel)
                    if got is None or (got[3] if len(got) > 3 else 0) < reading:
                        # not read: unreadable, or gone
                        self._unread.add(rel)
            except KeyboardInterrupt:
                # Ctrl-C: what was synced stays (each record is written whole), and the
                # cache says so, so a rerun goes on from here instead of reading it again.
                self.save_cache()
                raise
            for rel in changed:
                if "/" in rel and not rel.lower().startswith(excluded) and counts_in(rel):
                    if self._pin().by_path(rel) is None:
                        untyped += 1
                        top = rel.split("/", 1)[0].lower()
                        by_top[top] = by_top.get(top, 0) + 1
            known = self._columns.paths if self._columns is not None else self.cache
            stale = [rel for rel in known if rel not in seen]
            cache = self.cache if stale else {}
            if self._pinned is None and any(len(cache[r]) < 7 or cache[r][6] for r in stale):
                self._pin()  # a record's note is gone: what follows needs the records
        finally:
            pinned, self._pinned = self._pinned, None
        self._walked = True
        for rel in stale:
            del self.cache[rel]
        self._cache_dirty |= bool(stale)
        unreadable.forget_missing(self.app, seen)
        report.in_folders, report.untyped_in_folders = in_folders, untyped
        report.most_untyped_in_a_folder = max(by_top.values(), default=0)
        if pinned is None:  # every note unchanged, every record's note still there
            self.save_cache()
            report.seconds = time.perf_counter() - started
            return report
        if self._cache_store != pinned.versions():
            self._cache_dirty = True  # so the next scan can start from the cache alone
        missing = [
            (c, s)
            for c, s in self.index.all()
            if s.get("path") and s["path"] not in seen and not s.get("deleted")
        ]
        gone_folders: dict[str, int] = {}
        for _, s in missing:
            folder = s["path"].split("/", 1)[0]
            if not vault.resolve(folder).exists():
                gone_folders[folder] = gone_folders.get(folder, 0) + 1
        for folder, n in gone_folders.items():
            report.problems.append(
                f"the folder {folder}/ is gone with {n} notes: not treating them as deleted "
                "(an unmounted sync folder looks the same); put it back, then rescan"
            )
        for _, s in missing:
            if s["path"].split("/", 1)[0] in gone_folders:
                continue
            try:
                present = vault.try_read(s["path"]) is not None
            except UserError as exc:
                report.problems.append(str(exc))  # unreadable is not deleted
                continue
            if not present:
                self.note_gone(s["path"], report)
        # A record whose path another record's note now stands at (its own note moved away
        # and was deleted while this machine was not looking, and another note, of another
        # id, was moved into its place): its note is nowhere this scan saw, so it is gone.
        for collection, s in self.index.all():
            rel = s.get("path")
            if not rel or rel not in seen or s.get("deleted"):
                continue
            owner = self.index.by_path(rel)  # (any case: two spellings are two notes here)
            if (
                owner is not None
                and owner[1].get("path") == rel
                and owner[1].get("id") != s.get("id")
            ):
                self.record_gone(collection, str(s["id"]), report)
        self.save_cache()
        report.seconds = time.perf_counter() - started
        return report
