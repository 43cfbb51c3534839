"""The settings split (vaultbrain/settings.py): each key is the vault's (vaultbrain.yml) or
this machine's (the state dir's database, its document settings.json); where a value comes
from; bad values in vaultbrain.yml never raise; vault keys an earlier version kept in a
settings.json file beside the database (taken into it and removed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultbrain.errors import UserError
from vaultbrain.settings import KEYS, MACHINE_KEYS, SETTINGS_DOC, Settings
from vaultbrain.store import Store
from vaultbrain.vault.files import Vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    root = tmp_path / "Vault"
    root.mkdir()
    return Vault(root, tmp_path / "state")


def settings(vault: Vault, env: dict[str, str] | None = None) -> Settings:
    return Settings(vault.state_dir, env or {}, vault)


def stored(vault: Vault) -> object:
    """This machine's settings as the state dir's database holds them."""
    return Store(vault.state_dir).read_json(SETTINGS_DOC)


def yml_text(vault: Vault) -> str:
    return (vault.root / "vaultbrain.yml").read_text("utf-8")


def test_the_scope_table() -> None:
    assert set(MACHINE_KEYS) <= set(KEYS)
    assert {k.scope for k in KEYS.values()} == {"vault", "machine"}
    machine = {n for n, k in KEYS.items() if k.scope == "machine"}
    # this machine's LLM server and what it can take
    assert {"provider", "endpoint", "model", "llm_concurrency", "llm_timeout_seconds"} <= machine
    assert {"classify_max_tokens", "rescan_seconds", "retry_seconds"} <= machine
    vault = {n for n, k in KEYS.items() if k.scope == "vault"}
    # what lands in the notes: the same whichever machine files
    assert {
        "schema_pack",
        "inbox_note",
        "auto_confidence",
        "min_confidence",
        "second_opinion",
        "fallback",
        "digest_schedule",
        "review_schedule",
        "enrich_schedule",
        "daily_notes_folder",
        "youtube.folder",
        "idealoom.folder",
    } <= vault
    assert KEYS["schema_pack"].yml_name == "schema"  # the line `schema use` writes too


def test_a_vault_key_goes_to_vaultbrain_yml_and_a_machine_key_to_the_state_dir(
    vault: Vault,
) -> None:
    s = settings(vault)
    s.set("auto_confidence", "0.7")
    s.set("llm_concurrency", "4")
    assert "auto_confidence: 0.7\n" in yml_text(vault)
    assert "llm_concurrency" not in yml_text(vault)
    assert stored(vault) == {"llm_concurrency": 4}
    assert not (vault.state_dir / "settings.json").exists()
    again = settings(vault)
    assert (again.get("auto_confidence"), again.source("auto_confidence")) == (
        0.7,
        "vaultbrain.yml",
    )
    assert (again.get("llm_concurrency"), again.source("llm_concurrency")) == (4, "state dir")
    assert (again.get("min_confidence"), again.source("min_confidence")) == (0.5, "default")


def test_the_environment_wins_and_says_so(vault: Vault) -> None:
    settings(vault).set("model", "small")
    s = settings(vault, {"VAULTBRAIN_MODEL": "big"})
    assert (s.get("model"), s.source("model")) == ("big", "$VAULTBRAIN_MODEL")


def test_a_typo_in_vaultbrain_yml_gives_the_default_and_a_one_line_problem(vault: Vault) -> None:
    (vault.root / "vaultbrain.yml").write_text(
        "auto_confidence: hihg\ninbox_settle_seconds: 3\nauto_confidnce: 0.9\nendpoint: http://x\n"
    )
    s = settings(vault)
    assert s.get("auto_confidence") == 0.8 and s.get("inbox_settle_seconds") == 3.0
    assert s.source("auto_confidence").startswith("default (the stored value is refused")
    (problem,) = s.problems()
    assert problem.startswith("vaultbrain.yml: auto_confidence: 'hihg' is not a number")
    notes = " | ".join(s.notes())
    assert "'auto_confidnce' is not a setting" in notes
    assert "endpoint is each machine's own setting" in notes
    assert s.get("endpoint") == KEYS["endpoint"].default  # not taken from the vault's file


def test_a_line_of_vaultbrain_yml_that_does_not_parse_loses_only_its_key(vault: Vault) -> None:
    (vault.root / "vaultbrain.yml").write_text(
        "inbox_note: Capture.md\nauto_confidence: [0.7\nvault_id: abcdef123456\n"
    )
    s = settings(vault)
    assert s.get("inbox_note") == "Capture.md" and s.get("auto_confidence") == 0.8
    (problem,) = s.problems()
    assert "vaultbrain.yml line 2 is not valid YAML ('auto_confidence: [0.7')" in problem
    assert problem.endswith("auto_confidence has its default until it is fixed")
    assert "\n" not in problem
    from vaultbrain.vault.statedir import written_vault_id

    assert written_vault_id(vault.root) == "abcdef123456"  # the state dir stays the same
    with pytest.raises(UserError, match="not valid YAML"):
        s.set("inbox_note", "Other.md")  # never written over: the person fixes it first
    assert "auto_confidence: [0.7" in yml_text(vault)


def test_a_vault_key_left_in_settings_json_still_applies_until_migrated(vault: Vault) -> None:
    vault.state_dir.mkdir(parents=True)
    (vault.state_dir / "settings.json").write_text(
        json.dumps({"auto_confidence": 0.9, "inbox_note": "Capture.md", "model": "m1"})
    )
    (vault.root / "vaultbrain.yml").write_text("# ours\ninbox_note: Shared.md\n")
    s = settings(vault)
    assert (s.get("auto_confidence"), s.source("auto_confidence")) == (0.9, "state dir")
    assert s.get("inbox_note") == "Capture.md"  # as before the upgrade: nothing changes unasked
    assert sorted(s.legacy_keys()) == ["auto_confidence", "inbox_note"]
    assert any("settings migrate" in n for n in s.notes())
    done = s.migrate()
    assert "auto_confidence: moved to vaultbrain.yml (0.9)" in done
    assert "inbox_note: vaultbrain.yml says Shared.md; this machine's Capture.md is dropped" in done
    assert stored(vault) == {"model": "m1"}
    assert not (vault.state_dir / "settings.json").exists()  # (taken in once)
    assert yml_text(vault).startswith("# ours\ninbox_note: Shared.md\n")
    assert "auto_confidence: 0.9\n" in yml_text(vault)
    s = settings(vault)
    assert s.legacy_keys() == [] and s.get("inbox_note") == "Shared.md"
    assert s.migrate() == []


def test_setting_a_vault_key_drops_this_machines_old_copy(vault: Vault) -> None:
    vault.state_dir.mkdir(parents=True)
    (vault.state_dir / "settings.json").write_text(json.dumps({"min_confidence": 0.3}))
    s = settings(vault)
    s.set("min_confidence", "0.4")
    assert stored(vault) == {}
    assert (s.get("min_confidence"), s.source("min_confidence")) == (0.4, "vaultbrain.yml")
    assert s.unset("min_confidence") and s.get("min_confidence") == 0.5
    assert "min_confidence" not in yml_text(vault)


def test_the_bands_are_checked_across_both_files(vault: Vault) -> None:
    s = settings(vault)
    s.set("auto_confidence", "0.6")
    with pytest.raises(UserError, match="min_confidence must not be above auto_confidence"):
        s.set("min_confidence", "0.7")


def test_nested_keys_in_vaultbrain_yml_are_read(vault: Vault) -> None:
    (vault.root / "vaultbrain.yml").write_text("youtube:\n  folder: Media\n  video: yes\n")
    s = settings(vault)
    assert s.get("youtube.folder") == "Media" and s.get("youtube.video") is True
    s.set("youtube.folder", "Watched")
    assert yml_text(vault) == "youtube:\n  folder: Watched\n  video: yes\n"


def test_a_change_to_either_file_is_seen_on_reload(vault: Vault) -> None:
    s = settings(vault)
    before = s.version
    settings(vault).set("inbox_idle_seconds", "30")  # another process
    s.reload()
    assert s.version != before and s.get("inbox_idle_seconds") == 30.0
