"""Standard 5-field cron expressions, converted to APScheduler 3 triggers.

People write schedules the way ``crontab(5)`` reads them: ``minute hour day-of-month month
day-of-week``, local time, day-of-week 0 and 7 both Sunday, names (``jan``, ``mon``…) in any
case, lists, ranges and steps. APScheduler's ``CronTrigger`` differs in two ways that would
silently move a job: its numeric day-of-week counts from Monday (0 = Monday), and it ANDs
day-of-month with day-of-week where cron ORs them when both are restricted. So each field is
parsed here into the set of values it allows, day-of-week is handed to APScheduler as names,
and a "both restricted" expression becomes an ``OrTrigger`` of two cron triggers.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from apscheduler.triggers.combining import OrTrigger
from apscheduler.triggers.cron import CronTrigger

from vaultbrain.errors import UserError

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
# APScheduler's own names, indexed by standard cron's number (0 = Sunday).
_APS_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


@dataclass(frozen=True)
class _FieldSpec:
    name: str
    low: int
    high: int
    names: dict[str, int]


_FIELDS = (
    _FieldSpec("minute", 0, 59, {}),
    _FieldSpec("hour", 0, 23, {}),
    _FieldSpec("day-of-month", 1, 31, {}),
    _FieldSpec("month", 1, 12, {n: i + 1 for i, n in enumerate(_MONTHS)}),
    # 7 is accepted as Sunday and folded onto 0 after parsing.
    _FieldSpec("day-of-week", 0, 7, {n: i for i, n in enumerate(_DAYS)}),
)


@dataclass(frozen=True)
class CronExpr:
    """A parsed standard cron expression: the values each field allows."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday … 6 = Saturday
    day_star: bool
    weekday_star: bool

    @classmethod
    def parse(cls, text: str) -> CronExpr:
        """Parse ``text``; a UserError names the field that is wrong."""
        if not isinstance(text, str):
            raise UserError(f"not a cron expression: {text!r}")
        parts = text.split()
        if len(parts) != 5:
            raise UserError(
                f"{text!r} is not a 5-field cron expression "
                "(minute hour day-of-month month day-of-week, e.g. '0 18 * * *')"
            )
        sets = [_parse_field(p, spec, text) for p, spec in zip(parts, _FIELDS, strict=True)]
        weekdays = frozenset(d % 7 for d in sets[4])
        expr = cls(
            text=" ".join(parts),
            minutes=sets[0],
            hours=sets[1],
            days=sets[2],
            months=sets[3],
            weekdays=weekdays,
            # crontab(5): the OR rule applies when a field *begins* with "*", so "*/2" counts
            # as unrestricted for this purpose, just like Vixie cron.
            day_star=parts[2].startswith("*"),
            weekday_star=parts[4].startswith("*"),
        )
        if not expr._possible():
            raise UserError(f"{text!r} never fires (no month has that day)")
        return expr

    def _possible(self) -> bool:
        if not self.day_star and not self.weekday_star:
            return True  # OR: any weekday match will do
        longest = {
            1: 31,
            2: 29,
            3: 31,
            4: 30,
            5: 31,
            6: 30,
            7: 31,
            8: 31,
            9: 30,
            10: 31,
            11: 30,
            12: 31,
        }
        return any(min(self.days) <= longest[m] for m in self.months)

    # -- APScheduler ------------------------------------------------------------------------
    def trigger(self, tz: dt.tzinfo) -> CronTrigger | OrTrigger:
        """The APScheduler 3 trigger that fires exactly when this expression does."""
        common: dict[str, Any] = {
            "minute": _aps_list(self.minutes, 0, 59),
            "hour": _aps_list(self.hours, 0, 23),
            "month": _aps_list(self.months, 1, 12),
            "second": "0",
            "timezone": tz,
        }
        day = _aps_list(self.days, 1, 31)
        weekday = self._aps_weekdays()
        if self.day_star or self.weekday_star:
            # One side unrestricted: cron's rule reduces to AND, which APScheduler does.
            return CronTrigger(day=day, day_of_week=weekday, **common)
        return OrTrigger(
            [
                CronTrigger(day=day, day_of_week="*", **common),
                CronTrigger(day="*", day_of_week=weekday, **common),
            ]
        )

    def _aps_weekdays(self) -> str:
        if len(self.weekdays) == 7:
            return "*"
        # Names, never numbers: APScheduler's 0 is Monday, cron's is Sunday.
        return ",".join(_APS_DAYS[d] for d in sorted(self.weekdays))

    # -- fire times -------------------------------------------------------------------------
    def next_after(self, when: dt.datetime, tz: dt.tzinfo) -> dt.datetime | None:
        """The first fire time strictly after ``when`` (aware, in ``tz``)."""
        when = _aware(when, tz)
        return self.trigger(tz).get_next_fire_time(None, when + dt.timedelta(microseconds=1))

    def last_between(
        self, after: dt.datetime, until: dt.datetime, tz: dt.tzinfo
    ) -> dt.datetime | None:
        """The latest fire time in ``(after, until]``, or None when there is none.

        Searched through growing windows that end at ``until``, so a schedule that fires every
        minute and a laptop that was off for a month cost a few hundred steps, not 40,000.
        """
        after, until = _aware(after, tz), _aware(until, tz)
        if until <= after:
            return None
        trigger = self.trigger(tz)
        for window in _WINDOWS:
            start = max(after, until - window)
            fire = trigger.get_next_fire_time(None, start + dt.timedelta(microseconds=1))
            if fire is None or fire > until:
                if start == after:
                    return None
                continue
            latest = fire
            while True:
                fire = trigger.get_next_fire_time(None, latest + dt.timedelta(microseconds=1))
                if fire is None or fire > until:
                    return latest
                latest = fire
        return None

    def describe(self) -> str:
        """A short human reading for the common shapes, else the expression itself."""
        if len(self.minutes) == 1 and len(self.hours) == 1 and len(self.months) == 12:
            at = f"{next(iter(self.hours)):02d}:{next(iter(self.minutes)):02d}"
            if len(self.days) == 31 and len(self.weekdays) == 7:
                return f"every day at {at}"
            if len(self.days) == 31:
                names = ", ".join(
                    _DAYS[d].capitalize() for d in sorted(self.weekdays, key=_monday_first)
                )
                return f"{names} at {at}"
        return self.text


_WINDOWS = (
    dt.timedelta(hours=1),
    dt.timedelta(days=1),
    dt.timedelta(days=32),
    dt.timedelta(days=367),
    dt.timedelta(days=367 * 30),
)


def _monday_first(day: int) -> int:
    return (day - 1) % 7


def _aware(when: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    """Naive datetimes are local wall-clock time in ``tz``."""
    if when.tzinfo is None:
        return when.replace(tzinfo=tz)
    return when.astimezone(tz)


def _aps_list(values: frozenset[int], low: int, high: int) -> str:
    if len(values) == high - low + 1:
        return "*"
    return ",".join(str(v) for v in sorted(values))


def _parse_field(part: str, spec: _FieldSpec, text: str) -> frozenset[int]:
    values: set[int] = set()
    for item in part.split(","):
        if not item:
            raise UserError(f"{text!r}: empty list item in the {spec.name} field")
        values |= _parse_item(item, spec, text)
    return frozenset(values)


def _parse_item(item: str, spec: _FieldSpec, text: str) -> set[int]:
    base, slash, step_text = item.partition("/")
    step = 1
    if slash:
        if not step_text.isdigit() or int(step_text) < 1:
            raise UserError(f"{text!r}: bad step {step_text!r} in the {spec.name} field")
        step = int(step_text)
    if base == "*":
        low, high = spec.low, spec.high
        if spec.name == "day-of-week":
            high = 6  # "*" is Sunday to Saturday once, not Sunday twice
    elif "-" in base:
        a, b = base.split("-", 1)
        low, high = _value(a, spec, text), _value(b, spec, text)
        if high < low:
            raise UserError(f"{text!r}: the range {base!r} in the {spec.name} field runs backwards")
    else:
        low = _value(base, spec, text)
        # "5/15" is the common extension for "5-max/15".
        high = low
        if slash:
            high = 6 if spec.name == "day-of-week" else spec.high
    return set(range(low, high + 1, step))


def _value(token: str, spec: _FieldSpec, text: str) -> int:
    low = token.lower()
    if low in spec.names:
        return spec.names[low]
    if not token.isdigit():
        hint = ""
        if spec.names:
            hint = f" (use numbers or names such as {', '.join(list(spec.names)[:3])})"
        raise UserError(f"{text!r}: {token!r} is not valid in the {spec.name} field{hint}")
    value = int(token)
    if not spec.low <= value <= spec.high:
        raise UserError(
            f"{text!r}: {value} is out of range in the {spec.name} field ({spec.low}-{spec.high})"
        )
    return value


def schedules_without_next_run(
    schedules: Mapping[str, Any], now: dt.datetime | None = None
) -> list[str]:
    """One line per schedule (setting name → cron text) that will never run again: it does
    not parse, or it has no fire time after ``now``. ``settings set`` refuses these; a
    settings file written before that check, or by hand, can still hold one (``doctor``)."""
    tz = dt.datetime.now().astimezone().tzinfo or dt.UTC
    now = now or dt.datetime.now(tz)
    problems = []
    for name, text in schedules.items():
        try:
            expr = CronExpr.parse(text)
        except UserError as exc:
            problems.append(f"{name}: {exc}")
            continue
        if expr.next_after(now, tz) is None:
            problems.append(f"{name}: {expr.text!r} has no next run")
    return problems
