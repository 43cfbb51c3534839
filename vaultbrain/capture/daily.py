"""Which daily notes are read as inboxes now, and what doctor says of it: the setting
``daily_capture_heading`` (off when empty), ``daily_capture_days``, and Obsidian's own
configuration (vaultbrain/vault/daily.py). The pass over them is
vaultbrain/capture/daily_pass.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.vault.daily import daily_config, line_place, recent_daily_notes

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.vault.inbox import InboxLine


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


def where(brain: Brain, rel: str, text: str, number: int) -> str:
    """Line ``number`` of the inbox note ``rel`` as the person finds it, for what the daemon
    says of it: ``Inbox.md, line 4``; in a daily note, which line of its capture section
    too (``Daily/2026-12-06.md, line 8 (the 2nd under “## Inbox”)``)."""
    heading = capture_heading(brain) if rel != brain.inbox_rel else ""
    return f"{rel}, {line_place(text, number, heading)}"


_KEPT = "not filed, kept byte for byte"


def note_bytes(brain: Brain, rel: str, text: str, lines: list[InboxLine]) -> None:
    """A daily note's capture section read as an inbox: its lines that are not UTF-8 are
    listed in doctor and Needs Review's "Can't read" by where they are in the section (the
    rest of the note is the person's: a stray byte there is not vaultbrain's to list), and
    leave the list when they are gone (what the scan says of the note's other bytes, or of
    anything else, stays)."""
    from vaultbrain.filing import unreadable
    from vaultbrain.vault.inbox import UNDECODABLE

    bad = [line for line in lines if line.undecodable and not line.block_id]
    listed = brain.store.collection(unreadable.COLLECTION).get(unreadable.key(rel))
    if not bad:
        if listed and _KEPT in str(listed.get("problem")):
            unreadable.forget(brain, rel)
        return
    places = [line_place(text, line.number, capture_heading(brain)) for line in bad[:5]]
    byte = ord(UNDECODABLE.search(bad[0].raw).group(0)) - 0xDC00  # type: ignore[union-attr]
    which = "; ".join(places) + (" …" if len(bad) > 5 else "")
    unreadable.remember(
        brain,
        rel,
        f"{which}: not UTF-8 text (byte 0x{byte:02x}): {_KEPT}; "
        "retype the line (or save the note as UTF-8)",
    )


__all__ = ["capture_heading", "daily_status", "note_bytes", "watched_daily_notes", "where"]
