"""``vaultbrain adopt``: write ``id:`` (and ``type:``) into hand-made record notes, asked for.

A note the person made is a record known by path and content hash (``origin: "vault"``,
see vaultbrain/filing/apply.py ``_create``); vaultbrain never writes it by itself. Adopting
is the explicit step that gives such notes an ``id:`` in their frontmatter, so the record
follows the note by id wherever it goes (and vaultbrain may write it from then on, as it
does the notes it made). A note whose ``id:`` already holds a value of the person's own
keeps it (issue 44: their property is theirs): adopting writes only what else it needs
(``type:``, ``subtype:``), and its record keeps its own id in the store and follows the
note by path and content, as a rescan does for every hand-made note (``note_id``: the
person's value). :func:`plan` previews, :func:`apply` writes, each note with one
compare-and-swap edit (``Vault.edit``), and the record follows.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing import writers
from vaultbrain.filing.adopt_wants import ADD, own_id, wanted
from vaultbrain.filing.index import records as record_index
from vaultbrain.filing.records import record_from_note
from vaultbrain.filing.sync import notes_sync
from vaultbrain.procs import collector_paused
from vaultbrain.vault.note import ParsedNote, parse_note, update_frontmatter
from vaultbrain.vault.obsidian import is_template_text

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs import PageType
    from vaultbrain.vault.files import NoteFile

log = logging.getLogger(__name__)

# Notes written per flush to disk (Vault.edit_many), and how often the notes cache is
# written while adopting (a Ctrl-C or a kill loses at most that much of it: the next scan
# reads those notes again and finds their records already in step).
BATCH = 256
WRITING = 1  # batches being written while the one before is followed
SWAPPING = 4  # threads that write one batch's notes (see vaultbrain/vault/batch.py)
SAVE_EVERY_S = 60.0
# From this many notes, the batches are written by this many processes forked for it (see
# vaultbrain/filing/writers.py) while this one makes the records follow.
FORK_FROM = 2_000
WRITERS = 2


@dataclass
class Adoption:
    """One hand-made record note and what adopting it writes."""

    collection: str
    record_id: str
    path: str
    type: str
    changes: dict[str, str]  # the properties written: id, and type when the note has none
    problem: str | None = None  # why it cannot be adopted now (unreadable, gone, a conflict)
    # per property written: "add" (the note has no such property) or "replace" (it has the
    # property with no value, as a template leaves it)
    actions: dict[str, str] = field(default_factory=dict)
    conflict: bool = False  # the note holds a value of its own where adopting would write
    # The note's own ``id:`` (as the record's ``note_id`` says it), kept as the person wrote
    # it: the record keeps its id in the store. None: the note holds (or gets) the record's.
    own_id: str | None = None

    @property
    def note_id(self) -> str:
        """The ``id:`` the note holds once adopted."""
        return self.own_id if self.own_id is not None else self.record_id

    def describe(self) -> str:
        if self.problem:
            word = "conflict" if self.conflict else "skipped"
            return f"{self.path}: {word} ({self.problem}); left as it is"
        said = [f"{k}: {v} ({self.actions.get(k, ADD)})" for k, v in self.changes.items()]
        if self.own_id is not None:
            said.append(f"its own id: {self.own_id} kept")
        return f"{self.path}: " + (", ".join(said) or "nothing to write")


def _under(rel: str, folder: str) -> bool:
    if not folder:
        return True
    prefix = PurePosixPath(folder).as_posix().strip("/")
    return rel == prefix or rel.startswith(prefix + "/")


def _declared_keys(parsed: ParsedNote) -> set[str]:
    # (a key with no value is in ``data`` as None; parse_note keeps every key it read)
    return set(parsed.data) if isinstance(parsed.data, dict) else set()


def plan(brain: Brain, folder: str = "") -> list[Adoption]:
    """Every hand-made record note under ``folder`` (the whole vault: ""), by path, with what
    adopting it writes (each note read once)."""
    return [_adoption(brain, c, record) for c, record in _hand_made(brain, folder)]


def _hand_made(brain: Brain, folder: str) -> list[tuple[str, dict[str, Any]]]:
    """(collection, record) of every record of a hand-made note under ``folder``, by path."""
    folder = folder.strip().strip("/")
    if folder and not brain.vault.resolve(folder).is_dir():
        raise UserError(f"no folder {folder}/ in the vault")
    index = record_index(brain)
    index.refresh(force=True)
    wanted: dict[str, list[str]] = {}  # collection -> ids
    templates: dict[str, bool] = {}  # per folder
    for collection, summary in index.all():
        rel = summary.get("path")
        if not rel or summary.get("deleted") or not _under(rel, folder):
            continue
        where = rel.rpartition("/")[0]
        if where not in templates:
            templates[where] = brain.templates.holds_note(rel)
        if templates[where]:
            continue  # (a record an older version made of a template: never written)
        wanted.setdefault(collection, []).append(summary["id"])
    out: list[tuple[str, dict[str, Any]]] = []
    for collection, ids in wanted.items():
        for record in brain.store.collection(collection).get_many(ids).values():
            if record.get("origin") == "vault":
                out.append((collection, record))
    out.sort(key=lambda cr: cr[1]["path"])
    return out


def _type_of(brain: Brain, name: str, rel: str) -> PageType | None:
    for pack in (brain.typer(rel), brain.pack, *brain.folder_packs):
        ptype = pack.get_type(name)
        if ptype is not None:
            return ptype
    return None


def _decide(
    brain: Brain, a: Adoption, note: Any, parsed: ParsedNote | None = None
) -> ParsedNote | None:
    """Fill ``a`` from the note as read now (its changes, or its problem); the note parsed."""
    if note is None:
        a.problem = "the note is gone; run `vaultbrain reindex`"
        return None
    parsed = parsed or parse_note(note.text)
    if parsed.error:
        a.problem = parsed.error
        return None
    if is_template_text(note.text):  # (a record an older version made of a template)
        a.problem = "a template (its text holds Templater's or Obsidian's placeholders)"
        return None
    if parsed.fence_problem:  # a second block would stack above the person's own
        a.problem, a.conflict = parsed.fence_problem, True
        return None
    ptype = _type_of(brain, a.type, a.path)
    changes, actions, conflict = wanted(
        a.path, parsed.data, _declared_keys(parsed), a.record_id, ptype, a.type
    )
    a.changes, a.actions = changes, actions
    a.problem, a.conflict = conflict, conflict is not None
    a.own_id = own_id(parsed.data, a.record_id)
    return parsed


def _adoption(brain: Brain, collection: str, record: dict[str, Any]) -> Adoption:
    rel, rid, type_name = record["path"], str(record["id"]), str(record.get("type", ""))
    found = Adoption(collection, rid, rel, type_name, {})
    try:
        note = brain.vault.try_read(rel)
    except UserError as exc:
        found.problem = str(exc)
        return found
    _decide(brain, found, note)
    return found


@dataclass
class Adopted:
    """What ``adopt --apply`` did: the notes adopted, one line per note left as it was, and
    whether it was stopped part-way (Ctrl-C: what was done stays; a rerun goes on)."""

    done: list[Adoption]
    problems: list[str]
    total: int
    stopped: bool = False


def apply(
    brain: Brain,
    folder: str | list[Adoption] = "",
    progress: Callable[[int, int], None] | None = None,
    batch: int = BATCH,
    processes: int | None = None,
) -> Adopted:
    """Adopt every hand-made record note under ``folder``, in one pass: each note read,
    decided and written once (compare-and-swap, :meth:`Vault.edit_many` a batch at a time),
    its record following it. The store is written in bulk and the notes cache at the end
    (and every :data:`SAVE_EVERY_S`), so 12,000 notes cost what one scan of them costs, not
    a rewrite of the whole cache per note. ``progress(done, total)`` after each batch.
    Ctrl-C stops it cleanly: what was adopted stays, and a rerun goes on from there.

    From :data:`FORK_FROM` notes, the batches are written by :data:`WRITERS` processes
    forked for it (``processes``: how many; 0, none), each on a core of its own, while this
    one makes their records follow: reading, deciding, writing and parsing a note is the
    processor's work, and on one core it took twice a first ``reindex``."""
    # (the records and notes of a batch are held to the end, and none of them are garbage:
    # the cyclic collector ran a gen-2 pass over 12,000 records as the plan was made)
    with collector_paused():
        return _apply(brain, folder, progress, batch, processes)


def _apply(
    brain: Brain,
    folder: str | list[Adoption],
    progress: Callable[[int, int], None] | None,
    batch: int,
    processes: int | None,
) -> Adopted:
    records: dict[str, dict[str, Any]] = {}  # id -> the record as read for the plan
    if isinstance(folder, list):
        todo = [(a.collection, a) for a in folder]
    else:
        todo = []
        for c, r in _hand_made(brain, folder):
            records[str(r["id"])] = r
            todo.append((c, Adoption(c, str(r["id"]), r["path"], str(r.get("type", "")), {})))
    todo = _across_folders(todo)
    sync = notes_sync(brain)
    out = Adopted([], [], len(todo))
    adoptions = [a for _, a in todo]
    spans = [(i, min(i + batch, len(todo))) for i in range(0, len(todo), batch)]
    if processes is None:
        processes = WRITERS if len(todo) >= FORK_FROM else 0
    writing = _Writing(brain, sync, adoptions, records)
    if processes:  # (each type's pack loaded before the writers are forked: once, here)
        firsts: dict[tuple[str, str], str] = {}
        for a in adoptions:
            firsts.setdefault((a.type, a.path.rpartition("/")[0]), a.path)
        for (type_name, _folder), rel in firsts.items():
            _type_of(brain, type_name, rel)
    team = writers.start(processes, writing, writing.serving) if processes else None
    if team is not None:
        log.info("adopting %d notes: written by %d processes forked for it", len(todo), len(team))
    sync.load_cache()  # (the writers do not need it: loaded while they start)
    saved_at = time.monotonic()
    # The notes of a batch are written (by a writer process, or on threads of this one)
    # while this one makes the records of the batches before follow them: writing waits on
    # the disk, following on the processor, and side by side they take the time of the
    # longer, not of both.
    ahead = 2 * len(team) if team is not None else WRITING
    written: list[_Batch] = []  # written or being written, their records not made yet
    followed = 0
    # (the files the swaps displaced let go together at the end: see LateWrites.holding)
    holding = brain.vault.late.holding()
    try:
        with (
            holding,
            brain.store.bulk(),
            ThreadPoolExecutor(SWAPPING, "vb-swap") as swappers,
            ThreadPoolExecutor(WRITING, "vb-adopt") as batches,  # (done before swappers)
        ):
            writing.swappers = swappers
            for span in spans:
                if team is not None:
                    written.append(_Batch(span, team.submit(span), by_writer=True))
                else:
                    written.append(_Batch(span, batches.submit(writing, span)))
                if len(written) > ahead:
                    followed += _follow_batch(brain, sync, written.pop(0), out, writing)
                    if progress is not None:
                        progress(followed, len(todo))
                if time.monotonic() - saved_at > SAVE_EVERY_S:
                    brain.store.settle()
                    sync.save_cache()
                    saved_at = time.monotonic()
            while written:
                _follow_batch(brain, sync, written[0], out, writing)
                written.pop(0)
            if progress is not None and todo:
                progress(len(todo), len(todo))
    except KeyboardInterrupt:
        out.stopped = True
        # What was written is followed: its records know their notes by id (a few hundred
        # notes at most: the batches being written when Ctrl-C came, which the writer
        # processes finish: Ctrl-C stops this one).
        writing.swappers = None  # (a batch a writer lost is written with threads of its own)
        try:
            for b in written:
                _follow_batch(brain, sync, b, out, writing)
        except KeyboardInterrupt:
            pass  # (a second Ctrl-C: the rerun follows the rest)
    finally:
        sync.save_cache()  # (after bulk mode wrote what it held: the flags see every record)
        if team is not None:
            team.close()  # (each writer has let go of the files it displaced, and ends)
        brain.vault.catch_late_writes()  # (what an editor wrote into a file let go)
    return out


def _across_folders(todo: list[tuple[str, Adoption]]) -> list[tuple[str, Adoption]]:
    """The notes taken from each folder in turn (by path within a folder): a batch spans
    folders, whose temp files are made side by side (see vaultbrain/vault/batch.py)."""
    folders: dict[str, list[tuple[str, Adoption]]] = {}
    for item in todo:
        folders.setdefault(item[1].path.rpartition("/")[0], []).append(item)
    turns = zip_longest(*folders.values())
    return [item for turn in turns for item in turn if item is not None]


@dataclass
class _Ready:
    """A note written (or found adopted already) and the record that follows it, made
    where the note was written. From a writer process: the note without its text, and not
    parsed (what this process needs of them is the record)."""

    note: NoteFile
    parsed: ParsedNote | None
    record: dict[str, Any] | None  # None: the record as read for the plan was not known


# What writing a batch gives, per note: ready to follow, or the line that says why not.
Written = list[tuple[Adoption, "_Ready | str"]]


@dataclass
class _Batch:
    """A span of the notes, being written (on a thread, or by a writer process)."""

    span: tuple[int, int]
    future: Any  # .result() -> Written
    by_writer: bool = False  # written by a writer process (vaultbrain/filing/writers.py)
    followed: bool = False


class _Writing:
    """What writes a batch: called with its span, on a thread of this process or in a
    writer process forked from it (which holds the same notes, records and packs)."""

    def __init__(
        self,
        brain: Brain,
        sync: Any,
        adoptions: list[Adoption],
        records: dict[str, dict[str, Any]],
    ) -> None:
        self.brain, self.sync, self.adoptions, self.records = brain, sync, adoptions, records
        self.swappers: ThreadPoolExecutor | None = None
        self.forked = False

    def __call__(self, span: tuple[int, int]) -> Written:
        batch = self.adoptions[span[0] : span[1]]
        edits, before = _write(self.brain, batch, self.swappers)
        out: Written = []
        for a in batch:
            ready = _ready(self.brain, a, edits.get(a.path), before.get(a.path))
            if isinstance(ready, _Ready):
                known = self.records.get(a.record_id)
                if known is not None and ready.parsed is not None:
                    ready.record = _record(self.sync, a, ready.note, ready.parsed, known)
                if self.forked:  # (only the record goes back, and what the cache keeps)
                    ready.note, ready.parsed = replace(ready.note, text=""), None
            out.append((a, ready))
        return out

    @contextlib.contextmanager
    def serving(self) -> Iterator[list[Callable[[], None]]]:
        """A writer process's life: its own threads, the files its swaps displaced held
        open while it writes, and what an editor wrote into them carried in as it ends.
        Freeing those files waits on the disk: done once it has told the parent it is done
        (the steps it yields)."""
        from vaultbrain.vault.late import LateWrites, free_all

        self.forked = True
        vault = self.brain.vault
        vault.late = LateWrites()  # (those this process watched are its own)
        afterwards: list[Callable[[], None]] = []
        with ThreadPoolExecutor(SWAPPING, "vb-swap") as swappers:
            self.swappers = swappers
            with vault.late.holding():
                yield afterwards
                unfreed = vault.late.defer_frees()  # (from the last looks on)
        vault.catch_late_writes(final=True)
        afterwards.append(lambda: free_all(unfreed))


def _write(
    brain: Brain, batch: list[Adoption], swappers: ThreadPoolExecutor | None
) -> tuple[dict[str, Any], dict[str, ParsedNote]]:
    """Each note of ``batch`` read, decided and written (compare-and-swap, one flush to
    disk for all): its edit, and each written note as read by the edit that wrote it."""
    by_path = {a.path: a for a in batch}
    before: dict[str, ParsedNote] = {}

    def build(rel: str, note: Any) -> str | None:
        a = by_path[rel]
        parsed = _decide(brain, a, note)
        if parsed is None or not a.changes:
            return None
        before[rel] = parsed
        return update_frontmatter(note.text, a.changes, parsed=parsed)

    paths = [a.path for a in batch]
    return brain.vault.edit_many(paths, build, SWAPPING, swappers), before


def _ready(brain: Brain, a: Adoption, edit: Any, old: ParsedNote | None) -> _Ready | str:
    """The note as the batch left it, parsed, or why its record cannot follow it."""
    if isinstance(edit, UserError):
        return f"{a.path}: {edit}"
    if a.problem:
        return a.describe()
    note = edit.after if edit is not None and edit.written else None
    if note is None:  # (not written: read as it is now)
        now = _as_it_is(brain, a)
        return now if isinstance(now, str) else _Ready(*now, None)
    if old is not None and note.hash == edit.hash:
        # Exactly what was written: the properties read before and the ones added (a
        # third parse of every note was a fifth of the time).
        parsed, old.text, old.data = old, note.text, {**old.data, **a.changes}
    else:
        parsed = parse_note(note.text)
    if parsed.error or _note_id(parsed) != a.note_id:
        return f"{a.path}: changed meanwhile; left as it is"
    return _Ready(note, parsed, None)


def _as_it_is(brain: Brain, a: Adoption) -> tuple[NoteFile, ParsedNote] | str:
    """The note read now and parsed, still holding its record's id; or why not."""
    try:
        note = brain.vault.try_read(a.path)
    except UserError as exc:
        return f"{a.path}: {exc}"
    if note is None:
        return f"{a.path}: the note is gone"
    parsed = parse_note(note.text)
    if parsed.error or _note_id(parsed) != a.note_id:
        return f"{a.path}: changed meanwhile; left as it is"
    return note, parsed


def _note_id(parsed: ParsedNote) -> str | None:
    declared = parsed.data.get("id") if isinstance(parsed.data, dict) else None
    return None if declared is None else str(declared)


def _record(
    sync: Any, a: Adoption, note: NoteFile, parsed: ParsedNote, record: dict[str, Any]
) -> dict[str, Any]:
    """The record following its adopted note: ``note_id`` set (the record's id, or the
    note's own it kept), no longer ``origin: "vault"``."""
    new = record_from_note(a.path, parsed, sync._type(a.type, a.path), record, note.hash)  # noqa: SLF001
    new["id"] = a.record_id
    new["note_id"] = a.note_id
    new.pop("origin", None)
    new.pop("store_dirty", None)
    return new


def _follow_batch(brain: Brain, sync: Any, b: _Batch, out: Adopted, writing: _Writing) -> int:
    """The records of a written batch put in the store (in this process): how many notes."""
    if b.followed:
        return 0
    try:
        written = b.future.result()
    except Exception as exc:  # (its writer process failed or died: written again here)
        if not b.by_writer:
            raise
        log.warning("a writer process lost notes %d-%d (%s): written here", *b.span, exc)
        written = writing(b.span)
    b.followed = True
    index = record_index(brain)
    index.refresh()  # another process's writes meanwhile (see _follow)
    for a, ready in written:
        if isinstance(ready, str):
            out.problems.append(ready)
            continue
        problem = _follow(brain, sync, a, ready, writing.records.get(a.record_id), index)
        if problem:
            out.problems.append(problem)
        elif a.changes or a.own_id is not None:  # (adopted with nothing to write: its own id)
            out.done.append(a)
    return len(written)


def _follow(
    brain: Brain,
    sync: Any,
    a: Adoption,
    ready: _Ready,
    record: dict[str, Any] | None,
    index: Any,
) -> str | None:
    """The record now knows its note by id (see :func:`_record`); a problem, or None.
    ``record``: as read for the plan, and ``ready.record`` made from it, used while the
    record index says it is still so."""
    from vaultbrain.store.records import summarize

    col = brain.store.collection(a.collection)
    now = index.get(a.collection, a.record_id)
    note, new = ready.note, ready.record
    if new is None or record is None or now is None or summarize(record) != now:
        record = col.get(a.record_id)  # (changed since, by another process: read again)
        if record is None:
            return None
        parsed = ready.parsed
        if parsed is None:  # (made in a writer process: the note read again)
            now = _as_it_is(brain, a)
            if isinstance(now, str):
                return now
            note, parsed = now
        new = _record(sync, a, note, parsed, record)
    with brain.store.locked():
        col.put(new)
    index.upsert(a.collection, new)
    sync._remember(a.path, note)  # the next scan knows this text: no re-read, no import  # noqa: SLF001
    brain.vault._remember(a.path, note.hash)  # (a writer process's write is ours too)  # noqa: SLF001
    brain.store.audit(
        {
            "at": brain.now().isoformat(),
            "kind": "adopt",
            "record": a.record_id,
            "type": a.type,
            "path": a.path,
            "wrote": sorted(a.changes),
        }
    )
    return None
