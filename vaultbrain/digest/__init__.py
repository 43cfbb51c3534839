"""Surfacing: the daily digest, the weekly review and the scheduler that runs them.

``facts`` reads what to say from the store (deterministic), ``insights`` asks the LLM for a
short summary on top (validated; "unavailable" when it cannot be had), ``render`` makes the
notes, ``runs`` writes them (compare-and-swap, history in ``digests.jsonl`` /
``reviews.jsonl``), and ``scheduler`` runs them on standard cron schedules (``cron``).
"""

from __future__ import annotations

from vaultbrain.cron import CronExpr

from .lock import BusyError
from .runs import latest_digest, latest_review, run_digest, run_review

__all__ = [
    "BusyError",
    "CronExpr",
    "latest_digest",
    "latest_review",
    "run_digest",
    "run_review",
]
