"""The person's decisions (vaultbrain/filing/refile.py, vaultbrain/capture/resolution.py): fix a record as another type, confirm
a suggestion, dismiss a thought, on a small vault in a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.capture import lines
from vaultbrain.capture.journal import Journal
from vaultbrain.capture.model import Capture, CaptureStatus, OpKind
from vaultbrain.capture.pipeline import file_capture
from vaultbrain.capture.resolution import confirm, dismiss, fix_thought, resolve
from vaultbrain.classify.result import Classification, Destination
from vaultbrain.errors import UserError
from vaultbrain.filing.db import add_record
from vaultbrain.filing.index import records
from vaultbrain.filing.refile import ARCHIVE, fix
from vaultbrain.filing.sync import notes_sync
from vaultbrain.vault.inbox import scan_inbox
from vaultbrain.vault.note import parse_note


@pytest.fixture
def brain(vault: Path) -> Brain:
    return new_brain(vault)


def _front(brain: Brain, rel: str) -> dict:
    return parse_note((brain.vault.root / rel).read_text("utf-8")).data


def _audit(brain: Brain, kind: str) -> list[dict]:
    return [e for e in brain.store.read_jsonl("audit.jsonl") if e.get("kind") == kind]


def _suggested(brain: Brain, thought: str, dest: Destination) -> Capture:
    """A thought on an inbox line, filed as a suggestion (confidence between the bands)."""
    journal = Journal(brain)
    cid = journal.new_id()
    lines.add_line(brain, thought, cid)
    journal.open(cid, thought, "inbox", brain.inbox_rel, line_suffix=lines.WAITING)
    result = Classification([dest], 0.6, "a guess", "heuristic")
    cap = journal.classified(cid, result.to_dict(), brain.pack.identity, None, 0.0, None)
    cap = file_capture(brain, journal, cap)
    assert cap.status is CaptureStatus.SUGGESTED
    return cap


def _line_of(brain: Brain, cid: str) -> str:
    text = (brain.vault.root / brain.inbox_rel).read_text("utf-8")
    return next(line.raw for line in scan_inbox(text) if line.block_id == cid)


# -- fix ---------------------------------------------------------------------------------


def test_fix_refiles_a_record_as_another_type(brain: Brain) -> None:
    old = add_record(brain, "person", {"name": "Ann Lee", "contact": "ann@example.org"})
    (brain.vault.root / "Ideas" / "Links to Ann.md").write_text(
        "Ask [[People/Ann Lee|Ann]] and [[People/Ann Lee]] again.\n", "utf-8"
    )
    new, _ = fix(
        brain, notes_sync(brain), old["id"], "project", note="she is a project, not a person"
    )
    assert new["type"] == "project" and new["path"] == "Projects/Ann Lee.md"
    assert new["refiled_from"]["id"] == old["id"]
    front = _front(brain, new["path"])
    assert front["type"] == "project" and front["name"] == "Ann Lee"
    body = (brain.vault.root / new["path"]).read_text("utf-8")
    assert "ann@example.org" in body  # a field the new type lacks is kept in the body
    assert "she is a project, not a person" in body
    # The old note is archived, never deleted; its record is a tombstone.
    assert not (brain.vault.root / old["path"]).exists()
    archived = new["refiled_from"]["path"]
    assert archived == f"{ARCHIVE}/Ann Lee.md"
    assert _front(brain, archived)["archived"] is True
    assert brain.store.collection("people").get(old["id"]) is None
    # Links follow; the index knows the new record only.
    links = (brain.vault.root / "Ideas" / "Links to Ann.md").read_text("utf-8")
    assert links == "Ask [[Projects/Ann Lee|Ann]] and [[Projects/Ann Lee]] again.\n"
    index = records(brain)
    assert index.find("person", "Ann Lee") is None
    assert index.find("project", "ann lee")["id"] == new["id"]
    (entry,) = _audit(brain, "correction")
    assert (entry["record"], entry["from"], entry["to"]) == (old["id"], "person", "project")
    assert entry["links_rewritten"] == ["Ideas/Links to Ann.md"]


def test_fix_of_a_capture_follows_its_line(brain: Brain) -> None:
    cap = _suggested(brain, "kite festival in May", Destination("idea", "Kite festival"))
    new = fix_thought(brain, cap.id, "admin")  # a capture with one record: that record
    stored = Journal(brain).require(cap.id)
    assert stored.status is CaptureStatus.CORRECTED
    assert [(d.type, d.path) for d in stored.destinations] == [("admin", new["path"])]
    assert _line_of(brain, cap.id).startswith("- [x] kite festival in May → [[Admin/Kite festival|")


def test_fix_refuses_what_it_cannot_do(brain: Brain) -> None:
    rec = add_record(brain, "idea", {"title": "Kite"})
    with pytest.raises(UserError, match="already a idea"):
        fix(brain, notes_sync(brain), rec["id"], "idea")
    with pytest.raises(UserError, match="not a type"):
        fix(brain, notes_sync(brain), rec["id"], "spaceship")
    with pytest.raises(UserError, match="no record 'nosuchthing'"):
        fix_thought(brain, "nosuchthing", "person")
    assert (brain.vault.root / rec["path"]).exists()  # nothing moved


# -- confirm -----------------------------------------------------------------------------


def test_confirm_files_a_suggestion(brain: Brain) -> None:
    cap = _suggested(brain, "solar boat for the lake", Destination("idea", "Solar boat"))
    rel = cap.destinations[0].path
    stored = records(brain).by_path(rel)
    assert stored is not None and "confirmed" not in _front(brain, rel)  # a minimal note
    col = brain.store.collection(stored[0])
    assert col.get(stored[1]["id"])["confirmed"] is False  # the store keeps it
    done = confirm(brain, cap.id)
    assert done.status is CaptureStatus.FILED
    assert "confirmed" not in _front(brain, rel)
    assert "confirmed" not in col.get(stored[1]["id"])
    assert _line_of(brain, cap.id).startswith("- [x] solar boat for the lake → [[Ideas/Solar boat|")
    (entry,) = _audit(brain, "resolution")
    assert (entry["capture"], entry["decision"]) == (cap.id, "confirm")


def test_confirm_refuses_a_capture_that_is_not_a_suggestion(brain: Brain) -> None:
    cap = _suggested(brain, "solar boat", Destination("idea", "Solar boat"))
    confirm(brain, cap.id)
    with pytest.raises(UserError, match="is filed: only a suggestion can be confirmed"):
        confirm(brain, cap.id)
    with pytest.raises(UserError, match="no capture 'zzzzzz'"):
        confirm(brain, "zzzzzz")


def test_confirm_of_a_question_without_a_guess_asks_for_a_type(brain: Brain) -> None:
    journal = Journal(brain)
    cid = journal.new_id()
    journal.open(cid, "hmm", "cli", None)
    journal.settled(cid, CaptureStatus.NEEDS_REVIEW, [])
    with pytest.raises(UserError, match="review resolve"):
        confirm(brain, cid)


# -- dismiss -----------------------------------------------------------------------------


def test_dismiss_archives_what_the_thought_created(brain: Brain) -> None:
    cap = _suggested(brain, "not really a thought", Destination("idea", "Not really"))
    rel = cap.destinations[0].path
    record_id = cap.destinations[0].record_id
    done = dismiss(brain, cap.id)
    assert done.status is CaptureStatus.DISMISSED
    assert not (brain.vault.root / rel).exists()
    archived = f"{ARCHIVE}/Not really.md"
    assert _front(brain, archived)["archived_reason"] == "dismissed"
    assert brain.store.collection("ideas").get(record_id) is None
    assert records(brain).find("idea", "Not really") is None
    assert _line_of(brain, cap.id) == f"- [x] not really a thought → dismissed ^vb-{cap.id}"
    (entry,) = _audit(brain, "resolution")
    assert (entry["capture"], entry["decision"]) == (cap.id, "dismiss")


def test_dismiss_leaves_notes_the_thought_only_updated(brain: Brain) -> None:
    rec = add_record(brain, "idea", {"title": "Kite"})
    cap = _suggested(brain, "kite needs a longer tail", Destination("idea", "Kite"))
    assert cap.destinations[0].op is OpKind.UPDATE
    dismiss(brain, cap.id)
    assert (brain.vault.root / rec["path"]).exists()
    assert brain.store.collection("ideas").get(rec["id"]) is not None


# -- a partial resolution leaves no link to what it dropped ---------------------------------


def _filed(brain: Brain, thought: str, dests: list[Destination]) -> Capture:
    journal = Journal(brain)
    cid = journal.new_id()
    lines.add_line(brain, thought, cid)
    journal.open(cid, thought, "inbox", brain.inbox_rel, line_suffix=lines.WAITING)
    result = Classification(dests, 0.95, "sure", "heuristic")
    cap = journal.classified(cid, result.to_dict(), brain.pack.identity, None, 0.0, None)
    cap = file_capture(brain, journal, cap)
    assert cap.status is CaptureStatus.FILED
    return cap


def test_choosing_fewer_types_takes_every_link_to_the_dropped_note_away(brain: Brain) -> None:
    ann = add_record(brain, "person", {"name": "Ann Lee"})
    cap = _filed(
        brain,
        "Ann wants the kiln project going",
        [Destination("person", "Ann Lee"), Destination("project", "Kiln", {"status": "planned"})],
    )
    kiln = next(d for d in cap.destinations if d.type == "project")
    ann_note = brain.vault.root / ann["path"]
    assert "[[Projects/Kiln|Kiln]]" in ann_note.read_text("utf-8")  # its log line's tail
    done = resolve(brain, cap.id, "person")
    assert [d.type for d in done.destinations] == ["person"]
    assert not (brain.vault.root / kiln.path).exists()
    text = ann_note.read_text("utf-8")
    assert "Projects/Kiln" not in text and f"#^vb-{cap.id}|capture" in text  # the line stays
    assert "Projects/Kiln" not in _line_of(brain, cap.id)
    archived = next((brain.vault.root / ARCHIVE).glob("Kiln*.md"))
    assert _front(brain, f"{ARCHIVE}/{archived.name}")["archived"] is True


def test_resolve_sets_the_fields_the_person_gave_on_a_suggestion(brain: Brain) -> None:
    cap = _suggested(
        brain, "the kiln project", Destination("project", "Kiln", {"status": "planned"})
    )
    done = resolve(brain, cap.id, "project", {"status": "active"})
    assert done.status is CaptureStatus.FILED
    assert _front(brain, done.destinations[0].path)["status"] == "active"
    rec = records(brain).find("project", "Kiln")
    assert brain.store.collection("projects").get(rec["id"])["fields"]["status"] == "active"
    with pytest.raises(UserError, match="'nosuch' is not a field of project"):
        resolve(brain, cap.id, "project", {"nosuch": "x"})


def test_a_decision_its_state_does_not_allow_writes_nothing(brain: Brain) -> None:
    cap = _suggested(brain, "not a thought at all", Destination("idea", "Not at all"))
    dismiss(brain, cap.id)
    before = {p: p.read_bytes() for p in brain.vault.root.rglob("*.md")}
    with pytest.raises(UserError, match="is dismissed"):
        dismiss(brain, cap.id)
    with pytest.raises(UserError, match="only a suggestion can be confirmed"):
        confirm(brain, cap.id)
    assert {p: p.read_bytes() for p in brain.vault.root.rglob("*.md")} == before


def test_the_title_the_person_gives_is_the_title(brain: Brain) -> None:
    cap = _suggested(brain, "look up the kiln hours", Destination("idea", "Kiln hours"))
    old = cap.destinations[0].path
    done = resolve(brain, cap.id, "admin", title="Call the kiln shop")
    (dest,) = done.destinations
    assert (dest.type, dest.title, dest.path) == (
        "admin",
        "Call the kiln shop",
        "Admin/Call the kiln shop.md",
    )
    assert _front(brain, dest.path)["title"] == "Call the kiln shop"
    assert not (brain.vault.root / old).exists()
    again = _suggested(brain, "kiln shop opening times", Destination("admin", "Kiln times"))
    done = resolve(brain, again.id, "admin", title="Kiln shop times")
    assert [d.title for d in done.destinations] == ["Kiln shop times"]
    assert not (brain.vault.root / "Admin/Kiln times.md").exists()
