"""What one sync did: counts per decision, problems, the time taken (vaultbrain/filing/sync.py
fills it for one note, vaultbrain/filing/scan.py for the whole vault; the CLI and the daemon
render it), and the records that moved, were re-filed, were deleted, or have updates waiting,
which the layer above (capture: what each thought became) follows: filing never reaches up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Moved:
    """A record's note moved (renamed, or put in another folder of the same type)."""

    collection: str
    record_id: str
    old: str
    new: str
    sources: tuple[str, ...]  # the captures filed into it


@dataclass(frozen=True)
class Refiled:
    """A record was re-filed as another type (``fix``, a ``type:`` changed in its note, a
    note moved into another type's folder, the person's choice on a filed suggestion)."""

    record_id: str
    old_type: str
    old_paths: tuple[str, ...]  # where its note was (and where the person moved it from)
    new_record_id: str
    new_type: str
    new_path: str
    new_title: str
    sources: tuple[str, ...]  # the captures filed into it
    by: str  # "cli" | "vault" | "resolve"
    at: str


@dataclass(frozen=True)
class Tombstoned:
    """A record's note was deleted: the record is tombstoned for good."""

    collection: str
    record_id: str
    path: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Deferred:
    """A record whose note was caught mid-save has capture updates waiting, and its note has
    content again: they can be written now."""

    collection: str
    record_id: str


@dataclass
class SyncReport:
    scanned: int = 0  # every note walked (vaultbrain's own included)
    notes: int = 0  # the person's notes, the one count (vaultbrain/vault/counted.py)
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
    most_untyped_in_a_folder: int = 0  # (below one top folder: what `schema detect` needs)
    problems: list[str] = field(default_factory=list)
    warning: str | None = None
    seconds: float = 0.0
    # What the layer above follows (captures filed into these records).
    moves: list[Moved] = field(default_factory=list)
    refiled: list[Refiled] = field(default_factory=list)
    tombstones: list[Tombstoned] = field(default_factory=list)
    deferred: list[Deferred] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        for key in ("moves", "refiled", "tombstones", "deferred"):
            out.pop(key)
        return out

    @property
    def to_follow(self) -> bool:
        """Whether anything here changes what captures point at."""
        return bool(self.moves or self.refiled or self.tombstones or self.deferred)

    def summary(self) -> str:
        parts = [f"{self.notes} notes", f"{self.read} read"]
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
