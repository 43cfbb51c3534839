"""Renames and damaged state don't split records (issue 15, item 5), with the daemon as a
subprocess on a temp vault and the loopback LM Studio server calling every line a thought
about Sarah: a note renamed while captures about it are in flight, the people index
truncated or emptied while the daemon runs, and the state dir deleted while it runs."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio, reply


def about_sarah(body: dict) -> str:
    if body.get("response_format", {}).get("json_schema", {}).get("name") != "brain_classification":
        return json.dumps({"summary": "n/a"})
    return reply([{"type": "person", "title": "Sarah", "fields": {}}], 0.9)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    for key, value in (
        ("inbox_settle_seconds", "0.2"),
        ("inbox_idle_seconds", "0.5"),
        ("retry_seconds", "0.3"),
        ("second_opinion", "false"),
    ):
        run(root, "settings", "set", key, value)
    return root


def write_lines(vault: Path, lines: list[str], pause: float = 0.0) -> None:
    for line in lines:
        with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
            fh.write(f"- {line}\n")
        if pause:
            time.sleep(pause)


def log_entries(note: Path) -> list[str]:
    """The capture ids of the log lines in a note."""
    if not note.is_file():
        return []
    return re.findall(r"#\^vb-([a-z0-9]+)\|", note.read_text("utf-8"))


def taken_ids(vault: Path, marker: str) -> list[str]:
    text = (vault / "Inbox.md").read_text("utf-8")
    return [
        m.group(1)
        for line in text.splitlines()
        if marker in line and (m := re.search(r"\^vb-([a-z0-9]+)$", line))
    ]


def all_filed(vault: Path, marker: str, count: int) -> bool:
    text = (vault / "Inbox.md").read_text("utf-8")
    done = [line for line in text.splitlines() if marker in line and line.startswith("- [x] ")]
    return len(done) == count


def people_records(vault: Path) -> list[dict]:
    from vaultbrain.store import Store

    store = Store(vault / ".vaultbrain")
    try:
        return list(store.collection("people").all())
    finally:
        store.close()


def no_copies(vault: Path) -> None:
    copies = sorted(str(p.relative_to(vault)) for p in vault.rglob("* (2).md"))
    assert not copies, copies


def first_sarah(vault: Path, daemon, lmstudio: FakeLMStudio, by_hand: bool = False):  # type: ignore[no-untyped-def]
    """A running daemon and People/Sarah.md, made by the first thought about her (or by
    the person beforehand, without an id: known by its path and content)."""
    lmstudio.responder = about_sarah
    if by_hand:
        (vault / "People/Sarah.md").write_text("---\nname: Sarah\n---\nMet at the fair.\n")
    d = daemon(vault).start()
    d.wait_ready()
    write_lines(vault, ["Sarah thought number 0"])
    wait_for(lambda: all_filed(vault, "Sarah thought number", 1), 30, d.log)
    assert (vault / "People/Sarah.md").is_file(), sorted(vault.rglob("*.md"))
    return d


@pytest.mark.parametrize("by_hand", [False, True], ids=["made by a capture", "hand-made"])
def test_a_note_renamed_during_a_burst_keeps_every_capture(
    vault: Path, daemon, lmstudio: FakeLMStudio, by_hand: bool
) -> None:
    d = first_sarah(vault, daemon, lmstudio, by_hand)
    lmstudio.delay = 0.15  # captures in flight while the note moves
    write_lines(vault, [f"Sarah thought number {i}" for i in range(1, 21)], pause=0.01)
    wait_for(lambda: len(log_entries(vault / "People/Sarah.md")) >= 4, 30, d.log)
    (vault / "People/Sarah.md").rename(vault / "People/Sarah Smith.md")
    wait_for(lambda: all_filed(vault, "Sarah thought number", 21), 60, d.log)
    time.sleep(1.0)  # the move's sync and a pass or two after it
    no_copies(vault)
    assert sorted(p.name for p in (vault / "People").glob("*.md")) == ["Sarah Smith.md"]
    ids = taken_ids(vault, "Sarah thought number")
    assert len(ids) == 21
    logged = log_entries(vault / "People/Sarah Smith.md")
    assert sorted(logged) == sorted(ids), (len(logged), d.output()[-3000:])
    records = people_records(vault)
    assert [r["path"] for r in records] == ["People/Sarah Smith.md"], records
    assert "Traceback" not in d.output(), d.output()
    assert d.stop() == 0


def no_line_waiting(vault: Path) -> None:
    waiting = [line for line in (vault / "Inbox.md").read_text().splitlines() if "⏳" in line]
    assert not waiting, waiting


def test_the_state_dir_deleted_during_a_burst(vault: Path, daemon, lmstudio: FakeLMStudio) -> None:
    d = first_sarah(vault, daemon, lmstudio)
    lmstudio.delay = 0.15
    write_lines(vault, [f"Sarah thought number {i}" for i in range(1, 11)], pause=0.01)
    wait_for(lambda: len(log_entries(vault / "People/Sarah.md")) >= 3, 30, d.log)
    shutil.rmtree(vault / ".vaultbrain", ignore_errors=True)
    write_lines(vault, ["Sarah thought number 11"])
    wait_for(lambda: all_filed(vault, "Sarah thought number", 12), 60, d.log)
    time.sleep(1.0)
    no_copies(vault)
    no_line_waiting(vault)
    ids = taken_ids(vault, "Sarah thought number")
    assert len(ids) == 12
    logged = log_entries(vault / "People/Sarah.md")
    assert sorted(logged) == sorted(ids), (len(logged), d.output()[-3000:])
    assert [r["path"] for r in people_records(vault)] == ["People/Sarah.md"]
    assert d.alive() and "Traceback" not in d.output(), d.output()
    assert d.stop() == 0
