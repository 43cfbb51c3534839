"""The exchange's decision table, every row, in every direction."""

from __future__ import annotations

import itertools

import pytest

from vaultbrain.idealoom.decision import Action, Direction, ListState, NoteState, decide

IMP, EXP, AUTO = Direction.IMPORT, Direction.EXPORT, Direction.AUTO_EXPORT
N_SAME, N_CHANGED = NoteState.UNCHANGED, NoteState.CHANGED
N_MISSING, N_UNAVAIL, N_ABSENT = NoteState.MISSING, NoteState.UNAVAILABLE, NoteState.ABSENT
L_SAME, L_CHANGED = ListState.UNCHANGED, ListState.CHANGED

# direction, note vs base, list vs base, same_content, recreate -> outcome, reason, action
TABLE = [
    # the seed's four rows, as import sees them
    (IMP, N_SAME, L_SAME, False, False, "skipped", "unchanged", Action.NONE),
    (IMP, N_CHANGED, L_SAME, False, False, "imported", "note-changed", Action.IMPORT),
    (IMP, N_SAME, L_CHANGED, False, False, "skipped", "local-change", Action.NONE),
    (IMP, N_CHANGED, L_CHANGED, False, False, "conflicted", "both-sides-changed", Action.NONE),
    # ... as export sees them
    (EXP, N_SAME, L_SAME, False, False, "skipped", "unchanged", Action.NONE),
    (EXP, N_CHANGED, L_SAME, False, False, "skipped", "external-change", Action.NONE),
    (EXP, N_SAME, L_CHANGED, False, False, "exported", "list-changed", Action.WRITE),
    (EXP, N_CHANGED, L_CHANGED, False, False, "conflicted", "both-sides-changed", Action.NONE),
    # ... and as automatic export sees them: the same
    (AUTO, N_SAME, L_SAME, False, False, "skipped", "unchanged", Action.NONE),
    (AUTO, N_CHANGED, L_SAME, False, False, "skipped", "external-change", Action.NONE),
    (AUTO, N_SAME, L_CHANGED, False, False, "exported", "list-changed", Action.WRITE),
    (AUTO, N_CHANGED, L_CHANGED, False, False, "conflicted", "both-sides-changed", Action.NONE),
    # both changed to the same content: nothing to overwrite, the base moves on
    (IMP, N_CHANGED, L_CHANGED, True, False, "skipped", "converged", Action.REBASE),
    (EXP, N_CHANGED, L_CHANGED, True, False, "skipped", "converged", Action.REBASE),
    (AUTO, N_CHANGED, L_CHANGED, True, False, "skipped", "converged", Action.REBASE),
    # a deleted note is a decision: reported, nothing written, unless recreate was asked
    (IMP, N_MISSING, L_SAME, False, False, "missing", "note-deleted-externally", Action.NONE),
    (IMP, N_MISSING, L_CHANGED, False, True, "missing", "note-deleted-externally", Action.NONE),
    (EXP, N_MISSING, L_SAME, False, False, "missing", "note-deleted-externally", Action.NONE),
    (EXP, N_MISSING, L_CHANGED, False, False, "missing", "note-deleted-externally", Action.NONE),
    (EXP, N_MISSING, L_SAME, False, True, "exported", "recreated", Action.CREATE),
    (EXP, N_MISSING, L_CHANGED, False, True, "exported", "recreated", Action.CREATE),
    (AUTO, N_MISSING, L_CHANGED, False, True, "missing", "note-deleted-externally", Action.NONE),
    # an iCloud placeholder is never missing and never a recovery candidate
    (IMP, N_UNAVAIL, L_SAME, False, False, "unavailable", "icloud-placeholder", Action.NONE),
    (EXP, N_UNAVAIL, L_CHANGED, False, True, "unavailable", "icloud-placeholder", Action.NONE),
    (AUTO, N_UNAVAIL, L_CHANGED, False, False, "unavailable", "icloud-placeholder", Action.NONE),
    # never exported: only an explicit export creates the note
    (EXP, N_ABSENT, L_CHANGED, False, False, "exported", "new-note", Action.CREATE),
    (AUTO, N_ABSENT, L_CHANGED, False, False, "skipped", "never-exported", Action.NONE),
    (IMP, N_ABSENT, L_CHANGED, False, False, "skipped", "never-exported", Action.NONE),
]


@pytest.mark.parametrize(
    ("direction", "note", "local", "same", "recreate", "outcome", "reason", "action"), TABLE
)
def test_decision_table(
    direction: Direction,
    note: NoteState,
    local: ListState,
    same: bool,
    recreate: bool,
    outcome: str,
    reason: str,
    action: Action,
) -> None:
    decision = decide(direction, note, local, same_content=same, recreate_missing=recreate)
    assert (decision.outcome, decision.reason, decision.action) == (outcome, reason, action)


@pytest.mark.parametrize(
    ("direction", "note", "local", "same", "recreate"),
    list(itertools.product(Direction, NoteState, ListState, [False, True], [False, True])),
)
def test_invariants_over_every_input(
    direction: Direction, note: NoteState, local: ListState, same: bool, recreate: bool
) -> None:
    decision = decide(direction, note, local, same_content=same, recreate_missing=recreate)
    # Automatic export never creates or recreates a note; import never writes one.
    if direction is not Direction.EXPORT:
        assert decision.action is not Action.CREATE
    if direction is Direction.IMPORT:
        assert decision.action is not Action.WRITE
    else:
        assert decision.action is not Action.IMPORT
    # A note that changed is never overwritten; a changed list is never replaced by a note.
    if note is NoteState.CHANGED:
        assert decision.action is not Action.WRITE
    if local is ListState.CHANGED:
        assert decision.action is not Action.IMPORT
    # A placeholder is never treated as missing, nor a deletion as a failure.
    if note is NoteState.UNAVAILABLE:
        assert decision.outcome == "unavailable"
    if note is NoteState.MISSING:
        assert decision.outcome in ("missing", "exported")
    assert decision.outcome != "failed"


def test_table_covers_every_combination_the_seed_names() -> None:
    seed_rows = {(d, n, loc) for d, n, loc, same, rec, *_ in TABLE if not same and not rec}
    for direction in Direction:
        for note in (N_SAME, N_CHANGED):
            for local in ListState:
                assert (direction, note, local) in seed_rows
