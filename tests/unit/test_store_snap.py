"""A collection's kept index (vaultbrain/store/snap.py): a fresh process takes it and reads on
from where it was kept, sees what other processes wrote since, and loads in full when the
snapshot is torn, foreign, or of an ``index.json`` replaced since."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest

from vaultbrain.store import Store
from vaultbrain.store.snap import MIN_RECORDS

COUNT = MIN_RECORDS + 20


def imported(root: Path, count: int = COUNT) -> None:
    store = Store(root)
    with store.bulk():
        people = store.collection("people")
        for i in range(count):
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
        assert people.get("p7")["title"] == "Person 7"
        # Loaded in full and kept anew; or (a chunk found damaged as it was read) its rows
        # made again from the records, and the snapshot set aside for the next to keep anew.
        assert not snap.exists() or snap.read_bytes() != bad
        Store(tmp_path).collection("people").ids()
        assert snap.read_bytes() != bad


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


def test_a_snapshot_s_summaries_are_read_as_they_are_asked_for(tmp_path: Path) -> None:
    """A cold process reads the few summaries it asks for, not 10,000; which are tombstones
    is known without reading them; anything that needs them all reads them all."""
    from vaultbrain.store.snap import Summaries

    imported(tmp_path)
    Store(tmp_path).collection("people").tombstone("p5")
    loaded(tmp_path)  # (kept with the tombstone)
    people = Store(tmp_path).collection("people")
    assert people.summary("p7")["title"] == "Person 7"
    index = people._index
    assert isinstance(index, Summaries)
    assert index.raw_row("p7") is None  # read
    assert index.raw_row("p8") is not None  # not asked for: not read
    live = people.live_summaries()
    assert "p5" not in live and "p8" in live and len(live) == COUNT - 1
    assert index.raw_row("p8") is not None  # (told apart without reading a row)
    assert live["p8"]["title"] == "Person 8"
    # every summary, read: the same as a full load gives
    full = Store(tmp_path)
    (tmp_path / ".snap" / "people").unlink()
    assert people.snapshot() == full.collection("people").snapshot()


def test_a_snapshot_s_rows_are_kept_again_as_they_were(tmp_path: Path) -> None:
    """A process that keeps a new snapshot from one it took (enough written since) keeps the
    rows it never read as they were, and the ones it changed as they are now."""
    from vaultbrain.store import snap

    imported(tmp_path)
    loaded(tmp_path)
    people = Store(tmp_path).collection("people")
    people.summary("p1")
    people.put({"id": "p2", "type": "person", "title": "Changed", "n": 2})
    people._keep()  # (as when the log grew past what is worth reading on top of it)
    again = Store(tmp_path).collection("people")
    assert again.summary("p2")["title"] == "Changed"
    assert isinstance(again._index, snap.Summaries)  # (taken: the snapshot kept last)
    assert again.summary("p1")["title"] == "Person 1"
    assert again.summary("p9")["title"] == "Person 9"
    assert len(again) == COUNT


def test_a_pack_line_appended_since_the_snapshot_without_its_index_line_is_found(
    tmp_path: Path,
) -> None:
    """Loaded from a snapshot, the pack's lines read since it are checked against the index
    (the lines before were, when it was kept)."""
    imported(tmp_path)
    loaded(tmp_path)
    record = {"id": "late1", "type": "person", "title": "Late"}
    with open(tmp_path / "people" / "records.pack", "ab") as fh:
        fh.write(b"late1\t" + json.dumps(record).encode() + b"\n")
    people = Store(tmp_path).collection("people")
    assert people.summary("late1")["title"] == "Late"
    assert len(people) == COUNT + 1


def test_a_snapshot_compacted_from_unread_rows_writes_every_record(tmp_path: Path) -> None:
    imported(tmp_path)
    loaded(tmp_path)
    people = Store(tmp_path).collection("people")
    people.summary("p1")
    people.compact()
    doc = json.loads((tmp_path / "people" / "index.json").read_text("utf-8"))
    assert sorted(doc["records"]) == sorted(f"p{i}" for i in range(COUNT))
    assert doc["records"]["p9"]["title"] == "Person 9"


def test_a_chunk_damaged_after_the_snapshot_was_taken_is_made_again_from_the_records(
    tmp_path: Path,
) -> None:
    """The rows are read a chunk at a time, each checked as it is first read: a chunk a disk
    lost is found then. The summaries it held are made again from the records, the names it
    held looked up the long way, and the snapshot is set aside (the next process keeps one
    anew)."""
    from vaultbrain.store import snap as snapmod

    many = 2000  # (rows over a few chunks)
    imported(tmp_path, many)
    loaded(tmp_path)
    path = snap_of(tmp_path)
    people = Store(tmp_path).collection("people")
    people.summary("p0")  # taken (its first chunks read)
    data = bytearray(path.read_bytes())
    head = data.index(b" ", 8) + 1
    rows = head + 24 + int(data[head + 8 : head + 24], 16)  # (past the part read at once)
    lost = rows + snapmod._CHUNK + 100  # (in a chunk not read yet: p0's was, and is kept)
    assert len(data) > lost + 64
    data[lost : lost + 64] = b"\x00" * 64  # (the disk lost a block of the rows)
    path.write_bytes(bytes(data))  # (the same inode: what the open snapshot reads from)
    before = snapmod.damages()
    assert [people.summary(f"p{i}")["title"] for i in range(many)] == [
        f"Person {i}" for i in range(many)
    ]
    assert sorted(people.ids()) == sorted(f"p{i}" for i in range(many))
    assert snapmod.damages() == before + 1 and not path.exists()  # (set aside)
    assert people.kept_names() is None  # (its rows are not trusted any more)
    again = Store(tmp_path).collection("people")
    assert again.summary("p9")["title"] == "Person 9"
    assert path.exists()  # (kept anew by a full load)


def test_names_kept_in_a_damaged_snapshot_are_looked_up_the_long_way(vault: Path) -> None:
    from support.brains import new_brain

    from vaultbrain.filing.index import RecordIndex
    from vaultbrain.store import snap as snapmod

    brain = new_brain(vault)
    many = 2000
    with brain.store.bulk():
        people = brain.store.collection("people")
        for i in range(many):
            people.put(
                {"id": f"p{i}", "type": "person", "title": f"Person {i}", "path": f"People/P{i}.md"}
            )
    Store(brain.store.root).collection("people").ids()  # kept
    index = RecordIndex(Store(brain.store.root), brain.pack)
    assert index.store.collection("people").kept_names() is not None
    path = brain.store.root / ".snap" / "people"
    data = bytearray(path.read_bytes())
    data[-20000:] = b"\x00" * 20000  # (the paths' and names' rows, last in the file)
    path.write_bytes(bytes(data))
    before = snapmod.damages()
    assert index.find("person", "person 1999")["id"] == "p1999"
    assert index.by_path("People/P1998.md")[1]["id"] == "p1998"
    assert index.by_path("People/Nobody.md") is None
    assert snapmod.damages() == before + 1


def test_a_snapshot_whose_rows_point_outside_it_is_a_full_load(tmp_path: Path) -> None:
    """The large strings of bytes kept after the rest (read back as views of the file) are
    checked to lie within it."""
    from vaultbrain.store.snap import read_snap, write_snap

    path = tmp_path / "snap"
    write_snap(path, {"rows": b"x" * 10_000, "small": (b"y" * 5000, 3)})
    doc = read_snap(path)
    assert doc is not None
    assert doc["rows"].tobytes() == b"x" * 10_000 and doc["rows"][9_998:20_000] == b"xx"
    assert doc["small"][0].tobytes() == b"y" * 5000 and doc["small"][1] == 3
    data = path.read_bytes()
    # the same bytes, the blob's length made larger than the file: refused
    import binascii
    import marshal

    head = data[: data.index(b" ", 8) + 1]
    size = int(data[len(head) + 8 : len(head) + 24], 16)
    meta = marshal.loads(data[len(head) + 24 : len(head) + 24 + size])
    meta["rows"] = (meta["rows"][0], 0, 99_999)
    raw = marshal.dumps(meta)
    rest = data[len(head) + 24 + size :]
    path.write_bytes(head + b"%08x" % binascii.crc32(raw) + b"%016x" % len(raw) + raw + rest)
    assert read_snap(path) is None
    path.write_bytes(data + b"more")  # (grown since: not the file kept)
    assert read_snap(path) is None


def test_keyed_rows_find_each_key_s_values_as_a_table_would() -> None:
    """Rows found by bisection, its first steps among every 32nd row kept in memory: each
    key's values, for keys present (some many times, some prefixes of others) and absent,
    read from the rows as kept (and as a snapshot gives them back, chunk by chunk)."""
    from vaultbrain.store.snap import Blob, KeyedRows, pack_rows, read_snap, write_snap

    rng = random.Random(7)
    table: dict[str, list[str]] = {}
    for i in range(3000):
        key = rng.choice(["ann", "anna", "anne", "bo", "b", "zoë", "", "x" * 40]) + str(
            rng.randrange(400)
        )
        table.setdefault(key, []).append(f"id{i}")
    rows = [f"{k}\x00{v}".encode() for k, vs in table.items() for v in vs]
    packed, starts, sample = pack_rows(rows)
    plain, sampled = KeyedRows(packed, starts), KeyedRows(packed, starts, sample)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows"
        write_snap(path, {"rows": (packed, starts, sample)})
        kept = read_snap(path)
        assert kept is not None and isinstance(kept["rows"][0], Blob)
        chunked = KeyedRows(*kept["rows"])
        for key in [*table, "a", "ann", "zz", "anna3999", "\x7f"]:
            want = sorted(table.get(key, []))
            assert sorted(plain.values(key)) == want
            assert sorted(sampled.values(key)) == want
            assert sorted(chunked.values(key)) == want
    with pytest.raises(ValueError):
        KeyedRows(packed, starts, sample[:-1])  # (a sample of other rows)
