"""``vaultbrain adopt``: write ``id:`` (and ``type:``) into hand-made record notes, asked for.

A note the person made is a record known by path and content hash (``origin: "vault"``,
``note_id: None``, see vaultbrain/filing/apply.py ``_create``); vaultbrain never writes it by
itself. Adopting is the explicit step that gives such notes an ``id:`` in their frontmatter,
so the record follows the note by id wherever it goes (and vaultbrain may write it from
then on, as it does the notes it made). :func:`plan` previews, :func:`apply` writes, each
note with one compare-and-swap edit (``Vault.edit``), and the record follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing.index import records
from vaultbrain.filing.records import record_from_note
from vaultbrain.filing.sync import notes_sync
from vaultbrain.vault.note import parse_note, update_frontmatter

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


@dataclass
class Adoption:
    """One hand-made record note and what adopting it writes."""

    collection: str
    record_id: str
    path: str
    type: str
    changes: dict[str, str]  # the properties written: id, and type when the note has none
    problem: str | None = None  # why it cannot be adopted now (unreadable, gone)

    def describe(self) -> str:
        if self.problem:
            return f"{self.path}: skipped ({self.problem})"
        return f"{self.path}: " + ", ".join(f"{k}: {v}" for k, v in self.changes.items())


def _under(rel: str, folder: str) -> bool:
    if not folder:
        return True
    prefix = PurePosixPath(folder).as_posix().strip("/")
    return rel == prefix or rel.startswith(prefix + "/")


def plan(brain: Brain, folder: str = "") -> list[Adoption]:
    """Every hand-made record note under ``folder`` (the whole vault: ""), by path."""
    folder = folder.strip().strip("/")
    if folder and not brain.vault.resolve(folder).is_dir():
        raise UserError(f"no folder {folder}/ in the vault")
    index = records(brain)
    index.refresh(force=True)
    out: list[Adoption] = []
    for collection, summary in index.all():
        rel = summary.get("path")
        if not rel or summary.get("deleted") or not _under(rel, folder):
            continue
        record = brain.store.collection(collection).get(summary["id"])
        if record is None or record.get("origin") != "vault":
            continue
        out.append(_adoption(brain, collection, record))
    return sorted(out, key=lambda a: a.path)


def _adoption(brain: Brain, collection: str, record: dict[str, Any]) -> Adoption:
    rel, rid, type_name = record["path"], str(record["id"]), str(record.get("type", ""))
    found = Adoption(collection, rid, rel, type_name, {})
    try:
        note = brain.vault.try_read(rel)
    except UserError as exc:
        found.problem = str(exc)
        return found
    if note is None:
        found.problem = "the note is gone; run `vaultbrain reindex`"
        return found
    parsed = parse_note(note.text)
    if parsed.error:
        found.problem = parsed.error
        return found
    declared = parsed.data.get("id")
    if declared is not None and str(declared) != rid:
        found.problem = f"the note already says id: {declared}"
        return found
    if declared is None:
        found.changes["id"] = rid
    if not parsed.data.get("type"):
        found.changes["type"] = type_name
    return found


def apply(brain: Brain, adoptions: list[Adoption]) -> tuple[list[Adoption], list[str]]:
    """Write each planned adoption (compare-and-swap) and update its record. Returns the ones
    done and one line per note left as it was (changed meanwhile into something else, gone)."""
    sync = notes_sync(brain)
    done: list[Adoption] = []
    problems: list[str] = []
    for a in adoptions:
        if a.problem:
            problems.append(a.describe())
            continue

        def build(note: Any, a: Adoption = a) -> str | None:
            if note is None:
                return None
            parsed = parse_note(note.text)
            if parsed.error:
                return None
            declared = parsed.data.get("id")
            if declared is not None and str(declared) != a.record_id:
                return None  # someone gave it another id meanwhile: theirs stands
            changes = {"id": a.record_id} if declared is None else {}
            if not parsed.data.get("type"):
                changes["type"] = a.type
            return update_frontmatter(note.text, changes) if changes else None

        try:
            edit = brain.vault.edit(a.path, build)
        except UserError as exc:
            problems.append(f"{a.path}: {exc}")
            continue
        note = brain.vault.try_read(a.path)
        if note is None:
            problems.append(f"{a.path}: the note is gone")
            continue
        parsed = parse_note(note.text)
        if parsed.error or str(parsed.data.get("id")) != a.record_id:
            problems.append(f"{a.path}: changed meanwhile; left as it is")
            continue
        _follow(brain, sync, a, note, parsed)
        if edit.written or a.changes:
            done.append(a)
    return done, problems


def _follow(brain: Brain, sync: Any, a: Adoption, note: Any, parsed: Any) -> None:
    """The record now knows its note by id: ``note_id`` set, no longer ``origin: "vault"``."""
    col = brain.store.collection(a.collection)
    record = col.get(a.record_id)
    if record is None:
        return
    ptype = sync._type(a.type, a.path)
    new = record_from_note(a.path, parsed, ptype, record, note.hash)
    new["id"] = a.record_id
    new["note_id"] = a.record_id
    new.pop("origin", None)
    new.pop("store_dirty", None)
    with brain.store.locked():
        col.put(new)
    records(brain).upsert(a.collection, new)
    sync._remember(a.path, note)  # the next scan knows this text: no re-read, no import
    sync.save_cache()
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


# -- what a pack switch would make records ---------------------------------------------------


@dataclass
class SwitchPreview:
    """Notes that are not records now and would become records: per (folder, type)."""

    folders: dict[tuple[str, str], int]

    @property
    def total(self) -> int:
        return sum(self.folders.values())

    def lines(self) -> list[str]:
        out = [
            f"  {n} note(s) in {folder}/ would become {type_name} records"
            for (folder, type_name), n in sorted(self.folders.items())
        ]
        out.append(
            f"{self.total} note(s) would become records, known by path and content; nothing "
            "is written in any note (`vaultbrain adopt --dry-run` shows what writing ids would "
            "change, and only `adopt --apply` writes them)"
        )
        return out


def _candidate_notes(brain: Brain) -> Any:
    """Every note a scan could make a record of that is not one yet."""
    index = records(brain)
    index.refresh(force=True)
    for rel, _entry in brain.vault.iter_notes():
        if rel == brain.inbox_rel or rel.startswith("Brain/") or brain.templates.holds(rel):
            continue
        if index.by_path(rel) is None:
            yield rel


def preview_switch(brain: Brain, pack: Any) -> SwitchPreview:
    """What ``pack`` as the vault's pack would make records of (nothing is read but paths)."""
    folders: dict[tuple[str, str], int] = {}
    for rel in _candidate_notes(brain):
        ptype = pack.type_for_path(rel)
        if ptype is None:  # (a record whatever `fileable` says: see sync._facts)
            continue
        key = (rel.rsplit("/", 1)[0], ptype.name)
        folders[key] = folders.get(key, 0) + 1
    return SwitchPreview(folders)


def preview_folders(brain: Brain, proposals: dict[str, str]) -> SwitchPreview:
    """What accepting the proposals (folder -> proposed type name) would make records of,
    once their pack delta is installed and used."""
    folders: dict[tuple[str, str], int] = {}
    wanted = {f.strip("/").lower(): (f.strip("/"), t) for f, t in proposals.items()}
    for rel in _candidate_notes(brain):
        low = rel.lower()
        for prefix, (folder, type_name) in wanted.items():
            if low.startswith(prefix + "/"):
                folders[(folder, type_name)] = folders.get((folder, type_name), 0) + 1
                break
    return SwitchPreview(folders)


# -- reindex --dry-run -----------------------------------------------------------------------


@dataclass
class DryRun:
    """What ``reindex`` would do, found by the same decisions, with nothing written."""

    records: list[tuple[str, str]]  # (path, type) of notes that would become records
    writes: list[tuple[str, str]]  # (path, what would be written in the note)
    updates: int = 0  # records that would follow a changed note (nothing written in it)
    unreadable: list[str] | None = None
    read: int = 0

    def lines(self) -> list[str]:
        out = [f"would become a {t} record: {rel}" for rel, t in self.records]
        out += [f"would write in {rel}: {what}" for rel, what in self.writes]
        out += [f"can't read {line}" for line in self.unreadable or []]
        out.append(
            f"{len(self.records)} note(s) would become records, {self.updates} record(s) "
            f"would follow their note, {len(self.writes)} note(s) would be written"
            + ("" if self.writes else " (nothing: hand-made notes are known by path)")
            + "; nothing was changed"
        )
        return out


def dry_run(brain: Brain) -> DryRun:
    """Every note a ``reindex`` would read (not in the scan cache as it is), and the decision
    it would get, from :func:`vaultbrain.filing.decide.decide` as the scan asks it."""
    from vaultbrain.filing.decide import Conflict, Create, Export, Import, Retype, Revive

    sync = notes_sync(brain)
    sync.load_cache()
    index = records(brain)
    index.refresh(force=True)
    out = DryRun([], [], unreadable=[])
    for rel, entry in brain.vault.iter_notes():
        if rel == brain.inbox_rel:
            continue
        cached = sync.cache.get(rel)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if cached and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
            continue
        try:
            note = brain.vault.read(rel, entry)
        except (UserError, FileNotFoundError) as exc:
            out.unreadable.append(str(exc))  # type: ignore[union-attr]
            continue
        out.read += 1
        hit = index.by_path(rel)
        if hit is not None and hit[1].get("base_hash") == note.hash:
            continue
        parsed = parse_note(note.text)
        from vaultbrain.filing.decide import decide

        action = decide(sync._facts(rel, note, parsed))
        if parsed.error and getattr(action, "problem", None):
            out.unreadable.append(f"{rel}: {parsed.error}")  # type: ignore[union-attr]
        match action:
            case Create(type=type_name, write_id=write_id):
                out.records.append((rel, type_name))
                if write_id:  # a copy of a note vaultbrain made gets an id of its own
                    out.writes.append((rel, "a new id: (a copy of a vaultbrain note)"))
            case Import() | Revive():
                out.updates += 1
            case Retype(type=type_name, write_type=write_type):
                out.updates += 1
                if write_type:
                    out.writes.append((rel, f"type: {type_name}"))
            case Export():
                out.writes.append((rel, "the store's changed fields"))
            case Conflict(kind=kind):
                out.unreadable.append(f"{rel}: a conflict ({kind}) would be listed")  # type: ignore[union-attr]
    return out
