"""A collection's index files damaged under a running process (vaultbrain/store/collection.py):
emptied, cut mid-line or deleted, the index is rebuilt from the record files (the truth) on
the next look, and written back whole by the next write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultbrain.store import Store


def _damage(folder: Path, how: str) -> None:
    for name in ("index.json", "index.log.jsonl"):
        f = folder / name
        if not f.is_file():
            continue
        if how == "emptied":
            f.write_text("" if name.endswith(".jsonl") else '{"records": {}}')
        elif how == "cut":
            data = f.read_bytes()
            f.write_bytes(data[: len(data) // 2])
        else:
            f.unlink()


@pytest.mark.parametrize("how", ["emptied", "cut", "deleted"])
@pytest.mark.parametrize("compacted", [False, True], ids=["log only", "index.json too"])
def test_a_damaged_index_is_rebuilt_from_the_records(
    tmp_path: Path, how: str, compacted: bool
) -> None:
    running = Store(tmp_path).collection("people")
    for i in range(6):
        running.put({"id": f"p{i}", "type": "person", "title": f"Person {i}"})
    running.put({"id": "p0", "type": "person", "title": "Sarah Smith"})
    if compacted:
        running.compact()
        running.put({"id": "p6", "type": "person", "title": "Tom"})
    want = {s["id"]: s["title"] for s in running.summaries()}
    _damage(tmp_path / "people", how)

    # The process that was running, and one started afterwards, both see every record.
    assert {s["id"]: s["title"] for s in running.summaries()} == want
    fresh = Store(tmp_path).collection("people")
    assert {s["id"]: s["title"] for s in fresh.summaries()} == want

    running.put({"id": "p9", "type": "person", "title": "Ann"})
    doc = json.loads((tmp_path / "people" / "index.json").read_text())
    assert {k: v["title"] for k, v in doc["records"].items()} == {**want, "p9": "Ann"}
    later = Store(tmp_path).collection("people")
    assert {s["id"]: s["title"] for s in later.summaries()} == {**want, "p9": "Ann"}
    assert {s["id"] for s in fresh.summaries()} == set(want) | {"p9"}
