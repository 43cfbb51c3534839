"""An inbox renamed or deleted under the daemon is said once, whichever read notices first.

The daemon reads the inbox in its inbox pass and, when Needs Review changes or its hooks
load, to carry out the person's gestures (``apply_gestures``). Both keep one memory of what
was said; a read whose words were dropped used that memory up and the daemon never said the
inbox was gone (a race of the daemon's first turn, seen about one run in ten).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.capture.inbox_pass import apply_gestures, inbox_known, reconcile_inbox
from vaultbrain.capture.journal import Journal

GONE = "Inbox.md is gone (renamed or deleted?)"


@pytest.mark.parametrize("first", ["gestures", "pass"])
def test_a_gone_inbox_is_said_by_the_read_that_notices_it_and_never_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, first: str
) -> None:
    brain = new_brain(tmp_path)
    inbox_known(brain)
    (tmp_path / "Inbox.md").rename(tmp_path / "Thoughts.md")
    said: list[str] = []
    with caplog.at_level(logging.WARNING):
        for turn in [first, "pass", "gestures", "pass"]:
            if turn == "gestures":
                apply_gestures(brain, now=True)
            else:
                said += reconcile_inbox(brain, Journal(brain), idle=False).skipped
    said += [r.getMessage() for r in caplog.records]
    assert sum(GONE in s for s in said) == 1, said
    assert not (tmp_path / "Inbox.md").exists()  # nothing made in its place


def test_an_inbox_back_again_is_read_and_its_next_loss_said_again(tmp_path: Path) -> None:
    brain = new_brain(tmp_path)
    inbox_known(brain)
    (tmp_path / "Inbox.md").rename(tmp_path / "Thoughts.md")
    gone = reconcile_inbox(brain, Journal(brain), idle=False).skipped
    (tmp_path / "Thoughts.md").rename(tmp_path / "Inbox.md")
    back = reconcile_inbox(brain, Journal(brain), idle=False).skipped
    (tmp_path / "Inbox.md").unlink()
    again = reconcile_inbox(brain, Journal(brain), idle=False).skipped
    assert [any(GONE in s for s in said) for said in (gone, back, again)] == [True, False, True]
