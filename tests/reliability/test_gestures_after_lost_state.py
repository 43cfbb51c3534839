"""What the state machine of notes ↔ store sync found once its crash step really lost the
notes cache (tests/reliability/test_sync_state_machine.py), as plain tests: a gesture typed
on an inbox line is carried out after this machine's state dir was lost (the vault is the
truth), and a person note the person deleted is not made again by a later capture."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from vaultbrain.brain import Brain
from vaultbrain.capture.inbox_pass import reconcile_inbox
from vaultbrain.capture.journal import Journal
from vaultbrain.capture.pipeline import process
from vaultbrain.capture.review_queue import ReviewQueue
from vaultbrain.filing.setup import init_vault
from vaultbrain.filing.sync import NoteSync
from vaultbrain.machine import name_filer, this_machine

THOUGHT = "Idea: a solar kettle"


def machine(root: Path) -> Brain:
    """This machine, as a new state dir finds it: heuristic filing, the filer role claimed
    (as the person would with `vaultbrain filer claim`)."""
    app = Brain(root)
    app.settings.set("provider", "heuristic")
    name_filer(app.vault, this_machine(app.state_dir), only_if_none=False)
    return app


def quiet(app: Brain) -> None:
    """What the filer's daemon does once the notes are quiet (as `daemon --once` does)."""
    assert not NoteSync(app).scan().conflicts
    journal = Journal(app)
    reconcile_inbox(app, journal, idle=True)
    for summary in list(app.store.inbox.summaries()):
        if summary.get("status") == "pending":
            process(app, summary["id"], rewrite_line=False)
    reconcile_inbox(app, journal, idle=True, take_new=False)


def lose_state(app: Brain, root: Path) -> Brain:
    """``rm -rf`` of the state dir: this machine comes back as a new one with no store."""
    shutil.rmtree(app.state_dir)
    return machine(root)


def edit_line(root: Path, words: str, change) -> None:  # type: ignore[no-untyped-def]
    inbox = root / "Inbox.md"
    lines = inbox.read_text("utf-8").splitlines()
    lines = [change(line) if words in line else line for line in lines]
    inbox.write_text("\n".join(lines) + "\n", "utf-8")


def line_of(root: Path, words: str) -> str:
    return next(x for x in (root / "Inbox.md").read_text("utf-8").splitlines() if words in x)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    init_vault(Brain(root))
    return root


@pytest.mark.parametrize("losses", [1, 2], ids=["lost once", "lost, rebuilt, lost again"])
def test_an_arrow_typed_before_the_state_dir_was_lost_files_the_thought_as_that_type(
    vault: Path, losses: int
) -> None:
    app = machine(vault)
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write(f"- {THOUGHT}\n")
    quiet(app)
    assert "[[Ideas/" in line_of(vault, THOUGHT)
    for _ in range(losses - 1):
        app = lose_state(app, vault)
        quiet(app)  # the store rebuilt from the notes and the line
    edit_line(vault, THOUGHT, lambda line: f"{line} ->person")
    app = lose_state(app, vault)
    quiet(app)
    line = line_of(vault, THOUGHT)
    cid = re.findall(r"\^vb-([a-z0-9]+)", line)[-1]
    rec = app.store.inbox.get(cid)
    assert rec is not None
    assert rec["status"] in ("filed", "corrected"), rec["status"]
    assert {d["type"] for d in rec["destinations"]} == {"person"}, rec["destinations"]
    assert "->person" not in line and "[[People/" in line, line
    assert (vault / "People/A solar kettle.md").is_file()
    assert not (vault / "Ideas/A solar kettle.md").exists()
    people = [r["path"] for r in app.store.collection("people").all()]
    assert people == ["People/A solar kettle.md"]
    assert cid in next(iter(app.store.collection("people").all()))["sources"]


@pytest.mark.parametrize("lost", [False, True], ids=["same state", "state dir lost"])
def test_an_arrow_on_a_dismissed_line_files_it_again(vault: Path, lost: bool) -> None:
    thought = "Met Ada about the garden"
    app = machine(vault)
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write(f"- {thought}\n")
    quiet(app)
    edit_line(vault, thought, lambda line: line.replace(thought, f"~~{thought}~~"))
    quiet(app)
    assert "→ dismissed" in line_of(vault, thought)
    # The strike stays where the person put it: it is the dismissal done, not a second
    # gesture at odds with the arrow.
    edit_line(vault, thought, lambda line: f"{line} ->person")
    if lost:
        app = lose_state(app, vault)
    quiet(app)
    line = line_of(vault, thought)
    cid = re.findall(r"\^vb-([a-z0-9]+)", line)[-1]
    rec = app.store.inbox.get(cid)
    assert rec is not None
    assert rec["status"] in ("filed", "corrected"), (rec["status"], line)
    assert {d["type"] for d in rec["destinations"]} == {"person"}, rec["destinations"]
    assert "->person" not in line and "[[People/Ada" in line, line
    assert (vault / "People/Ada.md").is_file()
    quiet(app)  # and it stays filed: the strike is not read again as a dismissal
    rec = app.store.inbox.get(cid)
    assert rec is not None and rec["status"] in ("filed", "corrected"), rec["status"]


def test_a_person_note_the_person_deleted_is_not_made_again_by_a_capture(vault: Path) -> None:
    (vault / "People/Ada.md").write_text("---\nname: Ada\ncontact: ada@example.org\n---\n")
    app = machine(vault)
    quiet(app)
    (vault / "People/Ada.md").unlink()  # the person's decision
    thought = "Met Ada about the garden"
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write(f"- {thought}\n")
    quiet(app)
    edit_line(vault, thought, lambda line: f"{line} ->person")
    quiet(app)
    assert not (vault / "People/Ada.md").exists()
    assert not list((vault / "People").glob("Ada*.md"))
    line = line_of(vault, thought)
    cid = re.findall(r"\^vb-([a-z0-9]+)", line)[-1]
    rec = app.store.inbox.get(cid)
    assert rec is not None
    assert rec["status"] == "needs_review", (rec["status"], line)
    assert not rec.get("destinations"), rec["destinations"]
    ReviewQueue(app).write(force=True)  # as the filer's daemon draws it
    review = (vault / "Brain/Needs Review.md").read_text("utf-8")
    assert "you deleted People/Ada.md" in review, review
    assert [r["path"] for r in app.store.collection("people").all()] == []
