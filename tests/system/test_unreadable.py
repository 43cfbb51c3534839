"""Notes vaultbrain cannot read stay listed (doctor, Needs Review) until fixed or deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.brain import Brain
from vaultbrain.capture.review_queue import ReviewQueue
from vaultbrain.filing.inbox import REVIEW_NOTE

BAD = "---\nname: Ann\nrole: [unclosed\n---\nbody\n"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def doctor_unreadable(vault: Path) -> dict:
    checks = json.loads(run(vault, "doctor", "--json", ok=False).output)
    return next(c for c in checks if c["check"] == "unreadable notes")


def review_text(vault: Path) -> str:
    ReviewQueue(Brain(vault)).refresh(force=True)
    path = vault / REVIEW_NOTE
    return path.read_text("utf-8") if path.exists() else ""


def test_invalid_yaml_is_listed_at_every_scan_until_fixed(vault: Path) -> None:
    note = vault / "People/Ann.md"
    note.write_text(BAD)
    first = run(vault, "reindex")
    assert "People/Ann.md" in first.output
    for _ in range(2):  # later scans read nothing new, and the note is still listed
        run(vault, "reindex")
        check = doctor_unreadable(vault)
        assert not check["ok"]
        assert "People/Ann.md" in check["detail"] and "line" in check["detail"]
        text = review_text(vault)
        assert "## Can't read" in text
        section = text.split("## Can't read", 1)[1]
        assert "[[People/Ann|People/Ann.md]]" in section and "not valid YAML" in section
    assert note.read_text() == BAD  # never written
    note.write_text("---\nname: Ann\nrole: [beekeeper]\n---\nbody\n")
    run(vault, "reindex")
    assert doctor_unreadable(vault)["ok"]
    assert "Can't read" not in review_text(vault)
    assert any(r["path"] == "People/Ann.md" for r in run_json(vault, "db", "list", "person"))


def test_a_deleted_unreadable_note_leaves_the_list(vault: Path) -> None:
    (vault / "People/Dupe.md").write_text("---\nname: A\nname: B\n---\n")
    run(vault, "reindex")
    check = doctor_unreadable(vault)
    assert "duplicate property" in check["detail"]
    (vault / "People/Dupe.md").unlink()
    run(vault, "reindex")
    assert doctor_unreadable(vault)["ok"]


def test_a_note_with_a_few_nul_bytes_is_a_note(vault: Path) -> None:
    body = "Pasted from a PDF: " + "text " * 400 + "\x00\x00 more\n"
    note = vault / "People/Pasted.md"
    data = ("---\nname: Pasted\x00\n---\n" + body).encode()
    note.write_bytes(data)
    result = run(vault, "reindex")
    assert "binary" not in result.output
    people = run_json(vault, "db", "list", "person")
    assert any(r["path"] == "People/Pasted.md" for r in people)
    assert note.read_bytes() == data
    assert doctor_unreadable(vault)["ok"]


def test_a_file_that_is_mostly_nul_is_still_binary(vault: Path) -> None:
    (vault / "People/Blob.md").write_bytes(b"---\nname: x\n---\n" + b"\x00" * 200)
    result = run(vault, "reindex")
    assert "binary" in result.output
    assert "People/Blob.md" in doctor_unreadable(vault)["detail"]
