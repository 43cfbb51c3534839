"""The everyday capture form, read without click (vaultbrain/cli/thought.py): what it takes,
and every other command line left to the click group."""

from __future__ import annotations

import pytest

from vaultbrain.cli.thought import EverydayCapture, everyday_capture


@pytest.mark.parametrize(
    ("args", "form"),
    [
        (["capture", "Call Sam"], EverydayCapture("Call Sam", False, None, None)),
        (["--vault", "V", "capture", "x"], EverydayCapture("x", False, "V", None)),
        (["--vault=V", "capture", "x"], EverydayCapture("x", False, "V", None)),
        (
            ["--vault", "V", "--state-dir", "S", "capture", "x"],
            EverydayCapture("x", False, "V", "S"),
        ),
        (["--state-dir=", "capture", "x"], EverydayCapture("x", False, None, "")),
        (["capture", "--json", "x"], EverydayCapture("x", True, None, None)),
        (["capture", "x", "--json"], EverydayCapture("x", True, None, None)),
        (["capture", "-"], EverydayCapture("-", False, None, None)),
        (
            ["capture", "--", "-5 degrees tonight"],
            EverydayCapture("-5 degrees tonight", False, None, None),
        ),
        (["capture", "--json", "--", "--json"], EverydayCapture("--json", True, None, None)),
        (["capture", ""], EverydayCapture("", False, None, None)),
        # A value that is the word capture is a value.
        (["--vault", "capture", "capture", "x"], EverydayCapture("x", False, "capture", None)),
    ],
)
def test_the_everyday_forms_are_read(args: list[str], form: EverydayCapture) -> None:
    assert everyday_capture(args) == form


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["capture"],  # (click says what is missing)
        ["capture", "--help"],
        ["capture", "-h"],
        ["-v", "capture", "x"],
        ["capture", "x", "-v"],
        ["-q", "capture", "x"],
        ["--schema-pack", "gtd", "capture", "x"],
        ["--vault", "A", "--vault", "B", "capture", "x"],
        ["--vault", "capture", "x"],  # (the vault is named capture; no command follows)
        ["--vault"],
        ["--vault", "-v", "capture", "x"],
        ["capture", "a", "b"],
        ["capture", "-5 degrees"],  # (click reads an option there)
        ["capture", "--jsn", "x"],
        ["capture", "--", "a", "b"],
        ["capture", "x", "--", "y"],
        ["inbox"],
        ["--version"],
        ["captur", "x"],
        ["db", "list", "capture", "x"],
    ],
)
def test_every_other_command_line_goes_to_click(args: list[str]) -> None:
    assert everyday_capture(args) is None
