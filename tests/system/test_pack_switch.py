"""A pack switch is previewed and writes nothing in notes; inside a vault `schema use` sets
that vault's pack in its vaultbrain.yml (other keys kept), outside one the per-user default."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.cli import run, run_json

from vaultbrain.cli.group import cli


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    (root / "Recipes").mkdir()
    for i in range(5):
        (root / f"Recipes/R{i}.md").write_text(f"---\nservings: {i + 1}\n---\nStir.\n")
    (root / "Recipes/_templates").mkdir()
    (root / "Recipes/_templates/Recipe.md").write_text("---\nservings:\n---\n")
    return root


def snapshot(vault: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(vault)): p.read_bytes()
        for p in vault.rglob("*.md")
        if not str(p.relative_to(vault)).startswith(".")
    }


def test_review_candidates_apply_then_use_preview_and_write_nothing(
    vault: Path, env_home: Path
) -> None:
    # (the vault id init wrote stays: the state dir would write it back)
    vid = next(x for x in (vault / "vaultbrain.yml").read_text().splitlines() if "vault_id" in x)
    (vault / "vaultbrain.yml").write_text(f"# shared settings\nlanguage: en\n{vid}\n")
    run(vault, "reindex")
    before = snapshot(vault)
    out = run(vault, "schema", "review-candidates", "--apply", "Recipes").output
    assert "5 note(s) in Recipes/ would become recipe records" in out
    assert "nothing is written in any note" in out
    assert snapshot(vault) == before
    delta = vault / ".vaultbrain" / "schema-deltas" / "vaultbrain-base-local"
    run(vault, "schema", "install", str(delta))
    out = run(vault, "schema", "use", "vaultbrain-base-local").output
    assert "5 note(s) in Recipes/ would become recipe records" in out
    assert f"wrote {vault / 'vaultbrain.yml'}" in out
    # the vault's own file: only its schema line added, nothing per-user
    assert (vault / "vaultbrain.yml").read_text() == (
        f"# shared settings\nlanguage: en\n{vid}\nschema: vaultbrain-base-local\n"
    )
    assert not (env_home / "config.json").exists()
    assert run_json(vault, "schema", "active")["tier"] == 5
    run(vault, "reindex")
    assert snapshot(vault) == before  # records known by path: not one byte written
    recipes = run_json(vault, "db", "list", "recipe")
    assert sorted(r["path"] for r in recipes) == [f"Recipes/R{i}.md" for i in range(5)]
    # switching again lists nothing new, and downgrade walks this vault's history back
    out = run(vault, "schema", "downgrade").output
    assert "was vaultbrain-base-local" in out
    assert "schema:" not in (vault / "vaultbrain.yml").read_text()
    assert (vault / "vaultbrain.yml").read_text().startswith("# shared settings\nlanguage: en\n")


def test_use_outside_a_vault_sets_the_per_user_default(
    tmp_path: Path, env_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("VAULTBRAIN_VAULT", raising=False)
    result = CliRunner().invoke(cli, ["schema", "use", "vaultbrain-recommended"])
    assert result.exit_code == 0, result.output
    assert json.loads((env_home / "config.json").read_text())["schema_pack"] == (
        "vaultbrain-recommended"
    )
    assert os.listdir(elsewhere) == []  # no vault file, no state dir


def test_use_with_default_inside_a_vault_writes_the_per_user_config(
    vault: Path, env_home: Path
) -> None:
    run(vault, "schema", "use", "vaultbrain-recommended", "--default")
    assert "schema:" not in (vault / "vaultbrain.yml").read_text()
    assert json.loads((env_home / "config.json").read_text())["schema_pack"] == (
        "vaultbrain-recommended"
    )
