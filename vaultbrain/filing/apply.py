"""The executors of :mod:`vaultbrain.filing.decide`'s actions, a base of
:class:`~vaultbrain.filing.sync.NoteSync`: each carries out one decision (create, import,
revive, retype, export, conflict, tombstone) and makes none. The store follows the note, the
record index is kept in step, and every step leaves an audit entry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultbrain.errors import ConflictError, StorageError, UserError
from vaultbrain.filing import unreadable
from vaultbrain.filing.decide import (
    Action,
    Conflict,
    Create,
    Export,
    ForceImport,
    Import,
    Known,
    Nothing,
    Retype,
    Revive,
    Skip,
    Tombstone,
    decide_export,
)
from vaultbrain.filing.records import fields_into_note, new_id, record_from_note, settle_task_note
from vaultbrain.filing.report import Deferred, Moved, SyncReport, Tombstoned
from vaultbrain.vault import NoteFile
from vaultbrain.vault.note import ParsedNote, parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


class Executors:
    """Applies actions for ``NoteSync`` (its facts and its cache are in sync.py and scan.py)."""

    app: Brain

    if TYPE_CHECKING:
        index: Any

        def _remember(self, rel: str, note: Any) -> None: ...

        def _record(self, known: Known) -> dict[str, Any]: ...

        @staticmethod
        def _known_record(collection: str, record: dict[str, Any]) -> Known: ...

        def note_gone(self, rel: str, report: SyncReport | None = None) -> Action | None: ...

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

    def _set_type(self, rel: str, note: NoteFile, type_name: str) -> NoteFile:
        """The note's own ``type:`` follows the person's move into another type's folder."""
        self.app.vault.edit(
            rel, lambda n: update_frontmatter(n.text, {"type": type_name}) if n else None
        )
        note = self.app.vault.read(rel)
        self._remember(rel, note)
        return note

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
        _, done = refile(
            self.app,
            self,  # type: ignore[arg-type]  # (the NoteSync this is a base of)
            known.collection,
            dict(record, path=rel),
            ptype,
            by="vault",
            moved_from=moved_from,
        )
        report.refiled.append(done)
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
            sources = tuple(str(s) for s in record.get("sources") or ())
            report.moves.append(Moved(target, new["id"], record["path"], rel, sources))
        if record.get("deferred_updates") and note.text.strip():
            report.deferred.append(Deferred(target, new["id"]))
        report.imported += 1
        self._audit("revive" if record.get("deleted") else "import", new, rel)

    def _tombstone(self, known: Known, rel: str, lost: bool, report: SyncReport) -> None:
        record = self._record(known)
        with self.app.store.locked():
            self.app.store.collection(known.collection).tombstone(
                known.id, deleted_at=self.app.now().isoformat()
            )
        self.index.remove(known.collection, known.id)
        report.tombstoned += 1
        sources = tuple(str(s) for s in record.get("sources") or ())
        report.tombstones.append(Tombstoned(known.collection, known.id, rel, sources))
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


def _mtime_iso(mtime_ns: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(mtime_ns / 1e9).replace(microsecond=0).isoformat()
