"""The daemon's worker threads: each classifies and files one capture
(``capture.pipeline.process`` without touching the inbox note), at most ``llm_concurrency``
at a time. The main thread decides what to submit and when; the workers only do it, and say
what became of each capture (a capture that waits is said once, not at every retry)."""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.guard import NotFiler
from vaultbrain.capture.model import CaptureStatus
from vaultbrain.capture.pipeline import process
from vaultbrain.errors import VaultbrainError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.daemon")


class Workers:
    """The pool and the captures under way in it (none until :meth:`start`, none after
    :meth:`shutdown`: a capture submitted then is left pending, journaled)."""

    def __init__(self, app: Brain) -> None:
        self.app = app
        self.futures: dict[str, Future[Any]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._said_pending: set[str] = set()  # captures whose `pending` was logged

    def __bool__(self) -> bool:
        """Whether a capture is under way."""
        return bool(self.futures)

    def __contains__(self, cid: object) -> bool:
        return cid in self.futures

    def start(self, size: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="vb-llm")

    def submit(self, cid: str) -> None:
        if cid in self.futures or self._pool is None:
            return
        self.futures[cid] = self._pool.submit(self._work, cid)

    def reap(self) -> list[str]:
        """The captures whose work ended since the last look."""
        done = [cid for cid, fut in self.futures.items() if fut.done()]
        for cid in done:
            self.futures.pop(cid)
        return done

    def wait(self) -> int:
        """Wait for every capture under way; how many there were."""
        waited = 0
        while self.futures:
            for cid, fut in list(self.futures.items()):
                fut.result()
                self.futures.pop(cid, None)
                waited += 1
        return waited

    def shutdown(self) -> None:
        """Work not started stays pending (journaled); only what is mid-write finishes."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None  # nothing more is submitted
        self.futures.clear()

    def _work(self, cid: str) -> Any:
        try:
            cap = process(self.app, cid, rewrite_line=False)
        except NotFiler as exc:
            log.info("capture %s: %s", cid, exc)  # the filer role moved a moment ago
            return None
        except VaultbrainError as exc:
            if self.app.store.inbox.summary(cid, include_deleted=True) is None:
                # Its record went with a deleted state dir: the inbox pass journals its
                # waiting line again (under the same id) once the store is rebuilt.
                log.info("capture %s: its record is gone with the state dir; taken again", cid)
            else:
                log.warning("capture %s: %s", cid, exc)
            return None
        except Exception:
            log.exception("capture %s failed", cid)
            return None
        # Once per capture while it waits: each retry of an offline capture is not news.
        if cap.status is not CaptureStatus.PENDING:
            self._said_pending.discard(cid)
            log.info("capture %s: %s", cid, cap.status)
        elif cid not in self._said_pending:
            self._said_pending.add(cid)
            log.info("capture %s: %s", cid, cap.status)
        else:
            log.debug("capture %s: still pending", cid)
        return cap
