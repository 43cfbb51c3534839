"""A planned note that moved before it was written (vaultbrain/capture/write.py): the write
finds it again by its record (its id, or its content for a hand-made note without one) and
updates it where it is now, never a second note of the same name. Real vault and store in a
temp folder; the sync has not seen the move yet, as for a capture in flight."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.capture.model import Capture
from vaultbrain.capture.plan import plan
from vaultbrain.capture.write import relocate, write, write_held
from vaultbrain.classify.result import Classification, Destination
from vaultbrain.filing.sync import notes_sync


@pytest.fixture
def brain(vault: Path) -> Brain:
    return new_brain(vault)


def _hand_made(brain: Brain, rel: str, front: str) -> None:
    path = brain.vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\nwritten by hand\n\n## Log\n", "utf-8")
    notes_sync(brain).sync_path(rel)


def _capture(brain: Brain, cid: str, title: str) -> tuple[Capture, Classification]:
    result = Classification([Destination("person", title, {})], 0.9, "test", "test")
    cap = Capture(cid, f"Lunch with {title}", note=brain.inbox_rel, created="2026-12-01")
    return cap.but(plan=plan(brain, result.fileable)), result


@pytest.mark.parametrize("with_id", [True, False], ids=["by id", "by content"])
def test_a_note_renamed_after_the_plan_is_updated_where_it_is(brain: Brain, with_id: bool) -> None:
    head = "type: person\nid: sarah01\n" if with_id else ""
    _hand_made(brain, "People/Sarah.md", f"{head}name: Sarah")
    cap, result = _capture(brain, "abc123", "Sarah")
    assert [(op.op, op.path) for op in cap.plan or []] == [("update", "People/Sarah.md")]
    root = brain.vault.root
    (root / "People/Archive").mkdir()
    (root / "People/Sarah.md").rename(root / "People/Archive/Sarah Smith.md")

    done = write(brain, cap, result, confirmed=True).destinations

    assert [d.path for d in done] == ["People/Archive/Sarah Smith.md"]
    assert sorted(p.name for p in (root / "People").rglob("*.md")) == ["Sarah Smith.md"]
    text = (root / "People/Archive/Sarah Smith.md").read_text()
    assert "Lunch with Sarah" in text and "^vb-abc123" in text
    rid = (cap.plan or [])[0].record_id
    rec = brain.store.collection("people").get(rid)
    assert rec is not None and rec["path"] == "People/Archive/Sarah Smith.md"
    assert len(list(brain.store.collection("people").summaries())) == 1


def test_the_store_knows_the_move_first(brain: Brain) -> None:
    _hand_made(brain, "People/Sarah.md", "type: person\nid: sarah01\nname: Sarah")
    cap, _ = _capture(brain, "abc123", "Sarah")
    root = brain.vault.root
    (root / "People/Sarah.md").rename(root / "People/Sarah Smith.md")
    notes_sync(brain).sync_path("People/Sarah Smith.md")
    notes_sync(brain).sync_path("People/Sarah.md")
    assert relocate(brain, (cap.plan or [])[0]) == "People/Sarah Smith.md"


def test_a_deleted_note_is_not_found_and_a_new_one_is_made(brain: Brain) -> None:
    _hand_made(brain, "People/Sarah.md", "type: person\nid: sarah01\nname: Sarah")
    cap, result = _capture(brain, "abc123", "Sarah")
    (brain.vault.root / "People/Sarah.md").unlink()
    assert relocate(brain, (cap.plan or [])[0]) is None
    done = write(brain, cap, result, confirmed=True).destinations
    assert [(d.op, d.path) for d in done] == [("create", "People/Sarah.md")]
    assert done[0].record_id != "sarah01"


def test_a_confirmed_suggestion_writes_into_the_note_where_it_is_now(brain: Brain) -> None:
    _hand_made(brain, "People/Sarah.md", "type: person\nid: sarah01\nname: Sarah")
    cap, result = _capture(brain, "abc123", "Sarah")
    cap = cap.but(destinations=write(brain, cap, result, confirmed=False).destinations)
    assert cap.destinations[0].held is True  # nothing written until confirmed
    root = brain.vault.root
    (root / "People/Sarah.md").rename(root / "People/Sarah Smith.md")

    done = write_held(brain, cap)

    assert [d.path for d in done.destinations] == ["People/Sarah Smith.md"]
    assert "^vb-abc123" in (root / "People/Sarah Smith.md").read_text()
    assert not (root / "People/Sarah.md").exists() and not done.warnings
