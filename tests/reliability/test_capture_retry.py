"""A `vaultbrain capture` that failed, tried again by the person: the retry takes up the
capture the failed command left (its line, its journal entry) instead of adding a second
line and a second pending capture (vaultbrain/capture/pipeline.py, ``failed_before``).

Each attempt is a process of its own on a real vault: the first one fails (a folder the
system refuses to write, run without root's override of file modes; or a state dir that
refuses writes after the line is added), the second runs once the cause is gone.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from faults import no_traceback, one_line_error, vb
from support.cli import run

from vaultbrain.vault import atomic

THOUGHT = "Idea: a moss wall for the shed"


@pytest.fixture
def heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")


def read_only_state(monkeypatch: pytest.MonkeyPatch, state: Path) -> None:
    """The state dir read-only at its two write seams (as tests/system/test_capture_readonly.py
    makes it): a file write under it fails with EROFS, and state.db opens read-only."""
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


def _captures(vault: Path, thought: str) -> list[dict]:
    proc = vb(vault, "inbox", "--json")
    assert proc.returncode == 0, proc.stderr
    return [c for c in json.loads(proc.stdout) if c["text"] == thought]


def _lines(vault: Path, thought: str) -> list[str]:
    return [
        line for line in (vault / "Inbox.md").read_text("utf-8").splitlines() if thought in line
    ]


@pytest.mark.usefixtures("heuristic")
def test_a_capture_that_could_not_write_its_note_is_taken_up_by_the_retry(
    vault: Path, obey_permissions: list[str]
) -> None:
    ideas = vault / "Ideas"
    mode = ideas.stat().st_mode
    os.chmod(ideas, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    try:
        failed = vb(vault, "capture", THOUGHT, prefix=obey_permissions)
    finally:
        os.chmod(ideas, mode)
    error = one_line_error(failed)
    assert "the thought is in Inbox.md" in error and "permission denied" in error
    assert "capture it again" in error and "nothing was changed" not in error
    left = _captures(vault, THOUGHT)
    assert [c["status"] for c in left] == ["pending"]  # what the failed command left

    retry = vb(vault, "capture", THOUGHT)
    no_traceback(retry)
    assert retry.returncode == 0, retry.stderr
    assert retry.stdout.startswith(f"{left[0]['id']}: filed"), retry.stdout
    after = _captures(vault, THOUGHT)
    assert [(c["id"], c["status"]) for c in after] == [(left[0]["id"], "filed")]
    lines = _lines(vault, THOUGHT)
    assert len(lines) == 1 and lines[0].startswith("- [x]") and f"^vb-{left[0]['id']}" in lines[0]
    assert [p.name for p in ideas.glob("*moss wall*")] == ["A moss wall for the shed.md"]

    # A thought captured again once the first was filed is a new capture, as always.
    again = vb(vault, "capture", THOUGHT)
    assert again.returncode == 0 and len(_captures(vault, THOUGHT)) == 2


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pytest.mark.usefixtures("heuristic")
def test_a_capture_whose_state_write_failed_is_taken_up_by_the_retry(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line was added, then the state dir refused the journal entry (this process, at
    its write seams); the retry, another process, journals that line's id."""
    from vaultbrain.brain import Brain

    with monkeypatch.context() as m:
        read_only_state(m, Brain(vault).state_dir)
        result = run(vault, "capture", "Buy oat milk", ok=False)
    assert result.exit_code == 1 and "do not capture it again" in result.output
    (line,) = _lines(vault, "Buy oat milk")
    cid = line.rsplit("^vb-", 1)[1]
    assert _captures(vault, "Buy oat milk") == []  # no journal entry: only the line

    retry = vb(vault, "capture", "Buy oat milk")  # the person did capture it again
    assert retry.returncode == 0, retry.stderr
    after = _captures(vault, "Buy oat milk")
    assert [c["id"] for c in after] == [cid] and after[0]["status"] != "pending"
    assert len(_lines(vault, "Buy oat milk")) == 1


@pytest.mark.usefixtures("heuristic")
def test_a_capture_left_pending_on_purpose_is_not_taken_for_a_failure(vault: Path) -> None:
    """The LLM is down and there is no fallback: the command ends well, its capture pending
    for the daemon; the same words captured again are a second thought."""
    run(vault, "settings", "set", "provider", "lmstudio")
    run(vault, "settings", "set", "fallback", "none")
    env = {**os.environ, "VAULTBRAIN_ENDPOINT": "http://127.0.0.1:9/v1"}
    env.pop("VAULTBRAIN_PROVIDER", None)
    for _ in range(2):
        proc = vb(vault, "capture", "Call the plumber", env=env)
        assert proc.returncode == 0, proc.stderr
    assert [c["status"] for c in _captures(vault, "Call the plumber")] == ["pending", "pending"]
    assert len(_lines(vault, "Call the plumber")) == 2
