"""The vault's name index (vaultbrain/filing/names.py): walked, or kept by file events in a
watching process, on a real vault in a temp folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.filing import names
from vaultbrain.filing.index import records


@pytest.fixture
def brain(vault: Path) -> Brain:
    return new_brain(vault)


def _write(brain: Brain, rel: str, text: str) -> None:
    path = brain.vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def test_a_walk_finds_basenames_and_aliases_anywhere(brain: Brain) -> None:
    _write(brain, "References/Steph Ango.md", "---\naliases: [kepano]\n---\nhi\n")
    _write(brain, "Templates/Meeting.md", "a template\n")
    index = names.note_names(brain)
    assert index.lookup("steph ango") == ["References/Steph Ango.md"]
    assert index.lookup("KEPANO") == ["References/Steph Ango.md"]
    assert index.lookup("meeting") == []  # template folders name nothing


def test_a_followed_index_takes_in_what_its_events_touched(brain: Brain) -> None:
    names.follow(brain)
    _write(brain, "References/Plato.md", "plain\n")
    index = names.note_names(brain)  # the first build walks
    assert index.lookup("plato") == ["References/Plato.md"]

    # created, and given aliases
    _write(brain, "People/Ada Lovelace.md", "---\naliases: [Ada, Countess]\n---\n")
    names.touched(brain, "People/Ada Lovelace.md")
    # an edit that adds an alias
    _write(brain, "References/Plato.md", "---\naliases: [Aristocles]\n---\nplain\n")
    names.touched(brain, "References/Plato.md")
    again = names.note_names(brain)
    assert again is index  # kept, not walked again
    assert again.lookup("countess") == ["People/Ada Lovelace.md"]
    assert again.lookup("aristocles") == ["References/Plato.md"]

    # moved (both paths touched), then deleted
    os.rename(brain.vault.root / "References/Plato.md", brain.vault.root / "Philosophy.md")
    names.touched(brain, "References/Plato.md")
    names.touched(brain, "Philosophy.md")
    moved = names.note_names(brain)
    assert moved.lookup("plato") == [] and moved.lookup("philosophy") == ["Philosophy.md"]
    assert moved.lookup("aristocles") == ["Philosophy.md"]
    (brain.vault.root / "People/Ada Lovelace.md").unlink()
    names.touched(brain, "People/Ada Lovelace.md")
    gone = names.note_names(brain)
    assert gone.lookup("ada lovelace") == [] and gone.lookup("ada") == []
    assert "People/Ada Lovelace.md" not in gone.entries


def test_lost_events_mean_a_walk(brain: Brain) -> None:
    names.follow(brain)
    names.note_names(brain)
    _write(brain, "Notes/Unseen.md", "no event was delivered for this one\n")
    assert names.note_names(brain).lookup("unseen") == []  # kept by events only
    names.walk_again(brain)  # an overflow, a moved folder, a periodic rescan
    assert names.note_names(brain).lookup("unseen") == ["Notes/Unseen.md"]


def test_own_notes_the_inbox_and_templates_are_not_names_when_touched(brain: Brain) -> None:
    names.follow(brain)
    names.note_names(brain)
    for rel in ("Brain/Needs Review.md", "Templates/Person.md", brain.inbox_rel):
        _write(brain, rel, "x\n")
        names.touched(brain, rel)
    index = names.note_names(brain)
    assert index.lookup("needs review") == [] and index.lookup("person") == []
    assert index.lookup(brain.inbox_rel[:-3]) == []


def test_a_touched_record_note_takes_its_aliases_from_the_store_without_a_read(
    brain: Brain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each capture's new note is a record: when its event comes, its names come from the
    store (as in the walk), and the note is not read and parsed again."""
    from vaultbrain.capture.pipeline import capture

    names.follow(brain)
    names.note_names(brain)
    done = capture(brain, "Ada Lovelace (aka the Countess) wants the engine notes by Friday")
    rel = next(d.path for d in done.destinations if d.path.startswith("People/"))
    rec = records(brain).by_path(rel)
    assert rec is not None
    read: list[str] = []
    real = names._read_frontmatter
    monkeypatch.setattr(
        names, "_read_frontmatter", lambda b, r, *a: read.append(r) or real(b, r, *a)
    )
    names.touched(brain, rel)
    _write(brain, "Notes/Loose.md", "---\naliases: [Loose end]\n---\n")
    names.touched(brain, "Notes/Loose.md")
    index = names.note_names(brain)
    assert read == ["Notes/Loose.md"]  # the hand-made note is read; the record's is not
    stem = rel.rsplit("/", 1)[-1][:-3]
    assert index.lookup(stem) == [rel]
    assert index.entries[rel][2] == list(rec[1].get("aliases") or [])
    assert index.lookup("loose end") == ["Notes/Loose.md"]
