"""The store's contract, for the file-backed store (``state.db``) and its in-memory twin
(``Store.memory()``) alike, as tests/contract/test_vault_contract.py holds the vault to one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from vaultbrain.errors import UserError
from vaultbrain.store import Store


@pytest.fixture(params=["file", "memory"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """A function giving a store; called twice on "file", two stores on one state dir (as
    two processes would have); on "memory", the same store again."""
    if request.param == "memory":
        store = Store.memory()
        return lambda: store
    return lambda: Store(tmp_path / "state")


def test_put_get_tombstone_drop(make_store: Callable[[], Store]) -> None:
    people = make_store().collection("people")
    people.put({"id": "p1", "type": "person", "title": "Sarah", "path": "People/Sarah.md"})
    assert people.get("p1") == {
        "id": "p1",
        "type": "person",
        "title": "Sarah",
        "path": "People/Sarah.md",
    }
    assert people.summary("p1") == {
        "id": "p1",
        "type": "person",
        "title": "Sarah",
        "path": "People/Sarah.md",
    }
    people.tombstone("p1", reason="gone")
    assert people.get("p1") is None
    assert people.get("p1", include_deleted=True)["reason"] == "gone"
    assert people.summary("p1") is None
    assert people.summary("p1", include_deleted=True)["deleted"] is True
    assert list(people.summaries()) == []
    assert [s["id"] for s in people.summaries(include_deleted=True)] == ["p1"]
    people.drop("p1")
    assert people.get("p1", include_deleted=True) is None
    assert people.tombstone("p1") is None


def test_bad_ids_are_refused(make_store: Callable[[], Store]) -> None:
    col = make_store().collection("people")
    for bad in ("..", "a/b", "__proto__", "", "a b"):
        with pytest.raises(UserError):
            col.put({"id": bad})
    with pytest.raises(UserError):
        make_store().collection("../x")


def test_lookups_of_many(make_store: Callable[[], Store]) -> None:
    col = make_store().collection("ideas")
    for i in range(1200):
        col.put({"id": f"i{i}", "title": f"Idea {i}", "deleted": i % 3 == 0})
    got = col.get_many([f"i{i}" for i in range(1200)] + ["nope"])
    assert sorted(got) == sorted(f"i{i}" for i in range(1200) if i % 3)
    assert col.summaries_of(["i1", "i3", "nope"]) == {
        "i1": {"id": "i1", "title": "Idea 1", "deleted": False},
        "i3": None,
        "nope": None,
    }
    assert len(col) == 800 and len(col.live_summaries()) == 800
    assert len(col.snapshot()) == 1200
    assert sorted(col.ids()) == sorted(f"i{i}" for i in range(1200) if i % 3)
    assert len(list(col.all())) == 800 and len(list(col.all(include_deleted=True))) == 1200


def test_another_store_on_the_same_state_sees_each_change(make_store: Callable[[], Store]) -> None:
    a, b = make_store().collection("ideas"), make_store().collection("ideas")
    assert len(b) == 0
    version = b.version()
    for i in range(12):
        a.put({"id": f"i{i}", "title": f"Idea {i}"})
    assert len(b) == 12
    assert b.version() != version and b.version() == a.disk_version()
    assert b.ids_changed_since(version) == [f"i{i}" for i in range(12)]
    a.drop("i3")
    assert b.summary("i3") is None and len(b) == 11
    assert b.ids_changed_since(b.version()) == []
    assert b.ids_changed_since("not a version") is None


def test_the_change_feed_names_what_changed_since_a_mark(make_store: Callable[[], Store]) -> None:
    col = make_store().collection("people")
    col.put({"id": "a", "title": "A"})
    mark, ids = col.changes_since(None)
    assert ids is None  # no mark yet: look at everything
    col.put({"id": "b", "title": "B"})
    col.put({"id": "a", "title": "A2"})
    mark, ids = col.changes_since(mark)
    assert ids == ["b", "a"]
    other = make_store().collection("people")
    other.put({"id": "c", "title": "C"})
    other.drop("b")
    mark, ids = col.changes_since(mark)
    assert ids == ["c", "b"]
    assert col.summary("b") is None and col.summary("c")["title"] == "C"
    assert col.changes_since(mark)[1] == []
    assert col.changes_since_now() == mark


def test_logs_documents_and_the_audit_trail(make_store: Callable[[], Store]) -> None:
    store = make_store()
    store.audit({"kind": "classification", "n": 1})
    store.append_jsonl("audit.jsonl", {"kind": "adopt", "n": 2})
    store.append_jsonl("digests.jsonl", {"n": 3})
    again = make_store()
    assert [e["n"] for e in again.read_jsonl("audit.jsonl")] == [1, 2]
    assert [e["n"] for e in again.read_jsonl("digests.jsonl")] == [3]
    assert list(again.read_jsonl("nothing.jsonl")) == []
    mark, entries = again.read_jsonl_since("audit.jsonl", None)
    assert entries is None
    store.audit({"n": 4})
    mark, entries = again.read_jsonl_since("audit.jsonl", mark)
    assert entries == [{"n": 4}]
    assert again.read_json("meta.json", {"none": 1}) == {"none": 1}
    assert again.json_stamp("meta.json") is None
    store.write_json("meta.json", {"a": [1, "é"]})
    stamp = again.json_stamp("meta.json")
    assert again.read_json("meta.json") == {"a": [1, "é"]} and stamp is not None
    store.write_json("meta.json", {"a": 2})
    assert again.json_stamp("meta.json") != stamp
    store.replace_jsonl("queue.jsonl", [{"x": 1}, {"x": 2}])
    assert again.has_entries("queue.jsonl") and again.log_head("queue.jsonl") > 0
    store.replace_jsonl("queue.jsonl", [])
    assert not again.has_entries("queue.jsonl")


def test_bulk_writes_are_all_there_after_it(make_store: Callable[[], Store]) -> None:
    store = make_store()
    col = store.collection("ideas")
    with store.bulk():
        for i in range(3000):
            col.put({"id": f"i{i}", "title": f"Idea {i}"})
            store.audit({"n": i})
        store.settle()
        assert make_store().collection("ideas").summary("i2999") is not None
        col.put({"id": "last"})
    other = make_store()
    assert len(other.collection("ideas")) == 3001
    assert sum(1 for _ in other.read_jsonl("audit.jsonl")) == 3000


def test_locked_is_reentrant_and_excludes_other_threads(make_store: Callable[[], Store]) -> None:
    store = make_store()
    col = store.collection("ideas")
    order: list[str] = []
    with store.locked():
        with store.locked():
            col.put({"id": "a"})

        def other() -> None:
            with store.locked():
                order.append("other")

        t = threading.Thread(target=other)
        t.start()
        t.join(0.3)
        order.append("first")
    t.join(5)
    assert order == ["first", "other"]
    assert make_store().collection("ideas").get("a") == {"id": "a"}


def test_threads_write_at_once_and_lose_nothing(make_store: Callable[[], Store]) -> None:
    store = make_store()

    def writer(n: int) -> None:
        col = store.collection("ideas")
        for i in range(50):
            col.put({"id": f"t{n}-{i}"})
            store.audit({"t": n, "i": i})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(make_store().collection("ideas")) == 200
    assert sum(1 for _ in make_store().read_jsonl("audit.jsonl")) == 200


def test_the_database_is_sound(make_store: Callable[[], Store]) -> None:
    store = make_store()
    store.inbox.put({"id": "c1"})
    assert store.quick_check() == []
