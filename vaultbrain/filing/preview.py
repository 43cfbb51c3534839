"""What a change would do, with nothing written: the notes a pack switch or accepted folder
proposals would make records of, and ``reindex --dry-run`` (the scan's own decisions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.filing.index import records as record_index
from vaultbrain.filing.sync import notes_sync
from vaultbrain.vault.counted import index_note
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


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
    index = record_index(brain)
    index.refresh(force=True)
    for rel, _entry in brain.vault.iter_notes():
        if (
            rel == brain.inbox_rel
            or rel.startswith("Brain/")
            or index_note(rel)  # (a README or folder note: never a record)
            or brain.templates.holds_note(rel)
        ):
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
    index = record_index(brain)
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

        action = decide(sync._facts(rel, note, parsed))  # noqa: SLF001
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
