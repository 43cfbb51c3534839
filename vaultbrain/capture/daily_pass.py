"""The daily notes' capture sections, read as inboxes: the inbox pass
(vaultbrain/capture/inbox_pass.py) run on each recent daily note, on its lines under
``daily_capture_heading`` only. Nothing here takes, settles or draws a line itself: the same
code does, so a daily note's thought is filed, anchored, gestured on and reviewed exactly as
an ``Inbox.md`` line is (vaultbrain/vault/daily.py says which notes and which section).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.capture.inbox_pass import InboxPass, reconcile_inbox
from vaultbrain.vault.daily import daily_config, recent_daily_notes

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal


def capture_heading(brain: Brain) -> str:
    """``daily_capture_heading``, or "" when daily capture is off."""
    return str(brain.settings.get("daily_capture_heading") or "").strip()


def watched_daily_notes(brain: Brain) -> list[str]:
    """The daily notes whose capture section is read now (none when it is off)."""
    if not capture_heading(brain):
        return []
    days = int(brain.settings.get("daily_capture_days"))
    return [
        rel
        for rel in recent_daily_notes(brain.vault.root, brain.today(), days)
        if rel != brain.inbox_rel
    ]


def reconcile_daily(brain: Brain, journal: Journal, idle: bool, take_new: bool = True) -> InboxPass:
    """One inbox pass over each watched daily note; what they did, together."""
    heading = capture_heading(brain)
    total = InboxPass()
    from vaultbrain.capture.review import quiet

    for rel in watched_daily_notes(brain):
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


def daily_status(brain: Brain) -> str:
    """What doctor says of daily capture: off, where the daily notes are, which it reads."""
    heading = capture_heading(brain)
    if not heading:
        return "off (`vaultbrain settings set daily_capture_heading '## Inbox'`)"
    config = daily_config(brain.vault.root)
    if config is None:
        return (
            f"under “{heading}”, but Obsidian has no daily notes set up "
            "(turn on the Daily notes core plugin, or Periodic Notes' daily notes)"
        )
    notes = watched_daily_notes(brain)
    where = f"{config.folder or 'the vault root'}/{config.format}.md, from {config.source}"
    days = int(brain.settings.get("daily_capture_days"))
    if not notes:
        return f"under “{heading}” in {where}; no daily note of the last {days} day(s) yet"
    return f"lines under “{heading}” in {', '.join(notes)} ({where})"


__all__ = ["capture_heading", "daily_status", "reconcile_daily", "watched_daily_notes"]
