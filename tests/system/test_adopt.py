"""`vaultbrain adopt`: previewed, then ids written into hand-made record notes on --apply."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json

from vaultbrain.brain import Brain


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    (root / "People/Ann.md").write_text("---\nname: Ann\n---\nBeekeeper.\n")
    (root / "People/Bo.md").write_text("---\ntype: person\nname: Bo\n---\n")
    (root / "People/Plain.md").write_text("No frontmatter at all.\n")
    (root / "Ideas").mkdir(exist_ok=True)
    (root / "Ideas/Hives.md").write_text("---\ntitle: Hives\n---\n")
    run(root, "reindex")
    return root


def records(vault: Path) -> dict[str, dict]:
    app = Brain(vault)
    out = {}
    for t in app.all_types():
        for rec in app.store.collection(t.store_collection).all():
            out[rec["path"]] = rec
    return out


def snapshot(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in vault.rglob("*.md")}


def test_dry_run_lists_and_writes_nothing(vault: Path) -> None:
    before = snapshot(vault)
    out = run(vault, "adopt", "--dry-run").output
    assert "People/Ann.md: id: " in out and "type: person" in out
    assert "People/Bo.md: id: " in out
    assert "Ideas/Hives.md" in out
    assert "would get an id written" in out
    assert snapshot(vault) == before
    assert records(vault)["People/Ann.md"]["origin"] == "vault"


def test_apply_writes_ids_in_one_folder_and_the_records_follow(vault: Path) -> None:
    hives = (vault / "Ideas/Hives.md").read_bytes()
    ann_id = records(vault)["People/Ann.md"]["id"]
    out = run(vault, "adopt", "People", "--apply").output
    assert "3 note(s) under People/ adopted" in out
    ann = frontmatter(vault / "People/Ann.md")
    assert ann["id"] == ann_id and ann["type"] == "person" and ann["name"] == "Ann"
    assert (vault / "People/Ann.md").read_text().endswith("---\nBeekeeper.\n")
    bo = (vault / "People/Bo.md").read_text()
    assert bo.startswith("---\ntype: person\nname: Bo\nid: ")  # only the id line added
    assert frontmatter(vault / "People/Plain.md")["type"] == "person"
    assert (vault / "Ideas/Hives.md").read_bytes() == hives
    recs = records(vault)
    assert recs["People/Ann.md"]["note_id"] == ann_id and "origin" not in recs["People/Ann.md"]
    assert recs["Ideas/Hives.md"]["origin"] == "vault"
    # nothing left to adopt there, and a rescan keeps one record per note
    assert "0 hand-made note(s) under People/" in run(vault, "adopt", "People").output
    run(vault, "reindex")
    people = run_json(vault, "db", "list", "person")
    assert sorted(p["path"] for p in people) == ["People/Ann.md", "People/Bo.md", "People/Plain.md"]
    # an adopted note is followed by its id when it moves
    (vault / "Archive").mkdir()
    (vault / "People/Ann.md").rename(vault / "Archive/Ann.md")
    run(vault, "reindex")
    assert records(vault).get("Archive/Ann.md", {}).get("id") == ann_id


def test_an_unreadable_note_is_skipped_not_written(vault: Path) -> None:
    run(vault, "adopt", "People", "--apply")
    note = vault / "Ideas/Hives.md"
    note.write_text("---\ntitle: [x\n---\n")
    out = run(vault, "adopt", "Ideas", "--apply")
    assert note.read_text() == "---\ntitle: [x\n---\n"
    assert "left as they were" in out.output


def test_no_such_folder_is_one_line(vault: Path) -> None:
    result = run(vault, "adopt", "Nope", ok=False)
    assert result.exit_code != 0 and "no folder Nope/" in result.output
