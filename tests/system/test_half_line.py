"""A person's unfinished line is theirs: a capture from the command line, the daemon's
door or MCP adds its own line above a last line that has no newline yet, never ending it
(ending it would hand the half-typed words to the daemon as a finished thought)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for

from vaultbrain.vault.inbox import append_line

HALF = "renew the car insur"


def vaultbrain(vault: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "provider", "heuristic")
    run(root, "settings", "set", "inbox_settle_seconds", "0.2")
    inbox = root / "Inbox.md"
    inbox.write_bytes(inbox.read_bytes() + b"- [ ] call the plumber\n" + HALF.encode())
    return root


def still_half(vault: Path) -> str:
    text = (vault / "Inbox.md").read_text("utf-8")
    assert text.endswith("\n" + HALF), text  # last, and no newline
    assert text.count(HALF) == 1
    return text


def no_note_of_the_half(vault: Path) -> None:
    made = [p for p in vault.rglob("*.md") if "insur" in p.name.lower()]
    assert made == []


def test_append_goes_above_an_unfinished_last_line() -> None:
    assert append_line("a\n" + HALF, "- [ ] x") == "a\n- [ ] x\n" + HALF
    assert append_line(HALF, "- [ ] x") == "- [ ] x\n" + HALF
    assert append_line("a\r\nb", "- [ ] x") == "a\r\n- [ ] x\r\nb"
    assert append_line("a\n", "- [ ] x") == "a\n- [ ] x\n"
    assert append_line("", "- [ ] x") == "- [ ] x\n"
    # Our own anchored line is finished whatever its ending: the new line follows it.
    assert append_line("- [ ] y ^vb-abc123", "- [ ] x") == "- [ ] y ^vb-abc123\n- [ ] x\n"


def test_a_capture_from_the_command_line_leaves_the_half_line_last(vault: Path) -> None:
    out = vaultbrain(vault, "capture", "Idea: a podcast about bees")
    cid = re.match(r"([a-z0-9]{6}): ", out).group(1)  # type: ignore[union-attr]
    text = still_half(vault)
    assert f"^vb-{cid}" in text.splitlines()[-2]
    # A pass over the inbox (the daemon's, once) does not take it either: it is not idle.
    vaultbrain(vault, "daemon", "--once")
    still_half(vault)
    no_note_of_the_half(vault)


def test_a_capture_through_the_running_daemon_leaves_the_half_line_last(
    vault: Path, daemon
) -> None:
    d = daemon().start()
    d.wait_ready()
    out = vaultbrain(vault, "capture", "Met with Quinn about the shed")
    cid = re.match(r"([a-z0-9]{6}): ", out).group(1)  # type: ignore[union-attr]
    assert f"capture {cid} (handed over" in d.output()
    wait_for(lambda: (vault / "People" / "Quinn.md").exists(), 30, d.log)
    # The daemon settles and passes over the inbox again: the half line waits, untouched.
    wait_for(lambda: "→" in (vault / "Inbox.md").read_text("utf-8"), 30, d.log)
    text = still_half(vault)
    assert f"^vb-{cid}" in text.splitlines()[-2]
    no_note_of_the_half(vault)
    assert d.stop() == 0
    still_half(vault)
    no_note_of_the_half(vault)
