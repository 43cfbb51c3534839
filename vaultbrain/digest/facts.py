"""The facts of a daily digest and a weekly review, read from the store, deterministically.

Nothing here calls the LLM or writes anything: the same store and the same day give the same
facts, so the note's lists can be trusted even when the summary on top cannot be had. Types
are found through the active pack (``person``, ``project``, ``idea``, ``admin`` by name or
alias); a pack without one of them simply has no such section. Records of any other type
with a ``status`` field still count as open loops while that status is not a closed one.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.packs import PageType

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

# How far back "recent" reaches for a daily digest's project activity (the day and the two
# before it), and what "soon" means for admin due dates.
RECENT_DAYS = 3
DUE_SOON_DAYS = 7
# A project without activity for this many days is one to review in the weekly review.
STALE_DAYS = 7

CLOSED_STATUSES = frozenset(
    {
        "done",
        "completed",
        "complete",
        "closed",
        "cancelled",
        "canceled",
        "archived",
        "dropped",
        "implemented",
    }
)
REVIEW_STATUSES = ("needs_review", "suggested")
_PRIORITY_ORDER = {"high": 0, "medium": 1, "low": 2}


@dataclass(frozen=True)
class Ref:
    """A record a note mentions: rendered as a wikilink to its note."""

    type: str
    title: str
    path: str | None = None
    id: str | None = None

    @property
    def target(self) -> str | None:
        if not self.path:
            return None
        return self.path[:-3] if self.path.lower().endswith(".md") else self.path

    @property
    def link(self) -> str:
        if self.target is None:
            return self.title
        return f"[[{self.target}|{link_alias(self.title)}]]"


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
            "needs_review": self.needs_review,
            "pending": self.pending,
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
                "needs_review": self.needs_review,
                "pending": self.pending,
            }
        )
        return out


def iso_week(day: dt.date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def link_alias(title: str) -> str:
    """A title safe inside ``[[target|alias]]``: no pipes, no brackets, one line."""
    text = re.sub(r"\s+", " ", str(title)).strip()
    return text.replace("|", "-").replace("[", "(").replace("]", ")") or "untitled"


# -- reading the store --------------------------------------------------------------------------


def parse_date(value: Any) -> dt.date | None:
    """The date of a ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM:SS`` string; None for anything else."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _time_of(value: Any) -> str:
    if isinstance(value, str) and len(value) >= 16 and value[10] in "T ":
        return value[11:16]
    return ""


class _Records:
    """Every live record of the pack's types, loaded once, with the roles the digest needs."""

    def __init__(self, app: Brain) -> None:
        pack = app.pack
        self.types: list[PageType] = pack.types
        self.by_type: dict[str, list[dict[str, Any]]] = {}
        self.by_id: dict[str, Ref] = {}
        seen: set[str] = set()
        for t in self.types:
            col = t.store_collection
            if col in seen:
                continue
            seen.add(col)
            for rec in app.store.collection(col).all():
                tname = str(rec.get("type") or t.name)
                self.by_type.setdefault(tname, []).append(rec)
                ref = self.ref(rec, tname)
                if rec.get("id"):
                    self.by_id[str(rec["id"])] = ref
        self.role: dict[str, str | None] = {}
        for role in ("person", "project", "idea", "admin"):
            found = pack.get_type(role)
            self.role[role] = found.name if found else None
        self.type_by_name = {t.name: t for t in self.types}

    def of(self, role: str) -> list[dict[str, Any]]:
        name = self.role.get(role)
        return list(self.by_type.get(name, [])) if name else []

    @staticmethod
    def ref(rec: dict[str, Any], type_name: str | None = None) -> Ref:
        fields = rec.get("fields") or {}
        title = rec.get("title") or fields.get("name") or fields.get("title") or rec.get("id")
        return Ref(
            type=str(type_name or rec.get("type") or ""),
            title=str(title),
            path=rec.get("path") or None,
            id=str(rec["id"]) if rec.get("id") else None,
        )

    def label(self, type_name: str) -> str:
        t = self.type_by_name.get(type_name)
        return t.folder if t else type_name.capitalize()


def _fields(rec: dict[str, Any]) -> dict[str, Any]:
    f = rec.get("fields")
    return f if isinstance(f, dict) else {}


def _activity_dates(rec: dict[str, Any]) -> list[dt.date]:
    dates = [parse_date(rec.get("created")), parse_date(rec.get("updated"))]
    for entry in rec.get("log") or []:
        if isinstance(entry, dict):
            dates.append(parse_date(entry.get("date")))
    return [d for d in dates if d is not None]


def _last_activity(rec: dict[str, Any], until: dt.date) -> dt.date | None:
    dates = [d for d in _activity_dates(rec) if d <= until]
    return max(dates) if dates else None


def _list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    return [str(value).strip()]


def _status(rec: dict[str, Any]) -> str:
    return str(_fields(rec).get("status") or rec.get("status") or "").strip().lower()


def _admin_open(rec: dict[str, Any]) -> bool:
    return _status(rec) not in CLOSED_STATUSES


def _admin_note(rec: dict[str, Any], day: dt.date) -> str:
    f = _fields(rec)
    parts = []
    due = parse_date(f.get("due"))
    if due is not None:
        if due < day:
            parts.append(f"overdue since {due.isoformat()}")
        elif due == day:
            parts.append("due today")
        else:
            parts.append(f"due {due.isoformat()}")
    if f.get("priority"):
        parts.append(str(f["priority"]))
    status = _status(rec)
    if status and status != "open":
        parts.append(status)
    return " · ".join(parts)


def _admin_sort_key(rec: dict[str, Any]) -> tuple[Any, ...]:
    f = _fields(rec)
    due = parse_date(f.get("due")) or dt.date.max
    prio = _PRIORITY_ORDER.get(str(f.get("priority") or "").lower(), 1)
    return (due, prio, str(rec.get("title") or ""))


def _new_verb(type_name: str, role: str | None, rec: dict[str, Any] | None) -> tuple[str, str]:
    """How a digest words "this record was created": (verb, note)."""
    if role == "person":
        return "New person added", ""
    if role == "project":
        status = _status(rec or {})
        return "New project started", status
    if role == "admin":
        due = parse_date(_fields(rec or {}).get("due"))
        if due is not None:
            return "Action due", due.isoformat()
        return "New action", ""
    if role == "idea":
        return "New idea", ""
    return f"New {type_name} added", ""


def _captures_in(app: Brain, start: dt.date, end: dt.date) -> list[dict[str, Any]]:
    out = []
    for rec in app.store.collection("inbox").all():
        created = parse_date(rec.get("created"))
        if created is None or not start <= created <= end:
            continue
        if rec.get("status") == "dismissed":
            continue
        out.append(rec)
    out.sort(key=lambda r: (str(r.get("created") or ""), int(r.get("ordinal") or 0)))
    return out


def _review_counts(app: Brain) -> tuple[int, int]:
    waiting = pending = 0
    for summary in app.store.collection("inbox").summaries():
        status = summary.get("status")
        if status in REVIEW_STATUSES:
            waiting += 1
        elif status == "pending":
            pending += 1
    return waiting, pending


def _destination_refs(rec: dict[str, Any], records: _Records) -> tuple[Ref, ...]:
    refs: list[Ref] = []
    for d in rec.get("destinations") or []:
        if not isinstance(d, dict):
            continue
        # The record may have been renamed since it was filed: its id says where it is now.
        current = records.by_id.get(str(d.get("record_id") or ""))
        if current is not None:
            refs.append(current)
        elif d.get("title"):
            refs.append(Ref(str(d.get("type") or ""), str(d["title"]), d.get("path") or None))
    return tuple(_unique(refs))


def _unique(refs: Iterable[Ref]) -> list[Ref]:
    seen: set[tuple[str | None, str]] = set()
    out = []
    for r in refs:
        key = (r.target, r.title) if r.target else (None, r.title)
        if key in seen:
            continue
        seen.add(key)
        out.append(r)
    return out


# -- the daily digest ---------------------------------------------------------------------------


def collect_daily(app: Brain, day: dt.date) -> DailyFacts:
    """What happened on ``day`` and what is coming up, from the store."""
    records = _Records(app)
    facts = DailyFacts(day=day)
    role_of = {name: role for role, name in records.role.items() if name}

    captures = _captures_in(app, day, day)
    for rec in captures:
        facts.captures.append(
            Capture(
                id=str(rec.get("id")),
                text=str(rec.get("text") or "").strip(),
                time=_time_of(rec.get("created")),
                status=str(rec.get("status") or ""),
                destinations=_destination_refs(rec, records),
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
                verb, note = _new_verb(ref.type, role_of.get(ref.type), filed)
                add(verb, ref, note)
    for type_name, recs in records.by_type.items():
        role = role_of.get(type_name)
        for rec in sorted(recs, key=lambda r: str(r.get("created") or "")):
            ref = records.ref(rec, type_name)
            if parse_date(rec.get("created")) == day:
                verb, note = _new_verb(type_name, role, rec)
                add(verb, ref, note)
            if parse_date(rec.get("updated")) == day and _status(rec) in CLOSED_STATUSES:
                add("Done" if role != "project" else "Project completed", ref)

    # Projects with recent activity.
    recent_from = day - dt.timedelta(days=RECENT_DAYS - 1)
    projects = []
    for rec in records.of("project"):
        last = _last_activity(rec, day)
        if last is None or last < recent_from:
            continue
        f = _fields(rec)
        parts = [p for p in (_status(rec), _first(f.get("next_actions"), "next: ")) if p]
        if last != day:
            parts.append(f"last activity {last.isoformat()}")
        projects.append((last, Item(records.ref(rec), " · ".join(parts), last.isoformat())))
    projects.sort(key=lambda p: (-p[0].toordinal(), p[1].ref.title.lower()))
    facts.projects = [item for _, item in projects]

    # People interacted with on the day.
    for rec in sorted(records.of("person"), key=_title_key):
        f = _fields(rec)
        met = parse_date(f.get("last_interaction")) == day or any(
            isinstance(e, dict) and parse_date(e.get("date")) == day for e in rec.get("log") or []
        )
        if met:
            facts.people.append(Item(records.ref(rec), _first(f.get("follow_ups"), "follow up: ")))

    # Admin due within the week, and overdue.
    soon_until = day + dt.timedelta(days=DUE_SOON_DAYS)
    for rec in sorted(records.of("admin"), key=_admin_sort_key):
        if not _admin_open(rec):
            continue
        due = parse_date(_fields(rec).get("due"))
        if due is None:
            continue
        item = Item(records.ref(rec), _admin_note(rec, day), due.isoformat())
        if due < day:
            facts.admin_overdue.append(item)
        elif due <= soon_until:
            facts.admin_due.append(item)

    # Ideas ready for next steps: explored or validated, not yet implemented.
    ideas = []
    for rec in records.of("idea"):
        maturity = str(_fields(rec).get("maturity") or "").lower()
        if maturity in ("explored", "validated"):
            note = " · ".join(p for p in (maturity, str(_fields(rec).get("one_liner") or "")) if p)
            ideas.append((str(rec.get("updated") or ""), Item(records.ref(rec), note)))
    ideas.sort(key=lambda p: p[0], reverse=True)
    facts.ideas_ready = [item for _, item in ideas]

    facts.needs_review, facts.pending = _review_counts(app)
    return facts


def _first(value: Any, prefix: str = "") -> str:
    items = _list(value)
    if not items:
        return ""
    more = f" (+{len(items) - 1})" if len(items) > 1 else ""
    return f"{prefix}{items[0]}{more}"


# -- the weekly review --------------------------------------------------------------------------


def collect_weekly(app: Brain, day: dt.date) -> WeeklyFacts:
    """GTD-style facts for the seven days ending on ``day``."""
    records = _Records(app)
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
        order = _admin_sort_key if role == "admin" else _title_key
        for rec in sorted(recs, key=order):
            f = _fields(rec)
            if role == "person":
                follow = _list(f.get("follow_ups"))
                if follow:
                    items.append(Item(records.ref(rec), "; ".join(follow[:3])))
            elif role == "idea":
                maturity = str(f.get("maturity") or "raw").lower()
                if maturity not in CLOSED_STATUSES:
                    items.append(Item(records.ref(rec), maturity))
            elif role == "admin":
                if _admin_open(rec):
                    items.append(Item(records.ref(rec), _admin_note(rec, day)))
            elif "status" in t.fields or "status" in f:
                status = _status(rec)
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
            status = _status(rec)
            maturity = str(_fields(rec).get("maturity") or "").lower()
            if role == "project" and status in CLOSED_STATUSES:
                facts.accomplishments.append(Action("Project completed", ref))
            elif role == "idea" and maturity in ("validated", "implemented"):
                facts.accomplishments.append(Action(f"Idea {maturity}", ref))
            elif role != "project" and role != "idea" and status in CLOSED_STATUSES:
                note = str(_fields(rec).get("completion_notes") or "")
                facts.accomplishments.append(Action("Done", ref, note))

    # Projects to review: no activity for a week, or no next action.
    stale_before = day - dt.timedelta(days=STALE_DAYS - 1)
    for rec in sorted(records.of("project"), key=_title_key):
        status = _status(rec)
        if status in CLOSED_STATUSES:
            continue
        reasons = []
        if not _list(_fields(rec).get("next_actions")):
            reasons.append("needs next actions")
        last = _last_activity(rec, day)
        if last is None:
            reasons.append("no recorded activity")
        elif last < stale_before:
            reasons.append(f"no activity for {(day - last).days} days (since {last.isoformat()})")
        if reasons:
            label = f"{status} · " if status else ""
            facts.projects_to_review.append(Item(records.ref(rec), label + "; ".join(reasons)))

    # People to follow up: their own follow-ups, and open admin items that name them.
    admin_open = [r for r in records.of("admin") if _admin_open(r)]
    about = _AdminIndex(admin_open)
    people = [(rec, records.ref(rec)) for rec in sorted(records.of("person"), key=_title_key)]
    concerning = {id(rec): about.concerning(ref) for rec, ref in people}
    # "Email Ann Lee" concerns Ann Lee, not also Ann: the longest matching name wins.
    named: dict[int, list[str]] = {}
    for rec, ref in people:
        for a in concerning[id(rec)]:
            named.setdefault(id(a), []).append(ref.title.lower())
    for rec, ref in people:
        notes = _list(_fields(rec).get("follow_ups"))
        mine = ref.title.lower()
        scheduled = [
            a
            for a in concerning[id(rec)]
            if not any(mine != other and mine in other for other in named[id(a)])
        ]
        parts = list(notes[:3])
        for a in sorted(scheduled, key=_admin_sort_key)[:2]:
            due = parse_date(_fields(a).get("due"))
            when = f" (due {due.isoformat()})" if due else ""
            parts.append(f"follow-up scheduled: {records.ref(a).link}{when}")
        if parts:
            facts.people_to_follow_up.append(Item(ref, "; ".join(parts)))

    # Ideas to explore: still raw or explored, newest first.
    ideas = []
    for rec in records.of("idea"):
        f = _fields(rec)
        maturity = str(f.get("maturity") or "raw").lower()
        if maturity in ("raw", "explored"):
            note = " · ".join(p for p in (maturity, str(f.get("one_liner") or "")) if p)
            ideas.append((str(rec.get("created") or ""), Item(records.ref(rec), note)))
    ideas.sort(key=lambda p: p[0], reverse=True)
    facts.ideas_to_explore = [item for _, item in ideas]

    # Admin to address: every open item, overdue and soonest first.
    for rec in sorted(admin_open, key=_admin_sort_key):
        facts.admin_to_address.append(
            Item(records.ref(rec), _admin_note(rec, day) or "no due date")
        )

    facts.captures = len(_captures_in(app, start, day))
    facts.needs_review, facts.pending = _review_counts(app)
    return facts


def _title_key(rec: dict[str, Any]) -> str:
    return str(rec.get("title") or "").lower()


_WORD = re.compile(r"\w+")
_LINK_TARGET = re.compile(r"\[\[([^\]|#]+)")


class _AdminIndex:
    """Open admin items by the words of their titles and the targets of their links.

    Looking a person up here costs a few dict hits, where testing every person against every
    admin item would be quadratic (2,500 people x 2,500 items on a 10,000-record store).
    """

    def __init__(self, admin: list[dict[str, Any]]) -> None:
        self.by_word: dict[str, list[dict[str, Any]]] = {}
        self.by_target: dict[str, list[dict[str, Any]]] = {}
        for rec in admin:
            for word in set(_WORD.findall(str(rec.get("title") or "").lower())):
                self.by_word.setdefault(word, []).append(rec)
            related = " ".join(_list(_fields(rec).get("related")))
            for target in _LINK_TARGET.findall(related):
                key = target.strip().lower().removesuffix(".md")
                self.by_target.setdefault(key, []).append(rec)
                self.by_target.setdefault(key.rsplit("/", 1)[-1], []).append(rec)

    def concerning(self, person: Ref) -> list[dict[str, Any]]:
        candidates: dict[int, dict[str, Any]] = {}
        words = _WORD.findall(person.title.lower())
        if words:
            # Every word of the name must be in the title: the rarest one narrows it most.
            rarest = min((self.by_word.get(w, []) for w in words), key=len)
            for rec in rarest:
                candidates[id(rec)] = rec
        for key in {(person.target or "").lower(), person.title.lower()}:
            for rec in self.by_target.get(key, []):
                candidates[id(rec)] = rec
        return [rec for rec in candidates.values() if _mentions(rec, person)]


def _mentions(admin: dict[str, Any], person: Ref) -> bool:
    """Does an admin item concern this person: a related link to them, or their name in it?"""
    related = " ".join(_list(_fields(admin).get("related")))
    for target in _LINK_TARGET.findall(related):
        key = target.strip().lower().removesuffix(".md")
        if key == (person.target or "").lower() or key == person.title.lower():
            return True
    title = str(admin.get("title") or "")
    return bool(re.search(rf"\b{re.escape(person.title)}\b", title, re.IGNORECASE))
