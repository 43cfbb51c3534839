"""The journal of captures: every change to a capture goes through :meth:`Journal.advance`.

It owns the store's lock, the fresh read, the write and the audit line, so no step of the
pipeline writes a capture from a stale copy, and a step that finds its own effect already
recorded (another worker, or a run before a crash) leaves it alone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.errors import UserError
from vaultbrain.filing.records import new_id
from vaultbrain.procs import pid_alive
from vaultbrain.vault import content_hash

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

LEASE_SECONDS = 300.0


class Journal:
    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.store = brain.store

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
            raise UserError(f"no capture {capture_id!r}")
        return cap

    def open(
        self,
        capture_id: str,
        text: str,
        origin: str,
        note: str | None,
        **initial: Any,
    ) -> Capture:
        """The capture of an anchored line: created once, returned as it is after that."""
        with self.store.locked():
            existing = self.store.inbox.get(capture_id, include_deleted=True)
            if existing is not None:
                return Capture.from_record(existing)
            now = self.brain.now().isoformat()
            cap = Capture(
                id=capture_id,
                text=text,
                text_hash=content_hash(text),
                note=note,
                origin=origin,
                created=now,
                updated=now,
                status=CaptureStatus.PENDING,
                **initial,
            )
            self.store.inbox.put(cap.to_record())
            return cap

    def rebuild(
        self,
        capture_id: str,
        text: str,
        note: str,
        status: CaptureStatus,
        destinations: list[dict[str, Any]],
        line_suffix: str | None,
        line_done: bool,
    ) -> Capture:
        """The capture of an anchored line this store does not know (a lost or new state
        dir, a second machine), rebuilt from the line: it was filed already, so it is
        recorded as what the line says it became and is never filed again."""
        with self.store.locked():
            existing = self.store.inbox.get(capture_id, include_deleted=True)
            if existing is not None:
                return Capture.from_record(existing)
            now = self.brain.now().isoformat()
            cap = Capture(
                id=capture_id,
                text=text,
                text_hash=content_hash(text),
                note=note,
                origin="inbox",
                created=now,
                updated=now,
                status=status,
                destinations=destinations,
                line_suffix=line_suffix,
                line_done=line_done,
                extra={"rebuilt_from_line": True},
            )
            self.store.inbox.put(cap.to_record())
            return cap

    def advance(
        self,
        capture_id: str,
        change: Callable[[Capture], bool | None],
        *,
        durable: bool = True,
        audit: Callable[[Capture], dict[str, Any] | None] | None = None,
        touch: bool = True,
    ) -> Capture:
        """Apply ``change`` to the capture as it is now, under the store's lock, and record it.

        ``change`` returns False when it found nothing to do (nothing is written). With
        ``durable=False`` the write is not fsynced: for steps whose loss a rerun repairs.
        ``audit`` builds the audit-trail entry for the change that went through.
        """
        with self.store.locked():
            record = self.store.inbox.get(capture_id, include_deleted=True)
            if record is None:
                raise UserError(f"no capture {capture_id!r}")
            cap = Capture.from_record(record)
            if change(cap) is False:
                return cap
            if touch:
                cap.updated = self.brain.now().isoformat()
            self.store.inbox.put(cap.to_record(), durable=durable)
        entry = audit(cap) if audit is not None else None
        if entry:
            self.store.audit({"at": self.brain.now().isoformat(), "capture": capture_id, **entry})
        return cap

    # -- leases: one process works on a capture at a time ---------------------------------
    @staticmethod
    def lease() -> dict[str, Any]:
        return {"pid": os.getpid(), "until": time.time() + LEASE_SECONDS}

    @staticmethod
    def leased_elsewhere(cap: Capture) -> bool:
        lease = cap.lease
        if not lease or lease.get("pid") == os.getpid() or lease.get("until", 0) < time.time():
            return False
        try:
            return pid_alive(int(lease["pid"]))
        except (ValueError, TypeError):
            return False
