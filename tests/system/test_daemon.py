"""The daemon as a subprocess on a temp vault, against the loopback LM Studio server."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio, reply
from support.state import lines as state_lines


def idea_for(body: dict) -> str:
    if body.get("response_format", {}).get("json_schema", {}).get("name") != "brain_classification":
        return json.dumps({"summary": "n/a"})
    thought = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
    return reply([{"type": "idea", "title": thought[:60], "fields": {}}], 0.9)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0.2")
    run(root, "settings", "set", "inbox_idle_seconds", "1")
    run(root, "settings", "set", "retry_seconds", "0.3")
    # the fake LLM's reading is the premise here (the pair: tests/system/test_classify_pair.py)
    run(root, "settings", "set", "second_opinion", "false")
    return root


def filed_lines(vault: Path) -> list[str]:
    return [
        line for line in (vault / "Inbox.md").read_text().splitlines() if line.startswith("- [x] ")
    ]


def test_writer_and_daemon_share_the_inbox(
    vault: Path, daemon, lmstudio: FakeLMStudio, tmp_path: Path
) -> None:
    lmstudio.responder = idea_for
    # The stand-in LLM calls every line an idea; this test is about sharing the inbox, not
    # about a second opinion on that.
    run(vault, "settings", "set", "second_opinion", "false")
    d = daemon().start()
    d.wait_ready()
    writer = tmp_path / "writer.py"
    writer.write_text(
        textwrap.dedent(f"""
        import random, time
        rnd = random.Random(7)
        for i in range(60):
            with open({str(vault / "Inbox.md")!r}, "a", encoding="utf-8") as fh:
                fh.write(f"- thought number {{i}} with ünïcødé ✓ and  two  spaces\\n")
            time.sleep(rnd.random() * 0.05)
    """)
    )
    subprocess.run([sys.executable, str(writer)], check=True, timeout=60)
    wait_for(lambda: len(filed_lines(vault)) == 60, 60, d.log)
    text = (vault / "Inbox.md").read_text()
    for i in range(60):
        hits = [line for line in text.splitlines() if f"thought number {i} with" in line]
        assert len(hits) == 1, (i, hits)
        assert f"- [x] thought number {i} with ünïcødé ✓ and  two  spaces → [[Ideas/" in hits[0]
        assert re.search(r" \^vb-[a-z0-9]{6}$", hits[0])
    assert len(list((vault / "Ideas").glob("*.md"))) == 60
    assert d.stop() == 0
    assert "stopped" in d.log.read_text()


def test_a_line_being_typed_is_not_taken(vault: Path, daemon, lmstudio: FakeLMStudio) -> None:
    lmstudio.responder = idea_for
    run(vault, "settings", "set", "inbox_idle_seconds", "3")
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- still typi")
    time.sleep(1.5)  # well past the settle time: an unfinished line is still not taken
    assert "^vb-" not in (vault / "Inbox.md").read_text()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("ng this\n")
    wait_for(lambda: len(filed_lines(vault)) == 1, 20, d.log)
    assert "- [x] still typing this → " in (vault / "Inbox.md").read_text()


@pytest.fixture
def offline(vault: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """The LLM server is down (a port nothing listens on) and there is no fallback."""
    server = FakeLMStudio().start()
    port = server.httpd.server_address[1]
    server.stop()
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", f"http://127.0.0.1:{port}/v1")
    run(vault, "settings", "set", "fallback", "none")
    return port


def test_llm_down_then_up_with_fallback_none(vault: Path, daemon, offline: int) -> None:
    port = offline
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: an offline-first garden planner\n")
    wait_for(
        lambda: "waiting for the classifier (offline" in (vault / "Inbox.md").read_text(), 20, d.log
    )
    assert not list((vault / "Ideas").glob("*.md"))
    assert run_json(vault, "inbox", "--status", "pending")
    up = FakeLMStudio(port=port).start()
    try:
        up.responder = idea_for
        wait_for(lambda: len(filed_lines(vault)) == 1, 30, d.log)
    finally:
        up.stop()
    assert len(list((vault / "Ideas").glob("*.md"))) == 1


def test_an_offline_retry_waits_for_its_backoff(vault: Path, daemon, offline: int) -> None:
    run(vault, "settings", "set", "retry_seconds", "3")
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: a retry that keeps its distance\n")
    wait_for(lambda: run_json(vault, "inbox", "--status", "pending"), 20, d.log)
    wait_for(lambda: "(offline" in (vault / "Inbox.md").read_text(), 20, d.log)
    time.sleep(1.5)  # well inside the 3 s backoff: a failed call within the same second as
    # the one before it leaves the store's summary unchanged, and must not be retried at once
    assert d.output().count("classifier failed") == 1, d.output()


def test_fallback_heuristic_files_suggestions_at_once(vault: Path, daemon) -> None:
    # The embedded classifier files alone what it is calibrated to get right; a bar of 1.0
    # makes every thought a suggestion, the path this test follows.
    run(vault, "settings", "set", "auto_confidence", "1.0")
    d = daemon().start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Met with Sarah about the new project. Need to follow up next week.\n")
    wait_for(lambda: (vault / "People/Sarah.md").exists(), 20, d.log)
    # The short form (note_style minimal): "→ 3 suggestions", a link to Needs Review.
    wait_for(lambda: " suggestions]] ^vb-" in (vault / "Inbox.md").read_text(), 20, d.log)


def test_notes_to_store(vault: Path, daemon, lmstudio: FakeLMStudio) -> None:
    lmstudio.responder = lambda body: reply(
        [{"type": "person", "title": "Sarah", "fields": {}}], 0.9
    )
    run(vault, "capture", "Met Sarah")
    d = daemon().start()
    d.wait_ready()
    sarah = vault / "People/Sarah.md"
    # the person edits frontmatter in Obsidian -> the store follows
    sarah.write_text(
        sarah.read_text().replace(
            "name: Sarah\n", "name: Sarah\naliases:\n  - Sas\ncontact: sarah@example.com\n"
        )
    )
    wait_for(
        lambda: (
            run_json(vault, "db", "show", "person", "Sarah")["fields"].get("contact")
            == "sarah@example.com"
        ),
        20,
        d.log,
    )
    assert run_json(vault, "db", "show", "person", "Sas")["title"] == "Sarah"
    # creates a note by hand in People/ -> a record, known by path: nothing written into it
    (vault / "People/Bob.md").write_text("---\nname: Bob\n---\nmet at the fair\n")
    wait_for(
        lambda: any(r["title"] == "Bob" for r in run_json(vault, "db", "list", "person")), 20, d.log
    )
    assert (vault / "People/Bob.md").read_text() == "---\nname: Bob\n---\nmet at the fair\n"
    # moves it into another type's folder -> re-filed as that type
    os.rename(vault / "People/Bob.md", vault / "Projects/Bob.md")
    wait_for(
        lambda: any(r["title"] == "Bob" for r in run_json(vault, "db", "list", "project")),
        20,
        d.log,
    )
    assert not any(r["title"] == "Bob" for r in run_json(vault, "db", "list", "person"))
    # changes its type: -> re-filed, a correction in the audit trail
    sarah.write_text(sarah.read_text().replace("type: person", "type: idea"))
    wait_for(
        lambda: any(r["title"] == "Sarah" for r in run_json(vault, "db", "list", "idea")), 20, d.log
    )

    def corrected() -> bool:
        audit = state_lines(vault / ".vaultbrain")
        return any(
            e["kind"] == "correction" and e["from"] == "person" and e["to"] == "idea"
            for e in map(json.loads, audit)
        )

    wait_for(corrected, 20, d.log)
    # the re-filed note lives in the new type's folder; the old one is archived, never deleted
    idea = vault / "Ideas/Sarah.md"
    wait_for(idea.exists, 20, d.log)
    assert not sarah.exists()
    assert frontmatter(vault / "Brain/Archive/Sarah.md")["archived"] is True
    assert (
        frontmatter(idea)["contact"] == "sarah@example.com"
        if "contact" in frontmatter(idea)
        else True
    )
    wait_for(lambda: "[[Ideas/Sarah|Sarah]]" in (vault / "Inbox.md").read_text(), 20, d.log)
    # deletes it -> tombstoned, never resurrected
    idea.unlink()
    wait_for(lambda: not run_json(vault, "db", "list", "idea"), 20, d.log)
    assert d.stop() == 0
    run(vault, "reindex")
    assert not idea.exists() and not run_json(vault, "db", "list", "idea")


def test_changes_while_off_are_picked_up_on_start(vault: Path, daemon) -> None:
    (vault / "Ideas/Solar shed.md").write_text("---\ntitle: Solar shed\n---\n")
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: bees on the roof\n")
    d = daemon().start("--once")
    assert d.proc.wait(60) == 0
    titles = {r["title"] for r in run_json(vault, "db", "list", "idea")}
    assert {"Solar shed", "Bees on the roof"} <= titles


def test_second_daemon_is_refused_and_a_stale_lock_is_taken_over(vault: Path, daemon) -> None:
    first = daemon().start()
    first.wait_ready()
    second = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "daemon"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert second.returncode == 1
    assert "another vaultbrain daemon" in second.stderr and second.stderr.count("\n") == 1
    first.kill9()
    third = daemon().start()
    third.wait_ready()
    assert third.stop() == 0


def test_kill_9_at_random_moments_files_each_thought_exactly_once(
    vault: Path, daemon, lmstudio: FakeLMStudio
) -> None:
    lmstudio.responder = idea_for
    lmstudio.delay = 0.01
    rnd = random.Random(1234)
    total, kills = 200, 20
    written = 0
    for _ in range(kills):
        d = daemon().start()
        for _line in range(total // kills):
            with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
                fh.write(f"- crash test thought {written}\n")
            written += 1
        time.sleep(rnd.uniform(0.3, 1.5))
        d.kill9()
    final = daemon().start()
    final.wait_ready(60)
    wait_for(lambda: len(filed_lines(vault)) == total, 120, final.log)
    assert final.stop() == 0
    text = (vault / "Inbox.md").read_text()
    for i in range(total):
        hits = [
            line
            for line in text.splitlines()
            if f"crash test thought {i} →" in line or line.endswith(f"crash test thought {i}")
        ]
        assert len(hits) == 1, (i, hits)
    notes = sorted((vault / "Ideas").glob("*.md"))
    assert len(notes) == total, [n.name for n in notes if "(2)" in n.name]
    # Each note names its capture in its log line (a minimal note has no `source` property).
    sources = [re.findall(r"#\^vb-([a-z0-9]+)\|capture", n.read_text())[0] for n in notes]
    assert len(set(sources)) == total
    captures = run_json(vault, "inbox", "--limit", "1000")
    assert len(captures) == total and {c["status"] for c in captures} == {"filed"}
    leftovers = [p for p in vault.rglob(".vb-tmp-*")]
    assert leftovers == []
