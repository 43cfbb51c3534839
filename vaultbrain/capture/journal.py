"""The journal of captures: the one door through which a capture record changes.

Every change is a named transition (:class:`Step`) with the states it may start from in one
table (:data:`ALLOWED`); a step asked of a capture in another state is refused with a clear
error and nothing is written (:class:`Refused`). Each transition reads the capture fresh
under the store's lock, builds its new (frozen) value and writes it, with the audit line the
step calls for, so no part of vaultbrain writes a capture from a stale copy; a step that
finds its own effect already recorded (another worker, or a run before a crash) leaves the
capture alone.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import (
    Capture,
    CaptureStatus,
    Correction,
    Filed,
    PlannedOp,
)
from vaultbrain.errors import UserError
from vaultbrain.filing.records import new_id
from vaultbrain.procs import pid_alive
from vaultbrain.vault import content_hash

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

LEASE_SECONDS = 300.0
S = CaptureStatus
ANY = frozenset(CaptureStatus)


class Step(enum.StrEnum):
    """The named changes of a capture."""

    CLASSIFY = "classify"  # the classifier's answer is kept (asked once)
    FAIL = "fail"  # a classifier call failed: counted, retried later
    PLAN = "plan"  # the exact notes to write, decided once
    SETTLE = "settle"  # filed, suggested, or waiting for the person
    FOLLOW_LINE = "follow_line"  # its line says another machine filed it
    CONFIRM = "confirm"  # the person accepted a suggestion
    RESOLVE = "resolve"  # the person chose the types (filed again from pending)
    DISMISS = "dismiss"  # the person said it is not a thought
    CORRECT = "correct"  # a record it went into was re-filed as another type
    MOVE = "move"  # a note it went into moved
    SHOW_LINE = "show_line"  # its inbox line shows a form
    LINE_GONE = "line_gone"  # its inbox line disappeared (or came back)
    RELEASE = "release"  # a process let go of it
    ANNOTATE = "annotate"  # who decided, warnings: nothing about its state


# Which states each step may start from: the table the tests read as a table.
ALLOWED: Mapping[Step, frozenset[CaptureStatus]] = {
    Step.CLASSIFY: frozenset({S.PENDING}),
    Step.FAIL: frozenset({S.PENDING}),
    Step.PLAN: frozenset({S.PENDING}),
    Step.SETTLE: frozenset({S.PENDING}),
    Step.FOLLOW_LINE: frozenset({S.PENDING}),
    Step.CONFIRM: frozenset({S.SUGGESTED}),
    Step.RESOLVE: ANY,  # the person's choice always stands
    Step.DISMISS: frozenset({S.PENDING, S.NEEDS_REVIEW, S.SUGGESTED, S.FILED, S.CORRECTED}),
    Step.CORRECT: frozenset({S.FILED, S.SUGGESTED, S.CORRECTED}),
    Step.MOVE: ANY,
    Step.SHOW_LINE: ANY,
    Step.LINE_GONE: ANY,
    Step.RELEASE: ANY,
    Step.ANNOTATE: ANY,
}
# Where a step may lead (a step not listed keeps the status it found).
LEADS_TO: Mapping[Step, frozenset[CaptureStatus]] = {
    Step.SETTLE: frozenset({S.FILED, S.SUGGESTED, S.NEEDS_REVIEW}),
    Step.FOLLOW_LINE: ANY - {S.PENDING},
    Step.CONFIRM: frozenset({S.FILED}),
    Step.RESOLVE: frozenset({S.PENDING}),
    Step.DISMISS: frozenset({S.DISMISSED}),
    Step.CORRECT: frozenset({S.CORRECTED}),
}
# What the person is told when a step is refused: what the step needs.
NEEDS: Mapping[Step, str] = {
    Step.CONFIRM: "only a suggestion can be confirmed",
    Step.DISMISS: "it is dismissed already",
    Step.CORRECT: "only a filed thought has records to re-file",
}


class Refused(UserError):
    """A step asked of a capture whose state does not allow it: nothing was written."""

    def __init__(self, cap: Capture, step: Step) -> None:
        why = NEEDS.get(step, f"{step.value} starts from {_names(ALLOWED[step])}")
        super().__init__(f"{cap.id} is {cap.status.value}: {why}")
        self.capture = cap
        self.step = step


def _names(states: Iterable[CaptureStatus]) -> str:
    return " or ".join(sorted(s.value for s in states))


class Journal:
    def __init__(self, brain: Brain) -> None:
        self.store = brain.store
        self._now = brain.now

    def now(self) -> str:
        return self._now().isoformat()

    # -- reading -------------------------------------------------------------------------
    def new_id(self) -> str:
        while True:
            cid = new_id(6)
            if self.store.inbox.summary(cid, include_deleted=True) is None:
                return cid

    def get(self, capture_id: str) -> Capture | None:
        record = self.store.inbox.get(capture_id)
        return Capture.from_record(record) if record is not None else None

    def require(self, capture_id: str) -> Capture:
        cap = self.get(capture_id)
        if cap is None:
            raise UserError(
                f"no capture {capture_id!r}; `vaultbrain review list` shows what waits for you"
            )
        return cap

    def check(self, capture_id: str, step: Step) -> Capture:
        """The capture, if ``step`` may start from its state now; else :class:`Refused`.
        A person's gesture asks this first, before any note is touched."""
        cap = self.require(capture_id)
        if cap.status not in ALLOWED[step]:
            raise Refused(cap, step)
        return cap

    # -- making --------------------------------------------------------------------------
    def open(
        self, capture_id: str, text: str, origin: str, note: str | None, **initial: Any
    ) -> Capture:
        """The capture of an anchored line: created once, returned as it is after that."""
        return self._create_once(capture_id, text, note, origin=origin, status=S.PENDING, **initial)

    def rebuild(
        self,
        capture_id: str,
        text: str,
        note: str,
        status: CaptureStatus,
        destinations: Iterable[Filed],
        line_suffix: str | None,
        line_done: bool,
    ) -> Capture:
        """The capture of an anchored line this store does not know (a lost or new state
        dir, a second machine), rebuilt from the line: it was filed already, so it is
        recorded as what the line says it became and is never filed again."""
        return self._create_once(
            capture_id,
            text,
            note,
            origin="inbox",
            status=status,
            destinations=tuple(destinations),
            line_suffix=line_suffix,
            line_done=line_done,
            rebuilt_from_line=True,
        )

    def _create_once(self, capture_id: str, text: str, note: str | None, **values: Any) -> Capture:
        with self.store.locked():
            existing = self.store.inbox.get(capture_id, include_deleted=True)
            if existing is not None:
                return Capture.from_record(existing)
            now = self.now()
            cap = Capture(
                id=capture_id,
                text=text,
                text_hash=content_hash(text),
                note=note,
                created=now,
                updated=now,
                **values,
            )
            self.store.inbox.put(cap.to_record())
            return cap

    # -- the one place a capture changes --------------------------------------------------
    def _advance(
        self,
        capture_id: str,
        step: Step,
        change: Callable[[Capture], Capture | None],
        *,
        durable: bool = True,
        audit: Callable[[Capture, Capture], dict[str, Any] | None] | None = None,
        touch: bool = True,
        quiet: bool = False,
    ) -> Capture:
        """Apply ``change`` to the capture as it is now, under the store's lock, and record
        it. ``change`` returns None when the step's effect is there already (nothing is
        written). A state the step may not start from raises :class:`Refused`, unless
        ``quiet`` (a step of the pipeline that another process overtook): then the capture
        is returned as it is. ``durable=False``: not fsynced, for steps a rerun repairs."""
        with self.store.locked():
            record = self.store.inbox.get(capture_id, include_deleted=True)
            if record is None:
                raise UserError(f"no capture {capture_id!r}")
            cap = Capture.from_record(record)
            if cap.status not in ALLOWED[step]:
                if quiet:
                    return cap
                raise Refused(cap, step)
            new = change(cap)
            if new is None or new == cap:
                return cap
            leads = LEADS_TO.get(step)
            if leads is not None and new.status not in leads:
                raise AssertionError(f"{step.value} cannot lead to {new.status.value}")
            if leads is None and new.status is not cap.status:
                raise AssertionError(f"{step.value} does not change a capture's status")
            if touch:
                new = new.but(updated=self.now())
            self.store.inbox.put(new.to_record(), durable=durable)
        entry = audit(cap, new) if audit is not None else None
        if entry:
            self.store.audit({"at": self.now(), "capture": capture_id, **entry})
        return new

    # -- the pipeline's steps ------------------------------------------------------------
    def classified(
        self,
        capture_id: str,
        classification: Mapping[str, Any],
        pack: str,
        model: str | None,
        classify_ms: float,
        audit: dict[str, Any] | None,
        band: str | None = None,
        votes: Mapping[str, Any] | None = None,
    ) -> Capture:
        """The classifier's answer and the band it was judged in (with the two voters'
        readings when both read it), kept before anything is filed (never asked twice)."""

        def keep(c: Capture) -> Capture | None:
            if c.classified:
                return None  # another worker got there first
            return c.but(
                classification=classification,
                pack=pack,
                model=model,
                timings={**c.timings, "classify_ms": round(classify_ms, 2)},
                last_error=None,
                band=band,
                votes=votes,
            )

        def entry(old: Capture, new: Capture) -> dict[str, Any] | None:
            return audit if not old.classified else None

        # Not fsynced: a power cut that loses it means asking the model again.
        return self._advance(
            capture_id, Step.CLASSIFY, keep, durable=False, audit=entry, quiet=True
        )

    def failed(
        self,
        capture_id: str,
        error: str,
        next_attempt: float,
        give_up: Mapping[str, Any] | None,
        audit: dict[str, Any],
    ) -> Capture:
        """A classifier call failed: counted, with its retry time; ``give_up``: the
        classification that ends the retries (the capture goes to review)."""

        def count(c: Capture) -> Capture:
            return c.but(
                attempts=c.attempts + 1,
                last_error=error,
                next_attempt=next_attempt,
                classification=give_up if give_up is not None else c.classification,
            )

        return self._advance(
            capture_id,
            Step.FAIL,
            count,
            audit=lambda old, new: {**audit, "attempts": new.attempts},
            quiet=True,
        )

    def planned(self, capture_id: str, ops: Iterable[PlannedOp]) -> Capture:
        """The exact notes to write, stored before the first is written (fsynced)."""
        plan = tuple(ops)
        return self._advance(
            capture_id,
            Step.PLAN,
            lambda c: None if c.plan is not None else c.but(plan=plan),
            touch=False,
        )

    def settled(
        self,
        capture_id: str,
        status: CaptureStatus,
        destinations: Iterable[Filed],
        *,
        plan: Iterable[PlannedOp] | None = None,
        warnings: Iterable[str] = (),
        band: str | None = None,
        file_ms: float | None = None,
        review_reason: str | None = None,
        classification: Mapping[str, Any] | None = None,
        last_error: str | None = None,
    ) -> Capture:
        """What the capture became: filed, a suggestion, or waiting for the person."""
        dests = tuple(destinations)

        def settle(c: Capture) -> Capture:
            timings = dict(c.timings)
            if file_ms is not None:
                timings["file_ms"] = file_ms
            return c.but(
                status=status,
                destinations=dests,
                plan=tuple(plan) if plan is not None else c.plan,
                warnings=tuple(dict.fromkeys((*c.warnings, *warnings))),
                band=band if band is not None else c.band,
                timings=timings,
                review_reason=review_reason,
                classification=classification if classification is not None else c.classification,
                last_error=last_error if last_error is not None else c.last_error,
                lease=None,
            )

        # Not fsynced: the plan was, and filing it again finds its notes written.
        return self._advance(capture_id, Step.SETTLE, settle, durable=False, quiet=True)

    def followed_line(
        self,
        capture_id: str,
        status: CaptureStatus,
        destinations: Iterable[Filed],
        suffix: str,
        done: bool,
    ) -> Capture:
        """The line is the truth: our pending capture becomes what its line says (another
        machine filed it while it held the filer role), and is never filed here."""
        dests = tuple(destinations)
        return self._advance(
            capture_id,
            Step.FOLLOW_LINE,
            lambda c: c.but(
                status=status,
                destinations=dests,
                line_suffix=suffix,
                line_done=done,
                lease=None,
                rebuilt_from_line=True,
            ),
            quiet=True,
        )

    # -- the person's decisions ------------------------------------------------------------
    def confirmed(
        self, capture_id: str, destinations: Iterable[Filed], warnings: Iterable[str] = ()
    ) -> Capture:
        dests = tuple(destinations)
        now = self.now()
        return self._advance(
            capture_id,
            Step.CONFIRM,
            lambda c: c.but(
                status=S.FILED,
                destinations=dests,
                warnings=tuple(dict.fromkeys((*c.warnings, *warnings))),
                confirmed_at=now,
                resolved_by="confirm",
            ),
        )

    def reclassified(self, capture_id: str, classification: Mapping[str, Any], by: str) -> Capture:
        """The person chose what the thought is: it is filed again from pending with their
        classification (the one before is kept, for the trust trail and the corrections)."""

        def redo(c: Capture) -> Capture:
            return c.but(
                status=S.PENDING,
                classification=classification,
                classification_before=c.classification,
                plan=None,
                band=None,
                last_error=None,
                review_reason=None,
                resolved_by=by,
                lease=None,
            )

        return self._advance(capture_id, Step.RESOLVE, redo)

    def dismissed(self, capture_id: str) -> Capture:
        now = self.now()
        return self._advance(
            capture_id,
            Step.DISMISS,
            lambda c: c.but(
                status=S.DISMISSED, dismissed_at=now, resolved_by="dismiss", lease=None
            ),
        )

    def corrected(
        self,
        capture_id: str,
        record_id: str,
        old_paths: Iterable[str],
        now_at: Filed,
        correction: Correction,
    ) -> Capture:
        """A record the capture went into was re-filed (``fix``, a ``type:`` changed in the
        note, the person's choice on a filed suggestion): its destination follows."""
        olds = set(old_paths)

        def follow(c: Capture) -> Capture:
            dests = tuple(
                now_at.but(op=d.op, held=d.held)
                if d.record_id == record_id or d.path in olds
                else d
                for d in c.destinations
            )
            return c.but(
                status=S.CORRECTED, destinations=dests, corrections=(*c.corrections, correction)
            )

        return self._advance(capture_id, Step.CORRECT, follow, quiet=True)

    def moved(self, capture_id: str, record_id: str, old: str, new: str) -> Capture:
        """A note the capture went into moved: its destination (and plan) point at it where
        it is now, so its inbox line, Needs Review and the digests link there."""

        def follow(c: Capture) -> Capture | None:
            hits = [d for d in c.destinations if d.record_id == record_id]
            if not hits or all(d.path == new for d in hits):
                return None
            dests = tuple(
                d.but(path=new) if d.record_id == record_id else d for d in c.destinations
            )
            plan = c.plan
            if plan is not None:
                plan = tuple(
                    op.but(path=new) if op.record_id == record_id and op.path == old else op
                    for op in plan
                )
            return c.but(destinations=dests, plan=plan, rev=c.rev + 1)

        return self._advance(capture_id, Step.MOVE, follow)

    def annotate(self, capture_id: str, **values: Any) -> Capture:
        """Values that say nothing about its state: who decided, warnings, destinations'
        ops after the person confirmed a kept note."""
        return self._advance(
            capture_id, Step.ANNOTATE, lambda c: c.but(**values), touch=False, durable=False
        )

    # -- its inbox line ------------------------------------------------------------------
    def line_shown(self, capture_id: str, suffix: str, done: bool, present: bool = True) -> Capture:
        """Its line was rewritten to (or found in) this form. Not fsynced: the line says it."""

        def shown(c: Capture) -> Capture | None:
            if (c.line_suffix, c.line_done, c.lease) == (suffix, done, None) and present:
                return None
            return c.but(
                line_suffix=suffix,
                line_done=done,
                line_missing=None if present else True,
                lease=None,
            )

        return self._advance(
            capture_id, Step.SHOW_LINE, shown, durable=False, touch=False, quiet=True
        )

    def lines_shown(self, forms: Mapping[str, tuple[str, bool]]) -> list[str]:
        """Many lines at once (one inbox pass): the captures whose form changed."""
        changed: list[str] = []
        with self.store.locked():
            for cid, (suffix, done) in forms.items():
                record = self.store.inbox.get(cid)
                if record is None:
                    continue
                if (record.get("line_suffix"), record.get("line_done")) == (suffix, done):
                    continue
                cap = Capture.from_record(record).but(line_suffix=suffix, line_done=done)
                self.store.inbox.put(cap.to_record(), durable=False)  # the line itself says it
                changed.append(cid)
        return changed

    def lines_gone(self, gone: Iterable[str], back: Iterable[str]) -> None:
        """When captures' lines went missing (``line_gone_at``), or that they are back. Lost
        with a crash, they are matched as before."""
        gone, back = set(gone), set(back)
        if not gone and not back:
            return
        now = self.now()
        with self.store.locked():
            for cid in gone | back:
                record = self.store.inbox.get(cid)
                if record is None:
                    continue
                cap = Capture.from_record(record)
                if cid in back:
                    if cap.line_gone_at is None:
                        continue
                    cap = cap.but(line_gone_at=None)
                else:
                    cap = cap.but(line_gone_at=now)
                self.store.inbox.put(cap.to_record(), durable=False)

    # -- leases: one process works on a capture at a time ---------------------------------
    @staticmethod
    def lease() -> dict[str, Any]:
        return {"pid": os.getpid(), "until": time.time() + LEASE_SECONDS}

    def release(self, capture_id: str) -> Capture:
        return self._advance(
            capture_id,
            Step.RELEASE,
            lambda c: None if c.lease is None else c.but(lease=None),
            touch=False,
        )

    @staticmethod
    def leased_elsewhere(cap: Capture) -> bool:
        lease = cap.lease
        if not lease or lease.get("pid") == os.getpid() or lease.get("until", 0) < time.time():
            return False
        try:
            return pid_alive(int(lease["pid"]))
        except (ValueError, TypeError):
            return False
