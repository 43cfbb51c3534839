"""`vaultbrain settings` with the split (issue 15): the vault's keys in vaultbrain.yml, shared
by every machine that opens the vault; each machine's own in its state dir. Two machines are
two state dirs on one vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.store import Store

YML = "vaultbrain.yml"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def on(state: Path, vault: Path, *args: str, ok: bool = True):  # type: ignore[no-untyped-def]
    return run(vault, "--state-dir", str(state), *args, ok=ok)


def where(state: Path, vault: Path) -> dict:
    return json.loads(on(state, vault, "settings", "get", "--json", "--where").output)


def test_set_get_unset_of_a_vault_key_and_a_machine_key(vault: Path) -> None:
    # (the vault's id, which init wrote, stays: the state dir would write it back)
    vid = next(x for x in (vault / YML).read_text().splitlines() if x.startswith("vault_id:"))
    mine = f"# our vault\nlanguage: en  # mine\n{vid}\n"
    (vault / YML).write_text(mine)
    out = run(vault, "settings", "set", "auto_confidence", "0.75").output
    assert out.strip() == "auto_confidence = 0.75  (vaultbrain.yml: every machine)"
    out = run(vault, "settings", "set", "llm_concurrency", "3").output
    assert out.strip() == "llm_concurrency = 3  (this machine's state dir)"
    text = (vault / YML).read_text()
    assert text.startswith(mine + "# confidence at or above which")
    assert text.endswith("\nauto_confidence: 0.75\n") and "llm_concurrency" not in text

    table = run(vault, "settings", "get").output
    row = next(line for line in table.splitlines() if line.startswith("auto_confidence "))
    assert row.split()[1:4] == ["0.75", "vault", "vaultbrain.yml"]
    row = next(line for line in table.splitlines() if line.startswith("llm_concurrency "))
    assert row.split()[1:5] == ["3", "machine", "state", "dir"]
    assert "'language' is not a setting" in table  # said, on stderr, not an error

    doc = json.loads(run(vault, "settings", "get", "--json", "--where").output)
    assert doc["auto_confidence"] == {"value": 0.75, "scope": "vault", "from": "vaultbrain.yml"}
    assert doc["llm_concurrency"] == {"value": 3, "scope": "machine", "from": "state dir"}
    assert doc["min_confidence"] == {"value": 0.5, "scope": "vault", "from": "default"}
    assert run_json(vault, "settings", "get")["auto_confidence"] == 0.75  # the plain form
    assert run(vault, "settings", "get", "llm_timeout_seconds", "--where").output.strip() == (
        "60.0  (machine setting, from default)"
    )

    assert "back to the default (0.8)" in run(vault, "settings", "unset", "auto_confidence").output
    assert (vault / YML).read_text() == mine
    assert "back to the default (2)" in run(vault, "settings", "unset", "llm_concurrency").output
    assert "was not set" in run(vault, "settings", "unset", "llm_concurrency").output


def test_two_machines_share_the_vaults_keys_and_keep_their_own(vault: Path, tmp_path: Path) -> None:
    laptop, desktop = tmp_path / "laptop", tmp_path / "desktop"
    on(laptop, vault, "settings", "set", "inbox_note", "Capture.md")
    on(laptop, vault, "settings", "set", "digest_schedule", "0 7 * * *")
    on(laptop, vault, "settings", "set", "llm_timeout_seconds", "5")
    on(laptop, vault, "settings", "set", "model", "laptop-model")
    on(desktop, vault, "settings", "set", "model", "desktop-model")

    seen = where(desktop, vault)
    assert seen["inbox_note"] == {"value": "Capture.md", "scope": "vault", "from": "vaultbrain.yml"}
    assert seen["digest_schedule"]["value"] == "0 7 * * *"
    assert seen["llm_timeout_seconds"] == {
        "value": 60.0,
        "scope": "machine",
        "from": "default",
    }
    assert seen["model"]["value"] == "desktop-model"
    assert where(laptop, vault)["model"]["value"] == "laptop-model"

    # the desktop changes a vault key: the laptop sees it; unset on one is unset for both
    on(desktop, vault, "settings", "set", "inbox_note", "Inbox.md")
    assert where(laptop, vault)["inbox_note"]["value"] == "Inbox.md"
    on(laptop, vault, "settings", "unset", "digest_schedule")
    assert where(desktop, vault)["digest_schedule"] == {
        "value": "0 18 * * *",
        "scope": "vault",
        "from": "default",
    }
    assert "llm_timeout_seconds" not in (vault / YML).read_text()
    assert "model" not in (vault / YML).read_text()


def test_vault_keys_from_an_earlier_version_apply_then_migrate(vault: Path) -> None:
    state = vault / ".vaultbrain"  # the suite keeps the state dir in the vault
    (state / "settings.json").write_text(json.dumps({"min_confidence": 0.4, "model": "m"}))
    doc = json.loads(run(vault, "settings", "get", "--json", "--where").output)
    assert doc["min_confidence"] == {"value": 0.4, "scope": "vault", "from": "state dir"}
    doctor = run(vault, "doctor", ok=False).output
    assert "min_confidence: vault settings an earlier version kept" in doctor
    out = run(vault, "settings", "migrate").output
    assert out.strip() == "min_confidence: moved to vaultbrain.yml (0.4)"
    assert Store(state).read_json("settings.json") == {"model": "m"}
    assert not (state / "settings.json").exists()  # (taken into state.db once)
    assert "min_confidence: 0.4" in (vault / YML).read_text()
    assert "nothing to move" in run(vault, "settings", "migrate").output


def test_a_typo_in_vaultbrain_yml_is_one_line_and_the_daemon_runs_on(vault: Path, daemon) -> None:
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    with open(vault / YML, "a") as fh:
        fh.write("auto_confidence: very\n")
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: a map of the bee trails\n")
    d = daemon().start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert "auto_confidence: 'very' is not a number" in d.output()
    assert "Traceback" not in d.output()
    assert "^vb-" in (vault / "Inbox.md").read_text()  # the line was taken all the same
    doctor = run(vault, "doctor", ok=False).output
    assert "auto_confidence: 'very' is not a number" in doctor and "default is used" in doctor

    (vault / YML).write_text((vault / YML).read_text() + "schema: [broken\n")
    result = run(vault, "settings", "set", "auto_confidence", "0.9", ok=False)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and lines[-1].startswith("error: ")
    assert "vaultbrain.yml is not valid YAML" in lines[-1] and "Traceback" not in result.output
