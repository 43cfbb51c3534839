from __future__ import annotations

from pathlib import Path

import pytest

from vaultbrain.errors import UserError
from vaultbrain.store import Store, validate_id
from vaultbrain.store import collection as collection_mod


@pytest.mark.parametrize(
    "bad", ["..", "../x", "a/b", "__proto__", "constructor", "", "a b", "x" * 200, ".hidden"]
)
def test_bad_ids_are_refused(bad: str) -> None:
    with pytest.raises(UserError):
        validate_id(bad)


def test_put_get_tombstone(tmp_path: Path) -> None:
    store = Store(tmp_path)
    people = store.collection("people")
    people.put({"id": "p1", "type": "person", "title": "Sarah"})
    assert people.get("p1")["title"] == "Sarah"
    assert (tmp_path / "people" / "p1" / "index.json").is_file()
    people.tombstone("p1")
    assert people.get("p1") is None
    assert people.get("p1", include_deleted=True)["deleted"] is True
    assert [s["id"] for s in people.summaries()] == []


def test_other_process_sees_changes_and_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collection_mod, "_COMPACT_EVERY", 5)
    a = Store(tmp_path).collection("ideas")
    b = Store(tmp_path).collection("ideas")
    assert len(b) == 0
    for i in range(12):
        a.put({"id": f"i{i}", "type": "idea", "title": f"Idea {i}"})
    assert len(b) == 12  # b read a's log tail, across a compaction
    assert (tmp_path / "ideas" / "index.json").is_file()
    fresh = Store(tmp_path).collection("ideas")
    assert sorted(fresh.ids()) == sorted(f"i{i}" for i in range(12))


def test_torn_log_line_is_skipped(tmp_path: Path) -> None:
    col = Store(tmp_path).collection("people")
    col.put({"id": "p1", "title": "A"})
    with open(tmp_path / "people" / "index.log.jsonl", "a") as fh:
        fh.write('{"op": "put", "id": "p2", "summ')
    assert Store(tmp_path).collection("people").ids() == ["p1"]


def test_jsonl_sidecars(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append_jsonl("audit.jsonl", {"a": 1})
    store.append_jsonl("audit.jsonl", {"a": 2})
    assert [e["a"] for e in store.read_jsonl("audit.jsonl")] == [1, 2]


def test_the_change_feed_names_what_changed_since_a_mark(tmp_path: Path) -> None:
    store = Store(tmp_path)
    col = store.collection("people")
    col.put({"id": "a", "title": "A"})
    mark, ids = col.changes_since(None)
    assert ids is None  # no mark yet: look at everything
    col.put({"id": "b", "title": "B"})
    col.put({"id": "a", "title": "A2"})
    mark, ids = col.changes_since(mark)
    assert ids == ["b", "a"]
    other = Store(tmp_path).collection("people")  # another process
    other.put({"id": "c", "title": "C"})
    other.drop("b")
    mark, ids = col.changes_since(mark)
    assert ids == ["c", "b"]
    assert col.summary("b") is None and col.summary("c")["title"] == "C"
    mark, ids = col.changes_since(mark)
    assert ids == []
    other.compact()  # the index read afresh by this process: the feed starts over
    _, ids = col.changes_since(mark)
    assert ids is None
