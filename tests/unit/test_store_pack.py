"""The records pack (vaultbrain/store/collection.py): what a bulk import writes as lines of
``records.pack`` reads back like a record of its own, from this process and a fresh one; a
record's own file wins once written; a drop is not undone by a repair; a torn or damaged
pack loses only its own bad line."""

from __future__ import annotations

import json
from pathlib import Path

from vaultbrain.store import Store


def imported(root: Path, count: int = 5) -> Store:
    store = Store(root)
    with store.bulk():
        people = store.collection("people")
        for i in range(count):
            people.put({"id": f"p{i}", "type": "person", "title": f"Person {i}", "n": i})
    return store


def test_a_bulk_import_writes_one_pack_and_no_record_folders(tmp_path: Path) -> None:
    imported(tmp_path)
    folder = tmp_path / "people"
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == []
    lines = (folder / "records.pack").read_text("utf-8").splitlines()
    assert [line.split("\t")[0] for line in lines] == [f"p{i}" for i in range(5)]
    assert json.loads(lines[2].split("\t", 1)[1])["title"] == "Person 2"


def test_packed_records_read_back_from_a_fresh_process(tmp_path: Path) -> None:
    imported(tmp_path)
    people = Store(tmp_path).collection("people")
    assert people.get("p3") == {"id": "p3", "type": "person", "title": "Person 3", "n": 3}
    assert sorted(people.ids()) == [f"p{i}" for i in range(5)]
    assert [r["n"] for r in sorted(people.all(), key=lambda r: r["n"])] == list(range(5))
    assert people.get("p9") is None


def test_held_records_are_read_before_they_are_appended(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with store.bulk():
        people = store.collection("people")
        people.put({"id": "p1", "title": "Held"})
        assert not (tmp_path / "people" / "records.pack").exists()
        assert people.get("p1")["title"] == "Held"
        people.put({"id": "p1", "title": "Held again"})
    assert Store(tmp_path).collection("people").get("p1")["title"] == "Held again"
    lines = (tmp_path / "people" / "records.pack").read_text("utf-8").splitlines()
    assert len(lines) == 1  # held once, the newer text won


def test_a_packed_record_stays_packed_and_the_newest_line_wins(tmp_path: Path) -> None:
    imported(tmp_path)
    people = Store(tmp_path).collection("people")
    other = Store(tmp_path).collection("people")
    assert other.get("p1")["title"] == "Person 1"  # (the other reader's table is made)
    rec = people.get("p1")
    rec["title"] = "Renamed"
    people.put(rec)
    assert not (tmp_path / "people" / "p1").exists()  # a line appended, no folder made
    assert other.get("p1")["title"] == "Renamed"
    assert Store(tmp_path).collection("people").get("p1")["title"] == "Renamed"
    people.tombstone("p2")
    assert other.get("p2") is None
    assert other.get("p2", include_deleted=True)["deleted"] is True
    ids = [x.split("\t")[0] for x in (tmp_path / "people" / "records.pack").read_text().split("\n")]
    assert ids.count("p1") == 2 and ids.count("p2") == 2


def test_a_record_with_its_own_file_keeps_it_in_bulk_mode(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.collection("people").put({"id": "q1", "title": "Made by a capture"})
    assert (tmp_path / "people" / "q1" / "index.json").is_file()
    with store.bulk():
        store.collection("people").put({"id": "q1", "title": "Imported again"})
    assert Store(tmp_path).collection("people").get("q1")["title"] == "Imported again"
    assert not (tmp_path / "people" / "records.pack").exists()  # its own file was written


def test_another_process_sees_the_pack_grow(tmp_path: Path) -> None:
    imported(tmp_path, 2)
    reader = Store(tmp_path).collection("people")
    assert reader.get("p1")["n"] == 1
    store = Store(tmp_path)
    with store.bulk():
        store.collection("people").put({"id": "p7", "title": "Later", "n": 7})
    assert reader.get("p7")["n"] == 7
    assert sorted(reader.ids()) == ["p0", "p1", "p7"]


def test_a_torn_last_line_is_not_read(tmp_path: Path) -> None:
    imported(tmp_path, 2)
    with open(tmp_path / "people" / "records.pack", "a", encoding="utf-8") as fh:
        fh.write('p5\t{"id":"p5","ti')  # a writer killed mid-line
    people = Store(tmp_path).collection("people")
    assert people.get("p5") is None
    assert people.get("p0")["n"] == 0


def test_a_dropped_packed_record_stays_dropped_through_a_repair(tmp_path: Path) -> None:
    imported(tmp_path)
    people = Store(tmp_path).collection("people")
    people.drop("p2")
    assert people.get("p2", include_deleted=True) is None
    folder = tmp_path / "people"
    for name in ("index.json", "index.log.jsonl"):
        (folder / name).unlink(missing_ok=True)  # the index lost: rebuilt from the records
    fresh = Store(tmp_path).collection("people")
    assert sorted(fresh.ids()) == ["p0", "p1", "p3", "p4"]
    assert fresh.get("p2", include_deleted=True) is None


def test_an_emptied_index_is_rebuilt_from_the_pack(tmp_path: Path) -> None:
    imported(tmp_path)
    folder = tmp_path / "people"
    (folder / "index.log.jsonl").unlink(missing_ok=True)
    (folder / "index.json").write_text('{"schema_version":1,"records":{}}')  # emptied
    people = Store(tmp_path).collection("people")
    assert sorted(people.ids()) == [f"p{i}" for i in range(5)]
    assert people.summary("p4")["title"] == "Person 4"


def test_a_crash_between_pack_and_index_is_repaired(tmp_path: Path) -> None:
    """A bulk writer killed after its records' lines and before their index lines: the next
    reader finds records the index does not name and rebuilds it from them."""
    imported(tmp_path, 2)
    with open(tmp_path / "people" / "records.pack", "a", encoding="utf-8") as fh:
        fh.write('p8\t{"id":"p8","title":"Unindexed"}\n')
    people = Store(tmp_path).collection("people")
    assert sorted(people.ids()) == ["p0", "p1", "p8"]


def test_a_replaced_pack_is_read_afresh(tmp_path: Path) -> None:
    imported(tmp_path, 3)
    reader = Store(tmp_path).collection("people")
    assert reader.get("p2")["n"] == 2
    pack = tmp_path / "people" / "records.pack"
    lines = pack.read_text("utf-8").splitlines()
    changed = lines[2].replace('"n":2', '"n":20')
    tmp = pack.with_name("new.pack")
    tmp.write_text("\n".join([*lines[:2], changed]) + "\n", "utf-8")
    tmp.replace(pack)  # another inode: what a restore or a compaction would leave
    assert reader.get("p2")["n"] == 20


def test_an_append_after_a_torn_line_starts_a_line_of_its_own(tmp_path: Path) -> None:
    imported(tmp_path, 2)
    with open(tmp_path / "people" / "records.pack", "a", encoding="utf-8") as fh:
        fh.write('p1\t{"id":"p1","title":"torn')  # p1's newer line, cut by a crash
    store = Store(tmp_path)
    with store.bulk():
        store.collection("people").put({"id": "p6", "title": "After", "n": 6})
    people = Store(tmp_path).collection("people")
    assert people.get("p6")["n"] == 6
    assert people.get("p1")["n"] == 1  # the torn line does not hide the whole one before it


def test_a_full_disk_in_bulk_mode_writes_no_index_line_for_a_record_not_written(
    tmp_path: Path, monkeypatch
) -> None:
    """The pack append fails (ENOSPC at the write seam every store write goes through):
    the import stops with the error, no index line names a record that is not in the pack,
    and the records are still held, so freeing the disk and flushing again writes them."""
    import errno
    import os

    import pytest

    from vaultbrain.errors import StorageError
    from vaultbrain.vault import atomic

    imported(tmp_path, 2)
    full = {"on": False}
    real = atomic._os_write

    def write(fd: int, data: bytes) -> int:
        if full["on"]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(atomic, "_os_write", write)
    store = Store(tmp_path)
    with pytest.raises(StorageError):
        with store.bulk():
            people = store.collection("people")
            for i in range(10, 13):
                people.put({"id": f"p{i}", "title": f"Person {i}", "n": i})
            full["on"] = True
    fresh = Store(tmp_path).collection("people")
    assert sorted(fresh.ids()) == ["p0", "p1"]  # nothing named that is not there
    assert people.get("p11")["n"] == 11  # still held in this process
    full["on"] = False
    people.flush(final=True)
    assert sorted(Store(tmp_path).collection("people").ids()) == [
        "p0", "p1", "p10", "p11", "p12"
    ]  # fmt: skip
