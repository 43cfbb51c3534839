"""What `adopt` writes into a note, as a table: add a missing property, fill an empty one
("replace"), leave a value of the person's own alone (a conflict)."""

from __future__ import annotations

from typing import Any

import pytest

from vaultbrain.filing.adopt import wanted
from vaultbrain.packs.loader import load_pack


@pytest.mark.parametrize(
    ("data", "changes", "actions", "conflict"),
    [
        ({}, {"id": "r1", "type": "person"}, {"id": "add", "type": "add"}, None),
        ({"type": None}, {"id": "r1", "type": "person"}, {"id": "add", "type": "replace"}, None),
        ({"type": "  "}, {"id": "r1", "type": "person"}, {"id": "add", "type": "replace"}, None),
        ({"type": "person"}, {"id": "r1"}, {"id": "add"}, None),
        ({"type": "People"}, {"id": "r1"}, {"id": "add"}, None),  # an alias, any case
        ({"id": "r1", "type": "person"}, {}, {}, None),
        ({"id": None, "type": "person"}, {"id": "r1"}, {"id": "replace"}, None),
        ({"type": []}, {}, {}, "its type: holds [], not person"),
        ({"type": ["[[Authors]]"]}, {}, {}, "its type: holds ['[[Authors]]'], not person"),
        ({"type": "[[Person]]"}, {}, {}, "its type: holds [[Person]], not person"),
        ({"type": "author"}, {}, {}, "its type: holds author, not person"),
        ({"type": True}, {}, {}, "its type: holds True, not person"),
        ({"id": "theirs"}, {}, {}, "the note already says id: 'theirs'"),
        ({"id": ["r1"]}, {}, {}, "the note already says id: ['r1']"),
    ],
)
def test_what_adopt_writes(
    data: dict[str, Any], changes: dict, actions: dict, conflict: str | None
) -> None:
    pack = load_pack("vaultbrain-base")
    person = pack.get_type("person")
    got = wanted("People/Ann.md", data, set(data), "r1", person, "person")
    assert got == (changes, actions, conflict)
