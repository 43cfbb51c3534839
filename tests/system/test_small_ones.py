"""Issue 44's small ones, each through the command as a person types it (a subprocess):
`fix` takes a title as `db show` does; `doctor` says a folder that is not a vault is not
one; the MCP error's install hint names the form that works for this installation."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import vaultbrain


def vaultbrain_cmd(
    vault: Path, env: dict[str, str], *args: str, ok: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    if ok:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("VAULTBRAIN_")}
    out["VAULTBRAIN_STATE_DIR"] = str(tmp_path / "state")
    out["VAULTBRAIN_PROVIDER"] = "heuristic"
    return out


def test_fix_takes_a_title_as_db_show_does(tmp_path: Path, env: dict[str, str]) -> None:
    vault = tmp_path / "Vault"
    vaultbrain_cmd(vault, env, "init")
    vaultbrain_cmd(vault, env, "db", "add", "person", "--set", "name=Sarah")
    shown = json.loads(vaultbrain_cmd(vault, env, "db", "show", "person", "Sarah", "--json").stdout)
    assert shown["title"] == "Sarah"
    out = vaultbrain_cmd(vault, env, "fix", "sarah", "idea").stdout  # as db show takes it
    assert "re-filed as idea: Ideas/Sarah.md" in out
    assert (vault / "Ideas/Sarah.md").is_file() and not (vault / "People/Sarah.md").exists()
    assert json.loads(vaultbrain_cmd(vault, env, "db", "list", "person", "--json").stdout) == []
    # by id still, and a name two records share is refused with their ids
    vaultbrain_cmd(vault, env, "db", "add", "project", "--set", "name=Sarah")
    refused = vaultbrain_cmd(vault, env, "fix", "Sarah", "admin", ok=False)
    assert refused.returncode != 0 and "names 2 records" in refused.stderr
    assert "give the id of one" in refused.stderr
    missing = vaultbrain_cmd(vault, env, "fix", "Nobody", "idea", ok=False)
    assert "no record 'Nobody'" in missing.stderr


def test_doctor_says_a_folder_that_is_not_a_vault_is_not_one(
    tmp_path: Path, env: dict[str, str]
) -> None:
    folder = tmp_path / "Downloads"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a vault\n")
    done = vaultbrain_cmd(folder, env, "doctor", ok=False)
    assert done.returncode != 0
    assert f"[FAIL] vault: {folder} is not a vault" in done.stdout
    assert "[ok  ] vault" not in done.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # nothing written
    vaultbrain_cmd(folder, env, "init")
    assert "[ok  ] vault" in vaultbrain_cmd(folder, env, "doctor", ok=False).stdout


def test_the_mcp_install_hint_fits_this_installation(tmp_path: Path, env: dict[str, str]) -> None:
    vault = tmp_path / "Vault"
    vaultbrain_cmd(vault, env, "init")
    # An environment without the MCP SDK: a package named mcp that is not there.
    hidden = tmp_path / "no-mcp"
    (hidden / "mcp").mkdir(parents=True)
    (hidden / "mcp" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
    )
    env = {**env, "PYTHONPATH": os.pathsep.join([str(hidden), env.get("PYTHONPATH", "")])}
    done = vaultbrain_cmd(vault, env, "mcp", ok=False)
    assert done.returncode != 0
    line = done.stderr.strip().splitlines()[-1]
    hint = line.split("the mcp package: ", 1)[1]
    words = shlex.split(hint)
    assert words[:4] == [sys.executable, "-m", "pip", "install"]
    checkout = Path(vaultbrain.__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file():  # this test runs from a checkout
        assert words[4:] == ["-e", f"{checkout}[mcp]"]
    else:
        assert words[4:] == ["vaultbrain[mcp]"]


def test_fix_refuses_a_note_whose_frontmatter_is_not_one_block(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Re-filing would stack a new block above the person's: refused, the note as it was."""
    vault = tmp_path / "Vault"
    vaultbrain_cmd(vault, env, "init")
    note = vault / "People/Grace Hopper.md"
    text = "---\naliases: [Grace]\n--- %% button %%\nInvented the compiler.\n"
    note.write_text(text, "utf-8")
    vaultbrain_cmd(vault, env, "reindex")
    refused = vaultbrain_cmd(vault, env, "fix", "Grace Hopper", "idea", ok=False)
    assert refused.returncode != 0 and "closing --- has text after it" in refused.stderr
    assert note.read_text("utf-8") == text and not (vault / "Ideas/Grace Hopper.md").exists()
