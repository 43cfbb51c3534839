"""Which daily notes are read as inboxes now, and what doctor says of it: the setting
``daily_capture_heading`` (off when empty), ``daily_capture_days``, and Obsidian's own
configuration (vaultbrain/vault/daily.py). The pass over them is
vaultbrain/capture/daily_pass.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.vault.daily import daily_config, recent_daily_notes

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


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


__all__ = ["capture_heading", "daily_status", "watched_daily_notes"]
