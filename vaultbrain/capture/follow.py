"""What filing did to records, followed by the captures filed into them.

Filing (vaultbrain/filing/) never reaches up into capture: a sync or a re-filing returns a
report of the records that moved, were re-filed, were deleted or have updates waiting
(:class:`~vaultbrain.filing.report.SyncReport`), and the code that ran it (the daemon's loop,
a command, a person's decision) hands the report here: each capture points at its notes
where they are now, a re-filed record's captures become ``corrected``, and the updates that
waited for a note caught mid-save are written.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from vaultbrain.capture.journal import Journal
from vaultbrain.capture.model import Correction, Filed, OpKind
from vaultbrain.errors import UserError
from vaultbrain.filing.corrections import record_correction
from vaultbrain.filing.report import Refiled, SyncReport

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.filing")


def follow(brain: Brain, report: SyncReport, redraw: bool = False) -> set[str]:
    """Bring the captures a sync touched up to date; the ids of those that changed.
    ``redraw``: rewrite their inbox lines now (a command; the daemon's next inbox pass
    redraws them when the inbox is quiet)."""
    if not report.to_follow:
        return set()
    journal = Journal(brain)
    changed: set[str] = set()
    for m in report.moves:
        for cid in m.sources:
            if _moved(journal, cid, m.record_id, m.old, m.new):
                changed.add(cid)
    changed |= refiled(brain, report.refiled, redraw=False)
    for d in report.deferred:
        from vaultbrain.capture.write import apply_deferred

        apply_deferred(brain, d.collection, d.record_id)
    if redraw:
        _redraw(brain, journal, changed)
    return changed


def refiled(brain: Brain, done: Iterable[Refiled], redraw: bool = True) -> set[str]:
    """The captures filed into re-filed records become ``corrected``, pointing at the new
    note; each correction teaches the classifier. The ids of the captures changed."""
    journal = Journal(brain)
    changed: set[str] = set()
    for r in done:
        now_at = Filed(r.new_type, r.new_title, r.new_path, r.new_record_id, OpKind.CREATE)
        correction = Correction(r.at, r.old_type, r.new_type, r.by)
        for cid in r.sources:
            cap = journal.get(cid)
            if cap is None:
                continue
            record_correction(brain.store, cap.text, r.old_type, r.new_type, r.at)
            after = journal.corrected(cid, r.record_id, r.old_paths, now_at, correction)
            if after != cap:
                changed.add(cid)
    if redraw:
        _redraw(brain, journal, changed)
    return changed


def _moved(journal: Journal, cid: str, record_id: str, old: str, new: str) -> bool:
    try:
        before = journal.get(cid)
        if before is None:
            return False
        return journal.moved(cid, record_id, old, new) != before
    except UserError as exc:  # its record went with a deleted state dir
        log.info("capture %s does not follow its note's move: %s", cid, exc)
        return False


def _redraw(brain: Brain, journal: Journal, ids: Iterable[str]) -> None:
    from vaultbrain.capture.lines import finish_line

    for cid in ids:
        cap = journal.get(cid)
        if cap is not None:
            finish_line(brain, journal, cap)
