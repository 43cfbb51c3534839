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


@pytest.mark.parametrize(
    "line",
    [
        b'{"op":"put","id":"p1","summary":null}',
        b'{"op":"put","id":"p1"}',
        b'{"op":"put","id":5,"summary":{"id":5}}',
        b"[1, 2]",
        b"\x00\x00\x00\x00",
        b'{"op":"put","id":"p1","summ',
    ],
    ids=["summary null", "no summary", "id not text", "a list", "zeros", "cut"],
)
def test_a_damaged_log_line_is_skipped_then_set_aside(tmp_path: Path, line: bytes) -> None:
    """A line of the index log that is not an entry (a crash tore it, a power cut left
    zeros, a hand edit) is skipped by every reader, the index comes from the records, and
    the next write sets the line aside in index.log.jsonl.damaged, beside the log."""
    running = Store(tmp_path).collection("people")
    for i in range(3):
        running.put({"id": f"p{i}", "type": "person", "title": f"Person {i}"})
    log = tmp_path / "people" / "index.log.jsonl"
    with open(log, "ab") as fh:
        fh.write(line + b"\n")
    want = {"p0": "Person 0", "p1": "Person 1", "p2": "Person 2"}
    assert {s["id"]: s["title"] for s in running.summaries()} == want
    fresh = Store(tmp_path).collection("people")
    assert {s["id"]: s["title"] for s in fresh.summaries()} == want
    assert fresh.damaged_lines() == 1

    fresh.put({"id": "p3", "type": "person", "title": "Ann"})
    assert (tmp_path / "people" / "index.log.jsonl.damaged").read_bytes() == line + b"\n"
    assert fresh.damaged_lines() == 0
    later = Store(tmp_path).collection("people")
    assert {s["id"]: s["title"] for s in later.summaries()} == {**want, "p3": "Ann"}
    assert {s["id"] for s in running.summaries()} == {*want, "p3"}


def test_a_line_torn_at_the_end_does_not_swallow_the_next_write(tmp_path: Path) -> None:
    """A crash mid-append leaves a line without its newline: the next write (under the
    store's lock, so no writer is mid-line) starts on a line of its own, and is not lost."""
    col = Store(tmp_path).collection("people")
    col.put({"id": "p0", "type": "person", "title": "Sarah"})
    log = tmp_path / "people" / "index.log.jsonl"
    with open(log, "ab") as fh:
        fh.write(b'{"op":"put","id":"p0","summary":{"id":"p0","ti')
    fresh = Store(tmp_path).collection("people")
    fresh.put({"id": "p1", "type": "person", "title": "Tom"})
    later = Store(tmp_path).collection("people")
    assert {s["id"]: s["title"] for s in later.summaries()} == {"p0": "Sarah", "p1": "Tom"}
    fresh.compact()
    kept = (tmp_path / "people" / "index.log.jsonl.damaged").read_bytes()
    assert kept == b'{"op":"put","id":"p0","summary":{"id":"p0","ti\n'
