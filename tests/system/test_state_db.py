"""The state dir of a vault as the person sees it: one database (``state.db``), what else
lives beside it, ``db export`` of its records, and ``doctor`` reading its health."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.store import Store


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "capture", "Met with Sarah Okafor about the garden budget")
    run(root, "capture", "Idea: a bee hotel made of old bricks")
    return root


def test_a_fresh_vault_s_state_dir_after_two_captures(vault: Path) -> None:
    state = vault / ".vaultbrain"
    files = sorted(p.relative_to(state).as_posix() for p in state.rglob("*") if p.is_file())
    store_files = {"state.db", "state.db-wal", "state.db-shm"}
    # No file of the old store: no record folder, no pack, index log, snapshot or lock.
    for name in files:
        assert not name.endswith((".jsonl", ".pack", ".snap", ".lock")), files
        assert "/index.json" not in name and not name.startswith(".snap"), files
    assert "state.db" in files
    # What is not the store's (named in README): the vault it serves, the graph and vector
    # indexes, logs; the machine's id, settings and LLM caches are in the database.
    others = {n.split("/")[0] for n in files} - store_files
    assert others <= {"graph", "vectors", "vault.json", "logs"}, others
    # Caches of bytes and the shared own writes are in the database (migration m003_blobs).
    assert not {"classifier", "packs-cache", "own-writes.json", "store.token"} & others, others
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(state / "state.db").st_mode) == 0o600


def test_db_export_writes_each_record_as_a_file(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    done = run_json(vault, "db", "export", str(out))
    store = Store(vault / ".vaultbrain")
    expected = {
        (name, rec["id"]): rec
        for name in store.collections()
        for rec in store.collection(name).all(include_deleted=True)
    }
    assert done["records"] == len(expected) >= 4  # two captures and what they filed
    written = {
        (p.parent.parent.name, p.parent.name): json.loads(p.read_text("utf-8"))
        for p in out.glob("*/*/index.json")
    }
    assert written == expected
    assert "inside the vault" in run(vault, "db", "export", str(vault / "x"), ok=False).output


def doctor_check(vault: Path, name: str) -> dict:
    checks = json.loads(run(vault, "doctor", "--json", ok=False).output)
    return next(c for c in checks if c["check"] == name)


def test_doctor_reads_the_database_s_health_and_says_what_to_do(vault: Path) -> None:
    check = doctor_check(vault, "state database")
    assert check["ok"] and "quick_check ok" in check["detail"]
    store = Store(vault / ".vaultbrain")
    with store.bulk():
        for i in range(400):
            store.collection("ideas").put({"id": f"pad{i}", "title": "x" * 500})
    store.close()
    db = vault / ".vaultbrain" / "state.db"
    assert not (vault / ".vaultbrain" / "state.db-wal").exists()  # (folded in at close)
    data = bytearray(db.read_bytes())
    page = 4096
    for at in range(page * 3, len(data) - page, page * 7):  # every seventh page garbled
        data[at + 8 : at + 400] = b"\xa5" * 392
    db.write_bytes(bytes(data))
    check = doctor_check(vault, "state database")
    assert not check["ok"], check
    assert "damaged" in check["detail"] and "reindex" in check["detail"]
    assert "Traceback" not in run(vault, "doctor", ok=False).output
