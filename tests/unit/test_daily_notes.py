"""Where the daily notes are, from Obsidian's own configuration, and which of their lines are
the capture section (vaultbrain/vault/daily.py)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from vaultbrain.vault.daily import daily_config, moment_format, recent_daily_notes, section_lines

DAY = dt.date(2026, 12, 5)  # a Saturday, ISO week 49


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("YYYY-MM-DD", "2026-12-05"),
        ("DD.MM.YYYY", "05.12.2026"),
        ("YYYY/MM/YYYY-MM-DD", "2026/12/2026-12-05"),
        ("YYYY/MMMM/D MMM YY", "2026/December/5 Dec 26"),
        ("dddd, MMMM Do YYYY", "Saturday, December 5th 2026"),
        ("ddd D/M", "Sat 5/12"),
        ("GGGG-[W]WW-E", "2026-W49-6"),
        ("gggg-[W]ww", "2026-W49"),
        ("[Journal] YYYY-MM-DD", "Journal 2026-12-05"),
        ("YYYY-[Q]Q DDDD", "2026-Q4 339"),
    ],
)
def test_moment_formats(fmt: str, name: str) -> None:
    assert moment_format(DAY, fmt) == name


def test_ordinals() -> None:
    assert [moment_format(dt.date(2026, 1, d), "Do") for d in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd"
    ]  # fmt: skip


def _config(root: Path, rel: str, data: object) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), "utf-8")


def test_the_core_plugins_settings(tmp_path: Path) -> None:
    _config(tmp_path, ".obsidian/daily-notes.json", {"folder": "Daily/", "format": "DD.MM.YYYY"})
    config = daily_config(tmp_path)
    assert config is not None and config.rel(DAY) == "Daily/05.12.2026.md"


def test_the_core_plugin_on_with_its_defaults(tmp_path: Path) -> None:
    _config(tmp_path, ".obsidian/core-plugins.json", ["file-explorer", "daily-notes"])
    config = daily_config(tmp_path)
    assert config is not None and config.rel(DAY) == "2026-12-05.md"
    _config(tmp_path, ".obsidian/core-plugins.json", {"daily-notes": False})
    assert daily_config(tmp_path) is None


def test_periodic_notes_first_and_both_of_its_versions(tmp_path: Path) -> None:
    _config(tmp_path, ".obsidian/daily-notes.json", {"folder": "Daily", "format": "YYYY-MM-DD"})
    periodic = ".obsidian/plugins/periodic-notes/data.json"
    _config(
        tmp_path,
        periodic,
        {"daily": {"enabled": True, "folder": "Journal", "format": "YYYY/MM-DD"}},
    )
    config = daily_config(tmp_path)
    assert config is not None and config.rel(DAY) == "Journal/2026/12-05.md"
    _config(
        tmp_path,
        periodic,
        {
            "activeCalendarSet": "b",
            "calendarSets": [
                {"id": "a", "day": {"enabled": True, "folder": "A", "format": "YYYY"}},
                {"id": "b", "day": {"enabled": True, "folder": "Days", "format": "D MMM YYYY"}},
            ],
        },
    )
    assert daily_config(tmp_path).rel(DAY) == "Days/5 Dec 2026.md"  # type: ignore[union-attr]
    # Daily notes turned off in Periodic Notes: the core plugin's settings are the ones.
    _config(tmp_path, periodic, {"daily": {"enabled": False, "folder": "Journal"}})
    assert daily_config(tmp_path).rel(DAY) == "Daily/2026-12-05.md"  # type: ignore[union-attr]


def test_a_renamed_config_folder_and_a_broken_file(tmp_path: Path) -> None:
    (tmp_path / ".config-obsidian").mkdir()
    (tmp_path / ".config-obsidian/app.json").write_text("{}", "utf-8")
    _config(
        tmp_path, ".config-obsidian/daily-notes.json", {"folder": "Log", "format": "YYYY-MM-DD"}
    )
    assert daily_config(tmp_path).rel(DAY) == "Log/2026-12-05.md"  # type: ignore[union-attr]
    (tmp_path / ".config-obsidian/daily-notes.json").write_text("{not json", "utf-8")
    assert daily_config(tmp_path) is None


def test_the_recent_daily_notes_that_exist(tmp_path: Path) -> None:
    _config(tmp_path, ".obsidian/daily-notes.json", {"folder": "Daily", "format": "YYYY-MM-DD"})
    (tmp_path / "Daily").mkdir()
    for day in ("2026-12-05", "2026-12-03", "2026-12-01"):
        (tmp_path / f"Daily/{day}.md").write_text("## Inbox\n", "utf-8")
    assert recent_daily_notes(tmp_path, DAY, 3) == ["Daily/2026-12-05.md", "Daily/2026-12-03.md"]
    assert recent_daily_notes(tmp_path, DAY, 1) == ["Daily/2026-12-05.md"]


NOTE = """\
---
tags: [daily]
---
# Saturday
A paragraph of my day.
## Inbox
- first thought
```
## not a heading in code
```
### Later
- a thought under a sub-heading
## Log
- not a thought here
## inbox
- a second section of the same name
"""


def test_the_capture_section() -> None:
    lines = NOTE.splitlines()
    got = [lines[n] for n in sorted(section_lines(NOTE, "## Inbox"))]
    assert got == [
        "- first thought",
        "```",
        "## not a heading in code",
        "```",
        "- a thought under a sub-heading",
        "- a second section of the same name",
    ]
    assert section_lines(NOTE, "Inbox") == section_lines(NOTE, "## Inbox")  # any level
    assert section_lines(NOTE, "### Inbox") == set()
    assert [lines[n] for n in sorted(section_lines(NOTE, "Log"))] == ["- not a thought here"]
