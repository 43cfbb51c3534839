"""The state dir is this machine's cache, outside the vault by default (issue 15,
vaultbrain/vault/statedir.py): in the per-user state folder, keyed by the vault id kept in
vaultbrain.yml; an existing <vault>/.vaultbrain keeps being used, with a doctor note."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.cli import run, run_json


@pytest.fixture
def outside(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user default in force (the suite otherwise keeps state in the vault)."""
    monkeypatch.delenv("VAULTBRAIN_STATE_IN_VAULT", raising=False)
    return Path(os.environ["XDG_STATE_HOME"]) / "vaultbrain" / "vaults"


def test_a_new_vault_keeps_its_state_outside_and_finds_it_after_a_move(
    tmp_path: Path, outside: Path, daemon
) -> None:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    assert not (root / ".vaultbrain").exists()
    (state,) = list(outside.iterdir())
    with open(root / "Inbox.md", "a") as fh:
        fh.write("- Idea: a podcast about bees\n")
    d = daemon(root).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert "is the filer" in d.output()
    yml = (root / "vaultbrain.yml").read_text()
    assert f"vault_id: {state.name}" in yml and "filer:" in yml
    assert not (root / ".vaultbrain").exists()
    assert [c["status"] for c in run_json(root, "inbox")] != []
    # Moved (or synced to another path): the vault id in vaultbrain.yml finds the same state.
    moved = tmp_path / "Moved"
    shutil.move(root, moved)
    assert len(run_json(moved, "inbox")) == 1
    assert list(outside.iterdir()) == [state]
    assert "is the filer" in run(moved, "filer", "show").output


def test_an_existing_state_dir_in_the_vault_keeps_being_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "Vault"
    run(root, "init")  # the suite's pin: state in the vault, as before issue 15
    run(root, "capture", "Idea: a honey label printer")
    monkeypatch.delenv("VAULTBRAIN_STATE_IN_VAULT")
    assert len(run_json(root, "inbox")) == 1
    out = run(root, "doctor", ok=False).output
    assert "inside the vault (kept from before)" in out, out
    state = tmp_path / "elsewhere"
    monkeypatch.setenv("VAULTBRAIN_STATE_DIR", str(state))
    assert run_json(root, "inbox") == []  # the override wins
