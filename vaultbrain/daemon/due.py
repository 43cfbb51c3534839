"""Which pending captures are due for another try, by this process's monotonic clock.

The daemon asks at every turn, so the pending captures and their retry times are kept in
memory and brought up to date only when the inbox store changes (and then only the captures
whose records changed are read): an idle daemon with a year of captures does no work.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from vaultbrain.capture.classify import retry_delay
from vaultbrain.capture.model import CaptureStatus
from vaultbrain.store import Store


class DueCaptures:
    def __init__(self, store: Store, retry_base: Callable[[], float]) -> None:
        self.store = store
        self._retry_base = retry_base
        self._due: dict[str, tuple[Any, float]] = {}  # id -> (its `updated`, monotonic time)
        self._version: Any = None

    def forget(self) -> None:
        """Read every pending capture again at the next look (the store was rebuilt)."""
        self._version = None

    def worked(self, cid: str) -> None:
        """A worker ended on ``cid``: its retry time, read even if its summary is the same."""
        self._due.pop(cid, None)
        rec = self.store.inbox.get(cid)
        if rec is not None and CaptureStatus.of(rec.get("status")) is CaptureStatus.PENDING:
            self._due[cid] = (rec.get("updated"), self.retry_at(rec))

    def soon(self, by: float) -> bool:
        return any(at <= by for _, at in self._due.values())

    def ready(self, force: bool = False) -> list[str]:
        """The pending captures whose time has come (all of them with ``force``)."""
        inbox = self.store.inbox
        version = inbox.version()
        if force or version != self._version:
            due: dict[str, tuple[Any, float]] = {}
            for summary in inbox.summaries():
                if CaptureStatus.of(summary.get("status")) is not CaptureStatus.PENDING:
                    continue
                cid = summary["id"]
                known = self._due.get(cid)
                if not force and known is not None and known[0] == summary.get("updated"):
                    due[cid] = known
                    continue
                rec = inbox.get(cid)
                if rec is not None:
                    due[cid] = (summary.get("updated"), self.retry_at(rec))
            self._due, self._version = due, version
        now = time.monotonic()
        return [cid for cid, (_, at) in self._due.items() if force or at <= now]

    def retry_at(self, rec: dict[str, Any]) -> float:
        """A pending capture's retry time on this process's monotonic clock.

        The record keeps a wall-clock time (other processes and the next start read it); read
        once, it becomes a monotonic deadline no later than the backoff its attempts call for.
        A clock stepped back (or a record written by a machine ahead) cannot hold a retry
        back longer than that, and a step after it was read changes nothing.
        """
        wait = float(rec.get("next_attempt") or 0) - time.time()
        most = retry_delay(self._retry_base(), int(rec.get("attempts") or 0))
        return time.monotonic() + min(max(wait, 0.0), most)
