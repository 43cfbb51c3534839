"""Renaming one property of a note in place (``schema rename-field``): only the key's name
changes; the value, its comments, the other properties and the body stay byte for byte."""

from __future__ import annotations

import pytest

from vaultbrain.schema.rename import rename_key
from vaultbrain.vault.note import parse_note


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "---\nstatus: active\n---\nstatus: in the body\n",
            "---\nstate: active\n---\nstatus: in the body\n",
        ),
        (
            "---\r\nname: A\r\nstatus: x  # mine\r\n---\r\nb\r\n",
            "---\r\nname: A\r\nstate: x  # mine\r\n---\r\nb\r\n",
        ),
        ('---\n"status": open\n---\n', "---\nstate: open\n---\n"),
        ("---\nstatus:\n  - a\n  - b\nnext: 1\n---\n", "---\nstate:\n  - a\n  - b\nnext: 1\n---\n"),
        ("\ufeff---\nstatus: 1\n---\n", "\ufeff---\nstate: 1\n---\n"),
        (
            "---\nnote: |\n  status: inside a block\nstatus: real\n---\n",
            "---\nnote: |\n  status: inside a block\nstate: real\n---\n",
        ),
    ],
)
def test_only_the_key_changes(text: str, expected: str) -> None:
    out, why = rename_key(text, "status", "state")
    assert why is None and out == expected
    assert parse_note(out).data["state"] == parse_note(text).data["status"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nstatus: a\nstate: b\n---\n", "has both status and state"),
        ("---\nstatus: [a\n---\n", "not valid YAML"),
        ("---\nstatus: a\n", "never closes"),
    ],
)
def test_left_as_it_is_with_a_reason(text: str, reason: str) -> None:
    out, why = rename_key(text, "status", "state")
    assert out is None and why is not None and reason in why


@pytest.mark.parametrize("text", ["no properties\n", "---\nother: 1\n---\nstatus: body\n"])
def test_nothing_to_rename(text: str) -> None:
    assert rename_key(text, "status", "state") == (None, None)


def test_a_key_that_needs_quotes_gets_them() -> None:
    out, why = rename_key("---\nstatus: a\n---\n", "status", "due date: soon")
    assert why is None and out is not None
    assert parse_note(out).data == {"due date: soon": "a"}
