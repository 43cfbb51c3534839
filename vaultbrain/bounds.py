"""Values a person (or an agent) types on a command line, bounded: spans (``--since 30d``),
days (``--date 2026-12-01``, ``--since 2026-11-01``) and counts. One parser for each, used by
every command, so a value out of range (``--since 99999999d``, ``--since 1000000y``, a date
at the end of the calendar) is one clear line (a :class:`UserError`: exit 1, no traceback),
never an ``OverflowError`` from the date arithmetic behind it.

- A span is a count and a unit: ``m`` minutes, ``h`` hours, ``d`` days, ``w`` weeks, ``y``
  years (365 days); at most :data:`MAX_SPAN_DAYS` (a century: nothing vaultbrain keeps is
  older).
- A day is ``YYYY-MM-DD`` between :data:`FIRST_DAY` and :data:`LAST_DAY`: a year of room at
  either end of the calendar for what is counted from it (a week's review, a month ahead).
"""

from __future__ import annotations

import datetime as dt
import re

from vaultbrain.errors import UserError

MAX_SPAN_DAYS = 36_525  # a century
FIRST_DAY = dt.date(1000, 1, 1)
LAST_DAY = dt.date(9998, 12, 31)
_SPAN = re.compile(r"^\s*(\d+)\s*([mhdwy])\s*$", re.IGNORECASE)
_MINUTES = {"m": 1, "h": 60, "d": 24 * 60, "w": 7 * 24 * 60, "y": 365 * 24 * 60}


def _shown(text: str | None) -> str:
    """A value as an error line quotes it: at most 40 characters of it."""
    text = str(text)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def span(text: str | None, option: str = "--since", units: str = "mhdwy") -> dt.timedelta:
    """``30d``, ``12h``, ``2w``, ``90m``, ``1y`` as a timedelta, at most a century."""
    match = _SPAN.match(text or "")
    if not match or match.group(2).lower() not in units:
        example = ", ".join(f"3{u}" for u in units)
        raise UserError(f"{option} {_shown(text)}: write a count and a unit, e.g. {example}")
    digits = match.group(1).lstrip("0") or "0"
    # (a count of more than 12 digits is past any bound: not even turned into a number)
    minutes = int(digits) * _MINUTES[match.group(2).lower()] if len(digits) <= 12 else None
    if minutes is None or minutes > MAX_SPAN_DAYS * 24 * 60:
        raise UserError(
            f"{option} {_shown(text)} is longer than vaultbrain looks back: at most "
            f"{MAX_SPAN_DAYS // 365} years ({MAX_SPAN_DAYS}d)"
        )
    return dt.timedelta(minutes=minutes)


def day(text: str | None, option: str = "--date") -> dt.date:
    """``YYYY-MM-DD`` between :data:`FIRST_DAY` and :data:`LAST_DAY`."""
    try:
        value = dt.date.fromisoformat(str(text or "").strip())
    except ValueError as exc:
        raise UserError(f"{option} {_shown(text)} is not a date (YYYY-MM-DD)") from exc
    if not FIRST_DAY <= value <= LAST_DAY:
        raise UserError(
            f"{option} {_shown(text)} is out of range: a day from {FIRST_DAY.isoformat()} "
            f"to {LAST_DAY.isoformat()}"
        )
    return value


def since_day(text: str, today: dt.date, option: str = "--since") -> dt.date:
    """A day (``2026-11-01``) or a span back from ``today`` (``7d``, ``4w``, ``1y``)."""
    if _SPAN.match(text or ""):
        back = span(text, option, "dwy")
        return max(FIRST_DAY, today - dt.timedelta(days=back.days))
    try:
        return day(text, option)
    except UserError as exc:
        if "out of range" in str(exc):
            raise
        raise UserError(
            f"{option} takes a date (2026-11-01) or a span (7d, 4w, 1y), not {_shown(text)}"
        ) from exc


def count(value: int, option: str, least: int = 1, most: int = 100_000) -> int:
    """A count within ``least``..``most``, or one line saying the range."""
    if not least <= value <= most:
        raise UserError(f"{option} {value}: a number from {least} to {most}")
    return value
