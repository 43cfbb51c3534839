"""Markdown as Obsidian reads it, through the commands: blocks in the inbox that are not
thoughts stay byte for byte after ``daemon --once``; ``db add`` links what exists; a
YouTube title that looks like a date stays text; ``restyle`` rewrites vaultbrain's notes to
the current style, on request only, and never a note the person made."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json

from vaultbrain.vault.note import parse_note

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "youtube" / "recordings"

BLOCKS = {
    "table": "| Item | Cost |\n|------|-----:|\n| Milk | 1.20 |\n| Eggs | 3.10 |\n",
    "math": "$$\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n$$\n",
    "nested fence": "````markdown\n```python\nprint('hello')\n```\n````\n",
    "html": "<div>\nan HTML block\n</div>\n",
    "footnote": "[^1]: A footnote definition\n    that goes on here.\n",
    "front matter": None,  # the note's own, below
    "emoji only": "🎉🎉🎉\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "provider", "heuristic")
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    return root


@pytest.mark.parametrize("kind", list(BLOCKS))
def test_a_block_in_the_inbox_is_never_taken(vault: Path, daemon, kind: str) -> None:
    block = BLOCKS[kind]
    if block is None:
        head, block = "---\ntags: [inbox]\nstatus: 2026-12-01\n---\n", ""
    else:
        head = ""
    inbox = vault / "Inbox.md"
    text = f"{head}- buy oat milk\n{block}\n- call the plumber about the boiler\n"
    inbox.write_text(text, "utf-8")
    d = daemon(vault).start("--once")
    assert d.proc.wait(120) == 0, d.output()
    after = inbox.read_text("utf-8")
    assert after.startswith(f"{head}- [")  # the thought before it was taken
    assert head + block in after or (after.count(block) == 1 and block in after)
    kept = after.split("\n")
    for line in (head + block).splitlines():
        assert line in kept, (line, after)  # byte for byte, on a line of its own
    assert after.count("^vb-") == 2, after
    assert not any(p.name.startswith("Untitled") for p in vault.rglob("*.md"))


def test_db_add_links_the_notes_that_exist(vault: Path) -> None:
    run(vault, "db", "add", "person", "--set", "name=José Ñúñez")
    rec = run_json(
        vault, "db", "add", "project", "--set", "name=Garden", "--set", "people=2024,josé ñúñez"
    )
    note = vault / rec["path"]
    assert frontmatter(note)["people"] == ["2024", "[[People/José Ñúñez|josé ñúñez]]"]
    assert '  - "2024"\n' in note.read_text("utf-8")  # text, not a number
    assert rec["fields"]["people"] == frontmatter(note)["people"]  # the store agrees
    run(vault, "db", "update", "project", "Garden", "--set", "people=José Ñúñez")
    assert frontmatter(note)["people"] == ["[[People/José Ñúñez|José Ñúñez]]"]
    assert run_json(vault, "db", "show", "project", "Garden")["fields"]["people"] == [
        "[[People/José Ñúñez|José Ñúñez]]"
    ]


def test_a_youtube_title_that_looks_like_a_date_stays_text(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recordings = tmp_path / "recordings"
    shutil.copytree(FIXTURES / "talk", recordings / "date")
    info = json.loads((recordings / "date/info.json").read_text("utf-8"))
    vid = "dateTitle01"
    info.update(id=vid, title="2026-12-01", fulltitle="2026-12-01", channel="1984")
    (recordings / "date/info.json").write_text(json.dumps(info), "utf-8")
    monkeypatch.setenv("VAULTBRAIN_YTDLP_REPLAY", str(recordings))
    out = run(vault, "youtube", "ingest", f"https://youtu.be/{vid}").stdout
    note = vault / out.splitlines()[0].removeprefix("saved ")
    text = note.read_text("utf-8")
    assert 'title: "2026-12-01"\n' in text and 'channel: "1984"\n' in text
    fm = frontmatter(note)
    assert fm["title"] == "2026-12-01" and fm["channel"] == "1984"
    assert fm["published"] == "2024-05-17"  # a date stays a date


def test_restyle_rewrites_vaultbrains_notes_on_request_and_keeps_every_value(
    vault: Path,
) -> None:
    run(vault, "settings", "set", "note_style", "full")
    cap = run_json(vault, "db", "add", "admin", "--set", "title=Renew the passport")
    full_note = vault / cap["path"]
    full_text = full_note.read_text("utf-8")
    assert "updated:" in full_text and full_text.split("---\n", 2)[2].startswith("# Renew")
    mine = vault / "Admin/Mine.md"
    mine.write_text("---\ntype: admin\ntitle: Mine\nupdated: 2026-01-01\n---\n# Mine\n\nx\n")
    run(vault, "reindex")
    run(vault, "settings", "set", "note_style", "minimal")
    assert full_note.read_text("utf-8") == full_text  # a style change rewrites nothing

    preview = run(vault, "restyle").output
    assert "Admin/Renew the passport.md: without updated; id last; no H1" in preview
    assert "Mine" not in preview and full_note.read_text("utf-8") == full_text

    run(vault, "restyle", "--apply")
    after = parse_note(full_note.read_text("utf-8"))
    assert list(after.data) == ["type", "title", "status", "created", "id"]
    assert not after.body.startswith("# ")
    assert mine.read_text("utf-8").startswith("---\ntype: admin\ntitle: Mine\nupdated:")
    shown = run_json(vault, "db", "show", "admin", "Renew the passport")
    assert shown["updated"] and shown["made"] is True
    run(vault, "reindex")  # the store keeps what the note no longer shows
    assert run_json(vault, "db", "show", "admin", "Renew the passport")["updated"]
    assert "0 note(s) would be restyled" in run(vault, "restyle").output

    run(vault, "settings", "set", "note_style", "full")
    run(vault, "restyle", "--apply")
    back = parse_note(full_note.read_text("utf-8"))
    assert back.data["updated"] == shown["updated"] and back.body.startswith("# Renew")
