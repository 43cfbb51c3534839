"""Settings that make no sense are refused in one line; unset, doctor, and how values read."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.brain import Brain
from vaultbrain.doctor import run_checks


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def refused(vault: Path, key: str, value: str) -> str:
    result = run(vault, "settings", "set", key, value, ok=False)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {key}: "), result.output
    return lines[0]


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "1e999", "soon"])
@pytest.mark.parametrize("key", ["inbox_settle_seconds", "inbox_idle_seconds", "retry_seconds"])
def test_seconds_must_be_a_finite_number_not_below_zero(vault: Path, key: str, value: str) -> None:
    line = refused(vault, key, value)
    assert "expected a number of seconds" in line
    assert "could not convert" not in line
    assert run_json(vault, "settings", "get")[key] == run_json(vault, "settings", "get")[key]


def test_zero_settle_is_allowed_but_a_zero_period_is_not(vault: Path) -> None:
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    assert "above 0" in refused(vault, "rescan_seconds", "0")


def test_a_bad_float_names_the_key_and_what_is_expected(vault: Path) -> None:
    line = refused(vault, "auto_confidence", "high")
    assert line == (
        "error: auto_confidence: 'high' is not a number; expected a number from 0 to 1, such as 0.8"
    )
    assert "out of range" in refused(vault, "min_confidence", "1.5")
    assert "whole number" in refused(vault, "llm_concurrency", "2.5")


@pytest.mark.parametrize(
    ("cron", "why"),
    [
        ("60 0 * * *", "out of range in the minute field"),
        ("0 24 * * *", "out of range in the hour field"),
        ("0 0 31 2 *", "never fires"),
        ("0 0 30 2 *", "never fires"),
        ("0 18 * *", "5-field"),
    ],
)
def test_cron_strings_that_never_fire_are_refused(vault: Path, cron: str, why: str) -> None:
    assert why in refused(vault, "digest_schedule", cron)
    assert run_json(vault, "settings", "get")["digest_schedule"] == "0 18 * * *"


def test_a_cron_that_fires_on_leap_days_is_kept(vault: Path) -> None:
    assert run(vault, "settings", "set", "review_schedule", "0 9 29 2 *").output.strip() == (
        "review_schedule = 0 9 29 2 *  (vaultbrain.yml: every machine)"
    )


def test_doctor_reports_a_schedule_with_no_next_run(vault: Path) -> None:
    app = Brain(vault)
    # Written before `settings set` checked it (or by hand).
    data = app.store.read_json("settings.json") or {}
    data["digest_schedule"] = "0 0 31 2 *"
    app.store.write_json("settings.json", data)
    check = next(c for c in run_checks(Brain(vault)) if c.name == "settings")
    assert not check.ok and "digest_schedule" in check.detail and "never fires" in check.detail


def test_a_folder_pack_must_exist(vault: Path) -> None:
    assert "not a schema pack" in refused(vault, "schema_pack.source.Work", "no-such-pack")
    run(vault, "settings", "set", "schema_pack.source.Work", "vaultbrain-base")
    assert run_json(vault, "settings", "get")["schema_pack.source.Work"] == "vaultbrain-base"


@pytest.mark.parametrize(
    "path", [".obsidian/app.json", ".trash/Inbox.md", "Notes/.hidden/Inbox.md", "../Inbox.md"]
)
def test_inbox_note_refuses_dot_folders_and_paths_outside(vault: Path, path: str) -> None:
    refused(vault, "inbox_note", path)
    assert run_json(vault, "settings", "get")["inbox_note"] == "Inbox.md"


def test_unset_goes_back_to_the_default(vault: Path) -> None:
    run(vault, "settings", "set", "inbox_idle_seconds", "30")
    assert run_json(vault, "settings", "get")["inbox_idle_seconds"] == 30.0
    out = run(vault, "settings", "unset", "inbox_idle_seconds").output
    assert out.strip() == "inbox_idle_seconds: back to the default (120.0)"
    assert run_json(vault, "settings", "get")["inbox_idle_seconds"] == 120.0
    assert "was not set" in run(vault, "settings", "unset", "inbox_idle_seconds").output
    run(vault, "settings", "set", "schema_pack.source.Work", "vaultbrain-base")
    run(vault, "settings", "unset", "schema_pack.source.Work")
    assert "schema_pack.source.Work" not in run_json(vault, "settings", "get")
    assert run(vault, "settings", "unset", "nope", ok=False).exit_code == 1


def test_descriptions_are_whole_on_a_wide_terminal(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultbrain.settings import KEYS

    longest = max((k.help for k in KEYS.values()), key=len)
    monkeypatch.setenv("COLUMNS", "250")
    assert longest in run(vault, "settings", "get").output
    monkeypatch.setenv("COLUMNS", "80")
    lines = run(vault, "settings", "get").output.splitlines()
    # Too narrow for the table: one setting at a time, the description wrapped, nothing cut.
    assert all(len(line) <= 80 for line in lines) and not any("…" in line for line in lines)
    assert "inbox_settle_seconds = 10.0" in lines
    monkeypatch.delenv("COLUMNS")  # piped: nothing is cut
    assert longest in run(vault, "settings", "get").output


def test_values_read_as_a_person_reads_them(vault: Path) -> None:
    run(
        vault,
        "db",
        "add",
        "person",
        "--set",
        "name=Sarah",
        "--set",
        "follow_ups=Follow up next week,Send the deck",
    )
    out = run(vault, "db", "show", "person", "Sarah").output
    assert "[" not in out.replace("[[", "").replace("]]", "") and "'" not in out
    assert "  follow_ups:\n    - Follow up next week\n    - Send the deck\n" in out
    assert run(vault, "settings", "get", "youtube.transcript").output == "true\n"


def test_table_headers_read_the_same_in_every_command(vault: Path) -> None:
    for command in (["settings", "get"], ["idealoom", "settings"], ["schedule"], ["inbox"]):
        result = run(vault, *command, ok=False)
        if result.exit_code:
            continue
        header = result.output.splitlines()[0]
        assert header == header.lower(), (command, header)


def test_schedule_shows_a_manual_digest_run(vault: Path) -> None:
    before = run_json(vault, "schedule")
    assert next(j for j in before if j["name"] == "digest")["last_run"] is None
    run(vault, "digest", "run")
    after = next(j for j in run_json(vault, "schedule") if j["name"] == "digest")
    assert after["last_run"] is not None and after["last_trigger"] == "cli"
    table = run(vault, "schedule").output
    digest_row = next(line for line in table.splitlines() if line.startswith("digest"))
    assert "never" not in digest_row.split("0 18 * * *")[1].split("every day at 18:00")[1][:20]


def test_a_stored_value_that_makes_no_sense_is_not_used(vault: Path) -> None:
    # settings.json from before the checks (or edited by hand): NaN waits, Obsidian's config
    app = Brain(vault)
    app.state_dir.mkdir(parents=True, exist_ok=True)
    app.settings.path.write_text(
        '{"inbox_settle_seconds": NaN, "inbox_note": ".obsidian/app.json", "rescan_seconds": 60}'
    )
    app = Brain(vault)
    assert app.settings.get("inbox_settle_seconds") == 10.0
    assert app.settings.get("inbox_note") == "Inbox.md"
    assert app.settings.get("rescan_seconds") == 60  # the sound ones are kept
    check = next(c for c in run_checks(app) if c.name == "settings")
    assert not check.ok
    assert "inbox_settle_seconds: 'nan' is not a finite number" in check.detail
    assert "inbox_note: '.obsidian/app.json' must not be in a dot-folder" in check.detail
    table = run(vault, "settings", "get").output
    assert "the stored value is refused" in table
