"""Capturing into a vault a person already has: link the notes that exist, never shadow them.

A generated "lived-in" vault: ``References/Steph Ango.md`` (hand-made, no frontmatter) that 9
daily notes link as ``[[Steph Ango]]``, ``Philosophy/Plato.md``, a note with aliases, a
Templates folder. Every test checks byte for byte that no pre-existing note changed.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.daemon import DaemonProcess, wait_for
from support.lived_in import lived_in, snapshot
from support.lmstudio import FakeLMStudio, reply
from support.state import document as state_document

from vaultbrain.brain import Brain
from vaultbrain.capture.review_queue import ReviewQueue

STEPH = "Steph Ango walked me through file over app; follow his writing"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    lived_in(root)
    run(root, "init")
    # the fake LLM's reading is the premise here (the pair: tests/system/test_classify_pair.py)
    run(root, "settings", "set", "second_opinion", "false")
    return root


def capture(vault: Path, lm: FakeLMStudio, text: str, dests: list[dict], conf: float) -> dict:
    lm.responder = lambda body: reply(dests, conf, "because")
    return run_json(vault, "capture", text)


def test_a_same_name_note_elsewhere_is_linked_not_shadowed(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    before = snapshot(vault)
    doc = capture(
        vault,
        lmstudio,
        STEPH,
        [
            {"type": "person", "title": "Steph Ango", "fields": {}},
            {"type": "idea", "title": "File over app", "fields": {}},
        ],
        0.9,
    )
    assert doc["status"] == "filed"
    assert not (vault / "People/Steph Ango.md").exists()
    steph = next(d for d in doc["destinations"] if d["type"] == "person")
    assert steph["path"] == "References/Steph Ango.md" and steph.get("op") == "link"
    inbox = (vault / "Inbox.md").read_text()
    assert "[[References/Steph Ango|Steph Ango]]" in inbox
    # The new idea note points at the existing note, so the thought is connected.
    assert "[[References/Steph Ango|Steph Ango]]" in (vault / "Ideas/File over app.md").read_text()
    after = snapshot(vault)
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == {"Ideas/File over app.md"}


def test_plato_in_philosophy_is_not_doubled_in_people(vault: Path, lmstudio: FakeLMStudio) -> None:
    before = snapshot(vault)
    doc = capture(
        vault,
        lmstudio,
        "plato on the cave again: perception versus truth",
        [{"type": "person", "title": "plato", "fields": {}}],
        0.9,
    )
    assert not (vault / "People/Plato.md").exists() and not (vault / "People/plato.md").exists()
    assert [(d["path"], d.get("op"), d["title"]) for d in doc["destinations"]] == [
        ("Philosophy/Plato.md", "link", "Plato")
    ]
    assert snapshot(vault) == before


def test_an_alias_links_to_its_note(vault: Path, lmstudio: FakeLMStudio) -> None:
    before = snapshot(vault)
    doc = capture(
        vault,
        lmstudio,
        "tiago recommends progressive summarization",
        [{"type": "person", "title": "tiago", "fields": {}}],
        0.9,
    )
    assert [(d["path"], d.get("op")) for d in doc["destinations"]] == [
        ("Reading/Tiago Forte.md", "link")
    ]
    assert "[[Reading/Tiago Forte|tiago]]" in (vault / "Inbox.md").read_text()
    assert snapshot(vault) == before


def test_a_template_is_not_a_name(vault: Path, lmstudio: FakeLMStudio) -> None:
    doc = capture(
        vault,
        lmstudio,
        "Meeting cadence project: weekly instead of daily",
        [{"type": "project", "title": "Meeting", "fields": {}}],
        0.9,
    )
    assert [(d["path"], d.get("op")) for d in doc["destinations"]] == [
        ("Projects/Meeting.md", None)
    ]
    assert (vault / "Templates/Meeting.md").read_text() == "---\ndate: {{date}}\n---\n# {{title}}\n"


def test_a_name_index_cache_sees_a_note_renamed_since(vault: Path, lmstudio: FakeLMStudio) -> None:
    capture(vault, lmstudio, "plato again", [{"type": "person", "title": "Plato"}], 0.9)
    assert state_document(vault / ".vaultbrain", "names-cache.json") is not None
    (vault / "Philosophy/Plato.md").rename(vault / "Philosophy/Aristocles.md")
    doc = capture(
        vault, lmstudio, "aristocles is plato", [{"type": "person", "title": "Aristocles"}], 0.9
    )
    assert [(d["path"], d.get("op")) for d in doc["destinations"]] == [
        ("Philosophy/Aristocles.md", "link")
    ]


def test_a_first_name_matches_the_one_person_it_fits(vault: Path, lmstudio: FakeLMStudio) -> None:
    run(vault, "db", "add", "person", "--set", "name=Miriam Cohen")
    person = vault / "People/Miriam Cohen.md"
    doc = capture(
        vault,
        lmstudio,
        "miriam says the grant is approved",
        [{"type": "person", "title": "miriam", "fields": {}}],
        0.9,
    )
    assert doc["status"] == "filed"
    assert [(d["path"], d.get("op")) for d in doc["destinations"]] == [
        ("People/Miriam Cohen.md", None)
    ]
    assert not (vault / "People/miriam.md").exists() and not (vault / "People/Miriam.md").exists()
    assert f"^vb-{doc['id']}" in person.read_text()


def test_a_first_name_that_fits_two_people_is_a_question(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    run(vault, "db", "add", "person", "--set", "name=Miriam Cohen")
    run(vault, "db", "add", "person", "--set", "name=Miriam Levi")
    before = snapshot(vault)
    doc = capture(
        vault,
        lmstudio,
        "miriam says the grant is approved",
        [{"type": "person", "title": "miriam", "fields": {}}],
        0.9,
    )
    assert doc["status"] == "needs_review" and doc["destinations"] == []
    record = run_json(vault, "inbox", "--status", "needs_review")[0]
    assert "Miriam Cohen" in record["error"] and "Miriam Levi" in record["error"]
    assert snapshot(vault) == before
    ReviewQueue(Brain(vault)).refresh(force=True)
    review = (vault / "Brain/Needs Review.md").read_text()
    assert "could be" in review and "Miriam Levi" in review
    # The person answers with the full name: it is filed to that record.
    done = run_json(vault, "review", "resolve", doc["id"], "person", "--title", "Miriam Levi")
    assert [d["path"] for d in done["destinations"]] == ["People/Miriam Levi.md"]


def test_one_thought_never_makes_two_notes_of_one_name(vault: Path, lmstudio: FakeLMStudio) -> None:
    doc = capture(
        vault,
        lmstudio,
        "Orbit: the new reading group, and the idea behind it",
        [{"type": "project", "title": "Orbit"}, {"type": "idea", "title": "orbit"}],
        0.9,
    )
    assert [d["path"] for d in doc["destinations"]] == ["Projects/Orbit.md"]
    assert not (vault / "Ideas/orbit.md").exists() and not (vault / "Ideas/Orbit.md").exists()


def test_the_terminal_says_a_note_was_linked_not_written(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    lmstudio.responder = lambda body: reply([{"type": "person", "title": "Plato"}], 0.9, "x")
    out = run(vault, "capture", "Plato and the allegory of the cave").output
    assert "Philosophy/Plato.md (linked: your note, not written)" in out


def test_the_daemon_links_an_inbox_line_to_the_existing_note(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    lmstudio.responder = lambda body: reply([{"type": "person", "title": "Steph Ango"}], 0.9, "x")
    before = snapshot(vault)
    inbox = vault / "Inbox.md"
    inbox.write_text(
        inbox.read_text() + "- Met Steph Ango at the meetup, talked about plain text\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "daemon", "--once"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "→ [[References/Steph Ango|Steph Ango]]" in inbox.read_text()
    assert not (vault / "People/Steph Ango.md").exists()
    assert snapshot(vault) == before


def test_a_running_daemon_links_a_note_made_and_one_renamed_while_it_runs(
    vault: Path, lmstudio: FakeLMStudio, tmp_path: Path
) -> None:
    """The daemon walks the vault's names once, then keeps them by its file events: a note
    the person makes or renames while it runs is a name the next thought links to."""

    def answer(body: dict) -> str:
        thought = str(body["messages"][-1]["content"])
        title = next(t for t in ("Ada Lovelace", "Aristocles", "Grace") if t in thought)
        return reply([{"type": "person", "title": title}], 0.9, "x")

    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    lmstudio.responder = answer
    inbox = vault / "Inbox.md"
    daemon = DaemonProcess(vault, tmp_path / "daemon.log").start()
    try:
        daemon.wait_ready()
        inbox.write_text(inbox.read_text() + "- warm up thought about Grace\n")
        wait_for(lambda: "[[People/Grace" in inbox.read_text(), 30, daemon.log)  # walked
        (vault / "References/Ada Lovelace.md").write_text("the first programmer\n")
        (vault / "Philosophy/Plato.md").rename(vault / "Philosophy/Aristocles.md")
        time.sleep(1.5)  # the watcher's events, then the daemon's next turn
        inbox.write_text(
            inbox.read_text()
            + "- Ada Lovelace on the analytical engine\n- Aristocles on the cave\n"
        )
        wait_for(lambda: inbox.read_text().count("- [x]") >= 3, 30, daemon.log)
    finally:
        daemon.stop()
    text = inbox.read_text()
    assert "→ [[References/Ada Lovelace|Ada Lovelace]]" in text
    assert "→ [[Philosophy/Aristocles|Aristocles]]" in text
    assert not (vault / "People/Ada Lovelace.md").exists()
    assert not (vault / "People/Aristocles.md").exists()
