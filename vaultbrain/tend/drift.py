"""Drift: what was left to slide. Admin items past due and still open, projects with no
activity for ``stale_days``, people with a follow-up due. Read only: listed in the morning
report (and the due follow-ups in the digest), nothing written into the notes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.tend.card import DATE, Card, decode

_CLOSED = frozenset({"done", "cancelled", "completed", "archived"})
_STALE_STATUSES = frozenset({"active", "planned", ""})
FOLLOW_UP_QUIET_DAYS = 7  # an undated follow-up is due once the person has been quiet this long


@dataclass
class Drift:
    overdue: list[tuple[Card, dt.date]] = field(default_factory=list)
    stale: list[tuple[Card, dt.date | None]] = field(default_factory=list)
    follow_ups: list[tuple[Card, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "overdue": len(self.overdue),
            "stale": len(self.stale),
            "follow_ups": len(self.follow_ups),
        }


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        m = DATE.search(value)
        if m:
            try:
                return dt.date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                return None
    return None


def last_activity(card: Card, today: dt.date) -> dt.date | None:
    """The latest date the note states that is not in the future (its log, updated,
    created), else its file's modification day."""
    dates = [d for d in card.dates() if d <= today]
    if dates:
        return max(dates)
    return dt.date.fromtimestamp(card.mtime) if card.mtime else None


_STATUSED = frozenset({"admin", "project"})  # (the types whose status drift reads)


def find_drift(cards: list[Card], today: dt.date, stale_days: int) -> Drift:
    out = Drift()
    decode(
        [
            c
            for c in cards
            if c.type in _STATUSED or (c.type == "person" and c.may_have("follow_ups"))
        ]
    )
    for c in cards:
        status = str(c.get("status") or "").strip().lower() if c.type in _STATUSED else ""
        if c.type == "admin":
            due = _date(c.get("due"))
            if due is not None and due < today and status not in _CLOSED:
                out.overdue.append((c, due))
        elif c.type == "project":
            if status not in _STALE_STATUSES:
                continue
            last = last_activity(c, today)
            if last is None or (today - last).days >= stale_days:
                out.stale.append((c, last))
        elif c.type == "person":
            items = c.get("follow_ups") or []
            if isinstance(items, str):
                items = [items]
            quiet_since = _date(c.get("last_interaction")) or _date(c.get("created"))
            for item in items:
                if not isinstance(item, str) or not item.strip():
                    continue
                when = _date(item)
                if when is not None:
                    if when <= today:
                        out.follow_ups.append((c, item.strip()))
                elif quiet_since is not None and (today - quiet_since).days >= FOLLOW_UP_QUIET_DAYS:
                    out.follow_ups.append((c, item.strip()))
    out.overdue.sort(key=lambda x: (x[1], x[0].rel))
    out.stale.sort(key=lambda x: (x[1] or dt.date.min, x[0].rel))
    out.follow_ups.sort(key=lambda x: (x[0].rel, x[1]))
    return out
