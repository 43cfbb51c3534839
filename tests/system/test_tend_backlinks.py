"""`tend`'s backlinks on a real vault, the command a subprocess: the inverse of each typed link
the pack declares written into the notes vaultbrain made, proposed in Needs Review for the
person's (a tick in Needs Review, read by the running daemon, writes it; a strike rejects it
for good); the dry run lists exactly what a run does, and a second run writes nothing."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.cli import frontmatter, run
from support.daemon import DaemonProcess, wait_for

from tests.system.test_tend import _note
from vaultbrain.store import Store


def vb(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def vb_json(vault: Path, *args: str) -> Any:
    return json.loads(vb(vault, *args, "--json").stdout)


def snapshot(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in vault.rglob("*.md")
        if not p.relative_to(vault).as_posix().startswith(("Brain/", ".vaultbrain/"))
    }


def _meetings_vault(vault: Path) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _note(vault, "People/Sarah Lee.md", {"type": "person", "name": "Sarah Lee"}, "Designer.\n")
    _note(
        vault,
        "People/Omar Reyes.md",
        {"type": "person", "name": "Omar Reyes", "attended": ["[[Meetings/Planning]]"]},
        "Omar works at [[Companies/Acme]] these days.\n",  # (works_at: a regex of the pack)
    )
    run(vault, "reindex")
    run(vault, "adopt", "People", "--apply")  # these two are vaultbrain's to write into now
    # The person's own note (made after): only ever a proposal.
    _note(vault, "People/Pat Kim.md", {"type": "person", "name": "Pat Kim"}, "Neighbour.\n")
    _note(vault, "Companies/Acme.md", {"type": "company", "name": "Acme"})
    _note(
        vault,
        "Meetings/Kickoff.md",
        {
            "type": "meeting",
            "title": "Kickoff",
            "attendees": ["[[People/Sarah Lee|Sarah]]", "[[People/Pat Kim]]"],
        },
    )
    _note(
        vault,
        "Meetings/Retro.md",
        {
            "type": "meeting",
            "title": "Retro",
            "attendees": ["[[People/Sarah Lee]]", "[[People/Omar Reyes]]"],
        },
    )
    _note(
        vault,
        "Meetings/Planning.md",  # Omar's note names it already: nothing missing
        {"type": "meeting", "title": "Planning", "attendees": ["[[People/Omar Reyes]]"]},
    )


def _rows(result: dict[str, Any], key: str) -> set[tuple[str, str, str]]:
    return {(r["note"], r["field"], r["link"]) for r in result["phases"]["backlinks"][key]}


WRITTEN = {
    ("People/Sarah Lee.md", "attended", "Meetings/Kickoff.md"),
    ("People/Sarah Lee.md", "attended", "Meetings/Retro.md"),
    ("People/Omar Reyes.md", "attended", "Meetings/Retro.md"),
}
PROPOSED = {
    ("People/Pat Kim.md", "attended", "Meetings/Kickoff.md"),
    ("Companies/Acme.md", "employs", "People/Omar Reyes.md"),
}


def test_backlinks_written_into_vaultbrains_notes_and_proposed_for_yours(vault: Path) -> None:
    _meetings_vault(vault)
    before = snapshot(vault)
    dry = vb_json(vault, "tend", "--dry-run", "--phase", "backlinks")
    assert _rows(dry, "written") == WRITTEN
    assert _rows(dry, "proposed") == PROPOSED
    assert snapshot(vault) == before  # a dry run writes nothing
    text = vb(vault, "tend", "--dry-run", "--phase", "backlinks").stdout
    assert "would write: People/Sarah Lee.md attended: [[Meetings/Kickoff]]" in text
    assert "would propose: People/Pat Kim.md attended: [[Meetings/Kickoff]]" in text

    done = vb_json(vault, "tend", "--phase", "backlinks")
    assert _rows(done, "written") == _rows(dry, "written")  # the dry run said exactly this
    assert _rows(done, "proposed") == _rows(dry, "proposed")
    sarah = frontmatter(vault / "People/Sarah Lee.md")
    assert sarah["attended"] == ["[[Meetings/Kickoff]]", "[[Meetings/Retro]]"]
    assert sarah["name"] == "Sarah Lee" and "updated" not in sarah  # (note_style minimal)
    assert (vault / "People/Sarah Lee.md").read_text("utf-8").endswith("---\nDesigner.\n")
    omar = frontmatter(vault / "People/Omar Reyes.md")
    assert omar["attended"] == ["[[Meetings/Planning]]", "[[Meetings/Retro]]"]
    assert (vault / "People/Pat Kim.md").read_bytes() == before["People/Pat Kim.md"]
    for rel in ("Meetings/Kickoff.md", "Meetings/Retro.md", "Meetings/Planning.md"):
        assert (vault / rel).read_bytes() == before[rel]
    review = (vault / "Brain/Needs Review.md").read_text("utf-8")
    assert "## Links to add" in review
    assert "Add [[Meetings/Kickoff|Kickoff]] to [[People/Pat Kim|Pat Kim]]'s `attended`" in review
    report = (vault / done["path"]).read_text("utf-8")
    assert "## Backlinks written" in report and "## Backlinks proposed" in report

    # A second run writes nothing and proposes nothing new.
    after = snapshot(vault)
    again = vb_json(vault, "tend", "--phase", "backlinks")
    assert _rows(again, "written") == set() and _rows(again, "proposed") == set()
    assert again["phases"]["backlinks"]["waiting"] == 2
    assert snapshot(vault) == after


def test_a_tick_writes_the_proposed_backlink_and_a_strike_rejects_it_for_good(
    vault: Path, daemon: Callable[..., DaemonProcess]
) -> None:
    _meetings_vault(vault)
    _note(
        vault,
        "Meetings/Standup.md",
        {"type": "meeting", "title": "Standup", "attendees": ["[[People/Pat Kim]]"]},
    )
    vb(vault, "tend", "--phase", "backlinks")
    rows = {r["other"]: r for r in vb_json(vault, "tend", "list") if r.get("kind") == "backlink"}
    assert set(rows) == {"Meetings/Kickoff.md", "Meetings/Standup.md", "People/Omar Reyes.md"}
    tick, strike = rows["Meetings/Kickoff.md"]["id"], rows["Meetings/Standup.md"]["id"]
    proc = daemon()
    proc.start()
    proc.wait_ready()
    note = vault / "Brain/Needs Review.md"
    text = note.read_text("utf-8")
    text = re.sub(rf"- \[ \] (.*\^vbm-{tick})", r"- [x] \1", text)
    text = re.sub(rf"- \[ \] (.*\^vbm-{strike})", r"- [-] \1", text)
    note.write_text(text, "utf-8")

    pat_note = vault / "People/Pat Kim.md"
    wait_for(lambda: "attended" in pat_note.read_text("utf-8"), 60, proc.log)  # the daemon
    wait_for(lambda: f"^vbm-{strike}" not in note.read_text("utf-8"), 30, proc.log)
    proc.stop()
    got = {r["id"]: r["status"] for r in vb_json(vault, "tend", "list", "--all")}
    assert got[tick] == "accepted" and got[strike] == "rejected"
    pat = frontmatter(pat_note)
    assert pat["attended"] == ["[[Meetings/Kickoff]]"]
    assert (vault / "People/Pat Kim.md").read_text("utf-8").endswith("---\nNeighbour.\n")
    assert f"^vbm-{tick}" not in note.read_text("utf-8")
    # The rejected one is never proposed again; the accepted one is there now.
    again = vb_json(vault, "tend", "--phase", "backlinks")
    assert _rows(again, "proposed") == set() and _rows(again, "written") == set()
    assert "Standup" not in (vault / "People/Pat Kim.md").read_text("utf-8")


def test_a_note_changed_under_the_cycle_is_left_for_the_next(vault: Path) -> None:
    """Compare-and-swap: a note of vaultbrain's edited since the cycle read it is not
    written over; the next cycle writes it, the person's edit kept."""
    from vaultbrain.brain import Brain
    from vaultbrain.tend import backlinks as bl
    from vaultbrain.tend.cards import survey

    _meetings_vault(vault)
    brain = Brain(vault)
    cards = survey(brain).cards
    sarah = vault / "People/Sarah Lee.md"
    sarah.write_text(sarah.read_text("utf-8") + "Edited on the phone.\n", "utf-8")
    done = bl.tend(brain, cards, False, lambda rel: rel.startswith("People/S"))
    assert {b.target for b in done.left} == {"People/Sarah Lee.md"}
    assert "attended" not in frontmatter(sarah)
    out = vb_json(vault, "tend", "--phase", "backlinks")
    assert ("People/Sarah Lee.md", "attended", "Meetings/Retro.md") in _rows(out, "written")
    assert sarah.read_text("utf-8").endswith("Designer.\nEdited on the phone.\n")


def test_the_cards_live_in_state_db_and_an_old_cache_file_is_dropped(vault: Path) -> None:
    run(vault, "init")
    state = vault / ".vaultbrain"
    # A state dir of the version before m005: its cards in a file of their own.
    db = sqlite3.connect(state / "state.db")
    db.execute("DELETE FROM _migrations WHERE name = 'm005_tend_cards'")
    db.execute("DROP TABLE tend_cards")
    db.execute("DROP TABLE tend_cards_meta")
    db.commit()
    db.close()
    old = sqlite3.connect(state / "tend-cards.sqlite")
    old.execute("CREATE TABLE notes(rel TEXT PRIMARY KEY, mtime_ns, size, card, links)")
    old.commit()
    old.close()
    _note(vault, "People/Ann Lee.md", {"type": "person", "name": "Ann Lee"})
    vb(vault, "tend", "--phase", "orphans")
    assert not any(p.name.startswith("tend-cards") for p in state.iterdir())
    store = Store(state)
    try:
        rels = [r[0] for r in store.conn().execute("SELECT rel FROM tend_cards")]
        applied = [r[0] for r in store.conn().execute("SELECT name FROM _migrations")]
    finally:
        store.close()
    assert "People/Ann Lee.md" in rels and "m005_tend_cards" in applied
