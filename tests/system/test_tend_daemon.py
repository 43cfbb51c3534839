"""`tend` beside a running daemon (a subprocess): a burst of captures typed into the inbox
while a cycle runs and a merge is accepted loses nothing, and leaves no dangling link."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from support.cli import run, run_json
from support.daemon import DaemonProcess, wait_for

from tests.system.test_tend import _dangling, _note

LINES = [f"Called Sam Ortiz about order {i} for the bakery" for i in range(12)]


def test_a_burst_of_captures_during_a_tend_loses_nothing(
    vault: Path, daemon: Callable[..., DaemonProcess]
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    _note(vault, "People/Sam.md", {"type": "person", "name": "Sam"}, "Met at the fair.\n")
    _note(
        vault,
        "People/Sam Ortiz.md",
        {"type": "person", "name": "Sam Ortiz", "contact": "sam@ortiz.net"},
        "Runs the bakery. See [[Sam]].\n",
    )
    proc = daemon()
    proc.start()
    proc.wait_ready()
    inbox = vault / "Inbox.md"
    with inbox.open("a", encoding="utf-8") as fh:
        for line in LINES[:6]:
            fh.write(line + "\n")
    run(vault, "tend")
    with inbox.open("a", encoding="utf-8") as fh:
        for line in LINES[6:]:
            fh.write(line + "\n")
    ids = [r["id"] for r in run_json(vault, "tend", "list")]
    assert len(ids) == 1
    run(vault, "tend", "accept", *ids)

    def all_taken() -> bool:
        text = inbox.read_text("utf-8")
        taken = [ln for ln in text.splitlines() if "^vb-" in ln and "⏳" not in ln]
        return len(taken) == len(LINES)

    wait_for(all_taken, 60, proc.log)
    text = inbox.read_text("utf-8")
    for line in LINES:  # every thought is there, once, and taken
        assert len(re.findall(re.escape(line) + r"\b", text)) == 1, line
    assert not (vault / "People/Sam.md").exists()
    assert (vault / "Brain/Archive/Sam.md").exists()
    captures = run_json(vault, "inbox", "--limit", "100")
    rows = captures if isinstance(captures, list) else captures.get("captures", [])
    assert len(rows) == len(LINES)
    assert all(r["status"] != "pending" for r in rows)
    assert proc.stop() == 0
    assert "Traceback" not in proc.output()
    assert _dangling(vault) == []
