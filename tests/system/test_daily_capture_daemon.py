"""Capture from the daily note (issue 45, item 1), on a real vault with the daemon as a
subprocess: the lines under ``daily_capture_heading`` in the recent daily notes, found from
Obsidian's own configuration, are thoughts exactly as ``Inbox.md`` lines are (anchored,
filed, drawn with links, gestures read); every other line of the note stays byte for byte."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path

from support.cli import run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply


def _answer(body: dict) -> str:
    said = json.dumps(body["messages"][-1], ensure_ascii=False).lower()
    if "plumber" in said:
        return reply([{"type": "admin", "title": "Call the plumber", "fields": {}}], 0.95, "a task")
    if "kiln" in said:
        return reply([{"type": "project", "title": "Kiln", "fields": {}}], 0.6, "a project")
    return reply([{"type": "idea", "title": "Something", "fields": {}}], 0.95, "an idea")


def _setup(vault: Path, lmstudio: FakeLMStudio) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    run(vault, "settings", "set", "daily_capture_heading", "## Inbox")
    lmstudio.responder = _answer


def _config(vault: Path, rel: str, data: object) -> None:
    path = vault / ".obsidian" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), "utf-8")


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


DAILY = """\
---
tags: [daily]
---
# {day}
Slept badly; the kiln is on my mind.
- a list item of my day, not a thought

## Inbox
- call the plumber about the leak
- the Kiln firing schedule

## Log
- 09:00 coffee, not a thought
"""


def _section_is_taken(vault: Path, rel: str, proc: DaemonProcess, day: str) -> None:
    path = vault / rel
    wait_for(
        lambda: (
            _captures(vault).get("call the plumber about the leak", {}).get("status") == "filed"
        ),
        30,
        proc.log,
    )
    wait_for(lambda: "suggestion" in path.read_text("utf-8"), 30, proc.log)
    wait_for(lambda: "⏳" not in path.read_text("utf-8"), 30, proc.log)
    text = path.read_text("utf-8")
    before = DAILY.format(day=day).splitlines()
    after = text.splitlines()
    # Only the two lines under the heading changed; every other line is as the person wrote it.
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert [a for a, _ in changed] == [
        "- call the plumber about the leak",
        "- the Kiln firing schedule",
    ]
    plumber = changed[0][1]
    assert re.fullmatch(
        r"- \[x\] call the plumber about the leak → \[\[Admin/Call the plumber\|Call the plumber\]\] \^vb-[a-z0-9]+",
        plumber,
    )
    assert (vault / "Admin/Call the plumber.md").exists()
    # The note's source links back to the line in the daily note, not to Inbox.md.
    admin = (vault / "Admin/Call the plumber.md").read_text("utf-8")
    assert f"[[{rel[:-3]}#^vb-" in admin
    caps = _captures(vault)
    assert "Slept badly; the kiln is on my mind." not in caps
    assert "a list item of my day, not a thought" not in caps
    assert "09:00 coffee, not a thought" not in caps
    assert caps["the Kiln firing schedule"]["status"] == "suggested"


def test_the_core_plugins_daily_note(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    _setup(vault, lmstudio)
    _config(vault, "daily-notes.json", {"folder": "Daily", "format": "YYYY-MM-DD"})
    day = dt.date.today().isoformat()
    rel = f"Daily/{day}.md"
    (vault / "Daily").mkdir()
    (vault / rel).write_text(DAILY.format(day=day), "utf-8")
    proc = daemon()
    proc.start()
    proc.wait_ready()
    _section_is_taken(vault, rel, proc, day)
    # A gesture on a daily line means what it means in the inbox: ticking confirms.
    path = vault / rel
    text = path.read_text("utf-8")
    path.write_text(text.replace("- [ ] the Kiln firing", "- [x] the Kiln firing"), "utf-8")
    wait_for(
        lambda: _captures(vault)["the Kiln firing schedule"]["status"] == "filed", 30, proc.log
    )
    wait_for(
        lambda: (
            "- [x] the Kiln firing schedule → [[Projects/Kiln|Kiln]] ^vb-"
            in path.read_text("utf-8")
        ),
        30,
        proc.log,
    )
    # Confirmed from the command line (through Needs Review): its daily line says so too.
    text = path.read_text("utf-8")
    path.write_text(text.replace("\n\n## Log", "\n- more Kiln glaze tests\n\n## Log"), "utf-8")
    glaze = "more Kiln glaze tests"
    wait_for(lambda: _captures(vault).get(glaze, {}).get("status") == "suggested", 30, proc.log)
    run(vault, "review", "confirm", _captures(vault)[glaze]["id"])
    wait_for(lambda: _captures(vault)[glaze]["status"] == "filed", 30, proc.log)
    wait_for(
        lambda: f"- [x] {glaze} → [[Projects/Kiln|Kiln]] ^vb-" in path.read_text("utf-8"),
        30,
        proc.log,
    )
    assert path.read_text("utf-8").endswith("## Log\n- 09:00 coffee, not a thought\n")
    doctor = run(vault, "doctor", ok=False).output
    assert f"lines under “## Inbox” in {rel}" in doctor
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()


def test_periodic_notes_with_its_own_format_and_a_note_made_while_running(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    _setup(vault, lmstudio)
    # The core plugin says one thing, Periodic Notes (enabled) another: Periodic Notes wins.
    _config(vault, "daily-notes.json", {"folder": "Daily", "format": "YYYY-MM-DD"})
    _config(
        vault,
        "plugins/periodic-notes/data.json",
        {"daily": {"enabled": True, "folder": "Journal", "format": "YYYY/DD.MM.YYYY dddd"}},
    )
    today = dt.date.today()
    rel = f"Journal/{today:%Y}/{today:%d.%m.%Y} {today:%A}.md"
    proc = daemon()
    proc.start()
    proc.wait_ready()
    # A Templater-made daily note appears while the daemon runs: first with the template's
    # tags (never read as thoughts), then filled in.
    (vault / rel).parent.mkdir(parents=True)
    template = "## Inbox\n- <% tp.file.cursor() %>\n- call the plumber about the leak\n"
    (vault / rel).write_text(template, "utf-8")
    (vault / "Inbox.md").open("a", encoding="utf-8").write("- a first thought in the inbox\n")
    wait_for(lambda: "a first thought in the inbox" in _captures(vault), 30, proc.log)
    wait_for(lambda: "⏳" not in (vault / "Inbox.md").read_text("utf-8"), 30, proc.log)
    assert (vault / rel).read_text("utf-8") == template
    (vault / rel).write_text(DAILY.format(day=today.isoformat()), "utf-8")
    _section_is_taken(vault, rel, proc, today.isoformat())
    # A daily note at the core plugin's place is not one: nothing there is read.
    other = vault / f"Daily/{today.isoformat()}.md"
    other.parent.mkdir()
    other.write_text("## Inbox\n- not read: Periodic Notes names the daily notes\n", "utf-8")
    (vault / "Inbox.md").open("a", encoding="utf-8").write("- a thought in the inbox proper\n")
    wait_for(lambda: "a thought in the inbox proper" in _captures(vault), 30, proc.log)
    wait_for(lambda: "⏳" not in (vault / "Inbox.md").read_text("utf-8"), 30, proc.log)
    assert "^vb-" not in other.read_text("utf-8")
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()


def test_daily_capture_is_off_until_set(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    lmstudio.responder = _answer
    _config(vault, "daily-notes.json", {"folder": "", "format": "YYYY-MM-DD"})
    rel = f"{dt.date.today().isoformat()}.md"
    (vault / rel).write_text("## Inbox\n- call the plumber about the leak\n", "utf-8")
    proc = daemon()
    proc.start()
    proc.wait_ready()
    (vault / "Inbox.md").open("a", encoding="utf-8").write("- the Kiln firing schedule\n")
    wait_for(lambda: "the Kiln firing schedule" in _captures(vault), 30, proc.log)
    wait_for(lambda: "⏳" not in (vault / "Inbox.md").read_text("utf-8"), 30, proc.log)
    assert (vault / rel).read_text("utf-8") == "## Inbox\n- call the plumber about the leak\n"
    assert proc.stop() == 0


def test_init_turns_daily_capture_on_and_says_where(vault: Path) -> None:
    _config(vault, "daily-notes.json", {"folder": "Daily", "format": "YYYY-MM-DD"})
    out = run(vault, "init", "--daily-capture", "## Inbox").output
    assert "daily notes: under “## Inbox” in Daily/YYYY-MM-DD.md" in out
    assert run(vault, "settings", "get", "daily_capture_heading").output.strip() == "## Inbox"


def _once(
    daemon: Callable[..., DaemonProcess], vault: Path, env: dict[str, str] | None = None
) -> str:
    d = daemon(vault, env=env).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert "Traceback" not in d.output(), d.output()
    return d.output()


def _notes(vault: Path) -> dict[str, str]:
    return {
        str(p.relative_to(vault)): p.read_text("utf-8")
        for folder in ("People", "Projects", "Ideas", "Admin")
        for p in (vault / folder).glob("*.md")
    }


def test_a_daily_note_edited_on_two_machines_is_filed_once(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess], tmp_path: Path
) -> None:
    """Machine A files the daily note's lines. Machine B (its own state dir, the same synced
    vault) observes and takes nothing; once it claims the filer role it knows A's lines from
    the lines themselves and files only the line typed since, once."""
    _setup(vault, lmstudio)
    run(vault, "settings", "set", "note_style", "full")
    _config(vault, "daily-notes.json", {"folder": "Daily", "format": "YYYY-MM-DD"})
    day = dt.date.today().isoformat()
    rel = f"Daily/{day}.md"
    (vault / "Daily").mkdir()
    (vault / rel).write_text(DAILY.format(day=day), "utf-8")
    _once(daemon, vault)
    taken = (vault / rel).read_text("utf-8")
    assert taken.count("^vb-") == 2 and "⏳" not in taken
    before = _notes(vault)
    other = {"VAULTBRAIN_STATE_DIR": str(tmp_path / "machine-b")}
    # Machine B's store is rebuilt from the vault: the daily lines say what they became.
    said = run(vault, "--state-dir", str(tmp_path / "machine-b"), "reindex").output
    assert "2 capture(s) rebuilt" in said, said
    out = _once(daemon, vault, other)
    assert "observer" in out, out
    assert (vault / rel).read_text("utf-8") == taken  # an observer takes and rewrites nothing
    # The person, on machine B, adds a thought under the heading; B becomes the filer.
    added = taken.replace("\n\n## Log", "\n- an idea for a glaze test tile\n\n## Log")
    (vault / rel).write_text(added, "utf-8")
    assert (
        "is now the filer"
        in run(vault, "--state-dir", str(tmp_path / "machine-b"), "filer", "claim").output
    )
    _once(daemon, vault, other)
    after = (vault / rel).read_text("utf-8")
    assert after.count("^vb-") == 3 and "⏳" not in after
    for line in taken.splitlines():
        assert line in after.splitlines()  # A's lines as A left them
    now = _notes(vault)
    assert {k: v for k, v in now.items() if k in before} == before  # nothing filed twice
    assert sorted(set(now) - set(before)) == ["Ideas/Something.md"]
