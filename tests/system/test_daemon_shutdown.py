"""SIGTERM with a backlog of LLM work: the daemon stops taking work at once, cancels the
requests in flight (their captures stay pending, journaled), shows every inbox line's true
state, and exits within a few seconds. The next start files what was left, each once."""

from __future__ import annotations

import re
import time
from pathlib import Path

from support.cli import run, run_json
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio
from test_daemon import idea_for

LINES = 40


def test_sigterm_with_a_backlog_stops_in_seconds_and_loses_nothing(
    vault: Path, daemon, lmstudio: FakeLMStudio
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0.2")
    run(vault, "settings", "set", "second_opinion", "false")
    lmstudio.responder = idea_for
    lmstudio.delay = 2.0  # a slow model: 40 lines at 2 in flight would take 40 s
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        for i in range(LINES):
            fh.write(f"- backlog thought {i}\n")
    inbox = vault / "Inbox.md"
    wait_for(lambda: inbox.read_text("utf-8").count("^vb-") == LINES, 20, d.log)
    time.sleep(1.0)  # requests are in flight now
    started = time.monotonic()
    assert d.stop(timeout=30) == 0
    stopped_in = time.monotonic() - started
    assert stopped_in < 8, f"took {stopped_in:.1f}s to stop"
    text = (vault / "Inbox.md").read_text("utf-8")
    lines = [line for line in text.splitlines() if "backlog thought" in line]
    assert len(lines) == LINES
    captures = {c["id"]: c for c in run_json(vault, "inbox", "--limit", "1000")}
    for line in lines:
        cid = re.search(r"\^vb-([a-z0-9]+)$", line).group(1)
        status = captures[cid]["status"]
        # Each line shows its capture's true state: filed lines ticked, the rest waiting.
        assert ("- [x]" in line) == (status == "filed"), (line, status)
        assert status in ("filed", "pending"), status
    assert sum(c["status"] == "pending" for c in captures.values()) > LINES // 2
    # The next start files the rest, each exactly once.
    lmstudio.delay = 0.0
    d2 = daemon().start()
    d2.wait_ready()
    wait_for(lambda: inbox.read_text("utf-8").count("- [x] backlog thought") == LINES, 60, d2.log)
    assert d2.stop() == 0
    assert len(list((vault / "Ideas").glob("*.md"))) == LINES
