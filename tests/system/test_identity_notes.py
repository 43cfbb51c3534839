"""Which note (issue 29): a note is what the vault's file system says it is. A case-only
rename is a move (the record follows, nothing tombstoned); a name in another Unicode form
is the same name; on a case-sensitive file system two files whose names differ only in case
are two notes."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.daemon import wait_for


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    # suggestions stay suggestions: the embedded classifier files a clear thought
    # outright at the default bar since issue 42
    for key, value in (("inbox_settle_seconds", "0"), ("auto_confidence", "0.95")):
        run(root, "settings", "set", key, value)
    return root


def people(vault: Path) -> dict[str, str]:
    return {r["id"]: r["path"] for r in run_json(vault, "db", "list", "person")}


def doctor_records(vault: Path) -> dict:
    checks = json.loads(run(vault, "doctor", "--json", ok=False).output)
    return next(c for c in checks if c["check"] == "records")


def test_a_case_only_rename_is_a_move(vault: Path, daemon) -> None:
    added = run(vault, "db", "add", "person", "--set", "name=sarah").output
    rid = added.split()[2].rstrip(":")
    assert people(vault) == {rid: "People/sarah.md"}
    d = daemon(vault).start()
    d.wait_ready()
    (vault / "People/sarah.md").rename(vault / "People/Sarah.md")
    wait_for(lambda: people(vault) == {rid: "People/Sarah.md"}, 30, d.log)
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Met with Sarah about the garden\n")
    wait_for(lambda: [c["status"] for c in run_json(vault, "inbox")] == ["suggested"], 30, d.log)
    (capture,) = run_json(vault, "inbox")
    assert [x["path"] for x in capture["destinations"] if x["type"] == "person"] == [
        "People/Sarah.md"
    ]
    run(vault, "review", "confirm", capture["id"])
    wait_for(lambda: "garden" in (vault / "People/Sarah.md").read_text(), 30, d.log)
    assert d.stop() == 0
    run(vault, "reindex")
    assert people(vault) == {rid: "People/Sarah.md"}
    assert sorted(p.name for p in (vault / "People").iterdir()) == ["Sarah.md"]
    trail = run_json(vault, "trust", "--since", "1d")
    assert not [e for e in trail if e.get("id") == rid and "tombstone" in json.dumps(e)]
    assert doctor_records(vault)["ok"]


def test_two_files_whose_names_differ_only_in_case_stay_two_notes(vault: Path) -> None:
    """On Linux both can exist: they are two notes, each its own record, for good."""
    (vault / "People/ann.md").write_text("---\ntype: person\nname: ann\n---\nthe first\n")
    run(vault, "reindex")
    (vault / "People/Ann.md").write_text("---\ntype: person\nname: Ann\n---\nthe second\n")
    for _ in range(2):
        run(vault, "reindex")
        assert sorted(people(vault).values()) == ["People/Ann.md", "People/ann.md"]


def test_a_name_in_another_unicode_form_is_the_same_note(vault: Path) -> None:
    """People/José.md named on a Mac (NFD), a thought typed in NFC: one note, updated."""
    nfd = unicodedata.normalize("NFD", "José")
    (vault / f"People/{nfd}.md").write_text(f"---\ntype: person\nname: {nfd}\n---\n")
    run(vault, "reindex")
    capture = run_json(
        vault, "capture", unicodedata.normalize("NFC", "Met with José about the garden")
    )
    person = [d for d in capture["destinations"] if d["type"] == "person"]
    assert [d["path"] for d in person] == [f"People/{nfd}.md"]
    assert [p.name for p in (vault / "People").iterdir()] == [f"{nfd}.md"]
