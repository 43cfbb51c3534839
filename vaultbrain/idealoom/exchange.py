"""Import and export between the machine-local lists and the vault's ``Idea Loom/`` notes.

Both directions start from one scan of the folder (every note parsed, indexed by id, iCloud
placeholders noted), then let :func:`~vaultbrain.idealoom.decision.decide` choose for each
list. Every note write is compare-and-swap against the hash the decision was made on; a note
that changed in between is re-read and decided again. The result reports every list and
note in exactly one of eight outcomes, each with a reason code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import ConflictError, UserError
from vaultbrain.idealoom.config import LoomSettings
from vaultbrain.idealoom.decision import Action, Direction, ListState, NoteState, decide
from vaultbrain.idealoom.lists import ListBook
from vaultbrain.idealoom.model import IdeaList
from vaultbrain.idealoom.note import (
    LoomNote,
    Malformed,
    note_path,
    parse_loom_note,
    render_loom_note,
    update_loom_note,
)
from vaultbrain.vault.files import NoteFile

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

OUTCOMES = (
    "imported", "exported", "skipped", "conflicted", "missing", "malformed", "unavailable", "failed",
)  # fmt: skip
_PLACEHOLDER = re.compile(r"^\.(?P<name>.+\.md)\.icloud$", re.IGNORECASE)
_ATTEMPTS = 3


@dataclass(frozen=True)
class ExchangeItem:
    """What happened to one list or note."""

    outcome: str
    reason: str
    path: str | None = None
    list_id: str | None = None
    title: str | None = None
    line: int | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ExchangeResult:
    kind: str  # import | export | auto-export
    items: list[ExchangeItem] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for item in self.items:
            counts[item.outcome] += 1
        return counts

    def of(self, outcome: str) -> list[ExchangeItem]:
        return [i for i in self.items if i.outcome == outcome]

    def summary(self) -> str:
        counts = self.counts()
        return f"{self.kind}: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "counts": self.counts(),
            "items": [i.to_dict() for i in self.items],
        }


@dataclass
class ScannedNote:
    path: str
    file: NoteFile | None = None
    note: LoomNote | None = None
    malformed: Malformed | None = None
    error: str | None = None  # could not be read at all


class Scan:
    """The folder's notes as read once, by path and by list id."""

    def __init__(self, app: Brain, folder: str) -> None:
        self.vault = app.vault
        self.folder = folder
        self.notes: dict[str, ScannedNote] = {}
        self.placeholders: set[str] = set()
        self._by_id: dict[str, list[str]] | None = None
        root = self.vault.resolve(folder)
        if root.is_dir():
            for rel, _ in self.vault.iter_notes(folder):
                self.read(rel)
            self._find_placeholders(root)

    def _find_placeholders(self, root: os.PathLike[str]) -> None:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                m = _PLACEHOLDER.match(name)
                if m:
                    rel = self.vault.rel(os.path.join(dirpath, m.group("name")))
                    if rel not in self.notes:
                        self.placeholders.add(rel)

    def read(self, path: str) -> ScannedNote | None:
        """(Re-)read one note into the scan; None when nothing is there."""
        self.notes.pop(path, None)
        self._by_id = None
        try:
            file = self.vault.read(path)
        except FileNotFoundError:
            return None
        except UserError as exc:
            scanned = ScannedNote(path, error=str(exc))
        except OSError as exc:
            scanned = ScannedNote(path, error=f"{path} cannot be read: {exc.strerror or exc}")
        else:
            parsed = parse_loom_note(file.text)
            if isinstance(parsed, Malformed):
                scanned = ScannedNote(path, file=file, malformed=parsed)
            else:
                scanned = ScannedNote(path, file=file, note=parsed)
        self.notes[path] = scanned
        return scanned

    def add(self, path: str) -> None:
        """Also look at a list's recorded note outside the folder (the folder setting moved)."""
        if path in self.notes or path in self.placeholders:
            return
        if self.read(path) is None and self.placeholder_at(path):
            self.placeholders.add(path)

    def placeholder_at(self, path: str) -> bool:
        p = PurePosixPath(path)
        try:
            return self.vault.resolve(str(p.with_name(f".{p.name}.icloud"))).exists()
        except UserError:
            return False

    def paths_of(self, list_id: str) -> list[str]:
        """The notes holding ``list_id`` (more than one is a duplicate)."""
        if self._by_id is None:
            self._by_id = {}
            for path in sorted(self.notes):
                note = self.notes[path].note
                if note is not None:
                    self._by_id.setdefault(note.list.id, []).append(path)
        return self._by_id.get(list_id, [])

    def taken(self, path: str) -> bool:
        return path in self.notes or path in self.placeholders or self.vault.exists(path)


def _require_enabled(app: Brain) -> LoomSettings:
    settings = LoomSettings.read(app, reload=True)
    if not settings.enabled:
        raise UserError(
            "the IdeaLoom exchange with the vault is off; turn it on with "
            "`vaultbrain idealoom settings --enabled true`"
        )
    return settings


def _note_state(lst: IdeaList, file: NoteFile) -> NoteState:
    if lst.sync.base_hash is not None and file.hash == lst.sync.base_hash:
        return NoteState.UNCHANGED
    return NoteState.CHANGED


def _list_state(lst: IdeaList) -> ListState:
    if lst.sync.list_hash is not None and lst.fingerprint() == lst.sync.list_hash:
        return ListState.UNCHANGED
    return ListState.CHANGED


class _Exchange:
    """One run: the lists, the scan and the items reported so far."""

    def __init__(self, app: Brain, kind: Direction, settings: LoomSettings) -> None:
        self.app = app
        self.kind = kind
        self.book = ListBook(app)
        self.lists = {lst.id: lst for lst in self.book.all()}
        self.scan = Scan(app, settings.folder)
        self.folder = settings.folder
        for lst in self.lists.values():
            if lst.sync.path:
                self.scan.add(lst.sync.path)
        self.result = ExchangeResult(str(kind))
        self.now = app.now().isoformat()

    # -- recording -----------------------------------------------------------------------
    def report(self, item: ExchangeItem, lst: IdeaList | None = None, **sync: Any) -> None:
        """Report ``item``; when it concerns a list, save the list's new sync state with it."""
        self.result.items.append(item)
        if lst is None:
            return
        saved = lst.with_sync(outcome=item.outcome, reason=item.reason, **sync)
        stored = self.lists.get(saved.id)
        if (
            stored is not None
            and stored.to_record() == saved.with_sync(at=stored.sync.at).to_record()
        ):
            return  # nothing new to remember: ``at`` keeps when this outcome was first seen
        saved = saved.with_sync(at=self.now)
        self.book.put(saved)
        self.lists[saved.id] = saved

    def item(
        self, outcome: str, reason: str, lst: IdeaList | None = None, **kw: Any
    ) -> ExchangeItem:
        if lst is not None:
            kw.setdefault("list_id", lst.id)
            kw.setdefault("title", lst.title)
            kw.setdefault("path", lst.sync.path)
        return ExchangeItem(outcome, reason, **kw)

    def owner_of(self, path: str) -> IdeaList | None:
        for lst in self.lists.values():
            if lst.sync.path == path:
                return lst
        return None

    def report_unreadable(self, scanned: ScannedNote, lst: IdeaList | None) -> None:
        if scanned.error is not None:
            item = self.item("failed", "unreadable", lst, path=scanned.path, message=scanned.error)
        else:
            bad = scanned.malformed
            assert bad is not None
            item = self.item(
                "malformed", bad.reason, lst, path=scanned.path, line=bad.line, message=bad.message
            )
        self.report(item, lst)

    def report_duplicate(self, list_id: str, path: str, paths: list[str]) -> None:
        """One note of several holding the same list id: none of them is exchanged."""
        lst = self.lists.get(list_id)
        others = ", ".join(p for p in paths if p != path)
        message = f"the same list id is also in {others}; keep one of the notes"
        item = self.item(
            "skipped", "duplicate-id", lst, path=path, list_id=list_id, message=message
        )
        self.report(item, lst)

    # -- import --------------------------------------------------------------------------
    def run_import(self) -> ExchangeResult:
        seen: set[str] = set()
        for path in sorted(self.scan.notes):
            scanned = self.scan.notes[path]
            if scanned.note is None:
                self.report_unreadable(scanned, self.owner_of(path))
                continue
            list_id = scanned.note.list.id
            seen.add(list_id)
            paths = self.scan.paths_of(list_id)
            if len(paths) > 1:
                self.report_duplicate(list_id, path, paths)
                continue
            self.import_note(scanned)
        for lst in list(self.lists.values()):
            if lst.id in seen or not lst.sync.path:
                continue
            at_path = self.scan.notes.get(lst.sync.path)
            if at_path is not None and at_path.note is None:
                continue  # already reported as the malformed or unreadable note it is
            self.report_gone(lst, recreate=False)
        owned = {lst.sync.path for lst in self.lists.values()}
        for path in sorted(self.scan.placeholders - owned):
            self.report(self.item("unavailable", "icloud-placeholder", path=path))
        return self.result

    def import_note(self, scanned: ScannedNote) -> None:
        note, file = scanned.note, scanned.file
        assert note is not None and file is not None
        incoming = note.list
        local = self.lists.get(incoming.id)
        if local is None:
            new = incoming.with_sync(path=scanned.path, base_hash=file.hash)
            new = new.with_sync(list_hash=new.fingerprint())
            self.report(self.item("imported", "new-list", new), new)
            return
        local = local.with_sync(path=scanned.path)  # follows a note the person renamed
        decision = decide(
            Direction.IMPORT,
            _note_state(local, file),
            _list_state(local),
            same_content=incoming.same_content(local),
        )
        item = self.item(decision.outcome, decision.reason, local)
        if decision.action is Action.IMPORT:
            new = incoming.with_sync(**{**local.sync.to_dict(), "base_hash": file.hash})
            self.report(item, new, list_hash=new.fingerprint())
        elif decision.action is Action.REBASE:
            # Both sides say the same: the note's modified time is taken, so they agree exactly.
            agreed = replace(local, modified=incoming.modified)
            self.report(item, agreed, base_hash=file.hash, list_hash=agreed.fingerprint())
        else:
            self.report(item, local)

    def report_gone(self, lst: IdeaList, *, recreate: bool) -> None:
        """A list whose note is nowhere in the folder: unavailable, missing or recreated."""
        assert lst.sync.path is not None
        if lst.sync.path in self.scan.placeholders or self.scan.placeholder_at(lst.sync.path):
            state = NoteState.UNAVAILABLE
        else:
            state = NoteState.MISSING
        decision = decide(self.kind, state, _list_state(lst), recreate_missing=recreate)
        if decision.action is Action.CREATE:
            self.create(lst, decision.reason)
            return
        message = ""
        if decision.outcome == "missing":
            message = "deleted in the vault; list kept; export --recreate-missing"
        elif decision.outcome == "unavailable":
            message = "in iCloud, not downloaded to this machine"
        self.report(self.item(decision.outcome, decision.reason, lst, message=message), lst)

    # -- export --------------------------------------------------------------------------
    def run_export(self, ids: Iterable[str] | None, recreate_missing: bool) -> ExchangeResult:
        wanted = list(self.lists) if ids is None else [i for i in ids if i in self.lists]
        for list_id in wanted:
            self.export_list(self.lists[list_id], recreate_missing)
        return self.result

    def export_list(self, lst: IdeaList, recreate_missing: bool, attempt: int = 1) -> None:
        paths = self.scan.paths_of(lst.id)
        if len(paths) > 1:
            self.report_duplicate(lst.id, paths[0], paths)
            return
        if not paths:
            path = lst.sync.path
            if path is None:
                decision = decide(self.kind, NoteState.ABSENT, _list_state(lst))
                if decision.action is Action.CREATE:
                    self.create(lst, decision.reason)
                else:
                    self.report(self.item(decision.outcome, decision.reason, lst), lst)
                return
            scanned = self.scan.notes.get(path)
            if scanned is not None and scanned.note is None:
                self.report_unreadable(scanned, lst)
                return
            self.report_gone(lst, recreate=recreate_missing)
            return
        scanned = self.scan.notes[paths[0]]
        note, file = scanned.note, scanned.file
        assert note is not None and file is not None
        lst = lst.with_sync(path=scanned.path)
        decision = decide(
            self.kind,
            _note_state(lst, file),
            _list_state(lst),
            same_content=note.list.same_content(lst),
        )
        if decision.action is Action.REBASE:
            item = self.item(decision.outcome, decision.reason, lst)
            agreed = replace(lst, modified=note.list.modified)
            self.report(item, agreed, base_hash=file.hash, list_hash=agreed.fingerprint())
            return
        if decision.action is not Action.WRITE:
            self.report(self.item(decision.outcome, decision.reason, lst), lst)
            return
        text = update_loom_note(note, lst)
        if text == file.text:
            # The note already says what the list says: no write, so no import/export loop.
            item = self.item("skipped", "unchanged", lst)
            self.report(item, lst, base_hash=file.hash, list_hash=lst.fingerprint())
            return
        if not self.reads_back(text, lst):
            return
        try:
            digest = self.app.vault.replace(scanned.path, text, file.hash)
        except ConflictError:
            # The note changed after it was read: read it again and decide again.
            if attempt < _ATTEMPTS:
                self.scan.read(scanned.path)
                self.export_list(lst, recreate_missing, attempt + 1)
                return
            self.report(
                self.item("failed", "write-conflict", lst, message="the note keeps changing"), lst
            )
            return
        except OSError as exc:
            self.report(self.item("failed", "write-error", lst, message=str(exc)), lst)
            return
        self.report(
            self.item(decision.outcome, decision.reason, lst),
            lst,
            base_hash=digest,
            list_hash=lst.fingerprint(),
        )

    def reads_back(self, text: str, lst: IdeaList) -> bool:
        """Never write a note that would not import as exactly this list."""
        back = parse_loom_note(text)
        if isinstance(back, LoomNote) and back.list.content() == lst.content():
            return True
        why = back.message if isinstance(back, Malformed) else "it reads back differently"
        self.report(self.item("failed", "render-mismatch", lst, message=why), lst)
        return False

    def create(self, lst: IdeaList, reason: str) -> None:
        """Write a new note for ``lst``: its recorded path when free, else a date/title name."""
        text = render_loom_note(lst)
        if not self.reads_back(text, lst):
            return
        claimed = {other.sync.path for other in self.lists.values() if other.id != lst.id}
        candidates = [lst.sync.path] if lst.sync.path else []
        candidates += [note_path(self.folder, lst), note_path(self.folder, lst, suffixed=True)]
        for path in dict.fromkeys(candidates):
            if path in claimed or self.scan.taken(path):
                continue
            try:
                digest = self.app.vault.create(path, text)
            except FileExistsError:
                continue
            except OSError as exc:
                self.report(
                    self.item("failed", "write-error", lst, path=path, message=str(exc)), lst
                )
                return
            saved = lst.with_sync(path=path)
            self.report(
                self.item("exported", reason, saved),
                saved,
                base_hash=digest,
                list_hash=lst.fingerprint(),
            )
            return
        self.report(
            self.item(
                "failed",
                "path-taken",
                lst,
                path=candidates[-1],
                message="every name for the note is taken by another file",
            ),
            lst,
        )


def run_import(app: Brain) -> ExchangeResult:
    """Read the vault's IdeaLoom notes into the lists (explicit; never at start-up)."""
    settings = _require_enabled(app)
    with app.store.locked():
        return _Exchange(app, Direction.IMPORT, settings).run_import()


def run_export(
    app: Brain,
    ids: Iterable[str] | None = None,
    *,
    recreate_missing: bool = False,
) -> ExchangeResult:
    """Write lists (all, or ``ids``) to their notes; ``recreate_missing`` rewrites deleted ones."""
    settings = _require_enabled(app)
    with app.store.locked():
        return _Exchange(app, Direction.EXPORT, settings).run_export(ids, recreate_missing)


def run_auto_export(app: Brain, ids: Iterable[str], settings: LoomSettings) -> ExchangeResult:
    """The automatic export of ``ids``: updates existing notes only (see decision.py)."""
    with app.store.locked():
        return _Exchange(app, Direction.AUTO_EXPORT, settings).run_export(ids, False)
