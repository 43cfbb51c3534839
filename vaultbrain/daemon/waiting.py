"""The inbox lines a daemon pass left for later, and why (what ``daemon --once`` reports).

A line is taken once the inbox note has been quiet for ``inbox_settle_seconds`` and the line
ends with a newline; a last line without one waits for ``inbox_idle_seconds`` of quiet. A run
that took nothing while lines are still settling says so, instead of a bare "took 0".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultbrain.errors import VaultbrainError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


@dataclass(frozen=True)
class Settling:
    lines: int  # thoughts in the inbox with no ^vb- id yet (held ones left out)
    unfinished: bool  # the last of them has no newline yet
    quiet: float  # seconds since the inbox note last changed
    settle: float  # inbox_settle_seconds
    idle: float  # inbox_idle_seconds

    def sentence(self, inbox: str) -> str | None:
        """What a person reads after a run: None when no line is waiting."""
        if not self.lines:
            return None
        ago = f"{inbox} changed {self.quiet:.0f} s ago"
        if self.quiet < self.settle:
            why = f"{ago}; lines are taken after {self.settle:g} s of quiet (inbox_settle_seconds)"
        elif self.unfinished:
            why = (
                f"the last line has no newline yet: it is taken after {self.idle:g} s of quiet "
                f"(inbox_idle_seconds; {ago})"
            )
        else:
            why = "the next pass takes them"
        return f"{self.lines} line(s) still settling: {why}"


def settling_lines(brain: Brain) -> Settling:
    """The thoughts in the inbox that no pass has taken yet, read from the note as it is."""
    from vaultbrain.filing.setup import held_lines
    from vaultbrain.vault.inbox import scan_inbox

    settle = float(brain.settings.get("inbox_settle_seconds"))
    idle = float(brain.settings.get("inbox_idle_seconds"))
    try:
        note = brain.vault.try_read(brain.inbox_rel)
        mtime = brain.vault.resolve(brain.inbox_rel).stat().st_mtime
    except (OSError, VaultbrainError):
        return Settling(0, False, 0.0, settle, idle)
    if note is None:
        return Settling(0, False, 0.0, settle, idle)
    held = held_lines(brain)
    from vaultbrain.vault import content_hash

    waiting = []
    for line in scan_inbox(note.text):
        if line.block_id:
            continue
        digest = content_hash(line.text)
        if held.get(digest):
            held[digest] -= 1  # there before vaultbrain: filed only when the person asks
            continue
        waiting.append(line)
    quiet = max(time.time() - mtime, 0.0)
    unfinished = bool(waiting) and not waiting[-1].ending
    return Settling(len(waiting), unfinished, quiet, settle, idle)
