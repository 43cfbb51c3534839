"""The person's daily notes, as Obsidian finds them, and the section of one taken as thoughts.

Many people write their day in the daily note, not in a separate inbox. With
``daily_capture_heading`` set (``## Inbox``), the lines under that heading in the daily notes
of the last ``daily_capture_days`` days are thoughts exactly as ``Inbox.md``'s lines are
(vaultbrain/capture/inbox_pass.py reads them with the same code); the rest of the note is
never touched.

Where the daily notes are is Obsidian's to say, read from its own configuration in the
vault's config folder (``.obsidian`` or a renamed one): the Periodic Notes plugin's
``plugins/periodic-notes/data.json`` (its ``daily`` settings, or a calendar set's ``day``)
when it has daily notes enabled, else the core Daily notes plugin's ``daily-notes.json``
(``folder`` and ``format``; Obsidian's defaults when the file is missing: the vault's root
and ``YYYY-MM-DD``). The date format is moment.js's; :func:`moment_format` writes the tokens
people use (a format with ``/`` puts notes in dated folders: ``YYYY/MM/YYYY-MM-DD``).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inbox import split_lines
from vaultbrain.vault.obsidian import config_folder

DEFAULT_FORMAT = "YYYY-MM-DD"
_MAX_CONFIG = 1_000_000
_TOKEN = LazyPattern(
    r"\[[^\]]*\]|YYYY|YY|Q|MMMM|MMM|MM|M|Do|DDDD|DDD|DD|D|dddd|ddd|dd|d|E|e|GGGG|gggg|WW|W|ww|w"
)
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_HEADING = LazyPattern(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = LazyPattern(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class DailyConfig:
    """Where daily notes are: a folder (``""``: the vault's root) and a moment.js format."""

    folder: str
    format: str
    source: str  # which configuration said so, for doctor

    def rel(self, day: dt.date) -> str:
        name = moment_format(day, self.format or DEFAULT_FORMAT)
        folder = self.folder.strip().strip("/")
        return f"{folder}/{name}.md" if folder else f"{name}.md"


def moment_format(day: dt.date, fmt: str) -> str:
    """``day`` written in moment.js's format ``fmt`` (the tokens of dates; ``[text]`` is
    literal; any other character is itself)."""
    iso_year, iso_week, iso_day = day.isocalendar()
    # moment's locale week (``w``, ``gggg``) in the default "en" locale: weeks start on
    # Sunday and the week holding January 1st is week 1.
    sunday = day - dt.timedelta(days=(day.weekday() + 1) % 7)
    saturday = sunday + dt.timedelta(days=6)
    week_year = saturday.year
    jan1 = dt.date(week_year, 1, 1)
    first_sunday = jan1 - dt.timedelta(days=(jan1.weekday() + 1) % 7)
    locale_week = (sunday - first_sunday).days // 7 + 1
    values = {
        "YYYY": f"{day.year:04d}",
        "YY": f"{day.year % 100:02d}",
        "Q": str((day.month - 1) // 3 + 1),
        "MMMM": _MONTHS[day.month - 1],
        "MMM": _MONTHS[day.month - 1][:3],
        "MM": f"{day.month:02d}",
        "M": str(day.month),
        "Do": _ordinal(day.day),
        "DDDD": f"{day.timetuple().tm_yday:03d}",
        "DDD": str(day.timetuple().tm_yday),
        "DD": f"{day.day:02d}",
        "D": str(day.day),
        "dddd": _DAYS[day.weekday()],
        "ddd": _DAYS[day.weekday()][:3],
        "dd": _DAYS[day.weekday()][:2],
        "d": str((day.weekday() + 1) % 7),
        "E": str(iso_day),
        "e": str((day.weekday() + 1) % 7),
        "GGGG": f"{iso_year:04d}",
        "gggg": f"{week_year:04d}",
        "WW": f"{iso_week:02d}",
        "W": str(iso_week),
        "ww": f"{locale_week:02d}",
        "w": str(locale_week),
    }

    def one(m: object) -> str:
        token: str = m.group(0)  # type: ignore[attr-defined]
        return token[1:-1] if token.startswith("[") else values[token]

    return _TOKEN.sub(one, fmt)


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def daily_config(root: Path) -> DailyConfig | None:
    """Where this vault's daily notes are, from Obsidian's configuration; None when neither
    Periodic Notes nor the core Daily notes plugin is set up."""
    config = config_folder(root)
    periodic = _json(config / "plugins" / "periodic-notes" / "data.json")
    daily = _periodic_daily(periodic) if isinstance(periodic, dict) else None
    if daily is not None:
        return DailyConfig(
            str(daily.get("folder") or ""),
            str(daily.get("format") or DEFAULT_FORMAT),
            "Periodic Notes (plugins/periodic-notes/data.json)",
        )
    core = _json(config / "daily-notes.json")
    if isinstance(core, dict):
        return DailyConfig(
            str(core.get("folder") or ""),
            str(core.get("format") or DEFAULT_FORMAT),
            "Daily notes (daily-notes.json)",
        )
    plugins = _json(config / "core-plugins.json")
    on = (
        plugins.get("daily-notes") is True
        if isinstance(plugins, dict)
        else isinstance(plugins, list) and "daily-notes" in plugins
    )
    if on:
        return DailyConfig("", DEFAULT_FORMAT, "Daily notes (Obsidian's defaults)")
    return None


def _periodic_daily(data: dict) -> dict | None:
    """Periodic Notes' daily settings when daily notes are enabled: ``daily`` (0.x), or the
    active calendar set's ``day`` (1.x)."""
    daily = data.get("daily")
    if isinstance(daily, dict) and daily.get("enabled"):
        return daily
    sets = data.get("calendarSets")
    if isinstance(sets, list):
        active = data.get("activeCalendarSet")
        chosen = [s for s in sets if isinstance(s, dict) and s.get("id") == active] or [
            s for s in sets if isinstance(s, dict)
        ]
        for s in chosen[:1]:
            day = s.get("day")
            if isinstance(day, dict) and day.get("enabled"):
                return day
    return None


def _json(path: Path) -> object:
    try:
        if path.stat().st_size > _MAX_CONFIG:
            return None
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def recent_daily_notes(root: Path, today: dt.date, days: int) -> list[str]:
    """The daily notes of the last ``days`` days (today first) that exist, as
    vault-relative paths; none when the vault has no daily notes set up."""
    config = daily_config(root)
    if config is None:
        return []
    out: list[str] = []
    for back in range(max(days, 0)):
        rel = config.rel(today - dt.timedelta(days=back))
        if rel not in out and not rel.startswith(".") and (root / rel).is_file():
            out.append(rel)
    return out


def heading_parts(heading: str) -> tuple[int, str]:
    """(its level, 0: any; its text folded) of ``daily_capture_heading``."""
    text = heading.strip()
    level = len(text) - len(text.lstrip("#"))
    return (min(level, 6), " ".join(text.lstrip("#").split()).casefold())


def section_lines(text: str, heading: str) -> set[int]:
    """The numbers of the lines under ``heading`` (``## Inbox``; ``Inbox``: at any level) up
    to the next heading of the same level or above, in every such section of the note.
    Headings inside fenced code are text."""
    level, title = heading_parts(heading)
    out: set[int] = set()
    inside: int | None = None  # the level of the section we are in
    fence = ""
    for n, line in enumerate(split_lines(text)):
        raw = line.rstrip("\r\n")
        m = _FENCE.match(raw)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
            if inside is not None:
                out.add(n)
            continue
        if m:
            fence = m.group(1)
            if inside is not None:
                out.add(n)
            continue
        h = _HEADING.match(raw)
        if h:
            found = len(h.group(1))
            if inside is not None and found <= inside:
                inside = None
            if " ".join(h.group(2).split()).casefold() == title and (level in (0, found)):
                inside = found
            continue
        if inside is not None:
            out.add(n)
    return out


def line_place(text: str, number: int, heading: str = "") -> str:
    """Where line ``number`` (0-based) of a note is, as the person finds it: its line as
    Obsidian numbers it (from the top, frontmatter included) and, in a daily note's capture
    section (``heading``), which line under the heading above it it is: ``line 8 (the 2nd
    under “## Inbox”)``."""
    place = f"line {number + 1}"
    if not heading:
        return place
    lines = split_lines(text)
    for n in range(min(number, len(lines)) - 1, -1, -1):
        h = _HEADING.match(lines[n].rstrip("\r\n"))
        if h:
            title = f"{h.group(1)} {h.group(2).strip()}"
            return f"{place} (the {_ordinal(number - n)} under “{title}”)"
    return place


__all__ = [
    "DailyConfig",
    "daily_config",
    "heading_parts",
    "line_place",
    "moment_format",
    "recent_daily_notes",
    "section_lines",
]
