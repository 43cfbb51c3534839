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
from vaultbrain.capture.journal import Journal
from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.capture.plan import AmbiguousName, plan
from vaultbrain.capture.route import take_special
from vaultbrain.capture.write import write
from vaultbrain.classify.result import Band, Classification, judge
from vaultbrain.machine import filed_elsewhere

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def capture(brain: Brain, text: str) -> Capture:
    """The CLI's capture: a new inbox line, then the whole pipeline, in this process."""
    thought = lines.check_thought(text)
    journal = Journal(brain)
    cid = journal.new_id()
    lines.add_line(brain, thought, cid)
    elsewhere = filed_elsewhere(brain.vault, brain.state_dir)  # one filer per vault
    if elsewhere:
        return Capture(cid, thought, note=brain.inbox_rel, origin="cli", last_error=elsewhere)
    journal.open(
        cid,
        thought,
        "cli",
        brain.inbox_rel,
        lease=journal.lease(),
        line_suffix=lines.WAITING,
    )
    done = process(brain, cid, hold_lease=True)
    if done.lease:  # still pending: let the daemon retry it at once, not in 5 min

        def release(c: Capture) -> None:
            c.lease = None

        done = journal.advance(cid, release, touch=False)
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
    s = brain.settings
    limit = cap.extra.get("band_cap") if cap is not None else None
    return judge(
        result,
        float(s.get("auto_confidence")),
        float(s.get("min_confidence")),
        Band(limit) if limit else None,
    )


def file_capture(brain: Brain, journal: Journal, cap: Capture) -> Capture:
    """Judge the classification, plan its notes once, write them, and set the status."""
    started = time.perf_counter()
    assert cap.classification is not None
    result = Classification.from_dict(cap.classification)
    band = band_of(brain, result, cap)
    with brain.filing_lock, brain.store.locked():
        journal.check_may_file()  # a lost state dir, or the filer role moved elsewhere
        fresh = journal.require(cap.id)
        if fresh.status is not CaptureStatus.PENDING:
            return fresh
        ambiguous: str | None = None
        if band is not Band.REVIEW and fresh.plan is None:
            try:
                ops = plan(brain, result.fileable)
            except AmbiguousName as exc:  # "miriam": two Miriams; the person chooses
                ambiguous = exc.reason
        if band is Band.REVIEW or ambiguous:
            fresh.status = CaptureStatus.NEEDS_REVIEW
            fresh.destinations = []
        else:
            if fresh.plan is None:

                def keep_plan(c: Capture) -> None:
                    c.plan = ops

                fresh = journal.advance(cap.id, keep_plan, touch=False)
            confirmed = band is Band.AUTO
            fresh.destinations = write(brain, fresh, result, confirmed)
            fresh.status = CaptureStatus.FILED if confirmed else CaptureStatus.SUGGESTED
        elapsed = round((time.perf_counter() - started) * 1000, 2)
        outcome = fresh

        def settle(c: Capture) -> None:
            c.status, c.destinations = outcome.status, outcome.destinations
            c.plan, c.warnings = outcome.plan, outcome.warnings
            c.timings["file_ms"] = elapsed
            c.band = band.value
            c.extra.pop("review_reason", None)
            if ambiguous:
                c.extra["review_reason"] = ambiguous

        # Not fsynced: the plan was, and filing it again finds its notes written.
        return journal.advance(cap.id, settle, durable=False)
