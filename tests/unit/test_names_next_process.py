"""The name index a new process builds (vaultbrain/filing/names.py): a walk of the vault
that reads again only the notes changed since the names cache in ``state.db`` was kept, and
sees what another device's sync did since (notes added, renamed, deleted, their aliases
edited) and what the store changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.filing import names


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


@pytest.fixture
def root(vault: Path) -> Path:
    brain = new_brain(vault)
    _write(vault, "References/Plato.md", "plain\n")
    _write(vault, "People/Ada Lovelace.md", "---\naliases: [Countess]\n---\n")
    _write(vault, "Notes/Loose.md", "---\naliases: [Loose end]\n---\n")
    _write(vault, "Philosophy/Socrates.md", "---\naliases: [Gadfly]\n---\n")
    names.note_names(brain)  # walked, and the names cache kept
    assert brain.store.json_stamp(names.CACHE_FILE) is not None
    return vault


def _next_process(root: Path) -> names.NameIndex:
    return names.note_names(Brain(root))


def test_the_next_process_finds_every_name(root: Path) -> None:
    index = _next_process(root)
    assert index.lookup("plato") == ["References/Plato.md"]
    assert index.lookup("countess") == ["People/Ada Lovelace.md"]
    assert index.by_first_name("ada") == ["People/Ada Lovelace.md"]


def test_notes_another_device_added_renamed_or_deleted_are_seen(root: Path) -> None:
    _write(root, "References/Hypatia.md", "---\naliases: [Hypatia of Alexandria]\n---\n")
    os.rename(root / "Notes/Loose.md", root / "Notes/Tight.md")
    (root / "People/Ada Lovelace.md").unlink()
    os.makedirs(root / "Archive/Old")
    _write(root, "Archive/Old/Diogenes.md", "in a barrel\n")
    index = _next_process(root)
    assert index.lookup("hypatia") == ["References/Hypatia.md"]
    assert index.lookup("hypatia of alexandria") == ["References/Hypatia.md"]
    assert index.lookup("loose") == [] and index.lookup("tight") == ["Notes/Tight.md"]
    assert index.lookup("loose end") == ["Notes/Tight.md"]
    assert index.lookup("ada lovelace") == [] and index.lookup("countess") == []
    assert index.by_first_name("ada") == []
    assert index.lookup("diogenes") == ["Archive/Old/Diogenes.md"]


def test_aliases_another_device_edited_are_seen(root: Path) -> None:
    _write(root, "Philosophy/Socrates.md", "---\naliases: [Teacher of Plato]\n---\n")
    index = _next_process(root)
    assert index.lookup("gadfly") == []
    assert index.lookup("teacher of plato") == ["Philosophy/Socrates.md"]


def test_records_the_store_changed_since_are_looked_up_again(root: Path) -> None:
    from vaultbrain.capture.pipeline import capture

    done = capture(
        Brain(root),
        "Had coffee with Grace Hopper (aka Amazing Grace) today, she fixed the compiler",
    )
    rel = next(d.path for d in done.destinations if d.path.startswith("People/"))
    index = _next_process(root)
    assert index.lookup(rel.rsplit("/", 1)[-1][:-3]) == [rel]
    assert index.by_first_name("grace") == [rel]


def test_the_next_process_reads_no_unchanged_note_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names cache kept in ``state.db`` says which notes are as they were read: only a
    note changed since is read."""
    _write(root, "Notes/Loose.md", "---\naliases: [Loose thread, and more]\n---\n")
    read: list[str] = []
    real = names._read_frontmatter
    monkeypatch.setattr(
        names, "_read_frontmatter", lambda b, r, *a: read.append(r) or real(b, r, *a)
    )
    index = _next_process(root)
    assert read == ["Notes/Loose.md"]
    assert index.lookup("loose thread") == ["Notes/Loose.md"]
    assert index.lookup("gadfly") == ["Philosophy/Socrates.md"]
