"""The everyday `vaultbrain capture` runs without click (vaultbrain/cli/thought.py) and says
exactly what the click group says: the same lines, the same errors, the same exit codes.
Each command line runs twice as a subprocess, on two vaults made alike: once as the
`vaultbrain` script runs it, once through the click group."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The `vaultbrain` script; after it, whether click was loaded, on stderr's last line.
SCRIPT = """
import atexit, sys
atexit.register(lambda: sys.stderr.write(f"\\nclick loaded: {'click' in sys.modules}"))
from vaultbrain.cli import main
main(sys.argv[1:])
"""
GROUP = """
import atexit, sys
atexit.register(lambda: sys.stderr.write(f"\\nclick loaded: {'click' in sys.modules}"))
from vaultbrain.cli.group import run
sys.exit(run(sys.argv[1:]))
"""


def vaultbrain(how: str, args: list[str | bytes], stdin: bytes = b"") -> tuple[int, str, str, bool]:
    """(exit code, stdout, stderr, whether click was loaded)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT if how == "script" else GROUP, *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    err, _, loaded = done.stderr.decode().rpartition("\nclick loaded: ")
    return done.returncode, done.stdout.decode(), err, loaded == "True"


def same_but_the_id(a: str, b: str) -> tuple[str, str]:
    """Both outputs with each capture's id (the first word of a capture's first line, or
    its JSON "id") and its time written as ID and TIME."""
    out = []
    for text in (a, b):
        for cid in re.findall(r'^([a-z0-9]{6}): |"id": "([a-z0-9]{6})"', text, re.M):
            text = text.replace(cid[0] or cid[1], "ID")
        out.append(re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", "TIME", text))
    return out[0], out[1]


@pytest.fixture
def vaults(tmp_path: Path) -> dict[str, Path]:
    """A vault for each way of running, made alike (and its state dir beside it)."""
    made = {}
    for how in ("script", "group"):
        root = tmp_path / how / "Vault"
        code, _, err, _ = vaultbrain("group", ["--vault", str(root), "init"])
        assert code == 0, err
        made[how] = root
    return made


CASES = {
    "a thought": (["capture", "Met with Quinn about the shed"], b""),
    "--json": (["capture", "--json", "Renew the passport by Friday"], b""),
    "--json after": (["capture", "Idea: a podcast about bees", "--json"], b""),
    "stdin": (["capture", "-"], b"Idea: a garden for the school\n"),
    "after --": (["capture", "--", "-5 degrees tonight, cover the roses"], b""),
    "vague: a hint with --vault": (["capture", "hmm"], b""),
    "empty": (["capture", ""], b""),
    "blank stdin": (["capture", "-"], b"  \n"),
    "stdin not UTF-8": (["capture", "-"], b"caf\xe9 with Quinn\n"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_script_says_what_the_group_says(vaults: dict[str, Path], case: str) -> None:
    args, stdin = CASES[case]
    said = {}
    for how, root in vaults.items():
        said[how] = vaultbrain(how, ["--vault", str(root), *args], stdin)
    (code, out, err, click_loaded), (code2, out2, err2, _) = said["script"], said["group"]
    assert not click_loaded
    assert code == code2, (err, err2)
    out = out.replace(str(vaults["script"]), "VAULT")
    out2 = out2.replace(str(vaults["group"]), "VAULT")
    assert same_but_the_id(out, out2)[0] == same_but_the_id(out, out2)[1]
    err, err2 = (
        err.replace(str(vaults["script"]), "VAULT"),
        err2.replace(str(vaults["group"]), "VAULT"),
    )
    assert err == err2
    if code:
        assert err.startswith("error: ") and err.count("\n") <= 1 and out == ""
    else:
        assert out and err == ""
    if "--json" in args:
        assert json.loads(out)["status"]
    if case.startswith("vague"):
        assert "`vaultbrain --vault VAULT review list`" in out


def test_an_argv_that_is_not_utf8_is_one_line_either_way(vaults: dict[str, Path]) -> None:
    said = [
        vaultbrain(how, [b"--vault", str(root).encode(), b"capture", b"caf\xe9 with Quinn"])
        for how, root in vaults.items()
    ]
    assert said[0][:3] == said[1][:3]
    code, out, err, click_loaded = said[0]
    assert code == 1 and out == "" and not click_loaded
    assert err.startswith("error: the thought is not UTF-8 text (byte 0xe9 at 3)")
    for root in vaults.values():
        assert "caf" not in (root / "Inbox.md").read_text("utf-8")


def test_not_a_vault_and_a_state_dir_given_are_said_alike(tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    said = [
        vaultbrain(how, ["--vault", str(nowhere), "capture", "x"]) for how in ("script", "group")
    ]
    assert said[0][:3] == said[1][:3]
    code, _, err, _ = said[0]
    assert code == 1 and f"run `vaultbrain --vault {nowhere} init`" in err
    assert not nowhere.exists()
    # A state dir typed on the command line is repeated in the hints, as the group does.
    outs = []
    for how in ("script", "group"):
        root, state = tmp_path / how / "V", tmp_path / how / "S"
        assert (
            vaultbrain("group", ["--vault", str(root), "--state-dir", str(state), "init"])[0] == 0
        )
        code, out, err, click_loaded = vaultbrain(
            how, [f"--vault={root}", "--state-dir", str(state), "capture", "hmm"]
        )
        assert code == 0, err
        assert click_loaded is (how == "group")
        assert (state / "inbox").is_dir() and not (root / ".vaultbrain").exists()
        outs.append(out.replace(str(root), "VAULT").replace(str(state), "STATE"))
    a, b = same_but_the_id(*outs)
    assert a == b
    assert "`vaultbrain --vault VAULT --state-dir STATE review list`" in a


def test_other_forms_still_go_through_click(vaults: dict[str, Path]) -> None:
    root = vaults["script"]
    code, out, err, click_loaded = vaultbrain("script", ["--vault", str(root), "capture", "--help"])
    assert code == 0 and "Capture one thought now" in out and click_loaded
    code, out, err, click_loaded = vaultbrain("script", ["--vault", str(root), "capture", "a", "b"])
    assert code == 2 and "Got unexpected extra argument" in err and click_loaded
    code, out, err, click_loaded = vaultbrain(
        "script", ["--vault", str(root), "capture", "Met with Quinn", "-v"]
    )
    assert code == 0 and "Quinn" in out and click_loaded
