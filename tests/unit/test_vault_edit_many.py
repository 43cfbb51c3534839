"""Vault.edit_many (vaultbrain/vault/batch.py): many notes, each compare-and-swap as
Vault.edit, one flush to disk; a note that changes after it was read is built again from
what it holds now, never overwritten from the stale copy."""

from __future__ import annotations

from pathlib import Path

from vaultbrain.errors import UserError
from vaultbrain.vault.files import Vault


def _vault(tmp_path: Path, n: int) -> Vault:
    root = tmp_path / "V"
    (root / "Notes").mkdir(parents=True)
    for i in range(n):
        (root / f"Notes/N{i}.md").write_text(f"---\ntitle: N{i}\n---\nbody {i}\n")
    return Vault(root, tmp_path / "state")


def test_each_note_is_built_and_written_once(tmp_path: Path) -> None:
    vault = _vault(tmp_path, 6)
    rels = [f"Notes/N{i}.md" for i in range(6)] + ["Notes/Missing.md"]
    seen: list[str] = []

    def build(rel: str, note):  # type: ignore[no-untyped-def]
        seen.append(rel)
        if note is None or rel == "Notes/N5.md":
            return None  # nothing to write (a missing note is not created)
        return note.text.replace("---\nbody", "id: x\n---\nbody", 1)

    out = vault.edit_many(rels, build, workers=3)
    assert seen == rels
    for i in range(5):
        edit = out[f"Notes/N{i}.md"]
        assert not isinstance(edit, UserError) and edit.written
        text = (vault.root / f"Notes/N{i}.md").read_text()
        assert text == f"---\ntitle: N{i}\nid: x\n---\nbody {i}\n"
        assert edit.after is not None and edit.after.text == text and edit.after.hash == edit.hash
    assert not out["Notes/N5.md"].written and not out["Notes/Missing.md"].written
    assert not (vault.root / "Notes/Missing.md").exists()
    assert not [p for p in (vault.root / "Notes").iterdir() if p.name.startswith(".vb-tmp")]


def test_a_note_changed_after_it_was_read_is_built_again(tmp_path: Path) -> None:
    vault = _vault(tmp_path, 3)
    first = vault.root / "Notes/N0.md"
    calls: list[str] = []

    def build(rel: str, note):  # type: ignore[no-untyped-def]
        calls.append(rel)
        if rel == "Notes/N2.md":
            # the person saves N0 while the batch is being prepared (after N0 was read)
            first.write_text("---\ntitle: N0\n---\nthe person's new line\n")
        return note.text + "added\n"

    out = vault.edit_many([f"Notes/N{i}.md" for i in range(3)], build, workers=2)
    assert calls.count("Notes/N0.md") == 2  # built again from what the note holds now
    assert first.read_text() == "---\ntitle: N0\n---\nthe person's new line\nadded\n"
    assert all(out[f"Notes/N{i}.md"].written for i in range(3))


def test_notes_of_several_folders_are_each_written_once(tmp_path: Path) -> None:
    """(temp files of different folders are made side by side)"""
    root = tmp_path / "V"
    rels = []
    for folder in ("A", "B", "C/D"):
        (root / folder).mkdir(parents=True)
        for i in range(4):
            (root / folder / f"N{i}.md").write_text(f"---\ntitle: {folder}{i}\n---\n")
            rels.append(f"{folder}/N{i}.md")
    vault = Vault(root, tmp_path / "state")
    seen: list[str] = []

    def build(rel: str, note):  # type: ignore[no-untyped-def]
        seen.append(rel)
        return note.text.replace("\n---\n", "\nid: x\n---\n", 1)

    out = vault.edit_many(rels, build, workers=4)
    assert seen == rels  # built in the order given, once each
    for rel in rels:
        edit = out[rel]
        assert not isinstance(edit, UserError) and edit.written
        text = (root / rel).read_text()
        assert text.endswith("\nid: x\n---\n")
        assert edit.after is not None and edit.after.text == text
        assert edit.after.size == (root / rel).stat().st_size
    assert not [p for p in root.rglob(".vb-tmp*")]
