"""Review in bulk: confirm or dismiss many captures in one command.

``vaultbrain review confirm ID...``, ``review confirm --all [--type T] [--min-confidence X]``
and ``review dismiss ID...`` (vaultbrain/cli/review.py) end here, and the "confirm all N
below" line of a section in ``Brain/Needs Review.md`` (capture/gestures.py) gives the same
result. Each capture is still its own decision (capture/resolution.py): one journal
transition each, each undoable with ``fix``; one that cannot be decided (already filed, no
suggestion, unknown id) is said and the rest go on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import CaptureStatus
from vaultbrain.classify.result import UNKNOWN
from vaultbrain.errors import UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.model import Capture

__all__ = ["Bulk", "confirm_many", "dismiss_many", "suggestions"]


@dataclass
class Bulk:
    """What a bulk decision did: the captures decided, and those refused with why."""

    done: list[Capture] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def suggestions(
    brain: Brain, type_name: str | None = None, min_confidence: float | None = None
) -> list[str]:
    """The ids of the suggestions waiting for confirmation (oldest first): those with a
    destination of ``type_name`` (None: any), of at least ``min_confidence`` (None: any)."""
    if type_name is not None:
        from vaultbrain.filing.refile import fileable_type

        type_name = fileable_type(brain, type_name).name  # an unknown type is refused
    out: list[tuple[str, str]] = []
    for s in brain.store.inbox.summaries():
        if s.get("status") != CaptureStatus.SUGGESTED.value:
            continue
        rec = brain.store.inbox.get(s["id"])
        if rec is None or not _matches(rec, type_name, min_confidence):
            continue
        out.append((str(rec.get("created") or ""), str(rec["id"])))
    return [cid for _, cid in sorted(out)]


def _matches(rec: dict[str, Any], type_name: str | None, minimum: float | None) -> bool:
    cls = rec.get("classification") or {}
    if minimum is not None:
        conf = cls.get("confidence")
        if not isinstance(conf, (int, float)) or conf < minimum:
            return False
    if type_name is None:
        return True
    types = {d.get("type") for d in rec.get("destinations") or ()}
    types |= {d.get("type") for d in cls.get("destinations") or () if d.get("type") != UNKNOWN}
    return type_name in types


def confirm_many(brain: Brain, ids: Iterable[str]) -> Bulk:
    """Accept the suggestion of each capture, one decision each."""
    from vaultbrain.capture.resolution import confirm

    return _each(ids, lambda cid: confirm(brain, cid))


def dismiss_many(brain: Brain, ids: Iterable[str]) -> Bulk:
    """Dismiss each capture, one decision each."""
    from vaultbrain.capture.resolution import dismiss

    return _each(ids, lambda cid: dismiss(brain, cid))


def _each(ids: Iterable[str], decide: Callable[[str], Capture]) -> Bulk:
    bulk = Bulk()
    for cid in dict.fromkeys(ids):  # an id given twice is decided once
        try:
            bulk.done.append(decide(cid))
        except UserError as exc:
            bulk.refused.append((cid, str(exc)))
    return bulk
