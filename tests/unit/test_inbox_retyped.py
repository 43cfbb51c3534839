"""Words typed again after their line was deleted (vaultbrain/capture/lines.py): a new
thought once the old line has been gone longer than a sync delay (LINE_GONE_GRACE) and its
capture is finished; within that time, or when the line comes back in the same change that
removed its id (an undo, a device's late copy), or with our suffix on it, it is the old
capture's line and gets its id back. A real vault and store, a clock the test moves."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.capture.inbox_pass import LINE_GONE_GRACE, reconcile_inbox
from vaultbrain.capture.journal import Journal
from vaultbrain.capture.pipeline import process

WORDS = "Idea: a solar kettle for the garden"


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime(2026, 12, 1, 9, 0, 0)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, delta: dt.timedelta) -> None:
        self.now += delta


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def brain(vault: Path, clock: Clock) -> Brain:
    # Every thought waits as a suggestion: its line carries the suffix nobody types (a filed
    # line's "→ [[Note]]" with no id is a person's own link, never taken for ours).
    new_brain(vault).settings.set("auto_confidence", "1.0")
    return Brain(vault, clock=clock)


def inbox(brain: Brain) -> Path:
    return brain.vault.root / brain.inbox_rel


def daemon_pass(brain: Brain) -> None:
    """An inbox pass, the captures it took filed, and the pass that shows what they became."""
    journal = Journal(brain)
    for cid in reconcile_inbox(brain, journal, idle=True).new:
        process(brain, cid, rewrite_line=False)
    reconcile_inbox(brain, journal, idle=True, take_new=False)


def ids(brain: Brain) -> list[str]:
    return re.findall(r"\^vb-([a-z0-9]+)$", inbox(brain).read_text("utf-8"), re.M)


def filed_then_deleted(brain: Brain) -> str:
    with open(inbox(brain), "a", encoding="utf-8") as fh:
        fh.write(f"- {WORDS}\n")
    daemon_pass(brain)
    [cid] = ids(brain)
    text = inbox(brain).read_text("utf-8")
    inbox(brain).write_text("".join(line for line in text.splitlines(True) if cid not in line))
    daemon_pass(brain)  # the line is seen gone
    return cid


def typed_again(brain: Brain) -> str:
    with open(inbox(brain), "a", encoding="utf-8") as fh:
        fh.write(f"- {WORDS}\n")
    daemon_pass(brain)
    [cid] = ids(brain)
    return cid


def test_typed_again_long_after_the_delete_is_a_new_thought(brain: Brain, clock: Clock) -> None:
    old = filed_then_deleted(brain)
    clock.advance(LINE_GONE_GRACE + dt.timedelta(minutes=1))
    new = typed_again(brain)
    assert new != old
    assert brain.store.inbox.get(new)["status"] != "pending"
    assert brain.store.inbox.get(old)["status"] != "pending"


def test_typed_again_within_a_sync_delay_is_the_old_line(brain: Brain, clock: Clock) -> None:
    old = filed_then_deleted(brain)
    clock.advance(LINE_GONE_GRACE - dt.timedelta(minutes=1))
    assert typed_again(brain) == old
    assert len(list(brain.store.inbox.summaries())) == 1


@pytest.mark.parametrize("form", ["bare words", "with our suffix"])
def test_a_line_brought_back_in_the_change_that_lost_its_id(
    brain: Brain, clock: Clock, form: str
) -> None:
    with open(inbox(brain), "a", encoding="utf-8") as fh:
        fh.write(f"- {WORDS}\n")
    daemon_pass(brain)
    [cid] = ids(brain)
    clock.advance(dt.timedelta(hours=1))  # a late copy, an hour on
    text = inbox(brain).read_text("utf-8")
    line = next(line for line in text.splitlines() if cid in line)
    back = f"- {WORDS}" if form == "bare words" else line.replace(f" ^vb-{cid}", "")
    inbox(brain).write_text(text.replace(line, back))
    daemon_pass(brain)
    assert ids(brain) == [cid]
    assert len(list(brain.store.inbox.summaries())) == 1


def test_our_suffix_on_the_words_is_the_old_capture_however_late(
    brain: Brain, clock: Clock
) -> None:
    old = filed_then_deleted(brain)
    suffix = brain.store.inbox.get(old)["line_suffix"]
    clock.advance(LINE_GONE_GRACE * 3)
    with open(inbox(brain), "a", encoding="utf-8") as fh:
        fh.write(f"- [ ] {WORDS} {suffix}\n")
    daemon_pass(brain)
    assert ids(brain) == [old]


def test_every_line_cleared_then_one_typed_again_later(brain: Brain, clock: Clock) -> None:
    old = filed_then_deleted(brain)  # the inbox holds no anchored line at all now
    assert "^vb-" not in inbox(brain).read_text("utf-8")
    clock.advance(LINE_GONE_GRACE * 2)
    assert typed_again(brain) != old
