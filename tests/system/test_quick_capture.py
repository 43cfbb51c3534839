"""`vaultbrain capture` as the `vaultbrain` script runs it, one process per thought: what it
prints, its errors (one line) and its exit codes, for each way of giving the thought."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The `vaultbrain` script.
SCRIPT = """
import sys
from vaultbrain.cli import main
main(sys.argv[1:])
"""


def vaultbrain(args: list[str | bytes], stdin: bytes = b"") -> tuple[int, str, str]:
    """(exit code, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    code, _, err = vaultbrain(["--vault", str(root), "init"])
    assert code == 0, err
    return root


# name: (arguments after --vault, stdin, exit code)
CASES = {
    "a thought": (["capture", "Met with Quinn about the shed"], b"", 0),
    "--json": (["capture", "--json", "Renew the passport by Friday"], b"", 0),
    "--json after": (["capture", "Idea: a podcast about bees", "--json"], b"", 0),
    "stdin": (["capture", "-"], b"Idea: a garden for the school\n", 0),
    "after --": (["capture", "--", "-5 degrees tonight, cover the roses"], b"", 0),
    "vague: a hint with --vault": (["capture", "hmm"], b"", 0),
    "empty": (["capture", ""], b"", 1),
    "blank stdin": (["capture", "-"], b"  \n", 1),
    "stdin not UTF-8": (["capture", "-"], b"caf\xe9 with Quinn\n", 1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_what_a_capture_says(vault: Path, case: str) -> None:
    args, stdin, expected = CASES[case]
    code, out, err = vaultbrain(["--vault", str(vault), *args], stdin)
    assert code == expected, err
    if code:
        assert err.startswith("error: ") and err.count("\n") <= 1 and out == ""
    else:
        assert out and err == ""
    if "--json" in args:
        assert json.loads(out)["status"]
    if case.startswith("vague"):
        assert f"`vaultbrain --vault {vault} review list`" in out
    inbox = (vault / "Inbox.md").read_text("utf-8")
    if code == 0 and not stdin:
        assert args[-1] in inbox or args[-2] in inbox
    if case == "stdin not UTF-8":
        assert "caf" not in inbox


def test_an_argv_that_is_not_utf8_is_one_line(vault: Path) -> None:
    code, out, err = vaultbrain(
        [b"--vault", str(vault).encode(), b"capture", b"caf\xe9 with Quinn"]
    )
    assert code == 1 and out == ""
    assert err.startswith("error: the thought is not UTF-8 text (byte 0xe9 at 3)")
    assert err.count("\n") == 1
    assert "caf" not in (vault / "Inbox.md").read_text("utf-8")


def test_not_a_vault_and_a_state_dir_given(tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    code, _, err = vaultbrain(["--vault", str(nowhere), "capture", "x"])
    assert code == 1 and f"run `vaultbrain --vault {nowhere} init`" in err
    assert not nowhere.exists()
    # A state dir typed on the command line is repeated in the hints.
    root, state = tmp_path / "V", tmp_path / "S"
    assert vaultbrain(["--vault", str(root), "--state-dir", str(state), "init"])[0] == 0
    code, out, err = vaultbrain([f"--vault={root}", "--state-dir", str(state), "capture", "hmm"])
    assert code == 0, err
    assert (state / "state.db").is_file() and not (root / ".vaultbrain").exists()
    assert f"`vaultbrain --vault {root} --state-dir {state} review list`" in out


def test_help_usage_errors_and_verbose(vault: Path) -> None:
    code, out, err = vaultbrain(["--vault", str(vault), "capture", "--help"])
    assert code == 0 and "Capture one thought now" in out
    code, out, err = vaultbrain(["--vault", str(vault), "capture", "a", "b"])
    assert code == 2 and "Got unexpected extra argument" in err
    code, out, err = vaultbrain(["--vault", str(vault), "capture", "Met with Quinn", "-v"])
    assert code == 0 and "Quinn" in out
