"""Notes and the store stay in step: the decisions of :mod:`vaultbrain.filing.decide`, applied.

Each record keeps the hash of its note as last read or written (its base). For a note that may
have changed, :class:`NoteSync` gathers the facts (the note, the records the store holds for
it), asks the pure :func:`~vaultbrain.filing.decide.decide` for an action, and applies it. A
content hash decides "changed"; mtime and size only say whether to look.

:class:`NoteSync` is three parts: the facts and one note's sync (this module), the notes
cache and the scan walk (vaultbrain/filing/scan.py), and the executors of each action
(vaultbrain/filing/apply.py). :func:`reindex` is the whole vault, the graph index included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing import unreadable
from vaultbrain.filing.apply import Executors
from vaultbrain.filing.decide import Action, Facts, ForceImport, Known, decide
from vaultbrain.filing.report import SyncReport
from vaultbrain.filing.scan import CACHE_FILE, NotesCache
from vaultbrain.graph import abandon as graph_abandon
from vaultbrain.graph import filling as graph_filling
from vaultbrain.graph import note_changed as graph_note_changed
from vaultbrain.graph import prepare as graph_prepare
from vaultbrain.graph import rebuild as graph_rebuild
from vaultbrain.procs import collector_paused
from vaultbrain.vault import NoteFile, is_ignored
from vaultbrain.vault.counted import index_note
from vaultbrain.vault.note import ParsedNote, parse_note
from vaultbrain.vault.obsidian import is_template_text

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs.resolved import PageType

__all__ = ["CACHE_FILE", "NoteSync", "SyncReport", "notes_sync", "reindex", "restore_base"]


class NoteSync(NotesCache, Executors):
    """Applies the decision table for one brain (one per process: :func:`notes_sync`)."""

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
        self.graph_saw(rel, note, parsed)
        return action

    def graph_saw(self, rel: str, note: NoteFile | None, parsed: ParsedNote | None = None) -> None:
        """The graph index follows every note the sync reads or finds gone
        (vaultbrain.graph; it parses the note itself when ``parsed`` is None)."""
        graph_note_changed(self.app, rel, note, parsed)

    def graph_fills(self) -> bool:
        """True while a reindex fills the graph index from the notes this scan reads."""
        return graph_filling(self.app)

    def _facts(self, rel: str, note: NoteFile, parsed: ParsedNote) -> Facts:
        """What a decision about the note at ``rel`` needs to know (reads only the store)."""
        hit = self.index.by_path(rel)
        if hit is not None and not self.same_note(hit[1].get("path"), rel):
            hit = None  # another file whose name differs only in case: another note
        at_path = self._known(hit)
        pack = self.app.typer(rel)
        folder = pack.type_for_path(rel)
        folder_name = folder.name if folder else None
        if (
            self.app.templates.holds_note(rel)
            or is_template_text(note.text)
            or (at_path is None and index_note(rel))
        ):
            # A template is no record (nor a note that cannot be read: `date: {{date}}` is
            # not YAML, and need not be); nor a README, index or folder note.
            return Facts(rel, True, note.hash, generated=True, at_path=at_path)
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
        if data.get("archived") is True or rel.startswith("Brain/"):
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
        ptype: PageType | None
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
        if ptype is not None and at_path is None and tombstone is None:
            if by_id is None or by_id_has_id:  # (a note sharing its id with another, moved?)
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

    def _tombstoned(self, rid: str) -> tuple[str, dict[str, Any]] | None:
        for name in self.index.collections:  # (each once: several types may share one)
            col = self.app.store.collection(name)
            if col.summary(rid, include_deleted=True) is None:
                continue
            rec = col.get(rid, include_deleted=True)
            if rec is not None:
                return name, rec
        return None

    def note_gone(self, rel: str, report: SyncReport | None = None) -> Action | None:
        report = report or SyncReport()
        self.cache.pop(rel, None)
        self._cache_dirty = True
        unreadable.forget(self.app, rel)
        graph_note_changed(self.app, rel, None)
        hit = self.index.by_path(rel)
        if hit is None or hit[1].get("path") != rel:
            return None  # (a record at another spelling: its note was renamed, not deleted)
        folder = rel.split("/", 1)[0]
        gone = "/" in rel and not self.app.vault.resolve(folder).exists()
        facts = Facts(rel, exists=False, at_path=self._known(hit), folder_gone=gone)
        return self.apply(decide(facts), rel, None, None, report)

    def record_gone(
        self, collection: str, record_id: str, report: SyncReport | None = None
    ) -> Action | None:
        """A record whose note is nowhere (its path holds another record's note): the
        decision for a deleted note, about this record."""
        report = report or SyncReport()
        record = self.app.store.collection(collection).get(record_id)
        if record is None:
            return None
        known = self._known_record(collection, record)
        facts = Facts(known.path, exists=False, at_path=known)
        return self.apply(decide(facts), known.path, None, None, report)

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


def notes_sync(brain: Brain) -> NoteSync:
    """This process's notes ↔ store sync (it keeps the notes cache between scans).
    ``reindex`` lets go of it at its end (``brain.forget("notes")``): the sync and the brain
    hold each other, so its 10,000 cache entries would otherwise wait for the cyclic
    garbage collector, and land as a pause in whatever the process does next."""
    return brain.memo("notes", None, lambda: NoteSync(brain))


def restore_base(brain: Brain, rel: str) -> None:
    """After our own edit the store follows the note, so the sync sees nothing to do."""
    notes_sync(brain).sync_path(rel)


def _valid_id(rid: str) -> bool:
    from vaultbrain.store import validate_id

    try:
        validate_id(rid)
        return True
    except UserError:
        return False


def reindex(
    app: Brain,
    progress: Callable[[int, int], None] | None = None,
    graph_progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """Rescan the vault into the store; the untyped warning of the schema pack at the end.
    ``progress(done, total)`` is called after each note that had to be read;
    ``graph_progress`` while the search index is built or caught up after the scan."""
    # A reindex makes tens of thousands of objects that live until it ends (the notes cache,
    # the records, the scan's stats), none of them in a reference cycle: the cyclic
    # collector would only walk them, and everything the process holds, again and again
    # (a sixth of a cold reindex). Reference counting still frees what is dropped.
    with collector_paused():
        try:
            return _reindex(app, progress, graph_progress)
        finally:
            app.forget("notes")  # (freed now by reference counting, not by the collector later)


def _reindex(
    app: Brain,
    progress: Callable[[int, int], None] | None,
    graph_progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    from vaultbrain.packs.survey import format_untyped

    sync = notes_sync(app)
    graph_prepare(app)  # a missing graph index is built beside this scan (vaultbrain.graph)
    try:
        with app.store.bulk():
            report = sync.scan(progress=progress)
    except BaseException:
        graph_abandon(app)  # what the graph index took in is kept; the rerun goes on
        raise
    report.warning = format_untyped(
        report.untyped_in_folders,
        report.in_folders,
        app.pack.identity,
        detects=report.most_untyped_in_a_folder,
    )
    # the graph index built or caught up (vaultbrain.graph), from the scan's walk
    graph_rebuild(app, sync.walk(), graph_progress)
    return report
