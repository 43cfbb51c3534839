"""Which vault (issue 29, vaultbrain/vault/identity.py): a vault is its id plus where it
lives. A move keeps the id and the state, a copy gets its own id and state (said in one
line), a deleted vaultbrain.yml comes back with the same id, and two machines syncing one
vault at different paths are one vault, never copies."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from support.cli import run, run_json


@pytest.fixture
def outside(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user state folder in force (the suite otherwise keeps state in the vault)."""
    monkeypatch.delenv("VAULTBRAIN_STATE_IN_VAULT", raising=False)
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    return Path(os.environ["XDG_STATE_HOME"]) / "vaultbrain" / "vaults"


def vault_id(root: Path) -> str:
    found = re.search(r"^vault_id: (\S+)", (root / "vaultbrain.yml").read_text(), re.M)
    assert found, (root / "vaultbrain.yml").read_text()
    return found.group(1)


def test_init_writes_the_id_so_a_rename_before_any_daemon_keeps_the_state(
    tmp_path: Path, outside: Path
) -> None:
    """README's quick start: init, capture, then the folder is renamed."""
    root = tmp_path / "Vault"
    assert "created vaultbrain.yml" in run(root, "init").output
    vid = vault_id(root)
    # a suggestion (the embedded classifier files a clear thought outright at the default
    # bar since issue 42)
    run(root, "settings", "set", "auto_confidence", "0.95")
    capture = run_json(root, "capture", "Met with Sarah about the new project")
    assert capture["status"] == "suggested"
    renamed = tmp_path / "Personal"
    root.rename(renamed)
    listed = run(renamed, "review", "list").output
    assert capture["id"] in listed, listed
    run(renamed, "review", "confirm", capture["id"])
    assert [c["status"] for c in run_json(renamed, "inbox")] == ["filed"]
    assert vault_id(renamed) == vid and [p.name for p in outside.iterdir()] == [vid]


def vaultbrain(vault: Path, *args: str) -> tuple[str, str]:
    """A command as its own process: (stdout, stderr)."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=os.environ,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def test_a_copied_vault_gets_its_own_id_and_state_in_one_line(
    tmp_path: Path, outside: Path
) -> None:
    root = tmp_path / "Personal"
    run(root, "init")
    # a suggestion to confirm in one copy (the embedded classifier files a clear thought
    # outright at the default bar since issue 42)
    run(root, "settings", "set", "auto_confidence", "0.95")
    capture = run_json(root, "capture", "Met with Sarah about the new project")
    copy = tmp_path / "Work"
    shutil.copytree(root, copy)

    listed, said = vaultbrain(copy, "review", "list")  # it knows what it held when copied
    assert capture["id"] in listed
    (line,) = said.strip().splitlines()
    assert f"{copy} is a copy of the vault at {root}" in line, said
    assert vault_id(copy) != vault_id(root)
    assert sorted(p.name for p in outside.iterdir()) == sorted([vault_id(root), vault_id(copy)])

    # Confirming in the copy leaves the original's suggestion waiting, and the other way.
    run(copy, "review", "confirm", capture["id"])
    assert [c["status"] for c in run_json(copy, "inbox")] == ["filed"]
    assert [c["status"] for c in run_json(root, "inbox")] == ["suggested"]
    assert capture["id"] in run(root, "review", "list").output
    assert "- [ ]" in (root / "Inbox.md").read_text()
    assert "is a copy of" not in vaultbrain(copy, "review", "list")[1]  # said once
    assert "is a copy of" not in vaultbrain(root, "review", "list")[1]


def test_a_moved_vault_with_its_yml_deleted_under_the_daemon_keeps_its_id(
    tmp_path: Path, outside: Path, daemon
) -> None:
    """vaultbrain.yml deleted while the daemon runs, in a vault moved since its id was made:
    written back with the same id (not one derived from the new path), and a restarted
    daemon is still the filer, with the same state."""
    first = tmp_path / "Vault"
    run(first, "init")
    run(first, "settings", "set", "inbox_settle_seconds", "0")
    capture = run_json(first, "capture", "Idea: a podcast about bees")
    vid = vault_id(first)
    root = tmp_path / "Moved"
    first.rename(root)
    d = daemon(root).start()
    d.wait_ready()
    assert "is the filer" in d.output()
    (root / "vaultbrain.yml").unlink()
    from support.daemon import wait_for

    wait_for(
        lambda: (
            (root / "vaultbrain.yml").is_file()
            and "filer:" in (root / "vaultbrain.yml").read_text()
        ),
        20,
        d.log,
    )
    assert vault_id(root) == vid
    assert d.stop() == 0
    again = daemon(root).start()
    again.wait_ready()
    assert "is the filer" in again.output(), again.output()
    with open(root / "Inbox.md", "a") as fh:
        fh.write("- Idea: a honey label printer\n")
    wait_for(lambda: len(run_json(root, "inbox")) == 2, 30, again.log)
    assert again.stop() == 0
    assert [p.name for p in outside.iterdir()] == [vid]
    assert capture["id"] in [c["id"] for c in run_json(root, "inbox")]


def test_a_deleted_yml_is_written_back_by_a_command_with_the_same_id(
    tmp_path: Path, outside: Path
) -> None:
    root = tmp_path / "Vault"
    run(root, "init")
    capture = run_json(root, "capture", "Idea: a podcast about bees")
    vid = vault_id(root)
    (root / "vaultbrain.yml").unlink()
    assert [c["id"] for c in run_json(root, "inbox")] == [capture["id"]]
    assert vault_id(root) == vid


def test_two_machines_with_the_vault_at_two_paths_are_one_vault(tmp_path: Path) -> None:
    """Each machine has its own state dir recording its own path; a sync tool carries the
    notes and vaultbrain.yml between them. Neither sees a copy, and the id stays one."""
    laptop_vault, desktop_vault = tmp_path / "laptop" / "Vault", tmp_path / "desktop" / "Notes"
    laptop, desktop = tmp_path / "laptop-state", tmp_path / "desktop-state"
    run(laptop_vault, "--state-dir", str(laptop), "init")
    vid = vault_id(laptop_vault)
    shutil.copytree(laptop_vault, desktop_vault)  # the sync tool's first delivery
    run(desktop_vault, "--state-dir", str(desktop), "capture", "Idea: a podcast about bees")
    run(laptop_vault, "--state-dir", str(laptop), "capture", "Met with Sarah about the garden")
    for a, b in ((laptop_vault, desktop_vault), (desktop_vault, laptop_vault)):
        shutil.copy2(a / "vaultbrain.yml", b / "vaultbrain.yml")
        assert vault_id(a) == vid
    run(desktop_vault, "--state-dir", str(desktop), "review", "list")
    run(laptop_vault, "--state-dir", str(laptop), "review", "list")
    assert vault_id(laptop_vault) == vault_id(desktop_vault) == vid


def test_a_vault_made_again_at_the_same_path_starts_a_fresh_state(
    tmp_path: Path, outside: Path
) -> None:
    """A vault deleted and made again where it was is a new vault: it does not inherit the
    old one's state (its captures, settings, learnt model); that state is kept aside, not
    deleted, and one line says so. The next command says nothing more."""
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "auto_confidence", "0.95")
    old = run_json(root, "capture", "Met with Sarah about the new project")
    old_id = vault_id(root)
    shutil.rmtree(root)
    root.mkdir()
    (root / ".obsidian").mkdir()  # a new Obsidian vault in the same folder

    _, said = vaultbrain(root, "init")
    (line,) = said.strip().splitlines()
    assert f"{root} is a new vault where the vault {old_id} was" in line, said
    assert "kept aside in" in line
    assert run_json(root, "inbox") == []
    assert run_json(root, "settings", "get", "auto_confidence") == {"auto_confidence": 0.8}
    aside = list((outside.parent / "set-aside").iterdir())
    assert len(aside) == 1 and (aside[0] / "vault.json").is_file()
    assert any(aside[0].glob("state.db*")), list(aside[0].iterdir())
    assert "is a new vault" not in vaultbrain(root, "inbox")[1]  # said once
    assert old["id"] not in vaultbrain(root, "review", "list")[0]


def test_a_deleted_yml_and_its_state_stay_one_vault_while_brain_is_there(
    tmp_path: Path, outside: Path
) -> None:
    """vaultbrain.yml alone deleted (a sync tool's conflict): Brain/ is still there, the
    vault is the same one, nothing is set aside."""
    root = tmp_path / "Vault"
    run(root, "init")
    capture = run_json(root, "capture", "Idea: a podcast about bees")
    (root / "vaultbrain.yml").unlink()
    out, said = vaultbrain(root, "inbox")
    assert "new vault" not in said and capture["id"] in out
    assert not (outside.parent / "set-aside").exists()


def test_a_given_state_dir_of_another_vault_id_is_set_aside_for_a_fresh_one(
    tmp_path: Path,
) -> None:
    """A state dir given by --state-dir recorded for this path, and a vault made again there
    with another id: the new vault gets a fresh state in that place, the old one is kept
    beside it."""
    root, state = tmp_path / "Vault", tmp_path / "state"
    run(root, "--state-dir", str(state), "init")
    old = run_json(root, "--state-dir", str(state), "capture", "Idea: a podcast about bees")
    shutil.rmtree(root)
    root.mkdir()
    (root / "vaultbrain.yml").write_text("vault_id: a1b2c3d4e5f6a7b8\n")
    assert run_json(root, "--state-dir", str(state), "inbox") == []
    (aside,) = tmp_path.glob("state.set-aside-*")
    assert any(aside.glob("state.db*")) and (aside / "vault.json").is_file()
    assert old["id"] not in run(root, "--state-dir", str(state), "review", "list").output
    assert vault_id(root) == "a1b2c3d4e5f6a7b8"
