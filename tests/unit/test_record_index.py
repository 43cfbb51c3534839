"""The record index (vaultbrain/filing/index.py): lookups by name, alias, path, id and content
hash over the store's collections, kept in step with other processes' writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.filing.index import RecordIndex, collections_of, records
from vaultbrain.store import Store


def _rec(rid: str, type_: str, title: str, path: str, **kw: object) -> dict:
    return {"id": rid, "type": type_, "title": title, "path": path, **kw}


@pytest.fixture
def brain(vault: Path) -> Brain:
    brain = new_brain(vault)
    people = brain.store.collection("people")
    people.put(_rec("p1", "person", "Ann Lee", "People/Ann Lee.md", aliases=["Annie", "A. Lee"]))
    people.put(_rec("p2", "person", "Bo Chan", "People/Bo Chan.md", base_hash="h-bo"))
    brain.store.collection("ideas").put(_rec("i1", "idea", "Ann Lee", "Ideas/Ann Lee.md"))
    return brain


_LOADED = [False]


@pytest.fixture(autouse=True, params=["asked of the store", "loaded"])
def _mode(request: pytest.FixtureRequest) -> None:
    """Each test twice: an index that asks the store question by question (a cold capture),
    and one with every summary loaded (a scan, the daemon)."""
    _LOADED[0] = request.param == "loaded"


def _index(brain: Brain) -> RecordIndex:
    index = RecordIndex(brain.store, brain.pack)
    return index.load() if _LOADED[0] else index


def test_the_collections_are_the_packs_each_once(brain: Brain) -> None:
    names = collections_of(brain.pack)
    assert names == list(dict.fromkeys(t.store_collection for t in brain.pack.types))
    assert _index(brain).collections == names


def test_find_by_name_in_any_case(brain: Brain) -> None:
    index = _index(brain)
    for asked in ("Ann Lee", "ann lee", "  ANN LEE "):
        assert index.find("person", asked)["id"] == "p1"


def test_find_by_alias_in_any_case(brain: Brain) -> None:
    index = _index(brain)
    assert index.find("person", "annie")["id"] == "p1"
    assert index.find("person", "A. LEE")["id"] == "p1"


def test_find_keeps_to_the_type_asked(brain: Brain) -> None:
    index = _index(brain)
    assert index.find("idea", "ann lee")["id"] == "i1"
    assert index.find("project", "Ann Lee") is None
    assert index.find("spaceship", "Ann Lee") is None
    assert index.find("person", "Cy") is None


def test_by_path_in_any_case(brain: Brain) -> None:
    index = _index(brain)
    collection, summary = index.by_path("people/ann lee.md")
    assert (collection, summary["id"]) == ("people", "p1")
    assert index.by_path("People/Nobody.md") is None


def test_by_id(brain: Brain) -> None:
    index = _index(brain)
    assert index.by_id("i1")[0] == "ideas"
    assert index.by_id("p2")[1]["title"] == "Bo Chan"
    assert index.by_id("nope") is None


def test_by_hash(brain: Brain) -> None:
    index = _index(brain)
    assert [(c, s["id"]) for c, s in index.by_hash("h-bo")] == [("people", "p2")]
    assert index.by_hash("h-none") == []
    # Learnt after the hash table was built: found too.
    brain.store.collection("ideas").put(
        _rec("i2", "idea", "Copy", "Ideas/Copy.md", base_hash="h-bo")
    )
    index.refresh(force=True)
    assert sorted(s["id"] for _, s in index.by_hash("h-bo")) == ["i2", "p2"]


def test_tombstones_are_not_records(brain: Brain) -> None:
    brain.store.collection("people").tombstone("p2")
    index = _index(brain)
    assert index.by_id("p2") is None and index.find("person", "Bo Chan") is None
    assert len(index) == 2


def test_refresh_sees_what_another_process_wrote(brain: Brain) -> None:
    index = _index(brain)
    index.find("person", "x")  # names learnt before the other process writes
    other = Store(brain.vault.state_dir)  # another process's store: its own handles and log
    other.collection("people").put(_rec("p3", "person", "Cy Diaz", "People/Cy Diaz.md"))
    renamed = _rec("p1", "person", "Ann Stone", "People/Ann Stone.md", aliases=["Annie"])
    other.collection("people").put(renamed)
    other.collection("ideas").tombstone("i1")
    index.refresh(force=True)
    assert index.find("person", "cy diaz")["id"] == "p3"
    assert index.find("person", "ann stone")["id"] == "p1"
    assert index.find("person", "ann lee") is None  # the old name is forgotten
    assert index.find("person", "annie")["id"] == "p1"
    assert index.by_path("People/Ann Lee.md") is None
    assert index.by_path("People/Ann Stone.md")[1]["id"] == "p1"
    assert index.by_id("i1") is None and index.find("idea", "Ann Lee") is None


def test_names_learnt_late_include_other_processes_writes(brain: Brain) -> None:
    index = _index(brain)  # no name asked for yet: only paths and ids are learnt
    Store(brain.vault.state_dir).collection("people").put(
        _rec("p3", "person", "Cy Diaz", "People/Cy Diaz.md", aliases=["Cyd"])
    )
    index.refresh(force=True)
    assert index.find("person", "CYD")["id"] == "p3"


def test_our_own_writes_update_the_lookup_directly(brain: Brain) -> None:
    index = _index(brain)
    rec = _rec("p4", "person", "Di Evans", "People/Di Evans.md")
    brain.store.collection("people").put(rec)
    index.upsert("people", rec)
    assert index.find("person", "di evans")["id"] == "p4"
    brain.store.collection("people").tombstone("p4")
    index.remove("people", "p4")
    assert index.find("person", "di evans") is None and index.by_id("p4") is None


def test_mentioned_finds_names_and_aliases_in_a_text(brain: Brain) -> None:
    index = _index(brain)
    found = index.mentioned("Lunch with annie and Bo Chan, then nothing else.")
    assert [s["id"] for s in found] == ["p1", "p2"]
    assert len(index.mentioned("Ann Lee and Bo Chan", limit=1)) == 1


def test_the_brains_index_is_one_and_refreshes_with_the_brain(vault: Path) -> None:
    ours = new_brain(vault)
    index = records(ours)
    assert records(ours) is index
    Brain(vault).store.collection("people").put(_rec("p9", "person", "Ed", "People/Ed.md"))
    ours.refresh()
    assert records(ours) is index and index.find("person", "ed")["id"] == "p9"


def _people(brain: Brain, count: int) -> None:
    """``count`` people imported in bulk."""
    with brain.store.bulk():
        people = brain.store.collection("people")
        for i in range(count):
            people.put(_rec(f"p{i}", "person", f"Person {i}", f"People/Person {i}.md"))


def test_names_and_paths_another_process_changed_are_found(vault: Path) -> None:
    """A fresh process finds the names and paths of records imported, and of the records
    another process changed since, tombstones left out."""
    brain = new_brain(vault)
    _people(brain, 300)
    other = Store(brain.store.root).collection("people")  # another process, since
    other.put(_rec("p3", "person", "Grace Hopper", "People/Grace Hopper.md", aliases=["Amazing"]))
    other.tombstone("p4")
    other.put(_rec("p900", "person", "New", "People/New.md"))
    index = RecordIndex(Store(brain.store.root), brain.pack)
    titles = [s["title"] for s in index.mentioned("Grace Hopper met Person 5 and Person 4")]
    assert titles == ["Grace Hopper", "Person 5"]
    assert index.find("person", "person 3") is None  # renamed since
    assert index.find("person", "amazing")["id"] == "p3"
    assert index.find("person", "PERSON 7")["id"] == "p7"
    assert index.by_path("people/person 7.MD")[1]["id"] == "p7"  # any case
    assert index.by_path("People/Grace Hopper.md")[1]["id"] == "p3"
    assert index.by_path("People/Person 3.md") is None  # its old path
    assert index.by_path("People/Person 4.md") is None  # a tombstone
    assert index.by_path("People/New.md")[1]["id"] == "p900"
    assert index.by_path("Ideas/Nothing.md") is None
    # Our own writes are seen the same way.
    moved = _rec("p8", "person", "Person 8", "People/Moved 8.md")
    index.store.collection("people").put(moved)
    index.upsert("people", moved)
    assert index.by_path("People/Moved 8.md")[1]["id"] == "p8"
    assert index.by_path("People/Person 8.md") is None


def test_refresh_looks_at_the_records_another_process_changed_only(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's writes are learnt from the collection's change feed: the records it
    names, not every summary read again."""
    brain = new_brain(vault)
    _people(brain, 300)
    index = RecordIndex(Store(brain.store.root), brain.pack).load()  # (every summary kept)
    other = Store(brain.store.root).collection("people")
    other.put(_rec("p3", "person", "Grace Hopper", "People/Grace Hopper.md"))
    other.tombstone("p4")
    other.put(_rec("p901", "person", "Newcomer", "People/Newcomer.md"))
    col = index.store.collection("people")
    monkeypatch.setattr(col, "live_summaries", lambda: pytest.fail("every summary read"))
    index.refresh(force=True)
    assert index.find("person", "grace hopper")["id"] == "p3"
    assert index.find("person", "person 3") is None
    assert index.get("people", "p4") is None
    assert index.find("person", "newcomer")["id"] == "p901"
    assert len(index) == 300


def test_what_one_process_wrote_to_the_inbox_another_knows_from_the_store(
    tmp_path: Path,
) -> None:
    """The inbox's last writer is shared through the store (no file of its own): another
    process sees the note is as vaultbrain left it, and an edit since makes it the person's."""
    root = tmp_path / "Vault"
    one = new_brain(root)
    one.vault.edit(one.inbox_rel, lambda note: (note.text if note else "") + "- a thought\n")
    other = Brain(root)
    assert other.vault.last_written_by_vaultbrain(other.inbox_rel)
    assert not (other.state_dir / "own-writes.json").exists()
    with open(root / other.inbox_rel, "a", encoding="utf-8") as fh:
        fh.write("- the person's own line\n")
    assert not Brain(root).vault.last_written_by_vaultbrain(other.inbox_rel)
