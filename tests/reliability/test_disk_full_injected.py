"""Disk full, injected at the write seam: runs anywhere (no root, no tmpfs needed).

``vaultbrain.vault.atomic.write_all`` is where every vaultbrain write of a note or a state
file puts its bytes (and ``sync`` where it fsyncs them), and ``vaultbrain.store.db.spend``
where a transaction of ``state.db`` does, before it commits. Here those seams share a byte
budget: once it is spent, each write fails as a full disk does, with ENOSPC (SQLite's
``database or disk is full``, the transaction rolled back). The commands run
in-process (click's runner), the daemon as ``daemon --once``; the tmpfs tests in
``test_disk_full.py`` do the same against a real filesystem where mount is allowed.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from faults import WRITING_COMMANDS, make_vault, snapshot, temp_leftovers
from support.cli import run, run_json
from support.state import sound as state_sound

from vaultbrain.cli.group import cli
from vaultbrain.store import db as store_db
from vaultbrain.vault import atomic
from vaultbrain.vault.note import parse_note


class InjectedDisk:
    """The write seam with a budget of free bytes (unlimited until ``fill``)."""

    def __init__(self) -> None:
        self.left: int | None = None
        self.refused = 0

    def fill(self, leave: int = 0) -> None:
        self.left = leave

    def free(self) -> None:
        self.left = None

    def write(self, fd: int, data: memoryview | bytes) -> int:
        if self.left is not None:
            if self.left <= 0:
                self.refused += 1
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            data = memoryview(data)[: self.left]
        n = os.write(fd, data)
        if self.left is not None:
            self.left -= n
        return n

    def spend(self, nbytes: int) -> None:
        """A transaction of the state database about to commit ``nbytes``."""
        if self.left is not None:
            if self.left < nbytes:
                self.left = 0
                self.refused += 1
                raise sqlite3.OperationalError("database or disk is full")
            self.left -= nbytes


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> InjectedDisk:
    d = InjectedDisk()
    monkeypatch.setattr(atomic, "_os_write", d.write)
    monkeypatch.setattr(store_db, "spend", d.spend)
    return d


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = make_vault(tmp_path / "Vault")
    run(root, "capture", "Met with Sarah about the garden")
    return root


def vb(vault: Path, *args: str):
    return CliRunner().invoke(cli, ["--vault", str(vault), *args])


def one_line_error(result) -> str:
    assert result.exit_code == 1, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    stderr = result.stderr if hasattr(result, "stderr") else result.output
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, stderr
    return errors[0]


def assert_whole(vault: Path) -> None:
    for note in vault.rglob("*.md"):
        if ".vaultbrain" not in note.parts:
            assert parse_note(note.read_text("utf-8")).error is None, note
    for rec in (vault / ".vaultbrain").rglob("*.json"):
        json.loads(rec.read_text("utf-8"))  # no state file is ever truncated
    assert state_sound(vault / ".vaultbrain")  # nor the state database damaged


# A capture writes about 7.5 KB in all (the inbox line, its journal record, the note, the
# person's record, the audit trail): the disk fills at each stage.
@pytest.mark.parametrize("leave", [0, 100, 400, 1000, 2000, 3000, 5000, 7000])
def test_a_capture_on_a_full_disk_changes_nothing_it_cannot_finish(
    vault: Path, disk: InjectedDisk, leave: int
) -> None:
    before = snapshot(vault, skip_state=True)
    disk.fill(leave)
    result = vb(vault, "capture", "Met with Bob about the shed")
    disk.free()
    assert disk.refused >= 1
    assert "space" in one_line_error(result).lower()
    after = snapshot(vault, skip_state=True)
    inbox = "Inbox.md"
    changed = {k for k in before if before[k] != after.get(k)} - {inbox}
    assert changed == set(), changed  # no note the person had is touched
    for new in set(after) - set(before):  # a note written before the disk filled is whole
        assert parse_note(after[new].decode("utf-8")).error is None, new
    if after[inbox] != before[inbox]:
        # The line was anchored before the disk filled: it is whole, and waits to be filed.
        assert after[inbox].startswith(before[inbox]), after[inbox]
        assert b"Met with Bob about the shed" in after[inbox]
    assert temp_leftovers(vault) == []
    assert_whole(vault)
    # The space is back: whatever was begun is finished. (Its record of having written the
    # inbox may be what the disk refused: the line then waits out the settle time, as one the
    # person typed would; an hour-old inbox has.)
    old = time.time() - 3600
    os.utime(vault / inbox, (old, old))
    run(vault, "daemon", "--once")
    if b"Met with Bob" not in after[inbox]:
        run(vault, "capture", "Met with Bob about the shed")
    assert [p.name for p in (vault / "People").glob("Bob*.md")] == ["Bob.md"]  # once
    bobs = [c for c in run_json(vault, "inbox") if "Bob" in c["text"]]
    assert len(bobs) == 1 and bobs[0]["status"] in ("filed", "suggested"), bobs


@pytest.mark.parametrize(
    "args", [a for a, _ in WRITING_COMMANDS], ids=[i for _, i in WRITING_COMMANDS]
)
def test_a_full_disk_is_one_line_and_leaves_notes_whole(
    vault: Path, disk: InjectedDisk, args: list[str]
) -> None:
    disk.fill()
    result = vb(vault, *args)
    disk.free()
    assert "space" in one_line_error(result).lower()
    assert temp_leftovers(vault) == []
    assert_whole(vault)


def test_daemon_once_on_a_full_disk_loses_no_line_and_files_it_later(
    vault: Path, disk: InjectedDisk
) -> None:
    inbox = vault / "Inbox.md"
    with open(inbox, "a", encoding="utf-8") as fh:
        fh.write("- Met with Carol about the bees\n- Idea: a honey label printer\n")
    typed = inbox.read_text("utf-8")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    disk.fill()
    result = vb(vault, "daemon", "--once")
    disk.free()
    assert "Traceback" not in result.output
    assert disk.refused >= 1
    assert inbox.read_text("utf-8") == typed  # the rewrite was refused whole
    assert temp_leftovers(vault) == []
    assert_whole(vault)
    run(vault, "daemon", "--once")
    text = inbox.read_text("utf-8")
    for thought in ("Met with Carol about the bees", "Idea: a honey label printer"):
        assert text.count(thought) == 1 and f"] {thought} →" in text, text
    assert (vault / "People/Carol.md").exists()
