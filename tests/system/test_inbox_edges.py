"""An odd Inbox.md, as the daemon and capture meet it: said in one line, never mangled."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    return root


def once(daemon, vault: Path) -> str:  # type: ignore[no-untyped-def]
    d = daemon(vault).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    return d.output()


def test_a_symlinked_inbox_is_said_once_and_left_alone(vault: Path, daemon) -> None:
    real = vault / "Notes/Real inbox.md"
    real.parent.mkdir()
    real.write_text("Buy milk\n")
    (vault / "Inbox.md").unlink()
    (vault / "Inbox.md").symlink_to("Notes/Real inbox.md")
    out = once(daemon, vault)
    warnings = [line for line in out.splitlines() if "is a symlink" in line]
    assert len(warnings) == 1, out
    assert "Traceback" not in out
    assert (vault / "Inbox.md").is_symlink() and real.read_text() == "Buy milk\n"
    result = run(vault, "capture", "Call mom", ok=False)
    assert result.exit_code == 1 and "is a symlink" in result.output
    assert real.read_text() == "Buy milk\n" and (vault / "Inbox.md").is_symlink()
    assert "is a symlink" in run(vault, "doctor", ok=False).output


@pytest.mark.parametrize("kind", ["folder", "link out"])
def test_an_inbox_that_is_a_folder_or_leads_out_is_one_line_of_warning(
    vault: Path, daemon, tmp_path: Path, kind: str
) -> None:
    (vault / "Inbox.md").unlink()
    if kind == "folder":
        (vault / "Inbox.md").mkdir()
    else:
        outside = tmp_path / "outside.md"
        outside.write_text("Buy milk\n")
        (vault / "Inbox.md").symlink_to(outside)
    out = once(daemon, vault)
    assert "Traceback" not in out
    assert len([line for line in out.splitlines() if "WARNING" in line and "Inbox.md" in line]) == 1
    if kind == "link out":
        assert (tmp_path / "outside.md").read_text() == "Buy milk\n"


def test_a_running_daemon_survives_the_inbox_becoming_a_folder(vault: Path, daemon) -> None:
    d = daemon(vault).start()
    d.wait_ready()
    (vault / "Inbox.md").unlink()
    (vault / "Inbox.md").mkdir()
    (vault / "Ideas/Bees.md").write_text("---\ntitle: Bees\n---\n")  # same batch, still seen
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "Bees" not in run(vault, "db", "list", "idea").output:
        time.sleep(0.1)
    assert "Bees" in run(vault, "db", "list", "idea").output, d.output()
    assert d.alive() and "Traceback" not in d.output()
    assert d.stop() == 0


def test_an_inbox_mtime_in_the_future_does_not_hold_once_back(vault: Path, daemon) -> None:
    inbox = vault / "Inbox.md"
    with open(inbox, "a") as fh:
        fh.write("Idea: bees on the roof\n")
    future = time.time() + 3600
    os.utime(inbox, (future, future))
    run(vault, "settings", "set", "inbox_settle_seconds", "10")
    once(daemon, vault)
    assert "^vb-" in inbox.read_text()


def test_own_block_id_stays_last_after_filing(vault: Path, daemon) -> None:
    inbox = vault / "Inbox.md"
    with open(inbox, "a") as fh:
        fh.write("- Idea: bees on the roof ^bees\n")
    os.utime(inbox, (time.time() - 60, time.time() - 60))
    once(daemon, vault)
    line = next(line for line in inbox.read_text().splitlines() if "bees on the roof" in line)
    assert "^vb-" in line and line.endswith(" ^bees"), line


def test_a_renamed_inbox_is_said_once_in_the_log(vault: Path, daemon) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "inbox_settle_seconds", "0.2")
    d = daemon().start()
    d.wait_ready()
    (vault / "Inbox.md").rename(vault / "Thoughts.md")
    wait_for(lambda: "Inbox.md is gone (renamed or deleted?)" in d.output(), 20, d.log)
    time.sleep(1.5)
    assert d.output().count("Inbox.md is gone") == 1
    assert d.stop() == 0


def test_a_schema_pack_setting_must_name_a_pack(vault: Path) -> None:
    run(vault, "init")
    result = run(vault, "settings", "set", "schema_pack", "no-such-pack", ok=False)
    assert result.exit_code == 1 and "is not a schema pack here" in result.output
    assert run(vault, "settings", "set", "schema_pack", "vaultbrain-base").exit_code == 0
