"""The person and the daemon write the same note at once.

A writer process edits ``People/Sarah.md`` a hundred times, in the three ways editors save
(append in place, write a temp file and rename it over, truncate and rewrite in place), while
the daemon files thoughts that update Sarah (a log line, ``updated`` bumped). Whatever the
daemon does, every edit the person made must be in the final note.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from faults import temp_leftovers
from support.cli import run, run_json
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio, probe_answer, reply, thought_of

from vaultbrain.vault.note import parse_note

WRITER = textwrap.dedent(
    """
    import os, random, sys, time
    path, mode, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    rnd = random.Random(5)
    i = -1
    while not os.path.exists(stop):  # edit for as long as the daemon is filing
        i += 1
        line = f"- person edit {i}\\n"
        if mode == "append":
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(line)
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            if not text.endswith("\\n"):
                text += "\\n"
            text += line
            if mode == "rename":
                tmp = path + f".~{i}.tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    fh.write(text)
                os.replace(tmp, path)
            else:  # truncate and rewrite in place, as many editors save
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
        time.sleep(rnd.uniform(0.0, 0.02))
    print(i + 1)
    """
)


@pytest.mark.parametrize("mode", ["append", "rename", "rewrite"])
def test_the_person_and_the_daemon_write_the_same_note(
    vault: Path, daemon, lmstudio: FakeLMStudio, tmp_path: Path, mode: str
) -> None:
    run(vault, "db", "add", "person", "--set", "name=Sarah")
    sarah = vault / "People/Sarah.md"
    sarah_reply = reply([{"type": "person", "title": "Sarah", "fields": {"topics": ["race"]}}], 0.9)
    # a capable model: the daemon's probe of it is answered right (else a model that calls
    # every thought Sarah is measured as poor, and its readings are only suggestions)
    lmstudio.responder = lambda body: probe_answer(thought_of(body)) or sarah_reply
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    d = daemon().start()
    d.wait_ready()
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    thoughts = 40
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, str(script), str(sarah), mode, str(stop)], stdout=subprocess.PIPE
    )
    for i in range(thoughts):
        with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
            fh.write(f"- race thought {i} with Sarah\n")
        time.sleep(0.05)
    inbox = vault / "Inbox.md"
    wait_for(lambda: inbox.read_text().count("- [x] race thought") == thoughts, 60, d.log)
    stop.touch()
    out, _ = writer.communicate(timeout=30)
    assert writer.returncode == 0
    edits = int(out)
    assert edits > 50
    time.sleep(1.0)  # the daemon takes in the person's last edits
    assert d.stop() == 0
    text = sarah.read_text("utf-8")
    missing = [i for i in range(edits) if f"- person edit {i}\n" not in text]
    assert not missing, f"{len(missing)} of the person's edits lost: {missing[:10]}"
    parsed = parse_note(text)
    assert parsed.error is None, parsed.error
    assert parsed.data["name"] == "Sarah" and parsed.data["type"] == "person"
    captures = run_json(vault, "inbox", "--limit", "1000")
    assert {c["status"] for c in captures} == {"filed"}
    if mode == "append":
        # appends never clobber: every capture's log line is there too, once
        for c in captures:
            assert text.count(f"^vb-{c['id']}") == 1, c["id"]
    # A save built on what the note held before the daemon's write and landing right after
    # it (within the daemon's look, a few ms) has the daemon make its change again; one
    # landing later, from an editor held up longer, can still overwrite a log line, as it
    # would overwrite any other program's edit. Never twice, never the person's lines.
    for c in captures:
        assert text.count(f"^vb-{c['id']}") <= 1, c["id"]
    assert json.loads(run(vault, "db", "show", "person", "Sarah", "--json").output)["path"]
    assert temp_leftovers(vault) == []


def test_a_note_caught_mid_save_is_not_overwritten(
    vault: Path, daemon, lmstudio: FakeLMStudio
) -> None:
    run(vault, "db", "add", "person", "--set", "name=Sarah", "--set", "contact=s@x.org")
    sarah = vault / "People/Sarah.md"
    lmstudio.responder = lambda body: reply([{"type": "person", "title": "Sarah"}], 0.9)
    d = daemon().start()
    d.wait_ready()
    full = sarah.read_text("utf-8") + "- the person's own line\n"
    with open(sarah, "w", encoding="utf-8") as editor:  # truncated: the editor is saving
        with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
            fh.write("- Met with Sarah about the hives\n")
        inbox = vault / "Inbox.md"
        wait_for(lambda: "- [x] Met with Sarah about the hives" in inbox.read_text(), 30, d.log)
        editor.write(full)  # the editor finishes its save
    time.sleep(1.0)
    d.stop()
    text = sarah.read_text("utf-8")
    assert "- the person's own line" in text and "contact: s@x.org" in text, text
    assert parse_note(text).error is None


def test_lines_from_an_appender_slow_between_open_and_write_are_all_taken(
    vault: Path, daemon, lmstudio: FakeLMStudio
) -> None:
    """A program appending to the inbox opens it, and writes a moment later (a busy machine,
    a sync client, a script): when the daemon's rewrite of the inbox lands in between, the
    line goes into the file the rewrite displaced. It must still reach the inbox and be
    filed, however long (within a few seconds) the writer took."""
    import random

    lmstudio.responder = lambda body: reply([{"type": "idea", "title": "Hives"}], 0.9)
    run(vault, "settings", "set", "inbox_settle_seconds", "0")
    run(
        vault, "settings", "set", "second_opinion", "false"
    )  # the LLM files: the appender is the subject
    d = daemon().start()
    d.wait_ready()
    rnd = random.Random(3)
    inbox = vault / "Inbox.md"
    thoughts = 50
    for i in range(thoughts):
        with open(inbox, "a", encoding="utf-8") as fh:
            time.sleep(0.4 if i % 10 == 5 else rnd.uniform(0, 0.03))
            fh.write(f"- slow thought {i} about hives\n")
        time.sleep(0.03)
    wait_for(lambda: inbox.read_text().count("- [x] slow thought") == thoughts, 60, d.log)
    text = inbox.read_text()
    assert all(text.count(f"slow thought {i} about hives") == 1 for i in range(thoughts)), text
    assert d.stop() == 0
    captures = run_json(vault, "inbox", "--limit", "1000")
    assert len(captures) == thoughts and {c["status"] for c in captures} == {"filed"}
