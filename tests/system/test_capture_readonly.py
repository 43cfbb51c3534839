"""`capture` when the state dir cannot be written: say exactly what was and was not done.

The state dir is made read-only at its two write seams: the one every file write goes through
(``vaultbrain.vault.atomic._os_write``: a write to a file under it fails with EROFS, as on a
read-only mount) and SQLite's (state.db is opened read-only, as SQLite opens a file it may
not write), without root or a mount.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.brain import Brain
from vaultbrain.vault import atomic


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def read_only_state(monkeypatch: pytest.MonkeyPatch, state: Path) -> None:
    real = atomic._os_write
    prefix = str(state.resolve())

    def write(fd: int, data: memoryview | bytes) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").startswith(prefix):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real(fd, data)

    monkeypatch.setattr(atomic, "_os_write", write)
    connect = sqlite3.connect

    def read_only_connect(target: str, *args: object, **kwargs: object) -> sqlite3.Connection:
        if str(target).startswith(prefix):
            kwargs["uri"] = True
            return connect(f"file:{target}?mode=ro", *args, **kwargs)  # type: ignore[arg-type]
        return connect(target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", read_only_connect)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_capture_on_a_read_only_state_dir_says_the_line_is_safe(
    vault: Path, monkeypatch: pytest.MonkeyPatch, daemon
) -> None:
    state = Brain(vault).state_dir
    with monkeypatch.context() as m:
        read_only_state(m, state)
        result = run(vault, "capture", "Buy oat milk", ok=False)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    message = lines[0]
    assert message.startswith("error: the thought is in Inbox.md")
    assert "read-only" in message and "do not capture it again" in message
    assert "nothing was changed" not in message and "try again" not in message
    inbox = vault / "Inbox.md"
    assert inbox.read_text().count("Buy oat milk") == 1
    # ... and the daemon does file it, once, when the state dir can be written again
    os.utime(inbox, (time.time() - 60, time.time() - 60))
    d = daemon(vault).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    captures = [c for c in run_json(vault, "inbox") if c["text"] == "Buy oat milk"]
    assert len(captures) == 1 and captures[0]["status"] != "pending"
    taken = [line for line in inbox.read_text().splitlines() if "Buy oat milk" in line]
    assert len(taken) == 1 and f"^vb-{captures[0]['id']}" in taken[0]


def test_a_vault_that_refuses_the_line_still_says_nothing_was_changed(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (vault / "Inbox.md").read_text()
    with monkeypatch.context() as m:
        read_only_state(m, vault)  # the vault itself: the line cannot be added
        result = run(vault, "capture", "Buy oat milk", ok=False)
    assert result.exit_code == 1 and "nothing was changed" in result.output
    assert (vault / "Inbox.md").read_text() == before
