"""A daily note's capture section with a line that is not UTF-8, on a real vault with the
daemon as a subprocess: the line is marked and kept byte for byte, its neighbour is filed,
and what the daemon, doctor and Needs Review say names the daily note and where the line is
(its line in the note and which line under the capture heading), not "the inbox"."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

from support.cli import run
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply

DAILY = (
    b"---\ntags: [daily]\n---\n# Today\nSlept badly.\n\n## Inbox\n"
    b"- call the plumber about the leak\n- caf\xe9 with Ann on Friday\n\n## Log\n- 09:00 coffee\n"
)


def _captures(vault: Path) -> dict[str, dict]:
    return {c["text"]: c for c in json.loads(run(vault, "inbox", "--json").output)}


def test_a_stray_byte_in_the_daily_section_is_said_where_the_person_sees_it(
    vault: Path, lmstudio: FakeLMStudio, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(vault, "settings", "set", "second_opinion", "false")
    run(vault, "settings", "set", "daily_capture_heading", "## Inbox")
    lmstudio.responder = lambda body: reply(
        [{"type": "admin", "title": "Call the plumber", "fields": {}}], 0.95, "a task"
    )
    (vault / ".obsidian/daily-notes.json").write_text('{"folder": "Daily"}', "utf-8")
    rel = f"Daily/{dt.date.today().isoformat()}.md"
    (vault / "Daily").mkdir()
    (vault / rel).write_bytes(DAILY)
    proc = daemon()
    proc.start()
    proc.wait_ready()
    wait_for(lambda: "⚠ not filed".encode() in (vault / rel).read_bytes(), 30, proc.log)
    wait_for(
        lambda: (
            _captures(vault).get("call the plumber about the leak", {}).get("status") == "filed"
        ),
        30,
        proc.log,
    )
    place = "line 9 (the 2nd under “## Inbox”)"
    wait_for(lambda: f"daily note: {rel}, {place}: not filed" in proc.output(), 30, proc.log)
    assert proc.stop() == 0
    out = proc.output()
    assert "Traceback" not in out
    assert "inbox: line" not in out
    data = (vault / rel).read_bytes()
    # The line keeps its byte and the mark says why; nothing else of the note moved.
    assert b"- caf\xe9 with Ann on Friday \xe2\x9a\xa0 not filed: " in data
    assert data.startswith(DAILY.split(b"- call")[0]) and data.endswith(b"## Log\n- 09:00 coffee\n")
    assert "caf" not in json.dumps(list(_captures(vault)))
    doctor = run(vault, "doctor", ok=False).output
    assert f"{rel}: {place}: not UTF-8 text (byte 0xe9)" in doctor
    review = (vault / "Brain/Needs Review.md").read_text("utf-8")
    assert f"{place}: not UTF-8 text (byte 0xe9)" in review
    # Retyped: the line is taken, and the note leaves the list.
    (vault / rel).write_bytes(
        (vault / rel).read_bytes().replace(b"caf\xe9", "café".encode()).split(b" \xe2\x9a\xa0")[0]
        + b"\n\n## Log\n- 09:00 coffee\n"
    )
    proc = daemon()
    proc.start()
    proc.wait_ready()
    wait_for(lambda: "café with Ann on Friday" in _captures(vault), 30, proc.log)
    assert proc.stop() == 0
    assert "not UTF-8" not in run(vault, "doctor", ok=False).output
