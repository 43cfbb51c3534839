from __future__ import annotations

import pytest

from vaultbrain.filing.sync import Action, decide

B, N = "base", "new"


@pytest.mark.parametrize(
    ("base", "note", "store_changed", "same", "action"),
    [
        (B, B, False, False, Action.NOTHING),
        (B, N, False, False, Action.IMPORT),
        (B, B, True, False, Action.EXPORT),
        (B, N, True, True, Action.NEW_BASE),
        (B, N, True, False, Action.CONFLICT),
        (B, None, False, False, Action.TOMBSTONE),
        (B, None, True, False, Action.TOMBSTONE_CONFLICT),
        (None, N, False, False, Action.CREATE),
    ],
)
def test_decision_table(base, note, store_changed, same, action) -> None:
    assert decide(base, note, store_changed, same) is action
