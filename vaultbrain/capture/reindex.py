"""``vaultbrain reindex`` below the command: the notes rescanned into the store (filing), the
captures of inbox lines this store does not know rebuilt from their lines, and the embedded
classifier brought up to date with what both say (it learns from records and captures)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.report import SyncReport


def reindex(
    brain: Brain,
    progress: Callable[[int, int], None] | None = None,
    graph_progress: Callable[[int, int], None] | None = None,
) -> tuple[SyncReport, int]:
    """The scan's report, and how many captures were rebuilt from their lines."""
    from vaultbrain.capture.lines import rebuild_captures  # issue 15: lines are the truth
    from vaultbrain.classify import adapt
    from vaultbrain.filing.sync import reindex as scan

    report = scan(brain, progress=progress, graph_progress=graph_progress)
    rebuilt = rebuild_captures(brain)
    learnt = (report.created, report.imported, report.tombstoned, report.moved, report.retyped)
    if any(learnt) or rebuilt:
        adapt.rebuild(brain.store, brain.pack)  # the embedded classifier learns afresh
    else:
        adapt.catch_up_saved(brain.store, brain.pack)  # nothing new: the saved state, current
    return report, rebuilt
