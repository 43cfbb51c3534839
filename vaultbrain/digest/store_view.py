"""The store as the digest reads it: every live record of the pack's types loaded once
(:class:`StoreView`), with the roles a digest names (``person``, ``project``, ``idea``,
``admin`` by name or alias), and the small readings of a record (its status, due date,
last activity, the captures of a span of days). Read-only; used by
``vaultbrain/digest/facts.py``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import WAITING_FOR_PERSON, CaptureStatus
from vaultbrain.packs import PageType

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

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
REVIEW_STATUSES = WAITING_FOR_PERSON
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


def link_alias(title: str) -> str:
    """A title safe inside ``[[target|alias]]``: no pipes, no brackets, one line."""
    text = re.sub(r"\s+", " ", str(title)).strip()
    return text.replace("|", "-").replace("[", "(").replace("]", ")") or "untitled"


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


def time_of(value: Any) -> str:
    if isinstance(value, str) and len(value) >= 16 and value[10] in "T ":
        return value[11:16]
    return ""


class StoreView:
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


def fields_of(rec: dict[str, Any]) -> dict[str, Any]:
    f = rec.get("fields")
    return f if isinstance(f, dict) else {}


def activity_dates(rec: dict[str, Any]) -> list[dt.date]:
    dates = [parse_date(rec.get("created")), parse_date(rec.get("updated"))]
    for entry in rec.get("log") or []:
        if isinstance(entry, dict):
            dates.append(parse_date(entry.get("date")))
    return [d for d in dates if d is not None]


def last_activity(rec: dict[str, Any], until: dt.date) -> dt.date | None:
    dates = [d for d in activity_dates(rec) if d <= until]
    return max(dates) if dates else None


def as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    return [str(value).strip()]


def status_of(rec: dict[str, Any]) -> str:
    return str(fields_of(rec).get("status") or rec.get("status") or "").strip().lower()


def is_open_admin(rec: dict[str, Any]) -> bool:
    return status_of(rec) not in CLOSED_STATUSES


def admin_note(rec: dict[str, Any], day: dt.date) -> str:
    f = fields_of(rec)
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
    status = status_of(rec)
    if status and status != "open":
        parts.append(status)
    return " · ".join(parts)


def admin_sort_key(rec: dict[str, Any]) -> tuple[Any, ...]:
    f = fields_of(rec)
    due = parse_date(f.get("due")) or dt.date.max
    prio = _PRIORITY_ORDER.get(str(f.get("priority") or "").lower(), 1)
    return (due, prio, str(rec.get("title") or ""))


def new_verb(type_name: str, role: str | None, rec: dict[str, Any] | None) -> tuple[str, str]:
    """How a digest words "this record was created": (verb, note)."""
    if role == "person":
        return "New person added", ""
    if role == "project":
        status = status_of(rec or {})
        return "New project started", status
    if role == "admin":
        due = parse_date(fields_of(rec or {}).get("due"))
        if due is not None:
            return "Action due", due.isoformat()
        return "New action", ""
    if role == "idea":
        return "New idea", ""
    return f"New {type_name} added", ""


def captures_in(app: Brain, start: dt.date, end: dt.date) -> list[dict[str, Any]]:
    out = []
    for rec in app.store.collection("inbox").all():
        created = parse_date(rec.get("created"))
        if created is None or not start <= created <= end:
            continue
        if CaptureStatus.of(rec.get("status")) is CaptureStatus.DISMISSED:
            continue
        out.append(rec)
    out.sort(key=lambda r: (str(r.get("created") or ""), int(r.get("ordinal") or 0)))
    return out


def review_counts(app: Brain) -> tuple[int, int]:
    waiting = pending = 0
    for summary in app.store.collection("inbox").summaries():
        status = CaptureStatus.of(summary.get("status"))
        if status in REVIEW_STATUSES:
            waiting += 1
        elif status is CaptureStatus.PENDING:
            pending += 1
    return waiting, pending


def destination_refs(rec: dict[str, Any], records: StoreView) -> tuple[Ref, ...]:
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
    return tuple(unique_refs(refs))


def unique_refs(refs: Iterable[Ref]) -> list[Ref]:
    seen: set[tuple[str | None, str]] = set()
    out = []
    for r in refs:
        key = (r.target, r.title) if r.target else (None, r.title)
        if key in seen:
            continue
        seen.add(key)
        out.append(r)
    return out


def first_of(value: Any, prefix: str = "") -> str:
    items = as_list(value)
    if not items:
        return ""
    more = f" (+{len(items) - 1})" if len(items) > 1 else ""
    return f"{prefix}{items[0]}{more}"


def title_key(rec: dict[str, Any]) -> str:
    return str(rec.get("title") or "").lower()


_WORD = re.compile(r"\w+")
_LINK_TARGET = re.compile(r"\[\[([^\]|#]+)")


class AdminIndex:
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
            related = " ".join(as_list(fields_of(rec).get("related")))
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
        return [rec for rec in candidates.values() if mentions(rec, person)]


def mentions(admin: dict[str, Any], person: Ref) -> bool:
    """Does an admin item concern this person: a related link to them, or their name in it?"""
    related = " ".join(as_list(fields_of(admin).get("related")))
    for target in _LINK_TARGET.findall(related):
        key = target.strip().lower().removesuffix(".md")
        if key == (person.target or "").lower() or key == person.title.lower():
            return True
    title = str(admin.get("title") or "")
    return bool(re.search(rf"\b{re.escape(person.title)}\b", title, re.IGNORECASE))
