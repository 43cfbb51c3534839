"""The daemon as a person first runs it (issue 18, items 2, 4 and 8): a last line without a
newline, a retry after the clock steps back, one log line per capture, a log file."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio
from test_daemon import idea_for

from vaultbrain.brain import Brain
from vaultbrain.capture.journal import Journal


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0.2")
    run(root, "settings", "set", "inbox_idle_seconds", "1")
    run(root, "settings", "set", "second_opinion", "false")
    return root


@pytest.fixture
def offline(vault: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """The LLM server is down (a port nothing listens on) and there is no fallback."""
    server = FakeLMStudio().start()
    port = server.httpd.server_address[1]
    server.stop()
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", f"http://127.0.0.1:{port}/v1")
    run(vault, "settings", "set", "fallback", "none")
    return port


def test_a_last_line_without_a_newline_is_filed_once_the_inbox_is_idle(
    vault: Path, daemon, lmstudio: FakeLMStudio
) -> None:
    lmstudio.responder = idea_for
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- a thought left without its newline")
    time.sleep(0.6)  # past the settle time, short of the idle time: not taken yet
    assert "^vb-" not in (vault / "Inbox.md").read_text()
    # The idle time is 1 s; the periodic rescan (300 s) must not be what takes it.
    wait_for(lambda: "- [x] a thought left without" in (vault / "Inbox.md").read_text(), 15, d.log)
    assert "rescan" not in d.output()


def test_a_retry_time_in_the_future_waits_no_longer_than_its_backoff(
    vault: Path, daemon, offline: int
) -> None:
    """The record's wall-clock retry time says two hours from now (the clock was stepped back
    two hours after the call failed): the daemon still retries after the backoff (0.5 s)."""
    run(vault, "settings", "set", "retry_seconds", "0.5")
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: a planner that survives clock steps\n")
    wait_for(lambda: run_json(vault, "inbox", "--status", "pending"), 20, d.log)
    cid = run_json(vault, "inbox", "--status", "pending")[0]["id"]
    wait_for(lambda: "(offline" in (vault / "Inbox.md").read_text(), 20, d.log)

    time.sleep(1.1)  # the record's `updated` (whole seconds) changes: the daemon reads it again

    # Another failure recorded with a retry time two hours ahead (a clock stepped back).
    Journal(Brain(vault)).failed(
        cid, "unreachable: offline", time.time() + 2 * 3600, None, {"kind": "classification_failed"}
    )
    up = FakeLMStudio(port=offline).start()
    try:
        up.responder = idea_for
        wait_for(
            lambda: "- [x] Idea: a planner that survives" in (vault / "Inbox.md").read_text(),
            20,
            d.log,
        )
    finally:
        up.stop()


def test_a_pending_capture_is_logged_once_and_the_log_can_go_to_a_file(
    vault: Path, daemon, offline: int, tmp_path: Path
) -> None:
    run(vault, "settings", "set", "retry_seconds", "0.2")
    log_file = tmp_path / "logs" / "vaultbrain.log"
    log_file.parent.mkdir()
    d = daemon().start("--log-file", str(log_file))
    wait_for(lambda: log_file.exists() and "watching" in log_file.read_text(), 20, d.log)
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: a quiet log\n")
    wait_for(lambda: run_json(vault, "inbox", "--status", "pending"), 20, log_file)
    cid = run_json(vault, "inbox", "--status", "pending")[0]["id"]
    wait_for(lambda: Journal(Brain(vault)).require(cid).attempts >= 4, 30, log_file)
    assert d.stop() == 0
    text = log_file.read_text()
    assert text.count(f"capture {cid}: pending") == 1, text
    assert text.count(f"capture {cid}: classifier failed") == 1, text
    assert "stopped" in text
    assert "watching" not in d.output()  # the log went to the file, not to stderr
