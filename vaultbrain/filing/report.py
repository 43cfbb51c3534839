"""What one sync did: counts per decision, problems, the time taken (vaultbrain/filing/sync.py
fills it for one note, vaultbrain/filing/scan.py for the whole vault; the CLI and the daemon
render it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
