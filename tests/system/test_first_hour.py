"""The first hour, as a new user meets it (issue 33): a command says its one message and no
log line, hints can be pasted as they are, nothing a person types back is cut, and the
silences are filled (lines settling, time left, how many notes a vault already had)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.cli import run, run_json

from vaultbrain.cli.group import cli

ROOT = Path(__file__).resolve().parents[2]
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")


def vb(*args: str) -> subprocess.CompletedProcess[str]:
    """A whole `vaultbrain` process: only one configures logging as a person's run does."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "vaultbrain", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def made(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def test_with_no_llm_server_a_command_prints_its_message_and_no_log_line(made: Path) -> None:
    # conftest points the endpoint at a port where nothing listens
    commands = [
        ["capture", "Met with Sarah about the new project"],
        ["classify", "Renew the domain by Friday"],
        ["doctor"],
        ["digest", "run"],
        ["weekly", "run"],
        ["takes"],
        ["enrich", "--dry-run"],
    ]
    for args in commands:
        done = vb("--vault", str(made), *args)
        said = done.stdout + done.stderr
        assert "Traceback" not in said, said
        logged = [line for line in done.stderr.splitlines() if "WARNING" in line]
        logged += [line for line in done.stderr.splitlines() if STAMP.match(line)]
        assert logged == [], (args, done.stderr)
        assert done.stdout.strip(), args  # its own message is there
    captured = vb("--vault", str(made), "capture", "Call the plumber")
    assert "the LLM server is not running" in captured.stdout  # said once, in its own words
    loud = vb("--vault", str(made), "capture", "-v", "Buy stamps")
    assert any("WARNING vaultbrain.llm" in line for line in loud.stderr.splitlines())


def test_the_daemon_still_logs(made: Path) -> None:
    done = vb("--vault", str(made), "daemon", "--once")
    assert done.returncode == 0, done.stderr
    assert any(STAMP.match(line) and " INFO " in line for line in done.stderr.splitlines())


def test_hints_repeat_the_vault_and_state_dir_the_person_typed(
    made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = run(made, "db", "show", "person", "Nobody", ok=False)
    assert f"`vaultbrain --vault {made} db list person`" in missing.output
    state = tmp_path / "my state"
    other = tmp_path / "Other vault"
    args = ["--vault", str(other), "--state-dir", str(state), "init"]
    out = CliRunner().invoke(cli, args).output
    assert f"`vaultbrain --vault '{other}' --state-dir '{state}' daemon`" in out
    # Named by $VAULTBRAIN_VAULT (or the current folder): the hint needs nothing more.
    monkeypatch.setenv("VAULTBRAIN_VAULT", str(made))
    result = CliRunner().invoke(cli, ["db", "show", "person", "Nobody"])
    assert "`vaultbrain db list person`" in result.output


def test_settings_get_never_cuts_a_key_or_a_value(
    made: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VAULTBRAIN_ENDPOINT")  # the setting itself is shown, not the override
    long_value = "http://a-rather-long-host-name.example.internal:11434/v1"
    run(made, "settings", "set", "endpoint", long_value)
    run(made, "settings", "set", "schema_pack.source.Recipes", "vaultbrain-base")
    for columns in ("60", "80", "300"):
        out = (
            CliRunner()
            .invoke(cli, ["--vault", str(made), "settings", "get"], env={"COLUMNS": columns})
            .output
        )
        assert "…" not in out, out
        assert long_value in out and "schema_pack.source.Recipes" in out
        assert "inbox_settle_seconds" in out and "classify_max_tokens" in out
    narrow = (
        CliRunner()
        .invoke(cli, ["--vault", str(made), "settings", "get"], env={"COLUMNS": "60"})
        .output
    )
    assert f"endpoint = {long_value}" in narrow.splitlines()


def test_init_in_a_vault_with_notes_says_how_many_and_what_next(tmp_path: Path) -> None:
    root = tmp_path / "Notes"
    (root / ".obsidian").mkdir(parents=True)
    for rel in ("People/Ada.md", "People/Bo.md", "Journal/2026-12-01.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {Path(rel).stem}\n")
    before = {p: p.read_bytes() for p in root.rglob("*.md")}
    out = run(root, "init").output
    assert "already has 3 note(s), 2 of them in the pack's folders" in out
    for step in ("reindex --dry-run", "reindex", "adopt --dry-run"):
        assert f"`vaultbrain --vault {root} {step}`" in out
    assert {p: p.read_bytes() for p in before} == before
    listed = run(root, "db", "list", "person")
    assert f"`vaultbrain --vault {root} reindex`" in listed.output  # empty until a reindex
    run(root, "reindex")
    assert "reindex" not in run(root, "db", "list", "person").output
    assert "already has" not in run(root, "init").output


def test_daemon_once_says_lines_are_still_settling(made: Path) -> None:
    with open(made / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Call the plumber\n- Buy stamps")
    out = run(made, "daemon", "--once").output
    assert "took 0 line(s)" in out
    assert "2 line(s) still settling" in out and "inbox_settle_seconds" in out
    run(made, "settings", "set", "inbox_settle_seconds", "0")
    time.sleep(0.05)
    out = run(made, "daemon", "--once").output
    assert "took 1 line(s)" in out
    assert "1 line(s) still settling: the last line has no newline yet" in out


def test_progress_bars_show_the_time_left() -> None:
    from vaultbrain.cli.core import _Progress
    from vaultbrain.cli.youtube import _ProgressBar
    from vaultbrain.youtube.jobs import Progress

    now = [0.0]
    bar = _Progress(clock=lambda: now[0])
    bar.done, bar.total = 2_500, 10_000
    assert bar.line(10.0).endswith("25%  250 notes/s  ~0:30 left")
    bar.done = 10_000
    assert "left" not in bar.line(40.0)
    clock = [100.0]
    tube = _ProgressBar(enabled=True, tty=True, clock=lambda: clock[0])
    tube.update(Progress("job1", "abcdefghijk", "download", 40.0, 40.0))
    clock[0] += 20
    assert tube.line().endswith("0:20  ~0:30 left")


def test_trust_does_not_count_the_url_handler_as_the_model(made: Path) -> None:
    run(made, "capture", "https://example.com/a-good-article")
    summary = run_json(made, "trust", "--summary")
    assert summary["classified_by_model"] == 0
    assert summary["classified_by_handler"] == {"url": 1}
    run(made, "trust", "--write-note")
    note = (made / "Brain/Trust.md").read_text("utf-8")
    assert "Classified by the model: 0." in note and "1 by the url handler" in note


def test_service_status_json_says_active_false_and_the_error(
    made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    run(made, "service", "install", "--platform", "linux", "--no-start")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "systemctl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    answers = {
        'echo "Failed to connect to bus: No medium found" >&2; exit 1': (
            False,
            None,
            "Failed to connect to bus: No medium found",
        ),
        "echo inactive; exit 3": (False, "inactive", None),
        "echo active": (True, "active", None),
    }
    for body, (active, state, error) in answers.items():
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
        doc = json.loads(run(made, "service", "status", "--platform", "linux", "--json").output)
        assert (doc["active"], doc["state"], doc["error"]) == (active, state, error)
    out = run(made, "service", "status", "--platform", "linux").output
    assert "systemd: active" in out
