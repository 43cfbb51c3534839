"""Copies that sync tools leave on a conflict are never read as notes and never written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from faults import no_traceback, snapshot, vb
from support.cli import run, run_json
from support.daemon import wait_for
from support.state import forget

IGNORED = {
    "syncthing": "People/Sarah.sync-conflict-20260101-120000-ABCDEF7.md",
    "nextcloud": "People/Sarah (conflicted copy 2026-01-01 120000).md",
    "owncloud": "People/Sarah (conflict 2026-01-01).md",
    "icloud stub": "People/.Sarah.md.icloud",
}


@pytest.fixture
def sarah(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    run(vault, "db", "add", "person", "--set", "name=Sarah", "--set", "contact=s@example.com")
    return vault / "People/Sarah.md"


def plant(vault: Path, sarah: Path, rel: str) -> bytes:
    # the other device's version: same id, another contact
    data = sarah.read_bytes().replace(b"s@example.com", b"other-device@example.com")
    (vault / rel).write_bytes(data)
    return data


def people(vault: Path) -> list[dict]:
    return run_json(vault, "db", "list", "person")


def assert_untouched(vault: Path, rel: str, data: bytes) -> None:
    assert (vault / rel).read_bytes() == data, rel
    rows = people(vault)
    assert [r["title"] for r in rows] == ["Sarah"]
    assert rows[0]["path"] == "People/Sarah.md"
    assert rows[0]["fields"]["contact"] == "s@example.com"


@pytest.mark.parametrize("tool", list(IGNORED))
def test_a_conflict_copy_is_never_read_or_written(vault: Path, sarah: Path, tool: str) -> None:
    rel = IGNORED[tool]
    data = plant(vault, sarah, rel)
    forget(vault / ".vaultbrain", "notes-cache.json")
    before = snapshot(vault)
    proc = vb(vault, "reindex")
    no_traceback(proc)
    assert proc.returncode == 0
    assert_untouched(vault, rel, data)
    done = vb(vault, "daemon", "--once")
    assert done.returncode == 0, done.stderr
    assert_untouched(vault, rel, data)
    run(vault, "db", "update", "person", "Sarah", "--set", "topics=bees")
    assert (vault / rel).read_bytes() == data
    after = snapshot(vault)
    # vaultbrain.yml (the vault's settings) gains the filer and vault id the daemon writes,
    # and Needs Review shows what waits for the person
    changed = {k for k in before if before[k] != after.get(k)}
    assert changed <= {"People/Sarah.md", "vaultbrain.yml", "Brain/Needs Review.md"}


def test_a_dropbox_conflicted_copy_is_ignored(vault: Path, sarah: Path) -> None:
    rel = "People/Sarah (Jane's conflicted copy 2026-01-01).md"
    data = plant(vault, sarah, rel)
    vb(vault, "reindex")
    assert_untouched(vault, rel, data)


def test_the_watching_daemon_ignores_conflict_copies(vault: Path, sarah: Path, daemon) -> None:
    d = daemon().start()
    d.wait_ready()
    planted = {rel: plant(vault, sarah, rel) for rel in IGNORED.values()}
    inbox_copy = "Inbox.sync-conflict-20260101-120000-ABCDEF7.md"
    copy_text = b"- a line only the other device has\n"
    (vault / inbox_copy).write_bytes(copy_text)
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Met with Sarah about the hives\n")
    wait_for(
        lambda: (
            "- [ ] Met with Sarah about the hives →" in (vault / "Inbox.md").read_text()
            or "- [x] Met with Sarah about the hives →" in (vault / "Inbox.md").read_text()
        ),
        30,
        d.log,
    )
    assert d.stop() == 0
    for rel, data in planted.items():
        assert (vault / rel).read_bytes() == data, rel
    assert (vault / inbox_copy).read_bytes() == copy_text
    assert "a line only the other device has" not in (vault / "Inbox.md").read_text()
    assert [r["title"] for r in people(vault)] == ["Sarah"]
    assert not [p for p in os.listdir(vault / "People") if p.startswith(".vb-tmp-")]
