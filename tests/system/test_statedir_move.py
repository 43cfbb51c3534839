"""Moving an earlier version's <vault>/.vaultbrain out of the vault (issue 15,
vaultbrain/vault/statedir.py): `vaultbrain statedir move`, or the daemon at start when no
other process holds it. Nothing is lost even with kill -9 at any instant, and nothing is
left in the vault for a sync tool to carry."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.errors import UserError
from vaultbrain.vault.relocate import manifest, move_state_dir
from vaultbrain.vault.statedir import MOVED_AWAY, default_state_dir, per_user_state_dir


@pytest.fixture
def old_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A vault an earlier version used: its state dir inside it, with one capture."""
    root = tmp_path / "Vault"
    run(root, "init")  # the suite's pin keeps the state in the vault, as before issue 15
    run(root, "capture", "Idea: a honey label printer")
    monkeypatch.delenv("VAULTBRAIN_STATE_IN_VAULT")
    return root


def dot_folders(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".vaultbrain"))


def test_statedir_move_takes_it_out_of_the_vault(old_vault: Path) -> None:
    before = manifest(old_vault / ".vaultbrain")
    assert "from before" in run(old_vault, "statedir", "show").output
    out = run(old_vault, "statedir", "move").output
    target = per_user_state_dir(old_vault)
    assert out.strip() == f"{old_vault / '.vaultbrain'} -> {target}: moved"
    assert dot_folders(old_vault) == []
    assert manifest(target) == before
    assert f"vault_id: {target.name}" in (old_vault / "vaultbrain.yml").read_text()
    assert len(run_json(old_vault, "inbox")) == 1  # the same state, found at its new place
    assert "per-user state folder" in run(old_vault, "statedir", "show").output
    assert "nothing to move" in run(old_vault, "statedir", "move").output


def test_a_move_across_filesystems_copies_checks_then_deletes(
    old_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == old_vault.stat().st_dev:
        pytest.skip("no second filesystem here")
    state_home = Path(shm / f"vaultbrain-test-{os.getpid()}")
    monkeypatch.setenv("XDG_STATE_HOME", str(state_home))
    try:
        before = manifest(old_vault / ".vaultbrain")
        out = run(old_vault, "statedir", "move").output
        assert "copied, checked file by file, and removed from the vault" in out
        assert dot_folders(old_vault) == []
        assert manifest(per_user_state_dir(old_vault)) == before
        assert len(run_json(old_vault, "inbox")) == 1
    finally:
        shutil.rmtree(state_home, ignore_errors=True)


MOVER = (
    "import sys; from pathlib import Path; "
    "from vaultbrain.vault.relocate import move_state_dir; "
    "move_state_dir(Path(sys.argv[1]), copy=True)"
)


def test_kill_9_at_any_moment_of_a_copying_move_loses_nothing(old_vault: Path) -> None:
    """The copying way (taken across filesystems) killed after ever later delays: after each
    kill the state dir the vault resolves to holds every file, byte for byte; the next run
    finishes the move with nothing left behind."""
    legacy = old_vault / ".vaultbrain"
    bulk = legacy / "bulk"
    bulk.mkdir()
    for i in range(1500):
        (bulk / f"r{i:04}.json").write_text(f'{{"n": {i}, "pad": "{"x" * 900}"}}')
    for i in range(3):
        (bulk / f"big{i}.bin").write_bytes(os.urandom(6 << 20))
    before = manifest(legacy)
    target = per_user_state_dir(old_vault)
    seen: dict[str, int] = {}
    delay, finished = 0.02, False
    while not finished and delay < 60:
        proc = subprocess.Popen([sys.executable, "-c", MOVER, str(old_vault)])
        time.sleep(delay)
        if proc.poll() is None:
            proc.kill()
        finished = proc.wait(60) == 0
        assert proc.returncode in (0, -9)
        phase = (
            "done"
            if finished
            else "copy in place, old folder not yet gone"
            if target.is_dir() and (legacy.is_dir() or (old_vault / MOVED_AWAY).is_dir())
            else "copying"
            if legacy.is_dir()
            else "?"
        )
        seen[phase] = seen.get(phase, 0) + 1
        # Whatever the instant, the vault's state dir holds everything.
        assert manifest(default_state_dir(old_vault)) == before, phase
        delay *= 1.4
    print(f"kills by phase: {seen}")
    assert finished and seen.get("copying", 0) >= 1
    move_state_dir(old_vault)  # a later run (the daemon's start): finishes any leftover
    assert dot_folders(old_vault) == []
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no half copy left
    assert manifest(target) == before
    assert len(run_json(old_vault, "inbox")) == 1


def test_a_kill_between_the_copy_and_the_deletion_is_finished_or_redone(
    old_vault: Path, tmp_path: Path
) -> None:
    legacy = old_vault / ".vaultbrain"
    backup = tmp_path / "backup"
    shutil.copytree(legacy, backup, symlinks=True)
    assert move_state_dir(old_vault, copy=True).how == "copied"
    # Killed after the copy was renamed into place, before the old folder was deleted:
    shutil.copytree(backup, legacy, symlinks=True)
    assert move_state_dir(old_vault).how == "finished"
    assert dot_folders(old_vault) == []
    # ... and killed while deleting it (renamed away, partly deleted):
    shutil.copytree(backup, old_vault / MOVED_AWAY, symlinks=True)
    assert move_state_dir(old_vault).how == "finished"
    assert dot_folders(old_vault) == []


def test_a_copy_whose_original_changed_since_is_redone_or_refused(
    old_vault: Path, tmp_path: Path
) -> None:
    legacy = old_vault / ".vaultbrain"
    backup = tmp_path / "backup"
    shutil.copytree(legacy, backup, symlinks=True)
    target = move_state_dir(old_vault, copy=True).target
    # The old folder came back and was written to (pinned there) after the copy:
    shutil.copytree(backup, legacy, symlinks=True)
    (legacy / "later.json").write_text("{}")
    assert move_state_dir(old_vault, copy=True).how == "copied"  # the copy was untouched
    assert (target / "later.json").is_file() and dot_folders(old_vault) == []
    # Both changed since the copy: neither is this move's to throw away.
    shutil.copytree(backup, legacy, symlinks=True)
    (legacy / "later.json").write_text('{"written": "again"}')
    (target / "newer.json").write_text("{}")
    with pytest.raises(UserError, match="have both changed"):
        move_state_dir(old_vault)
    assert (legacy / "later.json").is_file() and (target / "newer.json").is_file()


def test_the_daemon_moves_it_at_start_only_when_nothing_holds_it(old_vault: Path, daemon) -> None:
    legacy = old_vault / ".vaultbrain"
    fd = os.open(legacy / "daemon.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another daemon runs on it
        d = daemon(old_vault).start("--once")
        assert d.proc.wait(90) != 0
        assert "the state dir stays in the vault for now" in d.output(), d.output()
        assert "another vaultbrain daemon" in d.output()
        assert legacy.is_dir()
    finally:
        os.close(fd)
    d = daemon(old_vault).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert f"-> {per_user_state_dir(old_vault)}: moved" in d.output()
    assert dot_folders(old_vault) == []
    assert len(run_json(old_vault, "inbox")) == 1


def test_the_in_vault_place_is_kept_when_pinned_or_given(
    old_vault: Path, monkeypatch: pytest.MonkeyPatch, daemon
) -> None:
    legacy = old_vault / ".vaultbrain"
    d = daemon(old_vault, env={"VAULTBRAIN_STATE_DIR": str(legacy)}).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert legacy.is_dir() and not per_user_state_dir(old_vault).exists()
    assert (
        "is given"
        in run(old_vault, "--state-dir", str(legacy), "statedir", "move", ok=False).output
    )
    monkeypatch.setenv("VAULTBRAIN_STATE_IN_VAULT", "1")
    assert "unset it first" in run(old_vault, "statedir", "move", ok=False).output
    d = daemon(old_vault).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert legacy.is_dir() and not per_user_state_dir(old_vault).exists()


def test_a_state_dir_a_sync_tool_brings_back_is_not_used(old_vault: Path, tmp_path: Path) -> None:
    backup = tmp_path / "backup"
    shutil.copytree(old_vault / ".vaultbrain", backup)
    run(old_vault, "statedir", "move")
    run(old_vault, "capture", "Idea: a second thought")
    shutil.copytree(backup, old_vault / ".vaultbrain")  # another machine's, synced in
    assert len(run_json(old_vault, "inbox")) == 2  # this machine's, moved
    doctor = run(old_vault, "doctor", ok=False).output
    assert "may be another machine's" in doctor
    with pytest.raises(UserError, match="already holds a state dir"):
        move_state_dir(old_vault)
    assert (old_vault / ".vaultbrain").is_dir()  # not this machine's to delete
