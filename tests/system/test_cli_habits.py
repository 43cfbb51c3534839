"""What people who use llm, beets and yt-dlp expect of a command line (issue 18, 13-15)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.cli import run

from vaultbrain.cli.group import cli


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def _vaultbrain(*args: str, **kw: object) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", *args],
        env=env,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("command", [["settings", "get"], ["db", "list", "person"]])
def test_a_closed_pipe_ends_the_command_quietly(vault: Path, command: list[str]) -> None:
    for n in range(3):
        run(vault, "db", "add", "person", "--set", f"name=Person {n}")
    # `vaultbrain … | head -1`: the reader has gone before anything is written.
    proc = _vaultbrain(
        "--vault", str(vault), *command, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""


def test_verbose_and_quiet_are_accepted_after_the_subcommand(vault: Path) -> None:
    loud = run(vault, "settings", "get", "inbox_note", "-v")
    assert loud.output.strip().endswith("Inbox.md")
    quiet = run(vault, "capture", "Buy milk", "-q")
    assert quiet.output == ""
    assert "Buy milk" in (vault / "Inbox.md").read_text()
    # `--` ends the options: what follows is the thought, even when it looks like a flag
    run(vault, "capture", "--", "-q")
    assert "-q" in (vault / "Inbox.md").read_text()


def test_quiet_still_shows_errors(vault: Path) -> None:
    result = run(vault, "-q", "settings", "set", "auto_confidence", "high", ok=False)
    assert result.exit_code == 1
    assert "auto_confidence" in result.output


def test_bare_vaultbrain_prints_help_and_exits_0() -> None:
    result = CliRunner().invoke(cli, [])
    assert result.exit_code == 0
    assert "Everyday:" in result.output and "capture" in result.output
    proc = _vaultbrain(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b"Everyday:" in out


def test_a_typo_gets_a_suggestion(vault: Path) -> None:
    result = run(vault, "captur", "Buy milk", ok=False)
    assert result.exit_code == 2
    assert "did you mean capture?" in result.output
    result = run(vault, "settings", "gett", ok=False)
    assert result.exit_code == 2 and "did you mean get?" in result.output


def test_quiet_daemon_once_prints_nothing(vault: Path) -> None:
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("Idea: bees on the roof\n")
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    proc = _vaultbrain(
        "--vault",
        str(vault),
        "daemon",
        "--once",
        "-q",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out == b"" and err == b"", err
    assert "^vb-" in (vault / "Inbox.md").read_text()  # it did its work, silently
    loud = _vaultbrain("--vault", str(vault), "daemon", "--once", stderr=subprocess.PIPE)
    _, err = loud.communicate(timeout=120)
    assert b"INFO" in err and b"took" in err


def test_a_command_ends_with_whole_output_and_its_exit_code(vault: Path) -> None:
    """What the `vaultbrain` script wrote to a pipe arrives whole, the exit code is the
    command's, and a capture's writes are all on disk when the process has gone."""
    people = vault / "People"
    for n in range(1500):
        (people / f"Person {n:04}.md").write_text(f"---\ntype: person\nname: Person {n:04}\n---\n")
    run(vault, "reindex")
    proc = _vaultbrain(
        "--vault", str(vault), "db", "list", "person", "--json",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert len(out) > 65536  # more than a pipe holds: written while the reader reads
    assert len(json.loads(out)) == 1500
    usage = _vaultbrain(
        "--vault", str(vault), "db", "list", "--no-such-flag", stderr=subprocess.PIPE
    )
    assert usage.wait(timeout=60) == 2
    captured = _vaultbrain(
        "--vault", str(vault), "capture", "Met Person 0007 about the garden", "--json",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    out, err = captured.communicate(timeout=120)
    assert captured.returncode == 0, err
    doc = json.loads(out)
    assert f"^vb-{doc['id']}" in (vault / "Inbox.md").read_text("utf-8")
    where = (
        "Brain/Needs Review.md" if doc["status"] == "suggested" else doc["destinations"][0]["path"]
    )
    assert "Met Person 0007 about the garden" in (vault / where).read_text("utf-8")
