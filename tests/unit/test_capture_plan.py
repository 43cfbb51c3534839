"""The plan of a capture (vaultbrain/capture/plan.py): which notes a thought updates and which
it creates, and where, on a real vault and store in a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.capture.plan import plan
from vaultbrain.classify.result import Destination
from vaultbrain.filing.db import add_record
from vaultbrain.filing.index import records
from vaultbrain.filing.names import free_path
from vaultbrain.filing.sync import notes_sync


@pytest.fixture
def brain(vault: Path) -> Brain:
    return new_brain(vault)


def _hand_made(brain: Brain, rel: str, front: str) -> None:
    """A note the person wrote, taken in by the sync as the daemon would."""
    path = brain.vault.root / rel
    path.write_text(f"---\n{front}\n---\nwritten by hand\n", "utf-8")
    notes_sync(brain).sync_path(rel)


def test_a_new_title_is_a_create_in_its_types_folder(brain: Brain) -> None:
    ops = plan(brain, [Destination("idea", "Solar boat", {"one_liner": "a boat"})])
    assert len(ops) == 1
    op = ops[0]
    assert (op.op, op.type, op.title, op.path) == (
        "create",
        "idea",
        "Solar boat",
        "Ideas/Solar boat.md",
    )
    assert op.collection == "ideas" and op.fields == {"one_liner": "a boat"}
    assert op.record_id and not (brain.vault.root / op.path).exists()  # planned, not written


def test_an_existing_record_is_updated_not_created(brain: Brain) -> None:
    rec = add_record(brain, "idea", {"title": "Solar Boat"})
    ops = plan(brain, [Destination("idea", "solar boat", {"one_liner": "now with sails"})])
    assert [(o.op, o.title, o.path, o.record_id, o.collection) for o in ops] == [
        ("update", "Solar Boat", rec["path"], rec["id"], "ideas")
    ]
    assert ops[0].fields == {"one_liner": "now with sails"}


def test_a_record_is_found_by_alias_in_any_case(brain: Brain) -> None:
    _hand_made(brain, "People/Ann Lee.md", "type: person\nname: Ann Lee\naliases: [Annie]")
    ops = plan(brain, [Destination("person", "ANNIE")])
    assert [(o.op, o.title, o.path) for o in ops] == [("update", "Ann Lee", "People/Ann Lee.md")]


def test_the_same_name_as_another_type_links_that_note(brain: Brain) -> None:
    # A second "Atlas" would make every [[Atlas]] ambiguous: the thought links the one there is.
    add_record(brain, "idea", {"title": "Atlas"})
    ops = plan(brain, [Destination("project", "Atlas")])
    assert [(o.op, o.path) for o in ops] == [("link", "Ideas/Atlas.md")]


def test_the_same_title_twice_in_one_thought_is_one_note(brain: Brain) -> None:
    # Two notes named "Bo Chan" would make every [[Bo Chan]] ambiguous: the first mention wins.
    ops = plan(
        brain,
        [
            Destination("person", "Bo Chan", {"contact": "bo@example.org"}),
            Destination("person", "bo chan"),
            Destination("idea", "Bo Chan"),
        ],
    )
    assert [(o.op, o.type, o.path) for o in ops] == [("create", "person", "People/Bo Chan.md")]
    assert ops[0].fields == {"contact": "bo@example.org"}  # the first mention's fields


def test_a_note_of_that_name_is_linked_not_written(brain: Brain) -> None:
    # A file nothing knows as a record still holds the name: the thought links it.
    (brain.vault.root / "Ideas" / "Kite.md").write_text("just text\n", "utf-8")
    ops = plan(brain, [Destination("idea", "Kite")])
    assert [(o.op, o.path) for o in ops] == [("link", "Ideas/Kite.md")]


def test_two_titles_with_one_file_name_make_one_note(brain: Brain) -> None:
    # "a/b" and "a:b" are different titles but one file name once unsafe characters go.
    ops = plan(brain, [Destination("idea", "Plan a/b"), Destination("idea", "Plan a:b")])
    assert [(o.op, o.path) for o in ops] == [("create", "Ideas/Plan a-b.md")]


def test_free_path_skips_names_the_plan_already_took(brain: Brain) -> None:
    ptype = brain.pack.get_type("idea")
    assert ptype is not None
    assert free_path(brain, ptype, "Kite") == "Ideas/Kite.md"
    assert free_path(brain, ptype, "Kite", {"ideas/kite.md"}) == "Ideas/Kite (2).md"


def test_a_record_another_process_created_is_updated(vault: Path) -> None:
    ours = new_brain(vault)
    records(ours)  # our index is built before the other process writes
    theirs = Brain(vault)
    rec = add_record(theirs, "person", {"name": "Cy Diaz"})
    ops = plan(ours, [Destination("person", "Cy Diaz")])
    assert [(o.op, o.record_id, o.path) for o in ops] == [("update", rec["id"], rec["path"])]


def test_a_type_the_pack_lacks_is_left_out(brain: Brain) -> None:
    ops = plan(brain, [Destination("spaceship", "Enterprise"), Destination("idea", "Warp")])
    assert [(o.type, o.title) for o in ops] == [("idea", "Warp")]
