"""A collection's kept index (vaultbrain/store/snap.py): a fresh process takes it and reads on
from where it was kept, sees what other processes wrote since, and loads in full when the
snapshot is torn, foreign, or of an ``index.json`` replaced since."""

from __future__ import annotations

import json
from pathlib import Path

from vaultbrain.store import Store
from vaultbrain.store.snap import MIN_RECORDS

COUNT = MIN_RECORDS + 20


def imported(root: Path) -> None:
    store = Store(root)
    with store.bulk():
        people = store.collection("people")
        for i in range(COUNT):
            people.put({"id": f"p{i}", "type": "person", "title": f"Person {i}", "n": i})


def snap_of(root: Path) -> Path:
    return root / ".snap" / "people"


def loaded(root: Path) -> Store:
    """A fresh process's store, its people collection loaded."""
    store = Store(root)
    store.collection("people").ids()
    return store


def test_a_fresh_process_keeps_the_index_and_the_next_one_takes_it(tmp_path: Path) -> None:
    imported(tmp_path)
    loaded(tmp_path)
    kept = snap_of(tmp_path).stat().st_ino
    again = loaded(tmp_path).collection("people")
    assert snap_of(tmp_path).stat().st_ino == kept  # taken, not loaded in full and kept anew
    assert sorted(again.ids()) == sorted(f"p{i}" for i in range(COUNT))
    assert again.get("p7") == {"id": "p7", "type": "person", "title": "Person 7", "n": 7}


def test_writes_made_after_the_snapshot_are_read_on_top_of_it(tmp_path: Path) -> None:
    imported(tmp_path)
    loaded(tmp_path)
    kept = snap_of(tmp_path).stat().st_ino
    other = Store(tmp_path).collection("people")  # another process, after the snapshot
    other.put({"id": "p3", "type": "person", "title": "Renamed", "n": 3})
    other.put({"id": "new1", "type": "person", "title": "Newcomer"})
    other.tombstone("p4")
    people = loaded(tmp_path).collection("people")
    assert snap_of(tmp_path).stat().st_ino == kept
    assert people.summary("p3")["title"] == "Renamed"
    assert people.get("p3")["title"] == "Renamed"  # the pack line appended since
    assert people.summary("new1")["title"] == "Newcomer"
    assert people.summary("p4") is None
    assert len(people) == COUNT  # one gone, one new


def test_a_torn_or_foreign_snapshot_is_a_full_load(tmp_path: Path) -> None:
    imported(tmp_path)
    loaded(tmp_path)
    snap = snap_of(tmp_path)
    whole = snap.read_bytes()
    for bad in (whole[: len(whole) // 2], b"garbage", whole[:-1] + b"\x00", b""):
        snap.write_bytes(bad)
        people = Store(tmp_path).collection("people")
        assert sorted(people.ids()) == sorted(f"p{i}" for i in range(COUNT))
        assert snap.read_bytes() != bad  # (loaded in full, and kept anew)


def test_an_index_replaced_since_the_snapshot_is_not_taken(tmp_path: Path) -> None:
    imported(tmp_path)
    store = loaded(tmp_path)
    store.collection("people").compact()  # index.json written anew: a new file
    # what the kept snapshot says is now older than the files: it must not be taken
    folder = tmp_path / "people"
    doc = json.loads((folder / "index.json").read_text("utf-8"))
    doc["records"]["p1"]["title"] = "Changed by hand"
    (folder / "index.json").write_text(json.dumps(doc), "utf-8")
    people = Store(tmp_path).collection("people")
    assert people.summary("p1")["title"] == "Changed by hand"


def test_a_record_written_without_its_index_line_is_still_found(tmp_path: Path) -> None:
    """A writer killed between its record and its index line: the check for records the
    index does not name is made on top of a snapshot too."""
    imported(tmp_path)
    loaded(tmp_path)
    orphan = tmp_path / "people" / "orphan1"
    orphan.mkdir()
    (orphan / "index.json").write_text(
        json.dumps({"id": "orphan1", "type": "person", "title": "Orphan"}), "utf-8"
    )
    people = Store(tmp_path).collection("people")
    assert people.summary("orphan1")["title"] == "Orphan"
