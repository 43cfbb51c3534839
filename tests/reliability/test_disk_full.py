"""Disk full (ENOSPC) on a small tmpfs: reported, retried, nothing lost or truncated.

The vault and its state dir live on a 4 MB tmpfs; ``fill()`` takes every free byte.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from faults import WRITING_COMMANDS, make_vault, one_line_error, snapshot, temp_leftovers, vb
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio, reply
from support.state import dump as state_dump
from support.state import sound as state_sound

from vaultbrain.vault.note import parse_note


@pytest.fixture
def full_vault(small_disk, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = make_vault(small_disk.root / "Vault")
    proc = vb(root, "capture", "Met with Sarah about the garden")
    assert proc.returncode == 0, proc.stderr
    return root


def assert_notes_whole(vault: Path) -> None:
    for note in vault.rglob("*.md"):
        if ".vaultbrain" in note.parts:
            continue
        text = note.read_text("utf-8")
        assert parse_note(text).error is None, note
    assert state_sound(vault / ".vaultbrain")  # the state database is never left damaged


def test_a_capture_on_a_full_disk_changes_nothing(full_vault: Path, small_disk) -> None:
    before = snapshot(full_vault, skip_state=False)
    held = state_dump(full_vault / ".vaultbrain")
    small_disk.fill()
    proc = vb(full_vault, "capture", "Met with Bob about the shed")
    assert proc.returncode != 0
    small_disk.free()
    after = snapshot(full_vault, skip_state=False)
    changed = {k for k in before if before[k] != after.get(k)}
    # (the database's files may hold a transaction begun and never committed: what the
    # database holds is the same)
    assert changed <= {f".vaultbrain/state.db{x}" for x in ("", "-wal", "-shm")}, changed
    assert state_dump(full_vault / ".vaultbrain") == held
    assert temp_leftovers(full_vault) == []
    assert_notes_whole(full_vault)
    again = vb(full_vault, "capture", "Met with Bob about the shed")
    assert again.returncode == 0, again.stderr
    assert (full_vault / "People/Bob.md").exists()


@pytest.mark.parametrize(
    "args", [a for a, _ in WRITING_COMMANDS], ids=[i for _, i in WRITING_COMMANDS]
)
def test_a_full_disk_is_reported_in_one_line(full_vault: Path, small_disk, args) -> None:
    small_disk.fill()
    try:
        line = one_line_error(vb(full_vault, *args))
    finally:
        small_disk.free()
    assert "space" in line.lower()


def test_the_daemon_survives_a_full_disk_and_files_the_line_once_space_returns(
    full_vault: Path, small_disk, daemon, lmstudio: FakeLMStudio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills while the LLM answers: the note write fails; nothing is half-written."""
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "lmstudio")
    filled = []

    def fill_then_answer(body: dict) -> str:
        if not filled:
            small_disk.fill()
            filled.append(time.monotonic())
        return reply([{"type": "idea", "title": "Rain barrel"}], 0.9)

    lmstudio.responder = fill_then_answer
    d = daemon(full_vault).start()
    d.wait_ready()
    with open(full_vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Idea: a rain barrel under the gutter\n")
    wait_for(lambda: filled, 20, d.log)
    time.sleep(2)
    alive_while_full = d.alive()
    small_disk.free()
    if alive_while_full:
        wait_for(lambda: "- [x] Idea: a rain barrel" in (full_vault / "Inbox.md").read_text(), 30)
        d.stop()
    else:
        d = daemon(full_vault).start()  # what a service manager does after a crash
        wait_for(lambda: "- [x] Idea: a rain barrel" in (full_vault / "Inbox.md").read_text(), 30)
        d.stop()
    assert [p.name for p in (full_vault / "Ideas").glob("*.md")] == ["Rain barrel.md"]
    assert (full_vault / "Inbox.md").read_text().count("a rain barrel under the gutter") == 1
    assert temp_leftovers(full_vault) == []
    assert_notes_whole(full_vault)
    assert alive_while_full, "the daemon died on a full disk instead of retrying"


def _full_during_inbox_rewrite(full_vault: Path, small_disk, daemon) -> tuple[bool, str]:
    vb(full_vault, "settings", "set", "inbox_settle_seconds", "1.5")
    d = daemon(full_vault).start()
    d.wait_ready()
    with open(full_vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Met with Priya about the allotment\n")
    small_disk.fill()
    before = (full_vault / "Inbox.md").read_bytes()
    time.sleep(3)  # past the settle time: the rewrite is tried and fails
    assert (full_vault / "Inbox.md").read_bytes() == before
    alive_while_full = d.alive()
    log = d.output()
    small_disk.free()
    if not alive_while_full:
        d = daemon(full_vault).start()  # what a service manager does after a crash
    inbox = full_vault / "Inbox.md"
    wait_for(lambda: (full_vault / "People/Priya.md").exists(), 30, d.log)
    wait_for(lambda: "Met with Priya about the allotment →" in inbox.read_text(), 30, d.log)
    d.stop()
    assert inbox.read_text().count("Met with Priya") == 1
    assert temp_leftovers(full_vault) == []
    assert_notes_whole(full_vault)
    return alive_while_full, log


def test_a_full_disk_during_the_inbox_rewrite_loses_nothing(
    full_vault: Path, small_disk, daemon
) -> None:
    _full_during_inbox_rewrite(full_vault, small_disk, daemon)


def test_the_daemon_stays_up_through_a_full_disk_during_the_inbox_rewrite(
    full_vault: Path, small_disk, daemon
) -> None:
    alive, log = _full_during_inbox_rewrite(full_vault, small_disk, daemon)
    assert alive, "the daemon died on a full disk:\n" + log[-2000:]
    assert "Traceback" not in log, log[-2000:]
