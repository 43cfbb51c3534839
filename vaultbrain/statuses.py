"""What became of a capture, as its record in the state dir says it: one name for each status.

A leaf module (it imports nothing of vaultbrain's): the capture layer moves a capture between
them (capture/journal.py), and the embedded classifier, which learns from what captures
became (classify/adapt.py, classify/reliability.py), reads them by these names too.
"""

from __future__ import annotations

import enum
from typing import Any


class CaptureStatus(enum.StrEnum):
    PENDING = "pending"  # waiting for a classifier (or for its notes to be written)
    FILED = "filed"
    SUGGESTED = "suggested"  # filed, awaiting the person's confirmation
    NEEDS_REVIEW = "needs_review"  # nothing filed; the person decides
    CORRECTED = "corrected"  # re-filed by the person
    DISMISSED = "dismissed"  # the person said no, or deleted the line before it was taken

    @classmethod
    def of(cls, value: Any) -> CaptureStatus | None:
        """The status ``value`` names, or None (a record from nowhere, a typo)."""
        try:
            return cls(str(value))
        except ValueError:
            return None


# What counts as "done" for a capture's inbox line: ticked, nothing left to decide.
SETTLED = frozenset({CaptureStatus.FILED, CaptureStatus.CORRECTED, CaptureStatus.DISMISSED})
# Waiting for the person: listed in Needs Review.
WAITING_FOR_PERSON = frozenset({CaptureStatus.SUGGESTED, CaptureStatus.NEEDS_REVIEW})
# What a thought became and stood by (learnt from, counted as filed).
STOOD = frozenset({CaptureStatus.FILED, CaptureStatus.CORRECTED})
STATUS_NAMES = tuple(s.value for s in CaptureStatus)
