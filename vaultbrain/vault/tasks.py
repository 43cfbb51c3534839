"""Obsidian Tasks lines: parse one, render one, find a note's, and compute a recurrence.

A Tasks line is a Markdown checkbox (``- [ ] …``) whose description is followed by signifier
emoji, read the way Tasks' ``DefaultTaskSerializer`` reads them: fields are matched and
removed from the *end* of the line, in any order, until none is left (trailing ``#tags``
stay part of the description). Written back, fields come in Tasks' own order (its
``TaskLayoutComponent`` order): description, 🆔, ⛔, priority, 🔁, 🏁, ➕, 🛫, ⏳, 📅, ❌, ✅,
then the block link, so a line Tasks wrote and vaultbrain rewrote reads the same in both.

Recurrence follows Tasks' ``Recurrence.ts`` for the common rules (``every day``,
``every 3 days``, ``every week``, ``every 2 weeks``, ``every weekday``,
``every week on Monday``, ``every month``, ``every year``, each optionally ``when done``):
the reference date is the due date, else the scheduled date, else the start date; the next
occurrence is the rule's first date after it (after the completion day for ``when done``),
a month or year that has no such day ends on its last day (31 Jan → 28 Feb), and the other
dates keep their distance to the reference date; the new occurrence loses its 🆔 and ⛔.
A next occurrence past the calendar's end (``🔁 every 9999 years`` from 9000-01-01,
``every day`` from 9999-12-31) is :class:`PastTheCalendar`, a ValueError saying so in one
line: the caller marks the task, and every other task goes on.
This module is pure: no files, no clock.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from vaultbrain.patterns import LazyPattern

PRIORITY_EMOJI = {"highest": "🔺", "high": "⏫", "medium": "🔼", "low": "🔽", "lowest": "⏬"}
_EMOJI_PRIORITY = {v: k for k, v in PRIORITY_EMOJI.items()}
# Every emoji Tasks reads as a field (and the alternatives it accepts for due and scheduled).
SIGNIFIERS = "🔺⏫🔼🔽⏬📅📆🗓🛫⏳⌛✅❌🔁🏁🆔⛔➕"
STATUS_DONE = "x"
STATUS_CANCELLED = "-"
STATUS_TODO = " "
STATUS_IN_PROGRESS = "/"

_D = r"(\d{4}-\d{2}-\d{2})"
_ID = r"[a-zA-Z0-9_-]+"
# Tasks' task regex: indentation (and callout/quote markers), a list marker, a checkbox.
_TASK = LazyPattern(r"^([\s>]*)([-*+]|[0-9]+[.)])( +)\[(.)\] *(.*?)\s*$", re.U)
_BLOCK_LINK = LazyPattern(r" \^[a-zA-Z0-9-]+$")
# Tasks' ``DefaultTaskSerializer`` field regexes (its ``fieldRegex``): the emoji, an optional
# variation selector U+FE0F, any number of spaces, the value, and the end of the text.
_VS = "\ufe0f?"
_FIELDS: list[tuple[str, str]] = [
    ("priority", "(🔺|⏫|🔼|🔽|⏬)" + _VS + "$"),
    ("done", "✅" + _VS + " *" + _D + "$"),
    ("cancelled", "❌" + _VS + " *" + _D + "$"),
    ("due", "(?:📅|📆|🗓)" + _VS + " *" + _D + "$"),
    ("scheduled", "(?:⏳|⌛)" + _VS + " *" + _D + "$"),
    ("start", "🛫" + _VS + " *" + _D + "$"),
    ("created", "➕" + _VS + " *" + _D + "$"),
    ("recurrence", "🔁" + _VS + " *([a-zA-Z0-9, !]+)$"),
    ("on_completion", "🏁" + _VS + " *([a-zA-Z]+)$"),
    ("tags", r"(?:^|\s)#[^ !@#$%^&*(),.?\":{}|<>]+$"),
    ("id", "🆔" + _VS + " *(" + _ID + ")$"),
    ("depends_on", "⛔" + _VS + " *(" + _ID + "(?: *, *" + _ID + " *)*)$"),
]
_FENCE = LazyPattern(r"^\s*(```|~~~)")


@functools.cache
def _field_searches() -> tuple[tuple[str, Callable[[str], re.Match[str] | None]], ...]:
    """``_FIELDS`` compiled when the first task line is read, each search bound once: the
    loop below calls them a dozen times a line."""
    return tuple((name, re.compile(source).search) for name, source in _FIELDS)


@dataclass
class TaskLine:
    """One Tasks line, as Tasks understands it."""

    description: str
    status: str = STATUS_TODO
    indent: str = ""
    marker: str = "-"
    gap: str = " "  # the spaces after the marker, kept as the person typed them
    priority: str | None = None  # highest | high | medium | low | lowest
    recurrence: str | None = None
    on_completion: str | None = None
    created: str | None = None
    start: str | None = None
    scheduled: str | None = None
    due: str | None = None
    cancelled: str | None = None
    done: str | None = None
    id: str | None = None
    depends_on: list[str] = field(default_factory=list)
    block_link: str = ""

    @property
    def is_done(self) -> bool:
        return self.status.lower() == STATUS_DONE

    @property
    def is_closed(self) -> bool:
        """Done or cancelled: what Tasks' ``not done`` filter leaves out."""
        return self.status.lower() == STATUS_DONE or self.status == STATUS_CANCELLED


def parse_task_line(line: str) -> TaskLine | None:
    """The task on ``line``, or None when it is not a checkbox list item."""
    m = _TASK.match(line.rstrip("\r\n"))
    if not m:
        return None
    task = TaskLine("", m.group(4), m.group(1), m.group(2), m.group(3))
    rest = m.group(5)
    bl = _BLOCK_LINK.search(rest)
    if bl:
        task.block_link = bl.group(0)
        rest = rest[: bl.start()]
    values, task.description = read_fields(rest)
    for name, value in values.items():
        setattr(task, name, value)
    return task


def read_fields(text: str) -> tuple[dict[str, Any], str]:
    """Tasks' fields at the end of ``text`` and the description left, as Tasks'
    ``DefaultTaskSerializer.deserialize`` reads them: each field regex in turn removes its
    match from the end, the whole round repeats (at most 21 times) until nothing matched, so
    fields come in any order; ``#tags`` between or after them stay in the description.
    Values: ``priority`` a name (highest … lowest), ``depends_on`` a list, the rest text."""
    values: dict[str, Any] = {}
    trailing_tags: list[str] = []
    rest = text
    fields = _field_searches()
    for _ in range(21):  # Tasks' failsafe: ``runs <= maxRuns`` with maxRuns = 20
        matched = False
        for name, search in fields:
            hit = search(rest)
            if hit is None:
                continue
            matched = True
            rest = rest[: hit.start()].strip()
            if name == "tags":
                trailing_tags.insert(0, hit.group(0).strip())
            elif name == "priority":
                values["priority"] = _EMOJI_PRIORITY[hit.group(1)]
            elif name == "depends_on":
                values["depends_on"] = [v for v in hit.group(1).replace(" ", "").split(",") if v]
            else:
                values[name] = hit.group(1).strip()
        if not matched:
            break
    description = " ".join(p for p in (rest.strip(), *trailing_tags) if p)
    return values, description


def render_task_line(task: TaskLine) -> str:
    """The line Tasks would write for ``task`` (no newline)."""
    parts = [f"{task.indent}{task.marker}{task.gap}[{task.status}] {task.description}".rstrip()]
    if task.id:
        parts.append(f"🆔 {task.id}")
    if task.depends_on:
        parts.append("⛔ " + ",".join(task.depends_on))
    if task.priority in PRIORITY_EMOJI:
        parts.append(PRIORITY_EMOJI[task.priority])
    if task.recurrence:
        parts.append(f"🔁 {task.recurrence}")
    if task.on_completion:
        parts.append(f"🏁 {task.on_completion}")
    for emoji, value in (
        ("➕", task.created),
        ("🛫", task.start),
        ("⏳", task.scheduled),
        ("📅", task.due),
        ("❌", task.cancelled),
        ("✅", task.done),
    ):
        if value:
            parts.append(f"{emoji} {value}")
    return " ".join(parts) + task.block_link


_SIGNIFIER_RE = LazyPattern("[" + SIGNIFIERS + "]\ufe0f?")


def clean_description(title: str) -> str:
    """A title as a Tasks description: no signifier emoji (they would become fields), no
    trailing ``^id`` (a block link), one line."""
    text = _SIGNIFIER_RE.sub(" ", title.replace("\n", " ").replace("\r", " "))
    text = re.compile(r"\s+\^([a-zA-Z0-9-]+)\s*$").sub(r" \1", text)
    text = re.compile(r"\s{2,}").sub(" ", text).strip()
    return text or "Task"


# -- a note's task lines -------------------------------------------------------------------


@dataclass(frozen=True)
class FoundTask:
    """A task line of a note: its index among the note's lines, and the task."""

    index: int
    task: TaskLine


def find_task_lines(lines: list[str]) -> list[FoundTask]:
    """Every checkbox line outside fenced code blocks (``lines`` as from ``splitlines``)."""
    out: list[FoundTask] = []
    fence: str | None = None
    # bound once: a LazyPattern's method, looked up in a loop, costs more than a pattern's
    fence_at = _FENCE.match
    for i, line in enumerate(lines):
        m = fence_at(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is not None:
            continue
        task = parse_task_line(line)
        if task is not None:
            out.append(FoundTask(i, task))
    return out


def task_group(found: list[FoundTask]) -> list[FoundTask]:
    """The note's Tasks line with the occurrences Tasks put beside it: the first task line,
    and the adjacent task lines (above or below) with the same 🔁 rule."""
    if not found:
        return []
    first = found[0]
    group = [first]
    rule = (first.task.recurrence or "").lower()
    if not rule:
        return group
    for ft in found[1:]:
        if ft.index == group[-1].index + 1 and (ft.task.recurrence or "").lower() == rule:
            group.append(ft)
        else:
            break
    return group


# -- recurrence ----------------------------------------------------------------------------

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
# rrule's English tokens for weekdays: "mo", "mon", "monday", "tu", "tue", "tues", "tuesday" …
_WEEKDAY_TOKEN = LazyPattern(
    r"(mo(?:n(?:day)?)?)|(tu(?:e(?:s(?:day)?)?)?)|(we(?:d(?:n(?:esday)?)?)?)"
    r"|(th(?:u(?:r(?:sday)?)?)?)|(fr(?:i(?:day)?)?)|(sa(?:t(?:urday)?)?)|(su(?:n(?:day)?)?)"
)
_UNITS = {"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month"}
_UNITS.update({"months": "month", "year": "year", "years": "year"})
_WORKWEEK = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class Rule:
    unit: str  # day | week | month | year
    interval: int = 1
    weekdays: tuple[int, ...] = ()  # 0 = Monday
    when_done: bool = False


def parse_rule(text: str) -> Rule | None:
    """A recurrence rule vaultbrain understands, or None (then the task is left to Tasks).

    The forms are rrule's (``RRule.parseText``, which Tasks uses), case-insensitive:
    ``every [N] day(s)|week(s)|month(s)|year(s)``, ``every [N] week(s) on <weekdays>``,
    ``every [N] weekday(s)``, ``every <weekdays>``, each optionally ``when done``; weekdays
    by name or rrule's abbreviations (``mon``, ``tue``, ``thu``), joined by commas,
    ``and`` or ``or``. Month days and nth weekdays (``every month on the 1st``) are Tasks'."""
    low = re.sub(r"\s+", " ", text.strip().lower())
    when_done = low.endswith(" when done")
    if when_done:
        low = low[: -len(" when done")].strip()
    if not low.startswith("every "):
        return None
    words = low[len("every ") :]
    m = re.fullmatch(r"(?:([1-9]\d*) )?weekdays?", words)
    if m:
        return Rule("week", int(m.group(1) or 1), _WORKWEEK, when_done)
    m = re.fullmatch(r"(?:([1-9]\d*) )?(days?|weeks?|months?|years?)(?: on (.+))?", words)
    if m:
        n = int(m.group(1) or 1)
        unit = _UNITS[m.group(2)]
        days: tuple[int, ...] = ()
        if m.group(3):
            if unit != "week":
                return None
            parsed = _weekdays(m.group(3))
            if parsed is None:
                return None
            days = parsed
        return Rule(unit, n, days, when_done)
    parsed = _weekdays(words)  # "every Monday", "every Monday and Thursday"
    if parsed:
        return Rule("week", 1, parsed, when_done)
    return None


def _weekdays(text: str) -> tuple[int, ...] | None:
    names = [w for w in re.split(r"\s*(?:,|\band\b|\bor\b)\s*", text) if w]
    out = []
    for name in names:
        m = _WEEKDAY_TOKEN.fullmatch(name)
        if m is None:
            return None
        out.append(m.lastindex - 1 if m.lastindex else 0)
    return tuple(sorted(set(out))) or None


_DAY_NAMES = [w.capitalize() for w in _WEEKDAYS]


def render_rule(rule: Rule) -> str:
    """The rule's text as Tasks writes it: rrule's ``toText()`` (``every week on Monday,
    Thursday``, ``every weekday``, ``every 2 weeks``), then `` when done``."""

    def plural(n: int, word: str) -> str:
        return word + ("s" if n % 100 != 1 else "")  # rrule's own rule: "every 101 day"

    n = rule.interval
    count = f"{n} " if n != 1 else ""
    if rule.unit != "week" or not rule.weekdays:
        text = f"every {count}{plural(n, rule.unit)}"
    elif rule.weekdays == _WORKWEEK:
        text = "every weekday" if n == 1 else f"every {n} {plural(n, 'week')} on weekdays"
    elif len(rule.weekdays) == 7 and n == 1:
        text = "every day"
    else:
        on = ", ".join(_DAY_NAMES[d] for d in rule.weekdays)
        text = f"every {count}{plural(n, 'week')} on {on}"
    return text + (" when done" if rule.when_done else "")


def rule_text(text: str) -> str:
    """A recurrence rule as Tasks writes it back (``every Monday`` -> ``every week on
    Monday``, ``Every 1 Day`` -> ``every day``); a rule vaultbrain does not read is kept as
    typed, spaces collapsed (Tasks rewrites it itself the next time it writes the line)."""
    rule = parse_rule(text)
    if rule is None or (rule.unit == "week" and len(rule.weekdays) == 7 and rule.interval != 1):
        return " ".join(text.split())
    return render_rule(rule)


def same_rule(a: str | None, b: str | None) -> bool:
    """Whether two rule texts mean the same recurrence (as Tasks would write them)."""
    return rule_text(a or "").lower() == rule_text(b or "").lower()


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return dt.date(year, month, min(day.day, days_in_month(year, month)))


def days_in_month(year: int, month: int) -> int:
    """``calendar.monthrange(year, month)[1]``, without importing calendar."""
    if month == 12:
        return 31
    return (dt.date(year, month + 1, 1) - dt.timedelta(days=1)).day


def next_after(rule: Rule, start: dt.date) -> dt.date:
    """The rule's first date after ``start`` (which is its first occurrence, as in RRule)."""
    if rule.unit == "day":
        return start + dt.timedelta(days=rule.interval)
    if rule.unit == "month":
        return _add_months(start, rule.interval)
    if rule.unit == "year":
        return _add_months(start, 12 * rule.interval)
    if not rule.weekdays:
        return start + dt.timedelta(weeks=rule.interval)
    # Weekly on given days: weeks start on Monday (RRule's default) and count from start's.
    monday = start - dt.timedelta(days=start.weekday())
    for wd in rule.weekdays:
        if wd > start.weekday():
            return monday + dt.timedelta(days=wd)
    return monday + dt.timedelta(weeks=rule.interval, days=rule.weekdays[0])


class PastTheCalendar(ValueError):
    """A recurrence whose next occurrence would fall after 9999-12-31 (or before 0001-01-01)."""


def next_occurrence(task: TaskLine, completed_on: dt.date) -> TaskLine | None:
    """The open task Tasks writes when ``task`` (recurring) is completed on ``completed_on``;
    None when the rule is not one vaultbrain reads. Raises :class:`PastTheCalendar` when a
    date of the next occurrence would be past the calendar's end."""
    rule = parse_rule(task.recurrence or "")
    if rule is None:
        return None
    dates = {k: _date(getattr(task, k)) for k in ("start", "scheduled", "due")}
    reference = dates["due"] or dates["scheduled"] or dates["start"]
    # As Tasks does: the new occurrence has no done/cancelled/created date, and no 🆔/⛔
    # (a duplicate id would block its dependants for ever).
    new = replace(
        task,
        status=STATUS_TODO,
        done=None,
        cancelled=None,
        created=None,
        id=None,
        depends_on=[],
        block_link="",
    )
    if reference is None:
        # No date to recur from: Tasks writes the new task without dates.
        return new
    base = completed_on if rule.when_done else reference
    try:
        nxt = next_after(rule, base)
        shifted = {k: nxt + (v - reference) for k, v in dates.items() if v is not None}
    except (OverflowError, ValueError) as exc:  # (a year past 9999, a count past any date)
        raise PastTheCalendar(
            f"🔁 {rule_text(task.recurrence or '')} after {base.isoformat()} runs past the "
            f"calendar's last day ({dt.date.max.isoformat()}): no next occurrence"
        ) from exc
    for key, value in shifted.items():
        setattr(new, key, value.isoformat())
    return new


def _date(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


__all__ = [
    "PRIORITY_EMOJI",
    "SIGNIFIERS",
    "FoundTask",
    "PastTheCalendar",
    "Rule",
    "TaskLine",
    "clean_description",
    "days_in_month",
    "find_task_lines",
    "next_after",
    "next_occurrence",
    "parse_rule",
    "parse_task_line",
    "read_fields",
    "render_rule",
    "render_task_line",
    "rule_text",
    "same_rule",
    "task_group",
]
