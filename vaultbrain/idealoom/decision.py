"""The exchange's one decision: what to do with a list and its note, as a pure function.

Each exchanged list keeps the hash of its note as last read or written (the base) and the
list's fingerprint at that moment. Comparing both sides against that base gives the seed's
table; deletions, iCloud placeholders and never-exported lists complete it:

=========  =========  =========================================================
note       list       outcome (import / export)
=========  =========  =========================================================
unchanged  unchanged  skipped (unchanged), nothing written
changed    unchanged  imported (note-changed) / skipped (external-change)
unchanged  changed    skipped (local-change) / exported (list-changed)
changed    changed    conflicted (both-sides-changed); when both sides now say the
                      same thing, skipped (converged) and the base moves on
missing    any        missing (note-deleted-externally); ``export --recreate-missing``:
                      exported (recreated)
unavail.   any        unavailable (icloud-placeholder)
absent     any        export: exported (new-note); automatic: skipped (never-exported)
=========  =========  =========================================================

Automatic export is the least powerful path: it never creates, recreates, deletes or
resolves anything, so it differs from an explicit export only in the last two rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Direction(StrEnum):
    IMPORT = "import"
    EXPORT = "export"
    AUTO_EXPORT = "auto-export"


class NoteState(StrEnum):
    UNCHANGED = "unchanged"  # the note hashes to the base
    CHANGED = "changed"  # it does not (or there is no base to compare with)
    MISSING = "missing"  # the list was exchanged, its note is gone
    UNAVAILABLE = "unavailable"  # an iCloud placeholder: the note exists, not on this machine
    ABSENT = "absent"  # the list was never exported


class ListState(StrEnum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"


class Action(StrEnum):
    NONE = "none"
    IMPORT = "import"  # replace the list with the note's content; new base
    WRITE = "write"  # compare-and-swap the note with the list's content; new base
    CREATE = "create"  # write a new note (never over an existing file); new base
    REBASE = "rebase"  # both sides agree: record the current note as the base


@dataclass(frozen=True)
class Decision:
    outcome: str
    reason: str
    action: Action


def decide(
    direction: Direction,
    note: NoteState,
    local: ListState,
    *,
    same_content: bool = False,
    recreate_missing: bool = False,
) -> Decision:
    """What an exchange in ``direction`` does with one list and its note.

    ``same_content``: the note and the list say the same thing (their modified times aside);
    only consulted when both changed. ``recreate_missing``: the person asked to recreate
    deleted notes; only an explicit export honours it.
    """
    if note is NoteState.UNAVAILABLE:
        return Decision("unavailable", "icloud-placeholder", Action.NONE)
    if note is NoteState.MISSING:
        if direction is Direction.EXPORT and recreate_missing:
            return Decision("exported", "recreated", Action.CREATE)
        return Decision("missing", "note-deleted-externally", Action.NONE)
    if note is NoteState.ABSENT:
        if direction is Direction.EXPORT:
            return Decision("exported", "new-note", Action.CREATE)
        return Decision("skipped", "never-exported", Action.NONE)
    note_changed = note is NoteState.CHANGED
    list_changed = local is ListState.CHANGED
    if not note_changed and not list_changed:
        return Decision("skipped", "unchanged", Action.NONE)
    if note_changed and list_changed:
        if same_content:
            return Decision("skipped", "converged", Action.REBASE)
        return Decision("conflicted", "both-sides-changed", Action.NONE)
    if direction is Direction.IMPORT:
        if note_changed:
            return Decision("imported", "note-changed", Action.IMPORT)
        return Decision("skipped", "local-change", Action.NONE)
    if note_changed:
        return Decision("skipped", "external-change", Action.NONE)
    return Decision("exported", "list-changed", Action.WRITE)
