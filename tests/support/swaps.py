"""A writer that opened a note just before vaultbrain swapped a new file in at its path."""

from __future__ import annotations

import pytest


def opened_before_the_swap(monkeypatch: pytest.MonkeyPatch, mode: str) -> list:
    """Make the next swap happen while a writer holds the note open (``mode``: "a" to
    append, "r+" to rewrite in place), as a program that opened it just before: the handle
    is returned to the test, which writes into it when it likes."""
    from vaultbrain.vault import files

    real_swap = files.swap_in
    held: list = []

    def swap_with_a_writer_holding_the_note(tmp, path, fd, seen, data) -> None:
        if not held:
            held.append(open(path, mode, encoding="utf-8"))
        real_swap(tmp, path, fd, seen, data)

    monkeypatch.setattr(files, "swap_in", swap_with_a_writer_holding_the_note)
    return held
