"""`adopt` on a note whose `id:` is the person's own (issue 44): the id stays as they wrote
it, only what else the note needs (`type:`) is written, the record keeps its own id in the
store and follows the note by path and content. The CLI runs as a subprocess on a real
vault: the dry run says so, --apply writes exactly what it said, a second adopt proposes
nothing, and moving the note, editing its body or its `id:` keeps the same record and
writes nothing into it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.forking import one_thread  # noqa: F401 (the fixture)

ANN = "---\nid: backend/api/dto-design\nname: Ann\n---\nBeekeeper.\n"  # not an id we could use
CY = "---\nid: translations-1\ntype: person\nname: Cy\n---\nFirst.\n"
DEE = "---\nid: translations-1\nname: Dee\n---\nSecond.\n"  # one id for two notes, on purpose
EVE = "---\nname: Eve\n---\n"


def vb(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done


def vb_json(vault: Path, *args: str) -> Any:
    return json.loads(vb(vault, *args, "--json").stdout)


def notes(vault: Path) -> dict[str, bytes]:
    """The person's notes (not vaultbrain's own: Inbox.md, Brain/, its state)."""
    out = {}
    for path in vault.rglob("*.md"):
        rel = path.relative_to(vault).as_posix()
        if rel != "Inbox.md" and not rel.startswith(("Brain/", ".")):
            out[rel] = path.read_bytes()
    return out


def people(vault: Path) -> dict[str, dict[str, Any]]:
    """Every person record by its note's path, as the store holds it."""
    from vaultbrain.brain import Brain

    app = Brain(vault)
    col = app.store.collection(app.pack.get_type("person").store_collection)
    return {rec["path"]: rec for rec in col.all()}


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    root.mkdir()
    vb(root, "init")
    (root / "People/Ann.md").write_text(ANN)
    (root / "People/Cy.md").write_text(CY)
    vb(root, "reindex")  # (Cy first: the id is theirs, and the record's)
    (root / "People/Dee.md").write_text(DEE)
    (root / "People/Eve.md").write_text(EVE)
    vb(root, "reindex")
    return root


def test_a_note_keeps_its_own_id_and_is_adopted(vault: Path) -> None:
    before = notes(vault)
    recs = people(vault)
    ann_id, dee_id = recs["People/Ann.md"]["id"], recs["People/Dee.md"]["id"]
    assert recs["People/Ann.md"]["origin"] == "vault" and ann_id != "backend/api/dto-design"
    assert recs["People/Dee.md"]["origin"] == "vault" and dee_id != "translations-1"
    assert recs["People/Cy.md"]["id"] == "translations-1"  # (its own id, usable: not adopted)

    # the dry run: no conflict, no id written into a note that has one of its own
    out = vb(vault, "adopt", "--dry-run").stdout
    lines = {line.split(":", 1)[0]: line for line in out.splitlines() if line.startswith("People/")}
    assert lines["People/Ann.md"] == (
        "People/Ann.md: type: person (add), its own id: backend/api/dto-design kept"
    )
    assert lines["People/Dee.md"] == (
        "People/Dee.md: type: person (add), its own id: translations-1 kept"
    )
    assert lines["People/Eve.md"].startswith(f"People/Eve.md: id: {recs['People/Eve.md']['id']}")
    assert "People/Cy.md" not in lines and "conflict" not in out
    assert "3 hand-made note(s) would get an id written (2 keep their own id: instead)" in out
    planned = {a["path"]: a for a in vb_json(vault, "adopt", "--dry-run")}
    assert planned["People/Ann.md"]["changes"] == {"type": "person"}
    assert planned["People/Ann.md"]["own_id"] == "backend/api/dto-design"
    assert notes(vault) == before

    # --apply writes exactly what the dry run listed
    done = vb_json(vault, "adopt", "--apply")
    assert sorted(a["path"] for a in done["adopted"]) == sorted(planned)
    assert not done["problems"]
    after = notes(vault)
    assert {rel for rel in after if after[rel] != before[rel]} == set(planned)
    assert after["People/Ann.md"] == (ANN.replace("---\nBee", "type: person\n---\nBee")).encode()
    assert after["People/Dee.md"] == (DEE.replace("---\nSec", "type: person\n---\nSec")).encode()
    assert after["People/Cy.md"] == CY.encode()
    recs = people(vault)
    ann = recs["People/Ann.md"]
    assert ann["id"] == ann_id and ann["note_id"] == "backend/api/dto-design"
    assert "origin" not in ann
    assert recs["People/Dee.md"]["id"] == dee_id and "origin" not in recs["People/Dee.md"]
    assert recs["People/Dee.md"]["note_id"] == "translations-1"

    # adopted: a second adopt proposes nothing, and a rescan or the daemon writes nothing
    again = vb(vault, "adopt", "--dry-run").stdout
    assert "People/" not in again and "0 hand-made note(s) would get an id written" in again
    vb(vault, "reindex")
    vb(vault, "daemon", "--once")
    assert notes(vault) == after
    assert len(people(vault)) == 4


def test_the_adopted_record_follows_a_move_an_edit_and_a_new_id(vault: Path) -> None:
    vb(vault, "adopt", "--apply")
    ann_id = people(vault)["People/Ann.md"]["id"]
    adopted = (vault / "People/Ann.md").read_text()

    # moved and renamed: the record follows by content
    (vault / "People/Team").mkdir()
    (vault / "People/Ann.md").rename(vault / "People/Team/Ann Smith.md")
    vb(vault, "reindex")
    recs = people(vault)
    assert recs["People/Team/Ann Smith.md"]["id"] == ann_id and "People/Ann.md" not in recs

    # its body edited: the record follows by path, and nothing is written into the note
    note = vault / "People/Team/Ann Smith.md"
    edited = adopted.replace("Beekeeper.\n", "Beekeeper. Keeps six hives.\n")
    note.write_text(edited)
    vb(vault, "reindex")
    rec = people(vault)["People/Team/Ann Smith.md"]
    assert rec["id"] == ann_id and "origin" not in rec
    assert note.read_text() == edited

    # their own id: edited too: it is their property, not the record's identity
    renamed = edited.replace("id: backend/api/dto-design", "id: backend/api/dto-v2")
    note.write_text(renamed)
    vb(vault, "reindex")
    vb(vault, "daemon", "--once")
    recs = people(vault)
    rec = recs["People/Team/Ann Smith.md"]
    assert rec["id"] == ann_id and rec["note_id"] == "backend/api/dto-v2"
    assert note.read_text() == renamed
    assert len(recs) == 4  # (no second record, nothing tombstoned in its place)
    assert "People/Team/Ann Smith.md" not in vb(vault, "adopt", "--dry-run").stdout

    # re-filed by moving it into another type's folder: the same record, of that type,
    # its `id:` still the person's (the record's id is never taken from it)
    (vault / "Projects").mkdir(exist_ok=True)
    note.rename(vault / "Projects/Ann Smith.md")
    vb(vault, "reindex")
    projects = {p["path"]: p for p in vb_json(vault, "db", "list", "project")}
    moved = projects["Projects/Ann Smith.md"]
    assert moved["id"] == ann_id and moved["note_id"] == "backend/api/dto-v2"
    assert "People/Team/Ann Smith.md" not in people(vault)
    assert renamed.replace("type: person", "type: project") == (
        (vault / "Projects/Ann Smith.md").read_text()
    )


def test_a_note_sharing_its_id_with_another_is_followed_when_moved(vault: Path) -> None:
    """Two notes with one id on purpose (Cy's record has it; Dee's is known by path and
    content): Dee moved, then edited, is still Dee's record, and Cy's is untouched."""
    vb(vault, "adopt", "--apply")
    recs = people(vault)
    dee_id, cy = recs["People/Dee.md"]["id"], recs["People/Cy.md"]
    dee = (vault / "People/Dee.md").read_text()
    (vault / "People/Team").mkdir()
    (vault / "People/Dee.md").rename(vault / "People/Team/Dee.md")
    vb(vault, "reindex")
    edited = dee.replace("Second.", "Second, revised.")
    (vault / "People/Team/Dee.md").write_text(edited)
    vb(vault, "reindex")
    recs = people(vault)
    assert recs["People/Team/Dee.md"]["id"] == dee_id and "People/Dee.md" not in recs
    assert recs["People/Team/Dee.md"]["note_id"] == "translations-1"
    assert recs["People/Cy.md"]["id"] == cy["id"] == "translations-1"
    assert len(recs) == 4
    assert (vault / "People/Team/Dee.md").read_text() == edited
    assert (vault / "People/Cy.md").read_text() == CY


@pytest.mark.usefixtures("one_thread")
def test_writer_processes_keep_their_own_ids_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big adoption's batches written by writer processes (vaultbrain/filing/writers.py):
    the notes with an id of their own come back adopted as in one process, their ids kept."""
    import vaultbrain.filing.writers as writers
    from vaultbrain.brain import Brain
    from vaultbrain.filing.adopt import apply

    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    root.mkdir()
    vb(root, "init")
    for i in range(12):
        own = f"id: api/{i}\n" if i % 2 else ""  # (a slash: never usable as a record id)
        (root / f"People/P{i:02d}.md").write_text(f"---\n{own}name: P{i}\n---\nBody {i}.\n")
    vb(root, "reindex")
    ids = {rel: r["id"] for rel, r in people(root).items()}
    made: list[int] = []
    real = writers.start

    def counted(*args: Any, **kwargs: Any) -> Any:
        team = real(*args, **kwargs)
        made.append(0 if team is None else len(team))
        return team

    monkeypatch.setattr(writers, "start", counted)
    done = apply(Brain(root), batch=3, processes=2)
    assert made == [2] and not done.problems and len(done.done) == 12
    kept = {a.path: a.own_id for a in done.done if a.own_id is not None}
    assert kept == {f"People/P{i:02d}.md": f"api/{i}" for i in range(1, 12, 2)}
    recs = people(root)
    for i in range(12):
        rel = f"People/P{i:02d}.md"
        text = (root / rel).read_text()
        assert recs[rel]["id"] == ids[rel] and "origin" not in recs[rel]
        if i % 2:
            assert text == f"---\nid: api/{i}\nname: P{i}\ntype: person\n---\nBody {i}.\n"
            assert recs[rel]["note_id"] == f"api/{i}"
        else:
            assert text == f"---\nname: P{i}\nid: {ids[rel]}\ntype: person\n---\nBody {i}.\n"
    again = vb_json(root, "reindex")
    assert again["read"] == 0 and again["created"] == 0, again
