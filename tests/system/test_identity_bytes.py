"""Which bytes (issue 29): what a crash, a disk-full moment, another tool or a hand edit
leaves in the vault never stops vaultbrain with a traceback; it is kept, skipped or set
aside, and `doctor` names it (the state dir's database: tests/system/test_state_db.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run, run_json


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    return root


def doctor_check(vault: Path, name: str) -> dict:
    checks = json.loads(run(vault, "doctor", "--json", ok=False).output)
    return next(c for c in checks if c["check"] == name)


def _vaultbrain(vault: Path, *args: str, stdin: bytes | None = None) -> tuple[int, str]:
    import os
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        input=stdin,
        capture_output=True,
        env=os.environ,
        timeout=60,
    )
    return proc.returncode, (proc.stdout + proc.stderr).decode("utf-8", "replace")


@pytest.mark.parametrize("how", ["stdin", "argument"])
def test_capture_of_bytes_that_are_not_utf8_is_one_line(vault: Path, how: str) -> None:
    import os

    thought = "caf\xe9 with Sarah".encode("latin-1")  # Windows-1252, as an old script writes it
    before = (vault / "Inbox.md").read_bytes()
    if how == "stdin":
        code, out = _vaultbrain(vault, "capture", "-", stdin=thought)
    else:
        code, out = _vaultbrain(vault, "capture", os.fsdecode(thought))
    assert code == 1, out
    assert out.strip().splitlines() == [
        "error: the thought is not UTF-8 text (byte 0xe9 at 3); nothing was captured: "
        "convert it to UTF-8 (e.g. `iconv -f windows-1252 -t utf-8`) and capture it again"
    ]
    assert (vault / "Inbox.md").read_bytes() == before
    assert run_json(vault, "inbox") == []


def test_a_byte_that_is_not_utf8_in_the_inbox_stops_no_other_line(vault: Path, daemon) -> None:
    """One Windows-1252 byte appended to Inbox.md (a script, an old editor): that line is
    not filed and is kept byte for byte through every rewrite; every other line is filed;
    doctor and Needs Review's "Can't read" name it."""
    from support.daemon import wait_for

    inbox = vault / "Inbox.md"
    run(vault, "settings", "set", "inbox_idle_seconds", "0.5")
    d = daemon(vault).start()
    d.wait_ready()
    bad = "- Caf\xe9 with Sarah on Monday\n".encode("cp1252")
    with open(inbox, "ab") as fh:
        fh.write(b"- Idea: a podcast about bees\n" + bad + b"- Call the roofer on Monday\n")

    def filed() -> bool:
        return inbox.read_bytes().count(b"^vb-") == 2

    wait_for(filed, 60, d.log)
    with open(inbox, "ab") as fh:
        fh.write(b"- Idea: a honey label printer\n")
    wait_for(lambda: inbox.read_bytes().count(b"^vb-") == 3, 60, d.log)
    wait_for(lambda: len(run_json(vault, "inbox")) == 3, 30, d.log)
    data = inbox.read_bytes()
    # byte for byte, through three rewrites, marked in place with why
    marked = bad.rstrip(b"\n") + " ⚠ not filed: ".encode()
    assert marked in data and b"not UTF-8" in data.split(marked, 1)[1].split(b"\n", 1)[0]
    assert sorted(c["text"] for c in run_json(vault, "inbox")) == [
        "Call the roofer on Monday",
        "Idea: a honey label printer",
        "Idea: a podcast about bees",
    ]
    review = vault / "Brain" / "Needs Review.md"
    wait_for(lambda: review.is_file() and "Can't read" in review.read_text("utf-8"), 30, d.log)
    section = review.read_text("utf-8").split("## Can't read", 1)[1]
    assert "Inbox.md" in section and "line" in section and "not UTF-8" in section
    assert d.stop() == 0
    assert "Traceback" not in d.output()
    inbox_check = doctor_check(vault, "inbox")
    assert not inbox_check["ok"] and "is not UTF-8 text (line" in inbox_check["detail"]
    assert "Inbox.md" in doctor_check(vault, "unreadable notes")["detail"]
    assert inbox.read_bytes().count(marked) == 1
