"""One contract, two vaults: the real :class:`vaultbrain.vault.Vault` on a temp folder and the
in-memory twin in tests/support/memory_vault.py must answer every call the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.memory_vault import MemoryVault

from vaultbrain.errors import ConflictError, UnsafePathError, UserError
from vaultbrain.vault import NoteFile, Vault, content_hash


@dataclass
class Subject:
    """A vault under test, and how a person changes it behind vaultbrain's back."""

    vault: Vault | MemoryVault
    person_writes: Callable[[str, str], None]
    person_removes: Callable[[str], None]


def _real(tmp_path: Path) -> Subject:
    root = tmp_path / "Vault"
    (root / ".obsidian").mkdir(parents=True)
    vault = Vault(root)

    def write(rel: str, text: str) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")

    return Subject(vault, write, lambda rel: (root / rel).unlink())


def _memory(tmp_path: Path) -> Subject:
    vault = MemoryVault()
    return Subject(vault, vault.write_as_person, vault.remove_as_person)


@pytest.fixture(params=[_real, _memory], ids=["real", "memory"])
def subject(request: pytest.FixtureRequest, tmp_path: Path) -> Subject:
    return request.param(tmp_path)


def test_a_missing_note(subject: Subject) -> None:
    v = subject.vault
    assert v.try_read("Ideas/None.md") is None
    assert not v.exists("Ideas/None.md")
    with pytest.raises(FileNotFoundError):
        v.read("Ideas/None.md")


def test_create_then_read(subject: Subject) -> None:
    v = subject.vault
    digest = v.create("Ideas/Kite.md", "# Kite\nflies ✈\n")
    assert digest == content_hash("# Kite\nflies ✈\n".encode())
    note = v.read("Ideas/Kite.md")
    assert isinstance(note, NoteFile)
    assert (note.rel, note.text, note.hash) == ("Ideas/Kite.md", "# Kite\nflies ✈\n", digest)
    assert note.size == len("# Kite\nflies ✈\n".encode())
    assert v.exists("Ideas/Kite.md")


def test_create_refuses_an_existing_note(subject: Subject) -> None:
    v = subject.vault
    v.create("Kite.md", "one")
    with pytest.raises(FileExistsError):
        v.create("Kite.md", "two")
    assert v.read("Kite.md").text == "one"


def test_replace_swaps_only_what_was_read(subject: Subject) -> None:
    v = subject.vault
    first = v.create("Kite.md", "one")
    second = v.replace("Kite.md", "two", first)
    assert second == content_hash(b"two") and v.read("Kite.md").text == "two"
    with pytest.raises(ConflictError):
        v.replace("Kite.md", "three", first)  # stale: the note is "two" now
    assert v.read("Kite.md").text == "two"


def test_replace_with_the_same_text_changes_nothing(subject: Subject) -> None:
    v = subject.vault
    digest = v.create("Kite.md", "one")
    before = v.read("Kite.md")
    assert v.replace("Kite.md", "one", digest) == digest
    assert v.read("Kite.md") == before


def test_replace_of_a_changed_note_is_a_conflict(subject: Subject) -> None:
    v = subject.vault
    digest = v.create("Kite.md", "one")
    subject.person_writes("Kite.md", "the person's words")
    with pytest.raises(ConflictError):
        v.replace("Kite.md", "ours", digest)
    assert v.read("Kite.md").text == "the person's words"


def test_replace_of_a_removed_note_is_a_conflict(subject: Subject) -> None:
    v = subject.vault
    digest = v.create("Kite.md", "one")
    subject.person_removes("Kite.md")
    with pytest.raises(ConflictError):
        v.replace("Kite.md", "ours", digest)
    assert v.try_read("Kite.md") is None


def test_replace_expecting_nothing_creates_or_conflicts(subject: Subject) -> None:
    v = subject.vault
    v.replace("New.md", "made", None)
    assert v.read("New.md").text == "made"
    with pytest.raises(ConflictError):
        v.replace("New.md", "again", None)
    assert v.read("New.md").text == "made"


def test_edit_builds_from_the_note_as_it_is(subject: Subject) -> None:
    v = subject.vault
    v.create("Kite.md", "one\n")
    edit = v.edit("Kite.md", lambda note: note.text + "two\n" if note else None)
    assert edit.written and edit.before is not None and edit.before.text == "one\n"
    assert (edit.text, edit.hash) == ("one\ntwo\n", content_hash(b"one\ntwo\n"))
    assert v.read("Kite.md").text == "one\ntwo\n"


def test_edit_creates_a_missing_note_when_asked(subject: Subject) -> None:
    v = subject.vault
    edit = v.edit("Ideas/New.md", lambda note: "fresh\n" if note is None else None)
    assert edit.written and edit.before is None
    assert v.read("Ideas/New.md").text == "fresh\n"


def test_edit_that_builds_nothing_or_the_same_writes_nothing(subject: Subject) -> None:
    v = subject.vault
    v.create("Kite.md", "one\n")
    before = v.read("Kite.md")
    for build in (lambda note: None, lambda note: note.text if note else None):
        edit = v.edit("Kite.md", build)
        assert not edit.written and edit.text == "one\n" and edit.hash == before.hash
    assert v.read("Kite.md") == before
    missing = v.edit("Gone.md", lambda note: None)
    assert (missing.before, missing.text, missing.hash, missing.written) == (
        None,
        None,
        None,
        False,
    )


def test_edit_starts_again_when_the_note_changes_under_it(subject: Subject) -> None:
    v = subject.vault
    v.create("Kite.md", "one\n")
    seen: list[str] = []

    def build(note: NoteFile | None) -> str | None:
        assert note is not None
        seen.append(note.text)
        if len(seen) == 1:  # the person saves while we build
            subject.person_writes("Kite.md", "one\nperson\n")
        return note.text + "ours\n"

    edit = v.edit("Kite.md", build)
    assert seen == ["one\n", "one\nperson\n"]
    assert edit.written and v.read("Kite.md").text == "one\nperson\nours\n"


def test_edit_of_a_note_that_never_settles_is_a_user_error(subject: Subject) -> None:
    v = subject.vault
    v.create("Kite.md", "0")
    count = iter(range(1, 1000))

    def build(note: NoteFile | None) -> str:
        subject.person_writes("Kite.md", str(next(count)))
        return "ours"

    with pytest.raises(UserError, match="keeps changing"):
        v.edit("Kite.md", build)
    assert v.read("Kite.md").text != "ours"


@pytest.mark.parametrize("bad", ["", "../outside.md", "/etc/passwd", "a/../../b.md", "x\x00.md"])
def test_unsafe_paths_are_refused(subject: Subject, bad: str) -> None:
    v = subject.vault
    with pytest.raises(UnsafePathError):
        v.try_read(bad)
    with pytest.raises(UnsafePathError):
        v.create(bad, "text")
