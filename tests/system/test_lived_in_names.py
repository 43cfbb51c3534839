"""Names that already exist (issue 30): a thought's person is matched against every note in
the vault — basename, alias, `name:`, first name of a full name, case and accents folded —
wherever it lives; one fit links it, several wait in Needs Review with the candidates; a
note the vault types as something else is never made a person."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lived_in import lived_in_shapes, snapshot
from support.lmstudio import FakeLMStudio, reply

from vaultbrain.brain import Brain
from vaultbrain.capture.review_queue import ReviewQueue


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    lived_in_shapes(root)
    run(root, "init")
    # The premise is the fake LLM's reading of the name (the pair may add a task of its own).
    run(root, "settings", "set", "second_opinion", "false")
    return root


def _capture(vault: Path, lm: FakeLMStudio, text: str, title: str) -> dict:
    lm.responder = lambda body: reply([{"type": "person", "title": title, "fields": {}}], 0.9, "")
    return run_json(vault, "capture", text)


@pytest.mark.parametrize(
    ("text", "title", "linked"),
    [
        ("Met steph about Obsidian", "steph", "References/Steph Ango.md"),
        ("Call jane about dinner", "jane", "Databases/CRM/Jane Doe.md"),
        ("Lunch with Jane Doe", "JANE DOE", "Databases/CRM/Jane Doe.md"),
        ("zoe sent the mockups", "zoe", "Databases/CRM/ZA.md"),  # an alias
        ("Zoe Angstrom sent more", "Zoe Angstrom", "Databases/CRM/ZA.md"),  # name:, accents
        ("Switched to Minimal", "Minimal", "Themes/Minimal.md"),  # a theme, no person
        ("Exported from Evernote", "Evernote", "Tools/Evernote.md"),  # a tool
        ("Read the Paxos paper", "paxos", "Concepts/Paxos.md"),  # an algorithm
        ("Acme Corp called", "Acme Corp", "Clients/Acme Corp.md"),  # a company
    ],
)
def test_a_name_the_vault_knows_links_its_note(
    vault: Path, lmstudio: FakeLMStudio, text: str, title: str, linked: str
) -> None:
    before = snapshot(vault)
    doc = _capture(vault, lmstudio, text, title)
    dest = doc["destinations"]
    assert [(d["path"], d.get("op")) for d in dest] == [(linked, "link")], dest
    assert snapshot(vault) == before  # no People/ note appeared, nothing was written


def test_two_notes_that_fit_wait_for_the_person_with_both_named(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    doc = _capture(vault, lmstudio, "miriam says the bakery lease is signed", "Miriam")
    assert doc["status"] == "needs_review" and doc["destinations"] == []
    record = run_json(vault, "inbox", "--status", "needs_review")[0]
    assert "People/Miriam Cohen.md" in record["error"]
    assert "Databases/CRM/Miriam Levi.md" in record["error"]
    ReviewQueue(Brain(vault)).refresh(force=True)
    review = (vault / "Brain" / "Needs Review.md").read_text()
    assert "could be" in review and "Databases/CRM/Miriam Levi.md" in review
    assert not (vault / "People/Miriam.md").exists()
    # The person answers with the full name: the CRM note is linked, nothing is created.
    done = run_json(vault, "review", "resolve", doc["id"], "person", "--title", "Miriam Levi")
    assert [d["path"] for d in done["destinations"]] == ["Databases/CRM/Miriam Levi.md"]


def test_a_name_nobody_has_is_a_new_person(vault: Path, lmstudio: FakeLMStudio) -> None:
    doc = _capture(vault, lmstudio, "Met Priya at the meetup", "Priya")
    assert [d["path"] for d in doc["destinations"]] == ["People/Priya.md"]
