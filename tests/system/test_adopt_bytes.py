"""`adopt --apply` writes only its lines: every byte of the person's note outside the added
lines stays as it was, and each record it leaves is the one a first reindex of the adopted
vault makes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from support.cli import run

from vaultbrain.brain import Brain

ODD = {
    "People/Ann.md": (
        "---\n# met at the fair\nname:   'Ann'   \naliases: [Annie, \"A. B.\"]\n"
        "tags:\n    - bees\n    - 'honey'\nnote: |\n  two lines\n  kept\nrole:\n---\nBody.\n"
    ),
    "People/Bo.md": "---\r\nname: Bo\r\ntype: person\r\n---\r\nCRLF body.\r\n",
    "People/Cy.md": "\ufeff---\nname: Cy\nid:\n---\n",
    "People/Di.md": "---\nname: Di\nborn: 1990-02-03\nscore: 7\n---\nno newline at the end",
}


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    for rel, text in ODD.items():
        (root / rel).write_bytes(text.encode())
    for i in range(30):  # (more than one batch's folder, and notes of another folder)
        (root / f"People/P{i}.md").write_text(f"---\nname: P{i}\n---\n")
        (root / "Ideas").mkdir(exist_ok=True)
        (root / f"Ideas/I{i}.md").write_text(f"---\ntitle: I{i}\n---\n")
    run(root, "reindex")
    return root


def _records(vault: Path) -> dict[str, dict[str, Any]]:
    app = Brain(vault)
    out = {}
    for t in app.all_types():
        for rec in app.store.collection(t.store_collection).all():
            out[rec["path"]] = rec
    return out


def test_only_the_added_lines_are_new(vault: Path) -> None:
    from vaultbrain.filing.adopt import apply

    done = apply(Brain(vault), batch=7)
    assert len(done.done) == 64 and not done.problems
    for rel, text in ODD.items():
        nl = "\r\n" if "\r\n" in text else "\n"
        before = text.split(nl)
        after = (vault / rel).read_bytes().decode().split(nl)
        added = [x for x in after if x.startswith(("id: ", "type: ")) and x not in before]
        assert [x for x in after if x not in added] == [x for x in before if x != "id:"], rel
        assert len([x for x in after if x.startswith("id: ")]) == 1
    assert "type: person" in (vault / "People/Bo.md").read_text()


def test_the_records_are_what_a_first_reindex_of_the_adopted_vault_makes(vault: Path) -> None:
    from vaultbrain.filing.adopt import apply

    apply(Brain(vault), batch=7)
    adopted = _records(vault)
    shutil.rmtree(Brain(vault).state_dir)
    run(vault, "reindex")
    fresh = _records(vault)
    assert set(adopted) == set(fresh) and len(adopted) == 64
    assert all(rec.get("note_id") == rec["id"] for rec in adopted.values())
    volatile = {"created", "updated"}  # (when each record was made)
    for rel, rec in adopted.items():
        mine = {k: v for k, v in rec.items() if k not in volatile}
        theirs = {k: v for k, v in fresh[rel].items() if k not in volatile}
        assert mine == theirs, rel
