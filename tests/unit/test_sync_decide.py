"""The sync decision table: every case the executor can meet, as rows of (facts → action)."""

from __future__ import annotations

import pytest

from vaultbrain.filing.decide import (
    Conflict,
    Create,
    Export,
    Facts,
    Import,
    Known,
    Nothing,
    Retype,
    Revive,
    Skip,
    Tombstone,
    decide,
    decide_export,
)

B, N = "base", "new"
REL = "People/Ann.md"


def rec(
    base: str | None = B,
    dirty: bool = False,
    path: str = REL,
    type_: str = "person",
    rid: str = "r1",
    deleted: bool = False,
    note_id: str | None = "r1",
    made_by_us: bool = True,
) -> Known:
    return Known(rid, "people", type_, path, base, dirty, deleted, note_id, made_by_us)


def note(**kw: object) -> Facts:
    values: dict = {
        "rel": REL,
        "exists": True,
        "note_hash": B,
        "note_type": "person",
        "folder_type": "person",
    }
    values.update(kw)
    return Facts(**values)


CASES = [
    # the base table
    ("unchanged", note(at_path=rec()), Nothing(rec())),
    ("the person edited", note(note_hash=N, at_path=rec()), Import(rec(), "person")),
    ("the store changed", note(at_path=rec(dirty=True)), Export(rec(dirty=True))),
    (
        "both changed to the same values",
        note(note_hash=N, at_path=rec(dirty=True), values_agree=True),
        Import(rec(dirty=True), "person"),
    ),
    (
        "both changed differently",
        note(note_hash=N, at_path=rec(dirty=True)),
        Conflict(
            rec(dirty=True),
            "both-sides-changed",
            "the note and the store both changed since they last agreed",
        ),
    ),
    ("deleted", Facts(REL, exists=False, at_path=rec()), Tombstone(rec(), conflict=False)),
    (
        "deleted while the store changed",
        Facts(REL, exists=False, at_path=rec(dirty=True)),
        Tombstone(rec(dirty=True), conflict=True),
    ),
    ("deleted, never a record", Facts(REL, exists=False), Skip()),
    (
        "a new hand-made note: known by path, nothing written",
        note(note_hash=N),
        Create("person", keep_id=False),
    ),
    (
        "a new note with its own valid id",
        note(note_hash=N, declared_id="abc1234567", id_usable=True),
        Create("person", keep_id=True),
    ),
    (
        "a hand-made note moved: found by its content",
        note(rel="People/Ann B.md", moved_from=rec(note_id=None, made_by_us=False)),
        Import(rec(note_id=None, made_by_us=False), "person", moved=True),
    ),
    (
        "a type: property outside the pack's folders is not a record",
        note(note_type=None, folder_type=None, declared_type="person"),
        Skip(),
    ),
    # around the table
    (
        "a folder vanished",
        Facts(REL, exists=False, at_path=rec(), folder_gone=True),
        Skip(
            "the folder People/ is gone: not treating its notes as deleted (an unmounted "
            "sync folder looks the same); put it back or run `vaultbrain reindex`"
        ),
    ),
    (
        "unreadable record note",
        note(unreadable="bad YAML", at_path=rec()),
        Skip(f"{REL}: bad YAML; the store keeps its last good copy"),
    ),
    (
        "unreadable new note in a type's folder",
        note(unreadable="bad YAML"),
        Skip(f"{REL}: bad YAML; not filed until it is fixed"),
    ),
    ("unreadable note elsewhere", note(unreadable="bad", folder_type=None), Skip()),
    ("archived or generated", note(generated=True, at_path=rec()), Skip()),
    ("in a type's folder, no type", note(note_type=None), Skip(untyped=True)),
    (
        "a hand-made note given an id is still its record",
        note(at_path=rec(note_id=None), declared_id="abc1234567"),
        Nothing(rec(note_id=None)),
    ),
    ("no folder, no type", note(note_type=None, folder_type=None), Skip()),
    (
        "moved, unchanged",
        note(rel="People/Ann B.md", by_id=rec(), declared_id="r1"),
        Import(rec(), "person", moved=True),
    ),
    (
        "copied a note vaultbrain made: a new record, known by path, its id: untouched",
        note(rel="People/Ann copy.md", by_id=rec(), declared_id="r1", by_id_note_has_id=True),
        Create("person", keep_id=False, write_id=False),
    ),
    (
        "copied an adopted hand-made note: a new record, known by path",
        note(
            rel="People/Ann copy.md",
            by_id=rec(made_by_us=False),
            declared_id="r1",
            by_id_note_has_id=True,
        ),
        Create("person", keep_id=False, write_id=False),
    ),
    (
        "a copy already known at its path stays its own record",
        note(
            rel="People/Ann copy.md",
            at_path=rec(rid="r2", note_id="r1", path="People/Ann copy.md"),
            by_id=rec(),
            declared_id="r1",
        ),
        Nothing(rec(rid="r2", note_id="r1", path="People/Ann copy.md")),
    ),
    (
        "another note took a renamed note's path",
        note(at_path=rec(rid="r1", note_id="r1"), declared_id="r2", id_usable=True),
        Create("person", keep_id=True),
    ),
    (
        "a note whose id: is the person's own, edited: the same record (known by path)",
        note(
            note_hash=N,
            at_path=rec(rid="r1", note_id="backend/api/dto-design", made_by_us=True),
            declared_id="backend/api/dto-v2",
        ),
        Import(rec(rid="r1", note_id="backend/api/dto-design", made_by_us=True), "person"),
    ),
    (
        "a note sharing its id: with another, moved: its record follows it by content",
        note(
            rel="People/Team/Dee.md",
            by_id=rec(),
            declared_id="r1",
            by_id_note_has_id=True,
            moved_from=rec(rid="r2", note_id="r1", path="People/Dee.md"),
        ),
        Import(rec(rid="r2", note_id="r1", path="People/Dee.md"), "person", moved=True),
    ),
    (
        "copied, and the original edited: still a copy, not the original moved",
        note(
            rel="People/Ann copy.md",
            by_id=rec(),
            declared_id="r1",
            by_id_note_has_id=True,
            moved_from=rec(),
        ),
        Create("person", keep_id=False),
    ),
    (
        "a deleted record's note is back",
        note(declared_id="r1", tombstone=rec(deleted=True)),
        Revive(rec(deleted=True), "person"),
    ),
    (
        "retyped by its type: property",
        note(note_type="project", at_path=rec()),
        Retype(rec(), "project", moved=False),
    ),
    (
        "moved into another type's folder (no type: property)",
        note(
            rel="Projects/Ann.md",
            note_type="project",
            folder_type="project",
            by_id=rec(),
            declared_id="r1",
        ),
        Retype(rec(), "project", moved=True, write_type=False),
    ),
    (
        "moved into another type's folder, its type: follows",
        note(
            rel="Projects/Ann.md",
            note_type="person",
            folder_type="project",
            declared_type="person",
            by_id=rec(),
            declared_id="r1",
        ),
        Retype(rec(), "project", moved=True, write_type=True),
    ),
]


@pytest.mark.parametrize(("case", "facts", "action"), CASES, ids=[c[0] for c in CASES])
def test_decision_table(case: str, facts: Facts, action: object) -> None:
    assert decide(facts) == action


@pytest.mark.parametrize(
    ("note_hash", "agree", "action"),
    [
        (B, False, Export(rec(dirty=True))),
        (N, True, Import(rec(dirty=True), "person")),
        (
            N,
            False,
            Conflict(
                rec(dirty=True),
                "both-sides-changed",
                "the note changed while the store had changes",
            ),
        ),
        (None, False, Tombstone(rec(dirty=True), conflict=True)),
    ],
)
def test_export_table(note_hash: str | None, agree: bool, action: object) -> None:
    assert decide_export(rec(dirty=True), note_hash, agree) == action
