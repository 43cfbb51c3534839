"""Exports waiting for their debounce: a small queue (a log of ``state.db``).

A list is edited in a short-lived CLI process while the daemon, a long-lived one, does the
writing. The CLI appends ``{"list": id, "at": epoch seconds}`` to ``idealoom-pending.jsonl``;
the daemon's :class:`~vaultbrain.idealoom.autosync.AutoExporter` reads it, waits until a
list has been quiet for the debounce, exports it and drops its lines. Appends and rewrites
both hold the store lock, so no entry is lost between a read and a rewrite.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from vaultbrain.idealoom.config import LoomSettings
from vaultbrain.store import Store

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

QUEUE_NAME = "idealoom-pending.jsonl"


class PendingExports:
    def __init__(self, store: Store) -> None:
        self.store = store

    def add(self, list_id: str, at: float) -> None:
        self.store.append_jsonl(QUEUE_NAME, {"list": list_id, "at": float(at)})

    def any(self) -> bool:
        """Whether anything is queued: one indexed lookup (the daemon asks every second)."""
        return self.store.has_entries(QUEUE_NAME)

    def windows(self) -> dict[str, tuple[float, float]]:
        """Each queued list's first and last request time."""
        out: dict[str, tuple[float, float]] = {}
        for entry in self.store.read_jsonl(QUEUE_NAME):
            list_id, at = entry.get("list"), entry.get("at")
            if not isinstance(list_id, str) or not isinstance(at, int | float):
                continue
            first, last = out.get(list_id, (at, at))
            out[list_id] = (min(first, at), max(last, at))
        return out

    def discard(self, list_ids: set[str] | None = None) -> None:
        """Drop the lines of ``list_ids`` (every line when None)."""
        with self.store.locked():
            keep = []
            if list_ids is not None:
                keep = [
                    e for e in self.store.read_jsonl(QUEUE_NAME) if e.get("list") not in list_ids
                ]
            self.store.replace_jsonl(QUEUE_NAME, keep)


def queue_after_edit(app: Brain, list_id: str, at: float | None = None) -> bool:
    """Queue an automatic export of a list just edited, if both opt-ins are on.

    Reads only the state dir. Whether to write is decided again when the export fires.
    """
    if not LoomSettings.read(app, reload=True).auto_export_on:
        return False
    PendingExports(app.store).add(list_id, time.time() if at is None else at)
    return True
