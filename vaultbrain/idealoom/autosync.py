"""Automatic export after an edit: opt-in twice, debounced, and the least powerful path.

The daemon owns the loop and calls :meth:`AutoExporter.tick` about once a second. Edits made
in a CLI process reach it through the pending queue in the state dir. When a list has been
quiet for the debounce (5 s; at most 60 s after its first queued edit, so a list edited
without pause still reaches the vault), the settings are read again: if either opt-in is
off, the queued work is dropped without touching the vault. Otherwise the due lists are
exported automatically, which only ever updates an existing note whose content differs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from vaultbrain.idealoom.config import LoomSettings
from vaultbrain.idealoom.exchange import ExchangeResult, run_auto_export
from vaultbrain.idealoom.pending import PendingExports

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

DEBOUNCE_SECONDS = 5.0
MAX_WAIT_SECONDS = 60.0
LAST_RESULT = "idealoom-auto-export.json"
log = logging.getLogger("vaultbrain.idealoom")


class AutoExporter:
    """Debounced automatic export. Does no I/O until asked: nothing runs at start-up."""

    def __init__(
        self,
        app: Brain,
        clock: Callable[[], float] = time.time,
        *,
        delay: float = DEBOUNCE_SECONDS,
        max_wait: float = MAX_WAIT_SECONDS,
    ) -> None:
        self.app = app
        self.clock = clock
        self.delay = delay
        self.max_wait = max_wait
        self.queue = PendingExports(app.store)

    def schedule(self, list_id: str) -> bool:
        """Queue an export of ``list_id`` (restarting its debounce); False when auto export is off."""
        if not LoomSettings.read(self.app, reload=True).auto_export_on:
            return False
        self.queue.add(list_id, self.clock())
        return True

    def pending(self) -> bool:
        return self.queue.any()

    def due(self) -> set[str]:
        """The queued lists whose debounce is over."""
        now = self.clock()
        return {
            list_id
            for list_id, (first, last) in self.queue.windows().items()
            if now >= min(last + self.delay, first + self.max_wait)
        }

    def tick(self) -> ExchangeResult | None:
        """Export what is due; None when nothing was (or the opt-ins were turned off)."""
        if not self.queue.any():
            return None
        with self.app.store.locked():
            due = self.due()
            if not due:
                return None
            settings = LoomSettings.read(self.app, reload=True)
            if not settings.auto_export_on:
                self.queue.discard()
                log.info("IdeaLoom automatic export is off; dropped the queued exports")
                return None
            try:
                result = run_auto_export(self.app, sorted(due), settings)
            finally:
                # Dropped even when the export raised, so one bad list cannot make every
                # tick fail again; the next edit queues it anew.
                self.queue.discard(due)
            self.app.store.write_json(
                LAST_RESULT, {"at": self.app.now().isoformat(), **result.to_dict()}
            )
        log.info("IdeaLoom %s", result.summary())
        return result


def last_auto_export(app: Brain) -> dict | None:
    """The last automatic export's result, as ``idealoom settings`` shows it."""
    return app.store.read_json(LAST_RESULT)
