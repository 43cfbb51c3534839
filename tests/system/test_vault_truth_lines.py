"""The inbox line as the person may leave it (issue 15): our suffix found by its form,
their words around it and after the id kept byte for byte (vaultbrain/filing/inbox.py
``split_taken``, vaultbrain/vault/inbox.py ``scan_inbox`` and ``render_taken_line``)."""

from __future__ import annotations

import pytest

from vaultbrain.filing.inbox import split_taken
from vaultbrain.vault.inbox import render_taken_line, scan_inbox

REVIEW = "(suggested: confirm in [[Brain/Needs Review|Needs Review]])"
LINES = [
    f"- [ ] Met Sarah → [[People/Sarah|Sarah]] {REVIEW} ^vb-abc123",
    f"- [ ] Met Sarah → [[People/Sarah|Sarah]] {REVIEW} -- ask Tom first ^vb-abc123",
    f"- [ ] Met Sarah → [[People/Sarah|Sarah]] {REVIEW} ^vb-abc123 and bring cake",
    "- [x] Met Sarah → [[People/Sarah|Sarah]] · [[Projects/Bees|Bees]] ^vb-abc123  later ^ref",
    "- [ ] A → B, then C ⏳ waiting for the classifier (offline, will retry) ^vb-abc123",
    "- [x] Met Sarah → dismissed ^vb-abc123",
    "- [ ] Met Sarah → needs review in [[Brain/Needs Review|Needs Review]] ^vb-abc123",
]


@pytest.mark.parametrize("raw", LINES)
def test_a_taken_line_renders_back_byte_for_byte(raw: str) -> None:
    (line,) = scan_inbox(raw + "\n")
    assert line.block_id == "abc123"
    words, suffix, remark = split_taken(line.text)
    assert suffix is not None and not words.endswith(" ")
    assert render_taken_line(line, words, suffix, "abc123", line.checked, remark) == raw


def test_the_words_are_the_persons_and_the_suffix_ours() -> None:
    (line,) = scan_inbox(LINES[1] + "\n")
    words, suffix, remark = split_taken(line.text)
    assert (words, remark) == ("Met Sarah", " -- ask Tom first")
    assert suffix == f"→ [[People/Sarah|Sarah]] {REVIEW}"
    (line,) = scan_inbox(LINES[2] + "\n")
    assert line.after_id == " and bring cake" and split_taken(line.text)[0] == "Met Sarah"
    (line,) = scan_inbox(LINES[4] + "\n")
    assert split_taken(line.text)[0] == "A → B, then C"


def test_a_new_form_replaces_ours_and_keeps_theirs() -> None:
    (line,) = scan_inbox(LINES[2].replace(" ^vb-abc123", " -- ask Tom ^vb-abc123") + "\n")
    words, _, remark = split_taken(line.text, "Met Sarah")
    new = render_taken_line(line, words, "→ [[People/Sarah|Sarah]]", "abc123", True, remark)
    assert new == "- [x] Met Sarah → [[People/Sarah|Sarah]] -- ask Tom ^vb-abc123 and bring cake"


def test_a_cut_suffix_is_still_ours() -> None:
    words, suffix, remark = split_taken("Met Sarah → [[People/Sarah|Sarah]] (suggested: conf")
    assert (words, remark) == ("Met Sarah", "") and suffix is not None


def test_words_the_person_typed_with_an_arrow_stay_theirs() -> None:
    assert split_taken("Read → chapter two") == ("Read → chapter two", None, "")
    assert split_taken("Met Sarah -- later", "Met Sarah") == ("Met Sarah", None, " -- later")
