"""The notes cache's file (vaultbrain/filing/scan.py): columns written, entries read back as
they were, a version-2 file still read, a damaged one read as none; and a warm scan that
finds nothing changed makes no entry of it."""

from __future__ import annotations

import os
from pathlib import Path

from support.brains import new_brain

from vaultbrain.filing.scan import CACHE_FILE, _as_columns, _Columns
from vaultbrain.filing.sync import notes_sync


def test_entries_round_trip_through_the_columns() -> None:
    cache = {
        "People/Ann.md": [10, 20, "a" * 64, 30, 40, 50, 1],
        "People/Bo.md": [11, 21, "b" * 64, 31, 41, 51],  # no record flag known yet
        "Ideas/Old.md": [12, 22, "c" * 64],  # an entry an older version wrote
        "Ideas/Zero.md": [13, 0, "d" * 64, 33, 43, 53, 0],
    }
    columns = _Columns.read(_as_columns(cache))
    assert columns is not None
    back = columns.entries()
    assert back["People/Ann.md"] == cache["People/Ann.md"]
    assert back["People/Bo.md"] == cache["People/Bo.md"]
    assert back["Ideas/Old.md"] == [12, 22, "c" * 64, 0]  # seen at 0: hashed again
    assert back["Ideas/Zero.md"] == cache["Ideas/Zero.md"]


def test_a_damaged_file_is_no_cache() -> None:
    doc = _as_columns({"A.md": [1, 2, "h", 3, 4, 5, 1]})
    assert _Columns.read({**doc, "numbers": "not base64!"}) is None
    assert _Columns.read({**doc, "paths": ["A.md", "B.md"]}) is None
    assert _Columns.read({"paths": [], "hashes": []}) is None


def test_a_warm_scan_reads_the_columns_and_makes_no_entry(vault: Path) -> None:
    from vaultbrain.filing.sync import reindex

    brain = new_brain(vault)
    (vault / "People").mkdir(exist_ok=True)
    for i in range(5):
        note = vault / f"People/P{i}.md"
        note.write_text(f"---\nname: P{i}\n---\n")
        os.utime(note, (1_700_000_000, 1_700_000_000))  # not "racily clean": not hashed again
    reindex(brain)
    doc = brain.store.read_json(CACHE_FILE)
    assert doc["version"] == 3 and len(doc["paths"]) == len(doc["hashes"]) >= 5
    again = new_brain(vault)
    sync = notes_sync(again)
    report = sync.scan()
    assert report.read == 0 and report.unchanged >= 5
    assert sync._cache is None and sync._columns is not None  # nothing was made of it
    assert "People/P3.md" in sync.cache  # asked for: made then
    # a version-2 file (an older vaultbrain's) is read as it was
    old = {"version": 2, "pack": doc["pack"], "notes": sync.cache}
    again.store.write_json(CACHE_FILE, old)
    third = notes_sync(new_brain(vault))
    third.load_cache()
    assert third.cache == sync.cache
