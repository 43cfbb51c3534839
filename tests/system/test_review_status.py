"""Issue 44 items 2 and 9: ``Brain/Needs Review.md`` says which machine files and whether its
LLM answers, written only when that changes (a start, a stop by SIGTERM, the LLM going away),
and a ``daemon --once`` that changes nothing writes nothing, with items in the queue too.
The daemon runs as a subprocess; the LLM is the loopback LM Studio stand-in."""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio

NOTE = "Brain/Needs Review.md"
HOST = socket.gethostname()


def header(vault: Path) -> str:
    """The status callout: the first callout after the title."""
    text = (vault / NOTE).read_text("utf-8")
    return next(line for line in text.splitlines() if line.startswith("> [!"))


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0.2")
    run(root, "settings", "set", "inbox_idle_seconds", "1")
    run(root, "settings", "set", "second_opinion", "false")
    return root


def test_a_fresh_vault_says_nothing_runs_yet(vault: Path) -> None:
    assert "vaultbrain is not running yet" in header(vault)
    assert "`vaultbrain daemon`" in header(vault)


def test_running_then_stopped_and_a_once_pass_writes_nothing(
    vault: Path, daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    run(vault, "capture", "something about the thing")  # waits in the queue
    d = daemon().start()
    d.wait_ready()
    wait_for(lambda: "is running on" in header(vault), 20, d.log)
    said = header(vault)
    assert f"**{HOST}**" in said and "embedded classifier (no LLM set up)" in said
    assert "**something about the thing**" in (vault / NOTE).read_text("utf-8")
    running = fingerprint(vault / NOTE)
    assert d.stop() == 0  # SIGTERM
    said = header(vault)
    assert said.startswith("> [!warning]") and f"not running on **{HOST}** (stopped " in said
    assert fingerprint(vault / NOTE) != running
    stopped = fingerprint(vault / NOTE)
    for _ in range(2):
        done = run(vault, "daemon", "--once")
        assert done.exit_code == 0, done.output
        assert fingerprint(vault / NOTE) == stopped  # no write, not even the same bytes
    assert "**something about the thing**" in (vault / NOTE).read_text("utf-8")


def test_a_killed_daemon_is_put_right_by_the_next_once_pass(
    vault: Path, daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    d = daemon().start()
    d.wait_ready()
    wait_for(lambda: "is running on" in header(vault), 20, d.log)
    d.kill9()  # no stop path: the note still says running
    assert "is running on" in header(vault)
    assert run(vault, "daemon", "--once").exit_code == 0
    assert f"not running on **{HOST}**:" in header(vault)
    once = fingerprint(vault / NOTE)
    assert run(vault, "daemon", "--once").exit_code == 0
    assert fingerprint(vault / NOTE) == once


def test_the_llm_answering_going_away_and_back(vault: Path, daemon, lmstudio: FakeLMStudio) -> None:
    run(vault, "settings", "set", "endpoint", lmstudio.url)
    d = daemon().start()
    d.wait_ready()
    wait_for(lambda: "its LLM answers" in header(vault), 20, d.log)
    assert f"**{HOST}**" in header(vault) and f"(test-model at {lmstudio.url})" in header(vault)
    lmstudio.mode = "error500"  # the server fails: the next capture finds out
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Idea: a bee hotel for the balcony\n")
    wait_for(lambda: "does not answer" in header(vault), 30, d.log)
    said = header(vault)
    assert lmstudio.url in said and "the embedded classifier files alone meanwhile" in said
    lmstudio.mode = "ok"  # back: a capture through it says so at once
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Idea: a rain barrel for the garden\n")
    wait_for(lambda: "its LLM answers" in header(vault), 30, d.log)
    assert d.stop() == 0
    assert "not running on" in header(vault)
