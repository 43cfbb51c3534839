"""A suggestion writes nothing into an existing note until it is confirmed; a dismissal takes
back every line a capture added. Checked byte for byte on a lived-in vault."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lived_in import lived_in, snapshot
from support.lmstudio import FakeLMStudio, reply

from vaultbrain.brain import Brain
from vaultbrain.filing.sync import notes_sync


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    lived_in(root)
    run(root, "init")
    # the LLM's reading decides here; the pair's arbiter: tests/system/test_classify_pair.py
    run(root, "settings", "set", "second_opinion", "false")
    return root


def capture(vault: Path, lm: FakeLMStudio, text: str, dests: list[dict], conf: float) -> dict:
    lm.responder = lambda body: reply(dests, conf, "because")
    return run_json(vault, "capture", text)


@pytest.fixture
def sarah(vault: Path, lmstudio: FakeLMStudio) -> Path:
    """A person record vaultbrain made (filed with confidence)."""
    capture(
        vault, lmstudio, "Met Sarah at the library", [{"type": "person", "title": "Sarah"}], 0.9
    )
    return vault / "People/Sarah.md"


SUGGEST = [
    {"type": "person", "title": "Sarah", "fields": {}},
    {"type": "idea", "title": "Library card catalog app", "fields": {}},
]


def test_a_suggestion_holds_its_update_until_confirmed(
    vault: Path, lmstudio: FakeLMStudio, sarah: Path
) -> None:
    before = sarah.read_bytes()
    doc = capture(vault, lmstudio, "Sarah wants a card catalog app", SUGGEST, 0.6)
    assert doc["status"] == "suggested"
    person = next(d for d in doc["destinations"] if d["type"] == "person")
    assert person["path"] == "People/Sarah.md" and person.get("held") is True
    assert sarah.read_bytes() == before  # nothing written into the existing note
    assert f"^vb-{doc['id']}" not in sarah.read_text()
    assert (vault / "Ideas/Library card catalog app.md").is_file()  # a new note may stay
    record = run_json(vault, "db", "show", "person", "Sarah")
    assert doc["id"] not in record["sources"]

    run(vault, "review", "confirm", doc["id"])
    text = sarah.read_text()
    assert f"^vb-{doc['id']}" in text and "Sarah wants a card catalog app" in text
    record = run_json(vault, "db", "show", "person", "Sarah")
    assert doc["id"] in record["sources"]
    filed = run_json(vault, "inbox", "--status", "filed")
    mine = next(c for c in filed if c["id"] == doc["id"])
    assert not any(d.get("held") for d in mine["destinations"])
    # Confirming again is refused, and writes nothing twice.
    assert run(vault, "review", "confirm", doc["id"], ok=False).exit_code != 0
    assert sarah.read_text().count(f"^vb-{doc['id']}") == 1


def test_a_dismissed_suggestion_leaves_every_existing_note_as_it_was(
    vault: Path, lmstudio: FakeLMStudio, sarah: Path
) -> None:
    before = snapshot(vault)
    doc = capture(
        vault,
        lmstudio,
        "Steph Ango and Sarah on plain text",
        [
            {"type": "person", "title": "Steph Ango", "fields": {}},
            *SUGGEST,
        ],
        0.6,
    )
    assert doc["status"] == "suggested"
    assert {d["path"] for d in doc["destinations"]} >= {
        "References/Steph Ango.md",
        "People/Sarah.md",
    }
    run(vault, "review", "dismiss", doc["id"])
    after = snapshot(vault)
    assert {k: after.get(k) for k in before} == before
    # The new note it created went to the archive, out of the person's folders.
    assert not (vault / "Ideas/Library card catalog app.md").exists()
    assert set(after) == set(before)


def test_dismissing_a_filed_capture_takes_its_log_line_back(
    vault: Path, lmstudio: FakeLMStudio, sarah: Path
) -> None:
    before = sarah.read_text()
    doc = capture(
        vault, lmstudio, "Sarah lent me a book", [{"type": "person", "title": "Sarah"}], 0.9
    )
    assert doc["status"] == "filed" and f"^vb-{doc['id']}" in sarah.read_text()
    run(vault, "review", "dismiss", doc["id"])
    text = sarah.read_text()
    assert f"^vb-{doc['id']}" not in text and "Sarah lent me a book" not in text
    # The log kept the first capture's line; only the dismissed one left.
    assert before.split("## Log", 1)[1] == text.split("## Log", 1)[1]
    record = run_json(vault, "db", "show", "person", "Sarah")
    assert doc["id"] not in record["sources"]
    assert all(e.get("capture") != doc["id"] for e in record.get("log", []))
    # The store follows the note: a scan finds nothing to do.
    assert notes_sync(Brain(vault)).scan().conflicts == 0
