"""The inbox line forms (vaultbrain/capture/lines.py): what a line shows for each capture
status, and the daemon's inbox pass ``reconcile_inbox`` on a real inbox note."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.capture.inbox_pass import reconcile_inbox
from vaultbrain.capture.journal import Journal
from vaultbrain.capture.lines import MAX_THOUGHT, check_thought, line_form
from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.errors import UserError
from vaultbrain.filing.inbox import REVIEW_NOTE, WAITING
from vaultbrain.vault.inbox import scan_inbox

ANN = {"type": "person", "title": "Ann Lee", "path": "People/Ann Lee.md", "record_id": "r1"}
KITE = {"type": "idea", "title": "Kite [v2]", "path": "Ideas/Kite v2.md", "record_id": "r2"}
REVIEW_LINK = f"[[{REVIEW_NOTE[:-3]}|Needs Review]]"


def _cap(status: CaptureStatus, dests: list[dict] | None = None, **kw: object) -> Capture:
    return Capture(id="abc123", text="t", status=status, destinations=list(dests or []), **kw)


# -- line_form: one case per status ------------------------------------------------------


def test_every_status_has_a_line_form() -> None:
    for status in CaptureStatus:
        suffix, done = line_form(_cap(status, [ANN]))
        assert suffix and isinstance(done, bool)


def test_filed_links_every_destination_and_ticks() -> None:
    suffix, done = line_form(_cap(CaptureStatus.FILED, [ANN, KITE]))
    assert suffix == "→ [[People/Ann Lee|Ann Lee]] · [[Ideas/Kite v2|Kite (v2)]]"
    assert done is True


def test_corrected_reads_as_filed() -> None:
    assert line_form(_cap(CaptureStatus.CORRECTED, [KITE])) == line_form(
        _cap(CaptureStatus.FILED, [KITE])
    )


def test_filed_without_destinations_still_says_filed() -> None:
    assert line_form(_cap(CaptureStatus.FILED)) == ("→ filed", True)


def test_suggested_links_and_asks_for_confirmation_unticked() -> None:
    suffix, done = line_form(_cap(CaptureStatus.SUGGESTED, [ANN]))
    assert suffix == f"→ [[People/Ann Lee|Ann Lee]] (suggested: confirm in {REVIEW_LINK})"
    assert done is False


def test_needs_review_points_at_the_review_note_unticked() -> None:
    assert line_form(_cap(CaptureStatus.NEEDS_REVIEW)) == (
        f"→ needs review in {REVIEW_LINK}",
        False,
    )


def test_dismissed_is_ticked() -> None:
    assert line_form(_cap(CaptureStatus.DISMISSED, [ANN])) == ("→ dismissed", True)


def test_pending_waits_and_says_when_it_is_offline() -> None:
    assert line_form(_cap(CaptureStatus.PENDING)) == (WAITING, False)
    suffix, done = line_form(_cap(CaptureStatus.PENDING, last_error="connection refused"))
    assert suffix.startswith(WAITING) and "offline" in suffix and done is False


def test_a_stored_record_gives_the_same_form_as_its_capture() -> None:
    cap = _cap(CaptureStatus.SUGGESTED, [ANN])
    assert line_form(cap.to_record()) == line_form(cap)


def test_check_thought_refuses_what_cannot_be_one_line() -> None:
    assert check_thought("  call Ann  ") == "call Ann"
    for bad, why in [("   ", "empty"), ("a\nb", "one line"), ("x" * (MAX_THOUGHT + 1), "limit")]:
        with pytest.raises(UserError, match=why):
            check_thought(bad)


# -- reconcile_inbox on a text -----------------------------------------------------------


@pytest.fixture
def brain(vault: Path) -> Brain:
    return new_brain(vault)


def _write_inbox(brain: Brain, lines: str) -> Path:
    path = brain.vault.root / brain.inbox_rel
    path.write_text(path.read_text("utf-8") + lines, "utf-8")
    return path


def _taken(path: Path) -> dict[str, str]:
    """capture id -> the raw line that carries it (first copy)."""
    out: dict[str, str] = {}
    for line in scan_inbox(path.read_text("utf-8")):
        if line.block_id and line.block_id not in out:
            out[line.block_id] = line.raw
    return out


def test_a_pass_anchors_finished_lines_and_journals_them(brain: Brain) -> None:
    path = _write_inbox(brain, "# Monday\n- call Ann about the budget\nstill typing")
    journal = Journal(brain)
    result = reconcile_inbox(brain, journal, idle=False)
    assert len(result.new) == 1 and result.rewritten == 1 and not result.conflict
    cid = result.new[0]
    raw = _taken(path)[cid]
    assert raw == f"- [ ] call Ann about the budget {WAITING} ^vb-{cid}"
    cap = journal.require(cid)
    assert (cap.text, cap.origin, cap.note, cap.status) == (
        "call Ann about the budget",
        "inbox",
        brain.inbox_rel,
        CaptureStatus.PENDING,
    )
    text = path.read_text("utf-8")
    assert "# Monday\n" in text and text.endswith("\nstill typing")  # heading, open line kept
    assert result.text_hash == brain.vault.read(brain.inbox_rel).hash


def test_a_new_line_s_capture_is_written_once_with_the_form_its_line_shows(
    brain: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_inbox(brain, "- call Ann about the budget\n")
    writes: list[str] = []
    inbox = brain.store.inbox
    real = inbox.put
    monkeypatch.setattr(inbox, "put", lambda rec, **k: writes.append(rec["id"]) or real(rec, **k))
    result = reconcile_inbox(brain, Journal(brain), idle=False)
    assert writes == result.new  # made once: no second write for the line's form
    rec = inbox.get(result.new[0])
    assert (rec["line_suffix"], rec["line_done"]) == (WAITING, False)


def test_an_unfinished_last_line_is_taken_once_the_note_is_quiet(brain: Brain) -> None:
    path = _write_inbox(brain, "still typing")
    journal = Journal(brain)
    assert reconcile_inbox(brain, journal, idle=False).new == []
    quiet = reconcile_inbox(brain, journal, idle=True)
    assert len(quiet.new) == 1
    assert journal.require(quiet.new[0]).text == "still typing"
    assert path.read_text("utf-8").endswith(f"still typing {WAITING} ^vb-{quiet.new[0]}")


def test_take_new_false_only_brings_taken_lines_up_to_date(brain: Brain) -> None:
    _write_inbox(brain, "- a new thought\n")
    result = reconcile_inbox(brain, Journal(brain), idle=True, take_new=False)
    assert result.new == [] and result.rewritten == 0


def test_a_line_shows_what_its_capture_became(brain: Brain) -> None:
    path = _write_inbox(brain, "- call Ann\n- kite idea\n")
    journal = Journal(brain)
    first = reconcile_inbox(brain, journal, idle=False)
    filed_id, review_id = first.new

    journal.settled(filed_id, CaptureStatus.FILED, [ANN])
    journal.settled(review_id, CaptureStatus.NEEDS_REVIEW, [])
    second = reconcile_inbox(brain, journal, idle=False)
    assert second.new == [] and second.rewritten == 2
    taken = _taken(path)
    assert taken[filed_id] == f"- [x] call Ann → [[People/Ann Lee|Ann Lee]] ^vb-{filed_id}"
    # The short form (note_style minimal, the default): a link to Needs Review.
    review = "[[Brain/Needs Review|needs review]]"
    assert taken[review_id] == f"- [ ] kite idea → {review} ^vb-{review_id}"
    # The capture remembers the form its line shows, so the next pass writes nothing.
    assert journal.require(filed_id).line_suffix == "→ [[People/Ann Lee|Ann Lee]]"
    assert journal.require(filed_id).line_done is True
    before = path.read_bytes()
    third = reconcile_inbox(brain, journal, idle=False)
    assert third.rewritten == 0 and path.read_bytes() == before


def test_the_persons_edit_of_a_taken_line_is_kept(brain: Brain) -> None:
    path = _write_inbox(brain, "- call Ann\n")
    journal = Journal(brain)
    cid = reconcile_inbox(brain, journal, idle=False).new[0]
    text = path.read_text("utf-8").replace("call Ann ", "call Ann and Bo ")
    path.write_text(text, "utf-8")
    journal.dismissed(cid)
    reconcile_inbox(brain, journal, idle=False)
    assert _taken(path)[cid] == f"- [x] call Ann and Bo → dismissed ^vb-{cid}"


def test_an_anchored_line_nobody_journaled_is_journaled_with_its_id(brain: Brain) -> None:
    path = _write_inbox(brain, "- copied from another vault ^vb-zz9zz9\n")
    journal = Journal(brain)
    result = reconcile_inbox(brain, journal, idle=False)
    assert result.new == ["zz9zz9"]
    assert journal.require("zz9zz9").text == "copied from another vault"
    assert _taken(path)["zz9zz9"] == f"- [ ] copied from another vault {WAITING} ^vb-zz9zz9"


def test_a_second_copy_of_an_anchor_is_left_alone(brain: Brain) -> None:
    path = _write_inbox(brain, "- one ^vb-abc123\n- pasted twice ^vb-abc123\n")
    result = reconcile_inbox(brain, Journal(brain), idle=False)
    assert result.new == ["abc123"]
    assert len(result.skipped) == 1 and "second copy of ^vb-abc123" in result.skipped[0]
    assert "\n- pasted twice ^vb-abc123\n" in path.read_text("utf-8")


def test_a_line_too_long_to_file_is_marked_with_a_reason(brain: Brain) -> None:
    long = "x" * (MAX_THOUGHT + 1)
    path = _write_inbox(brain, f"- {long}\n- fine\n")
    result = reconcile_inbox(brain, Journal(brain), idle=False)
    assert len(result.new) == 1 and len(result.skipped) == 1
    assert "limit" in result.skipped[0]
    # Every character kept; why and what to do said on the line itself, once.
    marked = next(x for x in path.read_text("utf-8").splitlines() if x.startswith("- x"))
    assert marked.startswith(f"- {long} ⚠ not filed: ") and "note of its own" in marked
    again = reconcile_inbox(brain, Journal(brain), idle=True)
    assert again.new == [] and again.skipped == [] and again.rewritten == 0
    # Shortened by the person (the mark left on): taken, the mark gone.
    path.write_text(path.read_text("utf-8").replace(long, "a short thought"), "utf-8")
    taken = reconcile_inbox(brain, Journal(brain), idle=False)
    assert len(taken.new) == 1
    assert Journal(brain).require(taken.new[0]).text == "a short thought"
    assert "⚠" not in path.read_text("utf-8")


def test_no_inbox_note_is_an_empty_pass(brain: Brain) -> None:
    (brain.vault.root / brain.inbox_rel).unlink()
    result = reconcile_inbox(brain, Journal(brain), idle=True)
    assert (result.new, result.rewritten, result.skipped, result.conflict) == ([], 0, [], False)
