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

import os
import time
from collections.abc import Callable
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
from vaultbrain.errors import (
    StorageError,
    UnsafePathError,
    UserError,
    VaultbrainError,
    write_failure,
)
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
        return _going_on(brain, cid, lambda: process(brain, cid))  # type: ignore[arg-type]
    if cid is None or known is not None:  # (an id an older capture has: a new one)
        cid = journal.new_id()
    earlier, failed = failed_before(brain, journal, thought)
    if failed is not None:  # the person tries again: the capture that failed goes on
        return _going_on(brain, failed.id, lambda: process(brain, failed.id))
    cid = earlier or cid  # (its line is in the inbox already; journaled now, under its id)
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
        return _going_on(brain, cid, lambda: process(brain, cid))
    done = _going_on(brain, cid, lambda: process(brain, cid, hold_lease=True))
    if done.lease:  # still pending: let the daemon retry it at once, not in 5 min
        done = journal.release(cid)
    return done


def failed_before(
    brain: Brain, journal: Journal, thought: str
) -> tuple[str | None, Capture | None]:
    """An earlier capture of this same thought by a command that failed before filing it,
    which the person now tries again: (the id of its inbox line, which no capture has: the
    state write failed after the line was added; or that capture, still pending, its lease
    held by a process that is gone: the command died or failed while filing it). A retry
    goes on with it instead of adding a second line and a second capture. Only a line
    still as the command wrote it counts (``- [ ] <thought> ⏳ … ^vb-<id>``); (None, None)
    when there is none."""
    try:
        note = brain.vault.try_read(brain.inbox_rel)
    except (VaultbrainError, OSError):
        return None, None
    head = f"- [ ] {thought} {lines.WAITING} ^vb-"
    if note is None or head not in note.text:  # (the usual case: one substring test)
        return None, None
    for line in reversed(note.text.splitlines()):
        if not line.startswith(head):
            continue
        cid = line[len(head) :].strip()
        if not cid.isalnum():
            continue
        cap = journal.get(cid)
        if cap is None:
            return cid, None
        if cap.status is CaptureStatus.PENDING and cap.text == thought and _abandoned(cap):
            return cid, cap
    return None, None


def _abandoned(cap: Capture) -> bool:
    """Whether ``cap`` was left by a process that ended before it was done: its lease is
    still there, but held by no process alive (a command that failed or was killed). A
    command that ends with its capture pending on purpose (the LLM is down) lets go of it."""
    lease = cap.lease
    if not lease:
        return False
    return lease.get("pid") != os.getpid() and not Journal.leased_elsewhere(cap)


def _going_on(brain: Brain, cid: str, step: Callable[[], Capture]) -> Capture:
    """``step`` on the capture ``cid``, whose line and journal entry exist: a write that
    fails (a full disk, a note the system refuses) says so, and that the thought waits
    safely in the inbox, and that capturing it again takes up this capture, not a second."""
    try:
        return step()
    except (StorageError, OSError) as exc:
        raise UserError(
            f"the thought is in {brain.inbox_rel} (^vb-{cid}) but was not filed: "
            f"{write_failure(exc)}; "
            "once that is fixed, capture it again (this capture goes on, none is added) or "
            "let the daemon file it"
        ) from exc


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
