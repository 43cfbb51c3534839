"""The facts of a daily digest and a weekly review, read from the store, deterministically.

Nothing here calls the LLM or writes anything: the same store and the same day give the same
facts, so the note's lists can be trusted even when the summary on top cannot be had. The
records are read through ``vaultbrain/digest/store_view.py``; types are found through the
active pack (``person``, ``project``, ``idea``, ``admin`` by name or alias); a pack without
one of them simply has no such section. Records of any other type
with a ``status`` field still count as open loops while that status is not a closed one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import CaptureStatus
from vaultbrain.digest.store_view import (
    CLOSED_STATUSES,
    AdminIndex,
    Ref,
    StoreView,
    admin_note,
    admin_sort_key,
    as_list,
    captures_in,
    destination_refs,
    fields_of,
    first_of,
    is_open_admin,
    last_activity,
    new_verb,
    parse_date,
    review_counts,
    status_of,
    time_of,
    title_key,
)
from vaultbrain.vault.typed import inert

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

# How far back "recent" reaches for a daily digest's project activity (the day and the two
# before it), and what "soon" means for admin due dates.
RECENT_DAYS = 3
DUE_SOON_DAYS = 7
# A project without activity for this many days is one to review in the weekly review.
STALE_DAYS = 7

NEEDS_REVIEW, PENDING = CaptureStatus.NEEDS_REVIEW.value, CaptureStatus.PENDING.value


@dataclass(frozen=True)
class Item:
    """One line of a section: a record and a short note about it."""

    ref: Ref
    note: str = ""
    date: str | None = None


@dataclass(frozen=True)
class Capture:
    id: str
    text: str
    time: str
    status: str
    destinations: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class Action:
    verb: str
    ref: Ref
    note: str = ""


@dataclass
class DailyFacts:
    day: dt.date
    captures: list[Capture] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    projects: list[Item] = field(default_factory=list)
    people: list[Item] = field(default_factory=list)
    admin_overdue: list[Item] = field(default_factory=list)
    admin_due: list[Item] = field(default_factory=list)
    ideas_ready: list[Item] = field(default_factory=list)
    needs_review: int = 0
    pending: int = 0

    def counts(self) -> dict[str, int]:
        return {
            "captures": len(self.captures),
            "actions": len(self.actions),
            "projects": len(self.projects),
            "people": len(self.people),
            "admin_due": len(self.admin_due),
            "admin_overdue": len(self.admin_overdue),
            "ideas_ready": len(self.ideas_ready),
            NEEDS_REVIEW: self.needs_review,
            PENDING: self.pending,
        }

    def is_empty(self) -> bool:
        return not any(self.counts().values())


@dataclass
class OpenLoops:
    """The open loops of one database (a pack type)."""

    label: str
    collection: str
    items: list[Item] = field(default_factory=list)


@dataclass
class WeeklyFacts:
    day: dt.date
    start: dt.date
    week: str
    open_loops: list[OpenLoops] = field(default_factory=list)
    accomplishments: list[Action] = field(default_factory=list)
    projects_to_review: list[Item] = field(default_factory=list)
    people_to_follow_up: list[Item] = field(default_factory=list)
    ideas_to_explore: list[Item] = field(default_factory=list)
    admin_to_address: list[Item] = field(default_factory=list)
    captures: int = 0
    created: dict[str, int] = field(default_factory=dict)
    needs_review: int = 0
    pending: int = 0

    def counts(self) -> dict[str, int]:
        out = {"open_loops": sum(len(o.items) for o in self.open_loops)}
        for loops in self.open_loops:
            out[f"open_{loops.collection}"] = len(loops.items)
        out.update(
            {
                "accomplishments": len(self.accomplishments),
                "projects_to_review": len(self.projects_to_review),
                "people_to_follow_up": len(self.people_to_follow_up),
                "ideas_to_explore": len(self.ideas_to_explore),
                "admin_to_address": len(self.admin_to_address),
                "captures": self.captures,
                NEEDS_REVIEW: self.needs_review,
                PENDING: self.pending,
            }
        )
        return out


def iso_week(day: dt.date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


# -- the daily digest ---------------------------------------------------------------------------


def collect_daily(app: Brain, day: dt.date) -> DailyFacts:
    """What happened on ``day`` and what is coming up, from the store."""
    records = StoreView(app)
    facts = DailyFacts(day=day)
    role_of = {name: role for role, name in records.role.items() if name}

    captures = captures_in(app, day, day)
    for rec in captures:
        facts.captures.append(
            Capture(
                id=str(rec.get("id")),
                # A copy of the thought: no Tasks or Dataview field in it (vault/typed.py).
                text=inert(str(rec.get("text") or "")),
                time=time_of(rec.get("created")),
                status=str(rec.get("status") or ""),
                destinations=destination_refs(rec, records),
            )
        )

    # Actions: what the captures of the day did, then what else was created or finished.
    seen: set[tuple[str, str]] = set()

    def add(verb: str, ref: Ref, note: str = "") -> None:
        key = (verb.split()[0], ref.id or ref.title)
        if key in seen:
            return
        seen.add(key)
        facts.actions.append(Action(verb, ref, note))

    rec_by_id = {str(r.get("id")): r for recs in records.by_type.values() for r in recs}
    for cap in captures:
        for d in cap.get("destinations") or []:
            if not isinstance(d, dict):
                continue
            rid = str(d.get("record_id") or "")
            ref = records.by_id.get(rid) or Ref(
                str(d.get("type") or ""), str(d.get("title") or ""), d.get("path") or None
            )
            if not ref.title:
                continue
            filed = rec_by_id.get(rid)
            if d.get("op") == "update":
                add(f"Updated {ref.type}", ref)
            elif d.get("op") == "link":  # an existing note the thought points at, not written
                add(f"Linked {ref.type}", ref)
            else:
                verb, note = new_verb(ref.type, role_of.get(ref.type), filed)
                add(verb, ref, note)
    for type_name, recs in records.by_type.items():
        role = role_of.get(type_name)
        for rec in sorted(recs, key=lambda r: str(r.get("created") or "")):
            ref = records.ref(rec, type_name)
            if parse_date(rec.get("created")) == day:
                verb, note = new_verb(type_name, role, rec)
                add(verb, ref, note)
            if parse_date(rec.get("updated")) == day and status_of(rec) in CLOSED_STATUSES:
                add("Done" if role != "project" else "Project completed", ref)

    # Projects with recent activity.
    recent_from = day - dt.timedelta(days=RECENT_DAYS - 1)
    projects = []
    for rec in records.of("project"):
        last = last_activity(rec, day)
        if last is None or last < recent_from:
            continue
        f = fields_of(rec)
        parts = [p for p in (status_of(rec), first_of(f.get("next_actions"), "next: ")) if p]
        if last != day:
            parts.append(f"last activity {last.isoformat()}")
        projects.append((last, Item(records.ref(rec), " · ".join(parts), last.isoformat())))
    projects.sort(key=lambda p: (-p[0].toordinal(), p[1].ref.title.lower()))
    facts.projects = [item for _, item in projects]

    # People interacted with on the day.
    for rec in sorted(records.of("person"), key=title_key):
        f = fields_of(rec)
        met = parse_date(f.get("last_interaction")) == day or any(
            isinstance(e, dict) and parse_date(e.get("date")) == day for e in rec.get("log") or []
        )
        if met:
            facts.people.append(
                Item(records.ref(rec), first_of(f.get("follow_ups"), "follow up: "))
            )

    # Admin due within the week, and overdue.
    soon_until = day + dt.timedelta(days=DUE_SOON_DAYS)
    for rec in sorted(records.of("admin"), key=admin_sort_key):
        if not is_open_admin(rec):
            continue
        due = parse_date(fields_of(rec).get("due"))
        if due is None:
            continue
        item = Item(records.ref(rec), admin_note(rec, day), due.isoformat())
        if due < day:
            facts.admin_overdue.append(item)
        elif due <= soon_until:
            facts.admin_due.append(item)

    # Ideas ready for next steps: explored or validated, not yet implemented.
    ideas = []
    for rec in records.of("idea"):
        maturity = str(fields_of(rec).get("maturity") or "").lower()
        if maturity in ("explored", "validated"):
            note = " · ".join(
                p for p in (maturity, str(fields_of(rec).get("one_liner") or "")) if p
            )
            ideas.append((str(rec.get("updated") or ""), Item(records.ref(rec), note)))
    ideas.sort(key=lambda p: p[0], reverse=True)
    facts.ideas_ready = [item for _, item in ideas]

    facts.needs_review, facts.pending = review_counts(app)
    return facts


# -- the weekly review --------------------------------------------------------------------------


def collect_weekly(app: Brain, day: dt.date) -> WeeklyFacts:
    """GTD-style facts for the seven days ending on ``day``."""
    records = StoreView(app)
    start = day - dt.timedelta(days=6)
    facts = WeeklyFacts(day=day, start=start, week=iso_week(day))
    role_of = {name: role for role, name in records.role.items() if name}

    def in_week(value: Any) -> bool:
        d = parse_date(value)
        return d is not None and start <= d <= day

    # Open loops by database, in the pack's type order.
    for t in records.types:
        recs = records.by_type.get(t.name, [])
        role = role_of.get(t.name)
        items: list[Item] = []
        order = admin_sort_key if role == "admin" else title_key
        for rec in sorted(recs, key=order):
            f = fields_of(rec)
            if role == "person":
                follow = as_list(f.get("follow_ups"))
                if follow:
                    items.append(Item(records.ref(rec), "; ".join(follow[:3])))
            elif role == "idea":
                maturity = str(f.get("maturity") or "raw").lower()
                if maturity not in CLOSED_STATUSES:
                    items.append(Item(records.ref(rec), maturity))
            elif role == "admin":
                if is_open_admin(rec):
                    items.append(Item(records.ref(rec), admin_note(rec, day)))
            elif "status" in t.fields or "status" in f:
                status = status_of(rec)
                if status and status not in CLOSED_STATUSES:
                    items.append(Item(records.ref(rec), status))
        if items:
            facts.open_loops.append(OpenLoops(records.label(t.name), t.store_collection, items))

    # Accomplishments: what was finished or moved forward during the week.
    for type_name, recs in records.by_type.items():
        role = role_of.get(type_name)
        for rec in sorted(recs, key=lambda r: str(r.get("updated") or "")):
            if in_week(rec.get("created")):
                label = records.label(type_name)
                facts.created[label] = facts.created.get(label, 0) + 1
            if not in_week(rec.get("updated")):
                continue
            ref = records.ref(rec, type_name)
            status = status_of(rec)
            maturity = str(fields_of(rec).get("maturity") or "").lower()
            if role == "project" and status in CLOSED_STATUSES:
                facts.accomplishments.append(Action("Project completed", ref))
            elif role == "idea" and maturity in ("validated", "implemented"):
                facts.accomplishments.append(Action(f"Idea {maturity}", ref))
            elif role != "project" and role != "idea" and status in CLOSED_STATUSES:
                note = str(fields_of(rec).get("completion_notes") or "")
                facts.accomplishments.append(Action("Done", ref, note))

    # Projects to review: no activity for a week, or no next action.
    stale_before = day - dt.timedelta(days=STALE_DAYS - 1)
    for rec in sorted(records.of("project"), key=title_key):
        status = status_of(rec)
        if status in CLOSED_STATUSES:
            continue
        reasons = []
        if not as_list(fields_of(rec).get("next_actions")):
            reasons.append("needs next actions")
        last = last_activity(rec, day)
        if last is None:
            reasons.append("no recorded activity")
        elif last < stale_before:
            reasons.append(f"no activity for {(day - last).days} days (since {last.isoformat()})")
        if reasons:
            label = f"{status} · " if status else ""
            facts.projects_to_review.append(Item(records.ref(rec), label + "; ".join(reasons)))

    # People to follow up: their own follow-ups, and open admin items that name them.
    admin_open = [r for r in records.of("admin") if is_open_admin(r)]
    about = AdminIndex(admin_open)
    people = [(rec, records.ref(rec)) for rec in sorted(records.of("person"), key=title_key)]
    concerning = {id(rec): about.concerning(ref) for rec, ref in people}
    # "Email Ann Lee" concerns Ann Lee, not also Ann: the longest matching name wins.
    named: dict[int, list[str]] = {}
    for rec, ref in people:
        for a in concerning[id(rec)]:
            named.setdefault(id(a), []).append(ref.title.lower())
    for rec, ref in people:
        notes = as_list(fields_of(rec).get("follow_ups"))
        mine = ref.title.lower()
        scheduled = [
            a
            for a in concerning[id(rec)]
            if not any(mine != other and mine in other for other in named[id(a)])
        ]
        parts = list(notes[:3])
        for a in sorted(scheduled, key=admin_sort_key)[:2]:
            due = parse_date(fields_of(a).get("due"))
            when = f" (due {due.isoformat()})" if due else ""
            parts.append(f"follow-up scheduled: {records.ref(a).link}{when}")
        if parts:
            facts.people_to_follow_up.append(Item(ref, "; ".join(parts)))

    # Ideas to explore: still raw or explored, newest first.
    ideas = []
    for rec in records.of("idea"):
        f = fields_of(rec)
        maturity = str(f.get("maturity") or "raw").lower()
        if maturity in ("raw", "explored"):
            note = " · ".join(p for p in (maturity, str(f.get("one_liner") or "")) if p)
            ideas.append((str(rec.get("created") or ""), Item(records.ref(rec), note)))
    ideas.sort(key=lambda p: p[0], reverse=True)
    facts.ideas_to_explore = [item for _, item in ideas]

    # Admin to address: every open item, overdue and soonest first.
    for rec in sorted(admin_open, key=admin_sort_key):
        facts.admin_to_address.append(Item(records.ref(rec), admin_note(rec, day) or "no due date"))

    facts.captures = len(captures_in(app, start, day))
    facts.needs_review, facts.pending = review_counts(app)
    return facts
