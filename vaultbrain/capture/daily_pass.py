"""The daily notes' capture sections, read as inboxes: the inbox pass
(vaultbrain/capture/inbox_pass.py) run on each recent daily note, on its lines under
``daily_capture_heading`` only. Nothing here takes, settles or draws a line itself: the same
code does, so a daily note's thought is filed, anchored, gestured on and reviewed exactly as
an ``Inbox.md`` line is (vaultbrain/vault/daily.py says which notes and which section).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.capture.daily import capture_heading, watched_daily_notes
from vaultbrain.capture.inbox_pass import InboxPass, reconcile_inbox

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal


def reconcile_daily(brain: Brain, journal: Journal, idle: bool, take_new: bool = True) -> InboxPass:
    """One inbox pass over each watched daily note; what they did, together."""
    from vaultbrain.capture.review import quiet

    heading = capture_heading(brain)
    total = InboxPass()

    for rel in watched_daily_notes(brain):
        # As in Inbox.md, a stray byte that is not UTF-8 stops its own line, not the note's
        # other thoughts: the note is read with it kept, and written back with it.
        brain.vault.keeps_bytes.add(rel)
        if not quiet(brain, rel):
            total.settling += 1  # the person is typing in it: the next quiet moment
            continue
        done = reconcile_inbox(brain, journal, idle, take_new, note=rel, heading=heading)
        total.new += done.new
        total.rewritten += done.rewritten
        total.skipped += done.skipped
        total.applied += done.applied
        total.conflict |= done.conflict
        total.unfinished |= done.unfinished
        total.settling += done.settling
    return total


__all__ = ["reconcile_daily"]
