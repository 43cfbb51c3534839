"""What `adopt` writes into a note, as a table: add a missing property, fill an empty one
("replace"), leave a value of the person's own alone (a conflict for `type:`; an `id:` of
their own is kept, and the rest written)."""

from __future__ import annotations

from typing import Any

import pytest

from vaultbrain.filing.adopt_wants import own_id, wanted
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
        # an id of the person's own stays theirs: only what else the note needs is written
        ({"id": "theirs"}, {"type": "person"}, {"type": "add"}, None),
        ({"id": "backend/api/dto-design", "type": "person"}, {}, {}, None),
        ({"id": ["r1"], "type": None}, {"type": "person"}, {"type": "replace"}, None),
        ({"id": True, "type": "author"}, {}, {}, "its type: holds author, not person"),
    ],
)
def test_what_adopt_writes(
    data: dict[str, Any], changes: dict, actions: dict, conflict: str | None
) -> None:
    pack = load_pack("vaultbrain-base")
    person = pack.get_type("person")
    got = wanted("People/Ann.md", data, set(data), "r1", person, "person")
    assert got == (changes, actions, conflict)


@pytest.mark.parametrize(
    ("data", "kept"),
    [
        ({}, None),
        ({"id": None}, None),
        ({"id": "  "}, None),
        ({"id": "r1"}, None),
        ({"id": "theirs"}, "theirs"),
        ({"id": 42}, "42"),
        ({"id": ["r1"]}, "['r1']"),
    ],
)
def test_which_id_is_the_persons_own(data: dict[str, Any], kept: str | None) -> None:
    assert own_id(data, "r1") == kept
