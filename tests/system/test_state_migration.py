"""State dirs made by the file store (vaultbrain up to ede95fa, kept as fixtures by
tests/fixtures/statedirs/make.py) are imported into ``state.db`` once, by the migration
``m002_import_files``: every record, capture, audit entry, log entry and document is there
afterwards, the old files are set aside in ``pre-sqlite/`` only then, and a daemon on the
migrated state dir files a burst of lines, each exactly once."""

from __future__ import annotations

import json
import re
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli import run, run_json
from support.daemon import wait_for

from vaultbrain.store import Store
from vaultbrain.store.legacy import ASIDE

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statedirs"
NAMES = ["fresh", "damaged", "second", "adopt5000"]


def unpack(name: str, where: Path) -> tuple[Path, dict[str, Any]]:
    with tarfile.open(FIXTURES / f"{name}.tar.gz") as tar:
        tar.extractall(where, filter="data")
    expected = json.loads((where / "expected.json").read_text("utf-8"))
    return where / "Vault", expected


@pytest.mark.parametrize("name", NAMES)
def test_each_fixture_is_imported_whole_then_set_aside(tmp_path: Path, name: str) -> None:
    vault, expected = unpack(name, tmp_path)
    state = vault / ".vaultbrain"
    old = sorted(p.name for p in state.iterdir())
    store = Store(state)
    for collection, records in expected["records"].items():
        col = store.collection(collection)
        got = {r["id"]: r for r in col.all(include_deleted=True)}
        assert got == records, collection
        for rid, rec in records.items():
            assert col.summary(rid, include_deleted=True) is not None
            assert col.get(rid, include_deleted=True) == rec
    if name != "adopt5000":  # (an adoption captures nothing)
        assert expected["records"]["inbox"], "the fixture holds captures"
    else:
        assert sum(len(r) for r in expected["records"].values()) == 5000
    for log, entries in expected["logs"].items():
        assert list(store.read_jsonl(log)) == entries, log
    assert expected["logs"]["audit.jsonl"], "the fixture holds an audit trail"
    # Set aside only once read back: every file the file store made is in pre-sqlite/.
    left = sorted(p.name for p in state.iterdir())
    assert "state.db" in left and ASIDE in left
    for gone in ("audit.jsonl", "inbox", "store.lock", "names.snap", "notes-cache.json"):
        if gone in old:
            assert gone not in left and (state / ASIDE / gone).exists(), gone
    assert not [n for n in left if n.endswith(".jsonl") or n in expected["records"]]
    store.close()
    # Applied once: a second open imports nothing again.
    again = Store(state)
    assert list(again.read_jsonl("audit.jsonl")) == expected["logs"]["audit.jsonl"]
    rows = again.conn().execute("SELECT name FROM _migrations ORDER BY name").fetchall()
    assert [r[0] for r in rows] == [
        "m001_initial",
        "m002_import_files",
        "m003_blobs",
        "m004_classify_cache",
        "m005_tend_cards",
        "m006_record_names",
    ]


def test_a_torn_line_of_the_old_store_is_skipped_and_the_rest_imported(tmp_path: Path) -> None:
    vault, expected = unpack("damaged", tmp_path)
    state = vault / ".vaultbrain"
    assert (state / "audit.jsonl").read_bytes().endswith(b'"id":"tor')
    assert (state / "inbox" / "index.log.jsonl").read_bytes().endswith(b"torn-by-a-cra")
    store = Store(state)
    assert sorted(store.inbox.ids()) == sorted(expected["records"]["inbox"])
    assert len(list(store.read_jsonl("audit.jsonl"))) == len(expected["logs"]["audit.jsonl"])


def test_an_import_that_does_not_read_back_moves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A difference on read-back rolls the import back: the old files stay where they were
    and the next open tries again."""
    from vaultbrain.errors import StorageError
    from vaultbrain.store import legacy

    vault, expected = unpack("fresh", tmp_path)
    state = vault / ".vaultbrain"
    monkeypatch.setattr(legacy, "read_back", lambda *a: "the audit trail")
    with pytest.raises(StorageError, match="did not read back whole"):
        Store(state).inbox.ids()
    assert (state / "audit.jsonl").is_file() and (state / "inbox").is_dir()
    assert not (state / ASIDE).exists()
    monkeypatch.undo()
    assert sorted(Store(state).inbox.ids()) == sorted(expected["records"]["inbox"])


def test_a_migrated_vault_lists_its_captures(tmp_path: Path) -> None:
    vault, expected = unpack("second", tmp_path)
    listed = run_json(vault, "inbox")
    assert sorted(c["id"] for c in listed) == sorted(expected["records"]["inbox"])
    out = run(vault, "doctor", ok=False).output
    assert "state database" in out and "sound" in out


@pytest.mark.timeout(900)
def test_a_migrated_state_dir_used_by_the_daemon_loses_and_duplicates_nothing(
    tmp_path: Path, daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    vault, expected = unpack("fresh", tmp_path)
    for key, value in (("inbox_settle_seconds", "0.2"), ("inbox_idle_seconds", "0.3")):
        run(vault, "settings", "set", key, value)
    d = daemon(vault).start()
    d.wait_ready(60)
    count = 1000
    inbox = vault / "Inbox.md"
    with open(inbox, "a", encoding="utf-8") as fh:
        for i in range(count):
            fh.write(f"- Idea: burst thought number {i}\n")
            if i % 50 == 49:
                fh.flush()
                time.sleep(0.05)

    def taken() -> list[str]:
        text = inbox.read_text("utf-8")
        return [
            m.group(1)
            for line in text.splitlines()
            if "burst thought number" in line and (m := re.search(r"\^vb-([a-z0-9]+)$", line))
        ]

    wait_for(lambda: len(taken()) == count, 720, d.log)
    time.sleep(0.5)
    assert d.stop() == 0
    ids = taken()
    assert len(set(ids)) == count  # each line its own capture, none taken twice
    store = Store(vault / ".vaultbrain")
    texts = [store.inbox.get(i)["text"] for i in ids]
    assert sorted(texts) == sorted(f"Idea: burst thought number {i}" for i in range(count))
    for rid in expected["records"]["inbox"]:  # the captures from before the migration
        assert store.inbox.get(rid, include_deleted=True) is not None
    copies = sorted(str(p.relative_to(vault)) for p in vault.rglob("* (2).md"))
    assert not copies, copies
    text = inbox.read_text("utf-8")
    assert text.count("burst thought number") == count
