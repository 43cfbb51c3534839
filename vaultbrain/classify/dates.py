"""Relative and absolute due dates in English thoughts ("tomorrow", "next week", "by Friday").

A small parser of our own: dateparser covers far more languages than an inbox line needs and
costs a third of a second to import, which the capture command's cold start cannot afford.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

_WEEKDAYS = {
    name: i
    for i, name in enumerate(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    )
}
_WEEKDAY_ABBR = {
    "mon": 0,
    "tue": 1,
    "tues": 1,
    "wed": 2,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "fri": 4,
    "sat": 5,
    "sun": 6,
}
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_RE = "|".join(sorted([*_WEEKDAYS, *_WEEKDAY_ABBR], key=len, reverse=True))
_NUM_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "iso"),
    (re.compile(r"\b(?:the\s+)?day after tomorrow\b", re.I), "dat"),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I), "today"),
    (re.compile(r"\b(?:tomorrow|tmrw|tmr|tmrow|2moro)\b", re.I), "tomorrow"),
    (re.compile(r"\b(?:end of (?:the|this) week|this week)\b", re.I), "eow"),
    (re.compile(r"\b(?:end of (?:the|this) month|this month)\b", re.I), "eom"),
    (re.compile(r"\bnext week\b", re.I), "nextweek"),
    (re.compile(r"\bnext month\b", re.I), "nextmonth"),
    (re.compile(r"\bnext year\b", re.I), "nextyear"),
    (
        re.compile(
            r"\bin\s+(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)\s+(day|week|month)s?\b",
            re.I,
        ),
        "in",
    ),
    (
        re.compile(rf"\b(?:(next|this|on|by|before|until|till)\s+)?({_DAY_RE})\b\.?", re.I),
        "weekday",
    ),
    (
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?(?:,?\s+(\d{{4}}))?\b",
            re.I,
        ),
        "dmy",
    ),
    (
        re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I),
        "mdy",
    ),
]


def _add_months(d: dt.date, n: int) -> dt.date:
    month = d.month - 1 + n
    year = d.year + month // 12
    month = month % 12 + 1
    day = min(d.day, calendar.monthrange(year, month)[1])
    return dt.date(year, month, day)


def _safe_date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


_ANY = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _PATTERNS), re.I)


def mentions_date(text: str) -> bool:
    """Whether ``text`` has anything like a date phrase: one search, for a classifier's hint
    (a weekday abbreviation counts here even where :func:`find_date` wants a cue)."""
    return _ANY.search(text) is not None


def find_date(text: str, today: dt.date) -> tuple[dt.date, str] | None:
    """The first date the text names, resolved against ``today``, with the words that named it."""
    best: tuple[int, dt.date, str] | None = None
    for pattern, kind in _PATTERNS:
        for m in pattern.finditer(text):
            d = _resolve(kind, m, today)
            if d is not None and (best is None or m.start() < best[0]):
                best = (m.start(), d, m.group(0))
            if d is not None:
                break
    return (best[1], best[2]) if best else None


def _resolve(kind: str, m: re.Match[str], today: dt.date) -> dt.date | None:
    if kind == "iso":
        return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if kind == "today":
        return today
    if kind == "tomorrow":
        return today + dt.timedelta(days=1)
    if kind == "dat":
        return today + dt.timedelta(days=2)
    if kind == "eow":
        return today + dt.timedelta(days=(4 - today.weekday()) % 7)
    if kind == "eom":
        return dt.date(today.year, today.month, calendar.monthrange(today.year, today.month)[1])
    if kind == "nextweek":
        return today + dt.timedelta(days=7)
    if kind == "nextmonth":
        return _add_months(today, 1)
    if kind == "nextyear":
        return _add_months(today, 12)
    if kind == "in":
        raw = m.group(1).lower()
        raw = raw[2:] if raw.startswith("a ") else raw
        n = int(raw) if raw.isdigit() else _NUM_WORDS.get(raw, 1)
        unit = m.group(2).lower()
        if unit == "day":
            return today + dt.timedelta(days=n)
        if unit == "week":
            return today + dt.timedelta(days=7 * n)
        return _add_months(today, n)
    if kind == "weekday":
        word = m.group(2).lower()
        target = _WEEKDAYS.get(word, _WEEKDAY_ABBR.get(word))
        if target is None:
            return None
        # "sat"/"sun"/"wed" alone are too often ordinary words; need a cue or a full name
        if word in _WEEKDAY_ABBR and not m.group(1):
            return None
        ahead = (target - today.weekday()) % 7 or 7
        # "next Friday" said on a Monday means this coming Friday, as most people mean it.
        return today + dt.timedelta(days=ahead)
    if kind in ("dmy", "mdy"):
        if kind == "dmy":
            day, month, year = int(m.group(1)), _MONTHS[m.group(2).lower().rstrip(".")], m.group(3)
        else:
            month, day, year = _MONTHS[m.group(1).lower().rstrip(".")], int(m.group(2)), m.group(3)
        if year:
            return _safe_date(int(year), month, day)
        d = _safe_date(today.year, month, day)
        if d is not None and d < today:
            d = _safe_date(today.year + 1, month, day)
        return d
    return None
