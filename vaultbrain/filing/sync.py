"""Notes and the store stay in step: the decisions of :mod:`vaultbrain.filing.decide`, applied.

Each record keeps the hash of its note as last read or written (its base). For a note that may
have changed, :class:`NoteSync` gathers the facts (the note, the records the store holds for
it), asks the pure :func:`~vaultbrain.filing.decide.decide` for an action, and applies it. A
content hash decides "changed"; mtime and size only say whether to look.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import ConflictError, StorageError, UserError
from vaultbrain.filing import unreadable
from vaultbrain.filing.decide import (
    Action,
    Conflict,
    Create,
    Export,
    Facts,
    ForceImport,
    Import,
    Known,
    Nothing,
    Retype,
    Revive,
    Skip,
    Tombstone,
    decide,
    decide_export,
)
from vaultbrain.filing.records import fields_into_note, new_id, record_from_note, settle_task_note
from vaultbrain.graph import note_changed as graph_note_changed
from vaultbrain.graph import prepare as graph_prepare
from vaultbrain.graph import rebuild as graph_rebuild
from vaultbrain.vault import NoteFile, is_ignored
from vaultbrain.vault.note import ParsedNote, parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.sync")
CACHE_FILE = "notes-cache.json"
_RACY_NS = 2_000_000_000


@dataclass
class SyncReport:
    scanned: int = 0
    read: int = 0
    unchanged: int = 0
    imported: int = 0
    created: int = 0
    moved: int = 0
    retyped: int = 0
    tombstoned: int = 0
    exported: int = 0
    conflicts: int = 0
    untyped: int = 0
    in_folders: int = 0
    untyped_in_folders: int = 0
    problems: list[str] = field(default_factory=list)
    warning: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def summary(self) -> str:
        parts = [f"{self.scanned} notes scanned", f"{self.read} read"]
        for name in (
            "imported",
            "created",
            "moved",
            "retyped",
            "tombstoned",
            "exported",
            "conflicts",
        ):
            value = getattr(self, name)
            if value:
                parts.append(f"{value} {name}")
        if self.problems:
            parts.append(f"{len(self.problems)} unreadable")
        return ", ".join(parts) + f" in {self.seconds:.2f}s"


class NoteSync:
    """Applies the decision table for one brain (one per process: ``Brain.notes()``)."""

    def __init__(self, app: Brain) -> None:
        self.app = app
        self.cache: dict[str, list[Any]] = {}
        self._cache_loaded = False
        self._cache_dirty = False

    @property
    def index(self) -> Any:
        # During a scan the index is pinned: refreshed once at the start, kept in step by
        # our own writes, instead of being checked again for each of 10,000 notes.
        return self._pinned if self._pinned is not None else self.app.records()

    _pinned: Any = None

    # -- cache of (mtime, size, hash) per note -------------------------------------------
    # Each entry: [mtime_ns, size, hash, seen_at_ns, ino, ctime_ns, is_record]. The flag and
    # the store's version beside them are written only when every record's note is in the
    # cache: then, while the store is still at that version, a scan whose notes are all
    # unchanged needs no record index at all (a restart reads two files and stats the notes).
    def load_cache(self) -> None:
        if not self._cache_loaded:
            doc = self.app.store.read_json(CACHE_FILE, {}) or {}
            if doc.get("pack") == self.app.pack.identity:
                self.cache = dict(doc.get("notes", {}))
                store = doc.get("store")
                self._cache_store = store if isinstance(store, dict) else None
            self._cache_loaded = True

    _cache_store: dict[str, Any] | None = None

    def save_cache(self) -> None:
        if not self._cache_dirty:
            return
        doc: dict[str, Any] = {"version": 2, "pack": self.app.pack.identity, "notes": self.cache}
        index = self.app.loaded_records()
        if index is not None:
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
        self.app.store.write_json(CACHE_FILE, doc)
        self._cache_store = doc.get("store")
        self._cache_dirty = False

    def _cache_current(self) -> bool:
        """True when the cache's record flags can stand in for the record index."""
        stamp = self._cache_store
        if stamp is None or self.app.loaded_records() is not None:
            return False
        collections = self.app.collections()
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

    # -- one note ------------------------------------------------------------------------
    def sync_path(
        self, rel: str, report: SyncReport | None = None, entry: Any = None
    ) -> Action | None:
        """Bring the store in step with one note that may have changed, appeared or gone.
        ``entry``: its directory entry from a scan's walk (the path needs no resolving)."""
        report = report or SyncReport()
        if is_ignored(rel) or rel == self.app.inbox_rel or not rel.lower().endswith(".md"):
            return None
        try:
            if entry is not None:
                try:
                    note: NoteFile | None = self.app.vault.read(rel, entry)
                except FileNotFoundError:
                    note = None
            else:
                note = self.app.vault.try_read(rel)
        except UserError as exc:
            report.problems.append(str(exc))
            unreadable.remember(self.app, rel, str(exc))  # listed until it reads again
            return None
        if note is None:
            return self.note_gone(rel, report)
        report.read += 1
        self._remember(rel, note)
        parsed = parse_note(note.text)
        action = decide(self._facts(rel, note, parsed))
        action = self.apply(action, rel, note, parsed, report)
        if not parsed.error:
            unreadable.forget(self.app, rel)
        # the graph index follows (vaultbrain.graph)
        graph_note_changed(self.app, rel, note, parsed)
        return action

    def _facts(self, rel: str, note: NoteFile, parsed: ParsedNote) -> Facts:
        """What a decision about the note at ``rel`` needs to know (reads only the store)."""
        hit = self.index.by_path(rel)
        at_path = self._known(hit)
        pack = self.app.typer(rel)
        folder = pack.type_for_path(rel)
        folder_name = folder.name if folder else None
        if parsed.error:
            return Facts(
                rel,
                True,
                note.hash,
                unreadable=parsed.error,
                folder_type=folder_name,
                at_path=at_path,
            )
        data = parsed.data
        if (
            data.get("archived") is True
            or rel.startswith("Brain/")
            or self.app.templates.holds(rel)
        ):
            return Facts(rel, True, note.hash, generated=True, at_path=at_path)
        declared = data.get("type")
        declared_type = pack.get_type(str(declared)) if declared else None
        rid = data.get("id")
        rid = str(rid) if rid is not None and not isinstance(rid, bool) else None
        by_id = self._known(self.index.by_id(rid)) if rid else None
        tombstone = None
        if rid and by_id is None and (hit is None or hit[1]["id"] != rid):
            dead = self._tombstoned(rid)
            tombstone = self._known_record(*dead) if dead else None
        if folder is not None:
            ptype = declared_type or folder
        else:
            # Outside the pack's folders only a note the store knows keeps its `type:`.
            known = at_path is not None or by_id is not None or tombstone is not None
            ptype = declared_type if known else None
        by_id_has_id = False
        if by_id is not None and by_id.path and by_id.path != rel and hit is None:
            by_id_has_id = self.declared_id(by_id.path) == rid
        moved_from = None
        if ptype is not None and at_path is None and by_id is None and tombstone is None:
            moved_from = self._moved_here(rel, note.hash)
        target = by_id or at_path or moved_from
        agree = False
        if target is not None and target.store_dirty and target.base_hash != note.hash:
            wanted = self._record(target).get("fields", {})
            agree = all(data.get(k) == v for k, v in wanted.items())
        return Facts(
            rel,
            True,
            note.hash,
            note_type=ptype.name if ptype else None,
            folder_type=folder_name,
            declared_type=str(declared) if declared is not None else None,
            declared_id=rid,
            id_usable=rid is not None and _valid_id(rid) and by_id is None,
            at_path=at_path,
            by_id=by_id,
            by_id_note_has_id=by_id_has_id,
            tombstone=tombstone,
            moved_from=moved_from,
            values_agree=agree,
        )

    def _moved_here(self, rel: str, note_hash: str) -> Known | None:
        """The one live record that last held exactly this content and whose own path no
        longer does (gone, or holding another note now): this note is its note, moved. Like
        git's rename detection, exact content only; an unchanged note at the old path means
        this is a copy, which becomes a record of its own."""
        found = []
        for collection, summary in self.index.by_hash(note_hash):
            path = summary.get("path")
            if not path or path == rel or summary.get("deleted"):
                continue
            try:
                there = self.app.vault.current_hash(path)
            except UserError:
                there = None
            if there != note_hash:
                found.append((collection, summary))
        return self._known(found[0]) if len(found) == 1 else None

    def _known(self, hit: tuple[str, dict[str, Any]] | None) -> Known | None:
        if hit is None:
            return None
        collection, summary = hit
        record = self.app.store.collection(collection).get(summary["id"], include_deleted=True)
        if record is None:
            return None  # a stale summary: the note is taken as new
        return self._known_record(collection, record)

    @staticmethod
    def _known_record(collection: str, record: dict[str, Any]) -> Known:
        # Stores written before hand-made notes were known by path had an id in every note.
        note_id = record["note_id"] if "note_id" in record else str(record["id"])
        return Known(
            id=str(record["id"]),
            collection=collection,
            type=str(record.get("type", "")),
            path=str(record.get("path", "")),
            base_hash=record.get("base_hash"),
            store_dirty=bool(record.get("store_dirty")),
            deleted=bool(record.get("deleted")),
            note_id=note_id,
            made_by_us=record.get("origin") != "vault",
        )

    def _record(self, known: Known) -> dict[str, Any]:
        record = self.app.store.collection(known.collection).get(known.id, include_deleted=True)
        if record is None:
            raise UserError(
                f"the record {known.id} vanished from the store; run `vaultbrain reindex`"
            )
        return record

    def apply(
        self,
        action: Action,
        rel: str,
        note: NoteFile | None,
        parsed: ParsedNote | None,
        report: SyncReport,
    ) -> Action:
        """Carry out one decision. Executors only apply: every choice was made by decide."""
        match action:
            case Skip(problem=problem, untyped=untyped):
                if problem:
                    report.problems.append(problem)
                    if parsed is not None and parsed.error and note is not None:
                        unreadable.remember(self.app, rel, f"{rel}: {parsed.error}", note.hash)
                report.untyped += untyped
            case Nothing():
                report.unchanged += 1
            case Create(type=type_name, keep_id=keep_id, write_id=write_id):
                assert note is not None and parsed is not None
                ptype = self._type(type_name, rel)
                self._create(rel, note, parsed, ptype, report, keep_id, write_id)
            case Import(record=known, type=type_name, moved=moved):
                assert note is not None and parsed is not None
                if moved:
                    report.moved += 1
                self._import(known, rel, note, parsed, self._type(type_name, rel), report)
            case Revive(record=known, type=type_name):
                assert note is not None and parsed is not None
                self._import(known, rel, note, parsed, self._type(type_name, rel), report)
            case ForceImport(record=known):
                assert note is not None and parsed is not None
                self._import(known, rel, note, parsed, self._type(known.type, rel), report)
            case Retype(record=known, type=type_name, moved=moved, write_type=write_type):
                assert note is not None
                if moved:
                    report.moved += 1
                if write_type:
                    note = self._set_type(rel, note, type_name)
                self._retype(known, rel, self._type(type_name, rel), report)
            case Export(record=known):
                self.export(known.collection, self._record(known), report)
            case Conflict(record=known, kind=kind, detail=detail):
                self.conflict(known.collection, self._record(known), rel, kind, detail, report)
            case Tombstone(record=known, conflict=lost):
                self._tombstone(known, rel, lost, report)
        return action

    def _type(self, name: str, rel: str) -> Any:
        for pack in (self.app.typer(rel), self.app.pack, *self.app.folder_packs):
            ptype = pack.get_type(name)
            if ptype is not None:
                return ptype
        raise UserError(f"no type {name!r} in the active schema pack")

    def declared_id(self, rel: str) -> str | None:
        """The ``id:`` a note's frontmatter declares (None: no such note, no id, unreadable)."""
        try:
            note = self.app.vault.try_read(rel)
        except UserError:
            return None
        if note is None:
            return None
        data = parse_note(note.text).data
        rid = data.get("id") if isinstance(data, dict) else None
        return str(rid) if rid is not None else None

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

    def _set_type(self, rel: str, note: NoteFile, type_name: str) -> NoteFile:
        """The note's own ``type:`` follows the person's move into another type's folder."""
        self.app.vault.edit(
            rel, lambda n: update_frontmatter(n.text, {"type": type_name}) if n else None
        )
        note = self.app.vault.read(rel)
        self._remember(rel, note)
        return note

    def _pin(self) -> Any:
        """The record index, refreshed and pinned for the rest of the scan."""
        if self._pinned is None:
            index = self.app.records()
            index.refresh(force=True)
            self._pinned = index
        return self._pinned

    def _scan_one(
        self, entry: Any, rel: str, report: SyncReport, changed: list[str]
    ) -> list[Any] | None:
        """One note of a scan. Returns its cache entry when the note is unchanged; a note
        that may have changed is added to ``changed``, to be synced after the walk."""
        vault = self.app.vault
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
                return None
            if same:
                report.unchanged += 1
                return cached
        hit = self._pin().by_path(rel)
        if hit is not None and cached is None:
            # No cache entry but a record: hash the note and compare with its base.
            try:
                note = vault.read(rel, entry)
            except (UserError, FileNotFoundError) as exc:
                report.problems.append(str(exc))
                return None
            if note.hash == hit[1].get("base_hash"):
                self._remember(rel, note)
                report.read += 1
                report.unchanged += 1
                return None
        changed.append(rel)
        return None

    def _tombstoned(self, rid: str) -> tuple[str, dict[str, Any]] | None:
        # (each collection once: several types may share one)
        for name in dict.fromkeys(t.store_collection for t in self.app.all_types()):
            col = self.app.store.collection(name)
            if col.summary(rid, include_deleted=True) is None:
                continue
            rec = col.get(rid, include_deleted=True)
            if rec is not None:
                return name, rec
        return None

    def _create(
        self,
        rel: str,
        note: NoteFile,
        parsed: ParsedNote,
        ptype: Any,
        report: SyncReport,
        keep_id: bool,
        write_id: bool,
    ) -> None:
        declared = parsed.data.get("id")
        rid = str(declared) if keep_id else new_id()
        if write_id:
            # A copy of a note vaultbrain made: the copy gets its own id, in the note.
            try:
                self.app.vault.edit(
                    rel, lambda n: update_frontmatter(n.text, {"id": rid}) if n else None
                )
                note = self.app.vault.read(rel)
                parsed = parse_note(note.text)
                self._remember(rel, note)
            except StorageError as exc:
                # A read-only vault: the record is kept by path until the id can be written.
                report.problems.append(f"{rel}: {exc}")
        if write_id:  # a hand-made note is not written unasked, its Tasks line included
            note, parsed = settle_task_note(self.app, rel, note, parsed, ptype, None)
            self._remember(rel, note)
        rec = record_from_note(rel, parsed, ptype, None, note.hash)
        rec["id"] = rid
        rec["note_id"] = str(parsed.data["id"]) if parsed.data.get("id") is not None else None
        if not keep_id and not write_id:
            # A note without an id of its own is the person's: known by path and content,
            # written only when they ask (`adopt`, a capture, a gesture).
            rec["origin"] = "vault"
        rec.setdefault("created", "")
        if not rec["created"]:
            rec["created"] = _mtime_iso(note.mtime_ns)
        col = ptype.store_collection
        with self.app.store.locked():
            self.app.store.collection(col).put(rec)
        self.index.upsert(col, rec)
        report.created += 1
        self._audit("create", rec, rel)

    def _retype(self, known: Known, rel: str, ptype: Any, report: SyncReport) -> None:
        """The person re-filed the note: by its `type:` (the note moves to the new type's
        folder, the old one to the archive) or by moving it into another type's folder (it
        stays where they put it). Either is a correction, with links rewritten."""
        from vaultbrain.filing.refile import refile

        record = self._record(known)
        moved_from = known.path if known.path != rel else None
        refile(
            self.app,
            known.collection,
            dict(record, path=rel),
            ptype,
            by="vault",
            moved_from=moved_from,
        )
        report.retyped += 1

    def _import(
        self,
        known: Known,
        rel: str,
        note: NoteFile,
        parsed: ParsedNote,
        ptype: Any,
        report: SyncReport,
    ) -> None:
        """The note is the truth: the record follows it (its path, type and fields)."""
        collection = known.collection
        record = self._record(known)
        if record.get("origin") != "vault":  # only vaultbrain's notes are written unasked
            note, parsed = settle_task_note(self.app, rel, note, parsed, ptype, record)
            self._remember(rel, note)
        new = record_from_note(rel, parsed, ptype, record, note.hash)
        new["id"] = record["id"]
        if "note_id" in record or parsed.data.get("id") != record["id"]:
            declared = parsed.data.get("id")
            new["note_id"] = str(declared) if declared is not None else None
        new.pop("store_dirty", None)
        target = ptype.store_collection
        with self.app.store.locked():
            if target != collection:
                self.app.store.collection(collection).drop(record["id"])
                self.index.remove(collection, record["id"])
            self.app.store.collection(target).put(new)
        self.index.upsert(target, new)
        if record.get("path") and record["path"] != rel:
            self._follow_move(new, record["path"], rel)
        if record.get("deferred_updates"):
            self.app.apply_deferred(target, new["id"])
        report.imported += 1
        self._audit("revive" if record.get("deleted") else "import", new, rel)

    def _follow_move(self, record: dict[str, Any], old: str, new: str) -> None:
        """A record's note moved: the captures filed into it point at the new path, so their
        inbox lines, Needs Review and the digests link to the note where it is now (and an
        inbox link Obsidian already updated is not turned back)."""
        inbox = self.app.store.inbox
        with self.app.store.locked():
            for cid in record.get("sources") or []:
                cap = inbox.get(cid)
                if cap is None:
                    continue
                dests = cap.get("destinations") or []
                hits = [d for d in dests if d.get("record_id") == record["id"]]
                if not hits or all(d.get("path") == new for d in hits):
                    continue
                for d in hits:
                    d["path"] = new
                for op in cap.get("plan") or []:
                    if op.get("record_id") == record["id"] and op.get("path") == old:
                        op["path"] = new
                cap["updated"] = self.app.now().isoformat()
                cap["rev"] = int(cap.get("rev", 0)) + 1  # in its summary: its line is redrawn
                inbox.put(cap)

    def note_gone(self, rel: str, report: SyncReport | None = None) -> Action | None:
        report = report or SyncReport()
        self.cache.pop(rel, None)
        self._cache_dirty = True
        unreadable.forget(self.app, rel)
        graph_note_changed(self.app, rel, None)
        hit = self.index.by_path(rel)
        if hit is None:
            return None
        folder = rel.split("/", 1)[0]
        gone = "/" in rel and not self.app.vault.resolve(folder).exists()
        facts = Facts(rel, exists=False, at_path=self._known(hit), folder_gone=gone)
        return self.apply(decide(facts), rel, None, None, report)

    def _tombstone(self, known: Known, rel: str, lost: bool, report: SyncReport) -> None:
        record = self._record(known)
        with self.app.store.locked():
            self.app.store.collection(known.collection).tombstone(
                known.id, deleted_at=self.app.now().isoformat()
            )
        self.index.remove(known.collection, known.id)
        report.tombstoned += 1
        self._audit("tombstone", record, rel)
        if lost:
            self.conflict(
                known.collection,
                record,
                rel,
                "deleted-changed",
                "the note was deleted while the store had changes; they are kept in the record",
                report,
            )

    def force_import(
        self, collection: str, record_id: str, report: SyncReport | None = None
    ) -> Action | None:
        """The person's word on a conflict: the note as it is now wins."""
        report = report or SyncReport()
        hit = self.index.by_id(record_id)
        known = self._known(hit) if hit else None
        if known is None:
            return None
        note = self.app.vault.try_read(known.path)
        if note is None:
            return None
        self._remember(known.path, note)
        return self.apply(ForceImport(known), known.path, note, parse_note(note.text), report)

    # -- store -> note -------------------------------------------------------------------
    def export(
        self, collection: str, record: dict[str, Any], report: SyncReport | None = None
    ) -> bool:
        """Write the store's fields into the note (CAS against the base). False on conflict."""
        report = report or SyncReport()
        rel = record["path"]
        vault = self.app.vault
        note = vault.try_read(rel)
        parsed = parse_note(note.text) if note is not None else None
        wanted = record.get("fields", {})
        agree = parsed is not None and not parsed.error
        agree = agree and all(parsed.data.get(k) == v for k, v in wanted.items())  # type: ignore[union-attr]
        known = self._known_record(collection, record)
        action = decide_export(known, note.hash if note is not None else None, agree)
        if isinstance(action, Tombstone):
            self.note_gone(rel, report)
            return False
        if isinstance(action, Conflict):
            self.conflict(collection, record, rel, action.kind, action.detail, report)
            return False
        assert note is not None
        if isinstance(action, Import):  # the note already says it: a new base
            record["base_hash"] = note.hash
            record.pop("store_dirty", None)
            with self.app.store.locked():
                self.app.store.collection(collection).put(record)
            return True
        changes = dict(record.get("fields", {}))
        changes["updated"] = self.app.now().isoformat()
        text = fields_into_note(self.app, record.get("type", ""), note.text, changes)
        try:
            digest = vault.replace(rel, text, note.hash)
        except ConflictError:  # changed between the read and the swap
            self.conflict(
                collection,
                record,
                rel,
                "both-sides-changed",
                "the note changed while it was being written",
                report,
            )
            return False
        record["base_hash"] = digest
        record["updated"] = changes["updated"]
        record.pop("store_dirty", None)
        with self.app.store.locked():
            self.app.store.collection(collection).put(record)
        self.index.upsert(collection, record)
        written = vault.read(rel)
        self._remember(rel, written)
        report.exported += 1
        self._audit("export", record, rel)
        return True

    def conflict(
        self,
        collection: str,
        record: dict[str, Any],
        rel: str,
        kind: str,
        detail: str,
        report: SyncReport,
    ) -> None:
        conflicts = self.app.store.collection("conflicts")
        cid = f"{record['id']}-{kind}"
        with self.app.store.locked():
            existing = conflicts.get(cid)
            if existing is None or existing.get("resolved"):
                conflicts.put(
                    {
                        "id": cid,
                        "record_id": record["id"],
                        "collection": collection,
                        "path": rel,
                        "kind": kind,
                        "detail": detail,
                        "at": self.app.now().isoformat(),
                        "resolved": False,
                        "title": record.get("title"),
                    }
                )
        report.conflicts += 1
        self._audit("conflict", record, rel, kind=kind)

    def _audit(self, decision: str, record: dict[str, Any], rel: str, **extra: Any) -> None:
        self.app.store.audit(
            {
                "at": self.app.now().isoformat(),
                "kind": "sync",
                "decision": decision,
                "record": record.get("id"),
                "type": record.get("type"),
                "path": rel,
                **extra,
            }
        )

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
        in_folders = untyped = 0
        changed: list[str] = []
        entries: dict[str, Any] = {}
        try:
            for rel, entry in vault.iter_notes():
                if rel == inbox:
                    continue
                report.scanned += 1
                seen.add(rel)
                clean = self._scan_one(entry, rel, report, changed)
                if changed and changed[-1] == rel:
                    entries[rel] = entry
                if "/" in rel and not rel.lower().startswith(excluded):
                    in_folders += 1
                    if changed and changed[-1] == rel:
                        continue  # counted once it is synced
                    if self._pinned is None and clean is not None and len(clean) > 6:
                        untyped += not clean[6]
                    elif self._pin().by_path(rel) is None:
                        untyped += 1
            todo = self.new_paths_first(changed)
            try:
                for done, rel in enumerate(todo, 1):
                    self.sync_path(rel, report, entries.get(rel))
                    if progress is not None:
                        progress(done, len(todo))
            except KeyboardInterrupt:
                # Ctrl-C: what was synced stays (each record is written whole), and the
                # cache says so, so a rerun goes on from here instead of reading it again.
                self.save_cache()
                raise
            for rel in changed:
                if "/" in rel and not rel.lower().startswith(excluded):
                    untyped += self._pin().by_path(rel) is None
            if self._pinned is None and any(
                (len(e) < 7 or e[6]) and rel not in seen for rel, e in self.cache.items()
            ):
                self._pin()  # a record's note is gone: what follows needs the records
        finally:
            pinned, self._pinned = self._pinned, None
        stale = [rel for rel in self.cache if rel not in seen]
        for rel in stale:
            del self.cache[rel]
        self._cache_dirty |= bool(stale)
        unreadable.forget_missing(self.app, seen)
        report.in_folders, report.untyped_in_folders = in_folders, untyped
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
        self.save_cache()
        report.seconds = time.perf_counter() - started
        return report


def _valid_id(rid: str) -> bool:
    from vaultbrain.store import validate_id

    try:
        validate_id(rid)
        return True
    except UserError:
        return False


def _mtime_iso(mtime_ns: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(mtime_ns / 1e9).replace(microsecond=0).isoformat()


def reindex(app: Brain, progress: Callable[[int, int], None] | None = None) -> SyncReport:
    """Rescan the vault into the store; the untyped warning of the schema pack at the end.
    ``progress(done, total)`` is called after each note that had to be read."""
    from vaultbrain.packs.survey import format_untyped

    sync = app.notes()
    graph_prepare(app)  # a missing graph index is filled by this scan (vaultbrain.graph)
    try:
        with app.store.bulk():
            report = sync.scan(progress=progress)
    except KeyboardInterrupt:
        _end_graph_bulk(app)  # what the graph index took in is kept; the rerun goes on
        raise
    from vaultbrain.classify.adapt import rebuild, vault_learning

    learnt = (report.created, report.imported, report.tombstoned, report.moved, report.retyped)
    if any(learnt):
        rebuild(app.store, app.pack)  # the embedded classifier learns the vault afresh
    else:
        # Nothing new in the store: its saved state is brought up to date instead (a stat
        # per collection when current), not relearnt from every record at each reindex.
        vault_learning(app.store, app.pack)
    report.warning = format_untyped(report.untyped_in_folders, report.in_folders, app.pack.identity)
    graph_rebuild(app)  # the graph index built or caught up (vaultbrain.graph)
    return report


def _end_graph_bulk(app: Brain) -> None:
    import sqlite3

    try:
        app.graph().end_bulk()
    except (sqlite3.Error, OSError):
        pass  # the next reindex or search catches the index up
