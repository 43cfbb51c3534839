"""Hostile input, a third sweep (issue 47, items 2-6): values out of range in settings (by
``settings set`` and by hand), a note that is one 5 MB line, and a daily note with bytes that
are not UTF-8, a BOM, CRLF and a lone CR. Each is one clear line or a mark on the item,
nothing is lost, no traceback, and the other work of the pass goes on. Commands run as whole
processes (``python -m vaultbrain``)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pytest
from faults import no_traceback, one_line_error, vb

SETTLE = ("settings", "set", "inbox_settle_seconds", "0")


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("inbox_settle_seconds", "99999999999999999999999", "more than a week"),
        ("inbox_idle_seconds", "1e300", "more than a week"),
        ("retry_seconds", "604801", "more than a week"),
        ("rescan_seconds", "-0.0", "not above 0"),
        ("llm_concurrency", "1000000000", "out of range"),
        ("daily_capture_days", "9" * 40, "out of range"),
        ("stale_days", "0", "below 1"),
        ("correction_examples", "1e3", "not a whole number"),
        ("auto_confidence", "-inf", "not a finite number"),
    ],
)
def test_an_absurd_setting_is_one_line_and_changes_nothing(
    vault: Path, key: str, value: str, said: str
) -> None:
    before = vb(vault, "settings", "get", key).stdout
    line = one_line_error(vb(vault, "settings", "set", key, value))
    assert key in line and said in line and len(line) < 240
    assert vb(vault, "settings", "get", key).stdout == before


def test_absurd_settings_written_by_hand_are_said_once_and_the_defaults_work(
    vault: Path,
) -> None:
    """In vaultbrain.yml (every machine) and in the state dir's settings (this machine):
    each refused value is one warning line, its default is used, and the inbox is filed."""
    vb(vault, *SETTLE)
    vb(vault, "settings", "set", "provider", "heuristic")
    yml = vault / "vaultbrain.yml"
    yml.write_text(
        yml.read_text("utf-8") + "inbox_settle_seconds: 1.0e+23\ndaily_capture_days: 99999999999\n",
        "utf-8",
    )
    (vault / "Inbox.md").write_text("- call Ann about the fence\n", "utf-8")
    done = vb(vault, "daemon", "--once")
    no_traceback(done)
    warned = [x for x in done.stderr.splitlines() if "vaultbrain.yml: " in x and "WARNING" in x]
    assert any("inbox_settle_seconds" in x and "the default is used" in x for x in warned)
    assert any("daily_capture_days" in x and "the default is used" in x for x in warned)
    doctor = vb(vault, "doctor")
    no_traceback(doctor)
    assert "inbox_settle_seconds: '1e+23' is more than a week" in doctor.stdout
    # the default (10 s of quiet) applies: the line is taken once the note has settled
    old = time.time() - 60
    os.utime(vault / "Inbox.md", (old, old))
    again = vb(vault, "daemon", "--once")
    no_traceback(again)
    assert "^vb-" in (vault / "Inbox.md").read_text("utf-8"), again.stderr[-2000:]


def test_a_note_that_is_one_5_mb_line_is_searched_and_filed_around(vault: Path) -> None:
    """FTS5's snippet() weighs every hit of a note against the others: a million hits in
    one note took hours. The search answers, its JSON is valid, the other note is found."""
    vb(vault, *SETTLE)
    vb(vault, "settings", "set", "provider", "heuristic")
    (vault / "Ideas").mkdir(exist_ok=True)
    huge = "---\ntype: idea\n---\n" + "word " * 1_000_000 + "\n"
    (vault / "Ideas/One line.md").write_text(huge, "utf-8")
    (vault / "Ideas/Small.md").write_text("---\ntype: idea\n---\nthe word once\n", "utf-8")
    (vault / "Inbox.md").write_text("- plan the garden word layout\n", "utf-8")
    done = vb(vault, "daemon", "--once", timeout=300)
    no_traceback(done)
    assert "^vb-" in (vault / "Inbox.md").read_text("utf-8")
    found = vb(vault, "search", "word", "--json", timeout=120)  # (a hang is a failure)
    no_traceback(found)
    doc = json.loads(found.stdout)
    paths = {r["path"]: r for r in doc["results"]}
    assert {"Ideas/One line.md", "Ideas/Small.md"} <= set(paths)
    assert paths["Ideas/One line.md"]["snippet"].startswith("**word** word")
    assert len(paths["Ideas/One line.md"]["snippet"]) < 400
    assert paths["Ideas/Small.md"]["snippet"] == "the **word** once"
    assert (vault / "Ideas/One line.md").read_text("utf-8") == huge


def test_a_daily_note_with_a_stray_byte_files_its_other_lines(vault: Path) -> None:
    """A daily note with a byte that is not UTF-8 on one capture line, a BOM, CRLF line
    endings and a byte in another section: the bad line is marked, the others are filed,
    every other byte of the note stays as it was."""
    vb(vault, *SETTLE)
    vb(vault, "settings", "set", "provider", "heuristic")
    vb(vault, "settings", "set", "daily_capture_heading", "## Inbox")
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/daily-notes.json").write_text(
        json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"}), "utf-8"
    )
    (vault / "Daily").mkdir()
    note = vault / f"Daily/{dt.date.today().isoformat()}.md"
    head = b"\xef\xbb\xbf# day \xff kept\r\n\r\n## Inbox\r\n"
    bad = b"- call Ann about the \xff\xfe fence"
    tail = b"\r\n\r\n## Log\r\n- \xfe stays\r\n"
    note.write_bytes(head + bad + b"\r\n- plan the garden layout\r\n- book the kiln firing" + tail)
    done = vb(vault, "daemon", "--once")
    no_traceback(done)
    data = note.read_bytes()
    assert data.startswith(head) and data.endswith(tail)
    lines = data.split(b"\r\n")
    marked = next(x for x in lines if x.startswith(bad))
    assert b"not UTF-8" in marked and b"^vb-" not in marked
    for words in (b"plan the garden layout", b"book the kiln firing"):
        line = next(x for x in lines if words in x)
        assert b"^vb-" in line and b"\r" not in line, line
    caps = json.loads(vb(vault, "inbox", "--json").stdout)
    assert {c["text"] for c in caps} == {"plan the garden layout", "book the kiln firing"}
    # a second pass changes nothing
    vb(vault, "daemon", "--once")
    assert note.read_bytes() == data


def test_a_folder_symlinked_out_of_the_vault_puts_the_thought_in_review(
    vault: Path, tmp_path: Path
) -> None:
    """People/ is a symlink to a folder outside the vault: a thought about a person is not
    written there, nor left waiting for ever as if the classifier were away: it goes to
    review, saying why, and the other thoughts of the pass are filed."""
    vb(vault, *SETTLE)
    vb(vault, "settings", "set", "provider", "heuristic")
    outside = tmp_path / "outside"
    outside.mkdir()
    people = vault / "People"
    if people.exists():
        people.rmdir()
    people.symlink_to(outside, target_is_directory=True)
    (vault / "Inbox.md").write_text(
        "- call Sam about the lease\n- idea: a bee hotel for the garden wall\n", "utf-8"
    )
    done = vb(vault, "daemon", "--once")
    no_traceback(done)
    assert list(outside.iterdir()) == []
    text = (vault / "Inbox.md").read_text("utf-8")
    sam = next(x for x in text.splitlines() if "call Sam" in x)
    assert "needs review: not filed: People/Sam.md leads outside the vault" in sam
    assert "⏳" not in sam
    bees = next(x for x in text.splitlines() if "bee hotel" in x)
    assert "^vb-" in bees and "⏳" not in bees and "leads outside" not in bees
    review = (vault / "Brain/Needs Review.md").read_text("utf-8")
    assert "not filed: People/Sam.md leads outside the vault" in review


def test_numbers_out_of_range_in_a_notes_frontmatter_give_valid_json(vault: Path) -> None:
    """NaN, infinity, a 35-digit count, a year 99999 and a negative year in a note's
    properties: every command reads the note, `--json` stays valid JSON (null for what JSON
    cannot say), and the note is left byte for byte."""
    (vault / "Projects").mkdir(exist_ok=True)
    weird = vault / "Projects/Weird.md"
    text = (
        "---\ntype: project\nstatus: active\npriority: .nan\nprogress: .inf\n"
        "low: -.inf\ncount: 99999999999999999999999999999999999\ndue: 99999-01-01\n"
        "last_touched: -0001-01-01\n---\n# Weird\n"
    )
    weird.write_text(text, "utf-8")
    no_traceback(vb(vault, "reindex"))

    def strict(raw: str) -> object:
        def refuse(name: str) -> object:
            raise AssertionError(f"{name} is not JSON")

        return json.loads(raw, parse_constant=refuse)

    for args in (("db", "list", "project", "--json"), ("search", "weird", "--json")):
        done = vb(vault, *args)
        no_traceback(done)
        assert done.returncode == 0, done.stderr
        strict(done.stdout)
    (row,) = strict(vb(vault, "db", "list", "project", "--json").stdout)  # type: ignore[misc]
    fields = row["fields"]
    assert fields["priority"] is None and fields["progress"] is None and fields["low"] is None
    assert fields["count"] == 99999999999999999999999999999999999
    for args in (("tend",), ("digest",), ("doctor",), ("reindex",)):
        no_traceback(vb(vault, *args))
    assert weird.read_text("utf-8") == text
