"""Drift: what was left to slide. Admin items past due and still open, projects with no
activity for ``stale_days``, people with a follow-up due. Read only: listed in the morning
report (and the due follow-ups in the digest), nothing written into the notes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.tend.card import DATE, STATED_DAY, Card, decode

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
        m = STATED_DAY.match(value.strip()) or DATE.search(value)  # (2026-12-20T17:00 too)
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


Fact = dict[str, Any]  # what drift reads of one card, as JSON holds it (:func:`fact`)


def fact(c: Card) -> Fact | None:
    """What drift needs of one card to judge it on any day (None: nothing it could list):
    an open admin item's due day, a project's dates, a person's follow-ups."""
    status = str(c.get("status") or "").strip().lower() if c.type in _STATUSED else ""
    if c.type == "admin":
        due = _date(c.get("due"))
        if due is None or status in _CLOSED:
            return None
        return {"rel": c.rel, "title": c.title, "due": due.isoformat()}
    if c.type == "project":
        if status not in _STALE_STATUSES:
            return None
        mtime = dt.date.fromtimestamp(c.mtime).isoformat() if c.mtime else None
        dates = sorted({d.isoformat() for d in c.dates()})
        return {"rel": c.rel, "title": c.title, "dates": dates, "mtime": mtime}
    if c.type == "person" and c.may_have("follow_ups"):
        items = c.get("follow_ups") or []
        if isinstance(items, str):
            items = [items]
        quiet = _date(c.get("last_interaction")) or _date(c.get("created"))
        said: list[list[str | None]] = []
        for item in items:
            if not isinstance(item, str) or not item.strip():
                continue
            when = _date(item)
            said.append([item.strip(), when.isoformat() if when else None])
        if not said:
            return None
        quiet_s = quiet.isoformat() if quiet else None
        return {"rel": c.rel, "title": c.title, "follow_ups": said, "quiet": quiet_s}
    return None


def facts(cards: list[Card]) -> dict[str, Fact]:
    decode(
        [
            c
            for c in cards
            if c.type in _STATUSED or (c.type == "person" and c.may_have("follow_ups"))
        ]
    )
    out: dict[str, Fact] = {}
    for c in cards:
        f = fact(c)
        if f is not None:
            out[c.rel] = f
    return out


@dataclass
class Found:
    """Drift as rows: (path, title, …) each, sorted as the report lists them."""

    overdue: list[tuple[str, str, dt.date]] = field(default_factory=list)
    stale: list[tuple[str, str, dt.date | None]] = field(default_factory=list)
    follow_ups: list[tuple[str, str, str]] = field(default_factory=list)


def judge(found: dict[str, Fact], today: dt.date, stale_days: int) -> Found:
    """What the cards' facts list on ``today``."""
    out = Found()
    day = today.isoformat()
    for f in found.values():
        rel, title = f["rel"], f["title"]
        if "due" in f:
            if f["due"] < day:
                out.overdue.append((rel, title, dt.date.fromisoformat(f["due"])))
        elif "dates" in f:
            past = [d for d in f["dates"] if d <= day]
            last_s = past[-1] if past else f["mtime"]
            last = dt.date.fromisoformat(last_s) if last_s else None
            if last is None or (today - last).days >= stale_days:
                out.stale.append((rel, title, last))
        else:
            quiet = dt.date.fromisoformat(f["quiet"]) if f["quiet"] else None
            for text, when in f["follow_ups"]:
                if when is not None:
                    if when <= day:
                        out.follow_ups.append((rel, title, text))
                elif quiet is not None and (today - quiet).days >= FOLLOW_UP_QUIET_DAYS:
                    out.follow_ups.append((rel, title, text))
    out.overdue.sort(key=lambda x: (x[2], x[0]))
    out.stale.sort(key=lambda x: (x[2] or dt.date.min, x[0]))
    out.follow_ups.sort(key=lambda x: (x[0], x[2]))
    return out


def find_drift(cards: list[Card], today: dt.date, stale_days: int) -> Drift:
    out = Drift()
    by_rel = {c.rel: c for c in cards}
    found = judge(facts(cards), today, stale_days)
    out.overdue = [(by_rel[r], d) for r, _, d in found.overdue]
    out.stale = [(by_rel[r], d) for r, _, d in found.stale]
    out.follow_ups = [(by_rel[r], t) for r, _, t in found.follow_ups]
    return out
