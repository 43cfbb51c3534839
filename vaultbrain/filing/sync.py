"""Notes and the store stay in step: a vdirsyncer-style decision table, applied.

Each record keeps the hash of its note as last read or written (its base). One pure function,
:func:`decide`, turns (base, note side, store side) into an action; the rest of this module
applies it. A content hash decides "changed"; mtime and size only say whether to look.
"""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.errors import ConflictError, StorageError, UserError
from vaultbrain.filing.records import fields_into_note, new_id, record_from_note, settle_task_note
from vaultbrain.vault import is_ignored
from vaultbrain.vault.note import parse_note, update_frontmatter

log = logging.getLogger("vaultbrain.sync")
CACHE_FILE = "notes-cache.json"
_RACY_NS = 2_000_000_000


class Action(enum.Enum):
    NOTHING = "nothing"
    IMPORT = "import"  # the person's edit wins: parse the note into the store
    EXPORT = "export"  # render the store's change into the note (compare-and-swap)
    NEW_BASE = "new_base"  # both changed to the same result
    CONFLICT = "conflict"  # both changed differently: neither side overwritten
    TOMBSTONE = "tombstone"  # the note was deleted: the record never comes back by itself
    TOMBSTONE_CONFLICT = "tombstone_conflict"  # deleted, but the store had news: keep both
    CREATE = "create"  # a note with no record


def decide(
    base: str | None, note_hash: str | None, store_changed: bool, same_result: bool = False
) -> Action:
    """The decision table (DESIGN.md §2), as a pure function."""
    if note_hash is None:
        return Action.TOMBSTONE_CONFLICT if store_changed else Action.TOMBSTONE
    if base is None:
        return Action.CREATE
    if note_hash == base:
        return Action.EXPORT if store_changed else Action.NOTHING
    if not store_changed:
        return Action.IMPORT
    return Action.NEW_BASE if same_result else Action.CONFLICT


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
    """Applies the decision table for one app; the filer's index is shared."""

    def __init__(self, app: Any, filer: Any) -> None:
        self.app = app
        self.filer = filer
        self.cache: dict[str, list[Any]] = {}
        self._cache_loaded = False
        self._cache_dirty = False

    @property
    def index(self) -> Any:
        # During a scan the index is pinned: refreshed once at the start, kept in step by
        # our own writes, instead of being checked again for each of 10,000 notes.
        return self._pinned if self._pinned is not None else self.filer.index

    _pinned: Any = None

    def _typer(self) -> Any:
        """rel -> the pack that types it (per-folder packs win), refreshed with the settings."""
        from vaultbrain.packs.loader import typer_for

        stamp = (self.app.settings._mtime, self.app.pack.identity)
        if getattr(self, "_typer_stamp", None) != stamp:
            self._typer_fn = typer_for(self.app)
            self._typer_stamp = stamp
        return self._typer_fn

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
        index = self.filer.loaded_index()
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
        if stamp is None or self.filer.loaded_index() is not None:
            return False
        collections = self.filer.collections()
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
    def sync_path(self, rel: str, report: SyncReport | None = None) -> Action | None:
        """Bring the store in step with one note that may have changed or appeared."""
        report = report or SyncReport()
        if is_ignored(rel) or rel == self.filer.inbox_rel or not rel.lower().endswith(".md"):
            return None
        try:
            note = self.app.vault.try_read(rel)
        except UserError as exc:
            report.problems.append(str(exc))
            return None
        if note is None:
            return self.note_gone(rel, report)
        report.read += 1
        self._remember(rel, note)
        pack = self._typer()(rel)
        parsed = parse_note(note.text)
        hit = self.index.by_path(rel)
        if parsed.error:
            if hit is not None:
                report.problems.append(f"{rel}: {parsed.error}; the store keeps its last good copy")
            elif pack.type_for_path(rel) is not None:
                report.problems.append(f"{rel}: {parsed.error}; not filed until it is fixed")
            return None
        if parsed.data.get("archived") is True or rel.startswith("Brain/"):
            return None  # archived and generated notes are not records
        declared = parsed.data.get("type")
        ptype = pack.get_type(str(declared)) if declared else None
        if ptype is None:
            ptype = pack.type_for_path(rel)
        if ptype is None:
            if pack.type_for_path(rel) is None and declared is None:
                return None
            report.untyped += 1
            return None
        rid = parsed.data.get("id")
        rid = str(rid) if rid is not None else None
        if hit is not None and rid and hit[1]["id"] != rid:
            hit = None  # a different note now stands where a renamed one was: its own id wins
        by_id = self.index.by_id(rid) if rid else None
        if by_id is not None and by_id[1].get("path") and by_id[1]["path"] != rel:
            if hit is None and self.declared_id(by_id[1]["path"]) == rid:
                # The same id at two paths: the person copied a note. The copy is a new record.
                # (A note with another id, or none, where the record was is not its copy: the
                # record's note moved and a new note took its old name.)
                return self._create(rel, note, parsed, ptype, report, force_new_id=True)
        target = by_id or hit
        if target is None:
            revived = self._tombstoned(rid) if rid else None
            if revived is not None:
                return self._import(revived[0], revived[1], rel, note, parsed, ptype, report)
            return self._create(rel, note, parsed, ptype, report)
        collection, summary = target
        record = self.app.store.collection(collection).get(summary["id"], include_deleted=True)
        if record is None:
            return self._create(rel, note, parsed, ptype, report)
        if record.get("path") != rel:
            report.moved += 1
            folder_type = pack.type_for_path(rel)
            if (
                folder_type is not None
                and folder_type.name != record.get("type")
                and (declared is None or str(declared).lower() == record.get("type"))
            ):
                # Moved into another type's folder: the person re-filed it. The note's own
                # `type:` follows the move, so the two never disagree.
                ptype = folder_type
                if declared is not None:
                    note, parsed = self._set_type(rel, note, ptype.name)
        action = decide(record.get("base_hash"), note.hash, bool(record.get("store_dirty")))
        if (
            action is Action.NOTHING
            and record.get("path") == rel
            and record.get("type") == ptype.name
        ):
            report.unchanged += 1
            return action
        if action in (Action.IMPORT, Action.NOTHING):
            return self._import(collection, record, rel, note, parsed, ptype, report)
        if action is Action.EXPORT:
            self.export(collection, record, report)
            return action
        # both sides changed
        wanted = record.get("fields", {})
        have = {k: v for k, v in parsed.data.items() if k in wanted}
        if have == wanted:
            return self._import(collection, record, rel, note, parsed, ptype, report)
        self.conflict(
            collection,
            record,
            rel,
            "both-sides-changed",
            "the note and the store both changed since they last agreed",
            report,
        )
        return Action.CONFLICT

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

    def ids_first(self, rels: list[str]) -> list[str]:
        """Notes that declare an id before those that do not, each group in its order: a note
        renamed (it keeps its id) is seen at its new path before a new note at its old one,
        which would otherwise be taken for it."""
        if len(rels) < 2:
            return list(rels)
        with_id = [rel for rel in rels if self.declared_id(rel) is not None]
        chosen = set(with_id)
        return with_id + [rel for rel in rels if rel not in chosen]

    def _set_type(self, rel: str, note: Any, type_name: str) -> tuple[Any, Any]:
        for _ in range(10):
            try:
                self.app.vault.replace(
                    rel, update_frontmatter(note.text, {"type": type_name}), note.hash
                )
                break
            except ConflictError:
                note = self.app.vault.read(rel)
        note = self.app.vault.read(rel)
        self._remember(rel, note)
        return note, parse_note(note.text)

    def _pin(self) -> Any:
        """The record index, refreshed and pinned for the rest of the scan."""
        if self._pinned is None:
            index = self.filer.index
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
        for t in [t for p in (self.app.pack, *self.filer.folder_packs()) for t in p.types]:
            col = self.app.store.collection(t.store_collection)
            if col.summary(rid, include_deleted=True) is None:
                continue
            rec = col.get(rid, include_deleted=True)
            if rec is not None:
                return t.store_collection, rec
        return None

    def _create(
        self,
        rel: str,
        note: Any,
        parsed: Any,
        ptype: Any,
        report: SyncReport,
        force_new_id: bool = False,
    ) -> Action:
        rid = parsed.data.get("id")
        if rid is None or force_new_id or not _valid_id(str(rid)):
            rid = new_id()
            changes: dict[str, Any] = {"id": rid}
            if "type" not in parsed.data:
                changes = {"type": ptype.name, "id": rid}
            try:
                for _ in range(10):
                    try:
                        text = update_frontmatter(note.text, changes)
                        self.app.vault.replace(rel, text, note.hash)
                        break
                    except ConflictError:
                        note = self.app.vault.read(rel)
                note = self.app.vault.read(rel)
                parsed = parse_note(note.text)
                self._remember(rel, note)
            except StorageError as exc:
                # A read-only vault: the record is kept by path until the id can be written.
                report.problems.append(f"{rel}: {exc}")
        note, parsed = settle_task_note(self.app, rel, note, parsed, ptype, None)
        self._remember(rel, note)
        rec = record_from_note(rel, parsed, ptype, None, note.hash)
        rec["id"] = str(rid)
        rec.setdefault("created", "")
        if not rec["created"]:
            rec["created"] = _mtime_iso(note.mtime_ns)
        col = ptype.store_collection
        with self.app.store.locked():
            self.app.store.collection(col).put(rec)
        self.index.upsert(col, rec)
        report.created += 1
        self._audit("create", rec, rel)
        return Action.CREATE

    def _import(
        self,
        collection: str,
        record: dict[str, Any],
        rel: str,
        note: Any,
        parsed: Any,
        ptype: Any,
        report: SyncReport,
    ) -> Action:
        old_type = record.get("type")
        if old_type and old_type != ptype.name and not record.get("deleted"):
            # The person re-filed the note: by its `type:` (the note moves to the new type's
            # folder, the old one to the archive) or by moving it into another type's folder
            # (it stays where they put it). Either is a correction, with links rewritten.
            from vaultbrain.filing.refile import refile

            moved_from = record.get("path") if record.get("path") != rel else None
            target_rec = dict(record, path=rel)
            refile(self.app, collection, target_rec, ptype, by="vault", moved_from=moved_from)
            report.retyped += 1
            return Action.IMPORT
        note, parsed = settle_task_note(self.app, rel, note, parsed, ptype, record)
        self._remember(rel, note)
        new = record_from_note(rel, parsed, ptype, record, note.hash)
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
            self.filer.apply_deferred(target, new["id"])
        if record.get("deleted"):
            self._audit("revive", new, rel)
            report.imported += 1
        else:
            report.imported += 1
            self._audit("import", new, rel)
        return Action.IMPORT

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
        hit = self.index.by_path(rel)
        if hit is None:
            return None
        collection, summary = hit
        folder = rel.split("/", 1)[0]
        if "/" in rel and not self.app.vault.resolve(folder).exists():
            report.problems.append(
                f"the folder {folder}/ is gone: not treating its notes as deleted "
                "(an unmounted sync folder looks the same); put it back or run `vaultbrain reindex`"
            )
            return None
        record = self.app.store.collection(collection).get(summary["id"])
        if record is None:
            return None
        action = decide(record.get("base_hash"), None, bool(record.get("store_dirty")))
        with self.app.store.locked():
            self.app.store.collection(collection).tombstone(
                record["id"], deleted_at=self.app.now().isoformat()
            )
        self.index.remove(collection, record["id"])
        report.tombstoned += 1
        self._audit("tombstone", record, rel)
        if action is Action.TOMBSTONE_CONFLICT:
            self.conflict(
                collection,
                record,
                rel,
                "deleted-changed",
                "the note was deleted while the store had changes; they are kept in the record",
                report,
            )
        return action

    # -- store -> note -------------------------------------------------------------------
    def export(
        self, collection: str, record: dict[str, Any], report: SyncReport | None = None
    ) -> bool:
        """Write the store's fields into the note (CAS against the base). False on conflict."""
        report = report or SyncReport()
        rel = record["path"]
        vault = self.app.vault
        note = vault.try_read(rel)
        if note is None:
            self.note_gone(rel, report)
            return False
        if note.hash != record.get("base_hash"):
            parsed = parse_note(note.text)
            wanted = record.get("fields", {})
            if not parsed.error and all(parsed.data.get(k) == v for k, v in wanted.items()):
                record["base_hash"] = note.hash
                record.pop("store_dirty", None)
                with self.app.store.locked():
                    self.app.store.collection(collection).put(record)
                return True
            self.conflict(
                collection,
                record,
                rel,
                "both-sides-changed",
                "the note changed while the store had changes",
                report,
            )
            return False
        changes = dict(record.get("fields", {}))
        changes["updated"] = self.app.now().isoformat()
        text = fields_into_note(self.app, record.get("type", ""), note.text, changes)
        try:
            digest = vault.replace(rel, text, note.hash)
        except ConflictError:
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
    def scan(self, report: SyncReport | None = None) -> SyncReport:
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
        inbox = self.filer.inbox_rel
        excluded = tuple(f.lower().strip("/") + "/" for f in generated_folders(self.app.settings))
        in_folders = untyped = 0
        changed: list[str] = []
        try:
            for rel, entry in vault.iter_notes():
                if rel == inbox:
                    continue
                report.scanned += 1
                seen.add(rel)
                clean = self._scan_one(entry, rel, report, changed)
                if "/" in rel and not rel.lower().startswith(excluded):
                    in_folders += 1
                    if changed and changed[-1] == rel:
                        continue  # counted once it is synced
                    if self._pinned is None and clean is not None and len(clean) > 6:
                        untyped += not clean[6]
                    elif self._pin().by_path(rel) is None:
                        untyped += 1
            for rel in self.ids_first(changed):
                self.sync_path(rel, report)
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


def reindex(app: Any) -> SyncReport:
    """Rescan the vault into the store; the untyped warning of the schema pack at the end."""
    from vaultbrain.filing.capture import Filer
    from vaultbrain.packs.survey import format_untyped

    sync = NoteSync(app, Filer(app))
    with app.store.bulk():
        report = sync.scan()
    report.warning = format_untyped(report.untyped_in_folders, report.in_folders, app.pack.identity)
    return report
