"""Filing a thought exactly once: the steps, in order, each recorded before the next.

1. anchor + journal (:mod:`~vaultbrain.capture.lines`, :mod:`~vaultbrain.capture.journal`): the
   inbox line carries ``^vb-<id>``; a capture ``pending`` exists;
2. route or classify (:mod:`~vaultbrain.capture.route`, :mod:`~vaultbrain.capture.classify`):
   the parsed result is stored on the capture and never asked for again;
3. judge + plan (:mod:`~vaultbrain.capture.plan`): the band decides file, suggest or review;
   the exact target paths and operations are stored on the capture;
4. write (:mod:`~vaultbrain.capture.write`): each note compare-and-swap; a note that already
   holds ``^vb-<id>`` is not written again; the store follows the note;
5. finish: the status is set and the inbox line shows what the thought became.

Any step may run twice after a crash without harm: each checks for its own effect first.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from vaultbrain.capture import lines
from vaultbrain.capture.classify import classify
from vaultbrain.capture.guard import check_may_file
from vaultbrain.capture.journal import Journal
from vaultbrain.capture.model import Capture, CaptureStatus, Filed
from vaultbrain.capture.plan import AmbiguousName, plan
from vaultbrain.capture.route import take_special
from vaultbrain.capture.write import write
from vaultbrain.classify.result import Band, Classification, judge
from vaultbrain.errors import UnsafePathError
from vaultbrain.machine import filed_elsewhere

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def capture(brain: Brain, text: str, cid: str | None = None) -> Capture:
    """The CLI's capture: a new inbox line, then the whole pipeline, in this process.

    ``cid``: the id the capture command chose before it handed the thought to the daemon
    (vaultbrain/daemon/door.py). Made again here (the daemon did not answer), the capture
    is still made once: a line that carries the id is not added twice, and a capture the
    daemon journaled goes on from where it is, the daemon's lease respected."""
    thought = lines.check_thought(text)
    journal = Journal(brain)
    known = journal.get(cid) if cid is not None else None
    if known is not None and known.text == thought:
        return process(brain, cid)  # type: ignore[arg-type]
    if cid is None or known is not None:  # (an id an older capture has: a new one)
        cid = journal.new_id()
    lines.add_line(brain, thought, cid)
    elsewhere = filed_elsewhere(brain.vault, brain.state_dir)  # one filer per vault
    if elsewhere:
        return Capture(cid, thought, note=brain.inbox_rel, origin="cli", last_error=elsewhere)
    lease = journal.lease()
    opened = journal.open(
        cid,
        thought,
        "cli",
        brain.inbox_rel,
        lease=lease,
        line_suffix=lines.WAITING,
    )
    if opened.lease != lease:  # opened meanwhile by the daemon the thought was handed to
        return process(brain, cid)
    done = process(brain, cid, hold_lease=True)
    if done.lease:  # still pending: let the daemon retry it at once, not in 5 min
        done = journal.release(cid)
    return done


def process(
    brain: Brain, capture_id: str, hold_lease: bool = False, rewrite_line: bool = True
) -> Capture:
    """Run every step still to do for a capture. Returns the capture as it ends up."""
    journal = Journal(brain)
    cap = journal.require(capture_id)
    if not hold_lease and journal.leased_elsewhere(cap):
        return cap
    if cap.status is CaptureStatus.PENDING and not cap.classified:
        cap = take_special(brain, journal, cap) or classify(brain, journal, cap)
        if not cap.classified:
            return cap  # still pending: the LLM is down and there is no fallback
    if cap.status is CaptureStatus.PENDING:
        cap = file_capture(brain, journal, cap)
    return lines.finish_line(brain, journal, cap) if rewrite_line else cap


def band_of(brain: Brain, result: Classification, cap: Capture | None = None) -> Band:
    """The band a capture files in: the one judged when it was classified (both voters
    heard, vaultbrain/capture/classify.py), else judged now from its classification alone
    (the person's choice, a bare URL, a record from an earlier version)."""
    if cap is not None and cap.band in _BANDS:
        return Band(cap.band)
    s = brain.settings
    return judge(result, float(s.get("auto_confidence")), float(s.get("min_confidence")))


_BANDS = frozenset(b.value for b in Band)


def file_capture(brain: Brain, journal: Journal, cap: Capture) -> Capture:
    """Judge the classification, plan its notes once, write them, and set the status."""
    started = time.perf_counter()
    assert cap.classification is not None
    result = Classification.from_dict(dict(cap.classification))
    band = band_of(brain, result, cap)
    with brain.filing_lock, brain.store.locked():
        check_may_file(brain)  # a lost state dir, or the filer role moved elsewhere
        fresh = journal.require(cap.id)
        if fresh.status is not CaptureStatus.PENDING:
            return fresh
        ambiguous: str | None = None
        if band is not Band.REVIEW and fresh.plan is None:
            try:
                fresh = journal.planned(cap.id, plan(brain, result.fileable))
            except AmbiguousName as exc:  # "miriam": two Miriams; the person chooses
                ambiguous = exc.reason
            except UnsafePathError as exc:  # a folder leads out of the vault: nothing written
                ambiguous = f"not filed: {exc}"
        destinations: tuple[Filed, ...]
        warnings: tuple[str, ...]
        if band is Band.REVIEW or ambiguous:
            status, destinations, warnings, ops = CaptureStatus.NEEDS_REVIEW, (), (), fresh.plan
        else:
            confirmed = band is Band.AUTO
            written = write(brain, fresh, result, confirmed)
            status = CaptureStatus.FILED if confirmed else CaptureStatus.SUGGESTED
            destinations, warnings, ops = written.destinations, written.warnings, written.plan
        return journal.settled(
            cap.id,
            status,
            destinations,
            plan=ops,
            warnings=warnings,
            band=band.value,
            file_ms=round((time.perf_counter() - started) * 1000, 2),
            review_reason=ambiguous,
        )
