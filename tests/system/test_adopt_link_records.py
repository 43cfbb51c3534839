"""One record per path, one path per record: doctor reports two records on one note, and
``db delete`` of the stale one refuses rather than trash the note the other one is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lived_in import lived_in

from vaultbrain.brain import Brain


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    lived_in(root)
    run(root, "init")
    return root


def doctor(vault: Path) -> tuple[int, dict[str, dict]]:
    result = run(vault, "doctor", "--json", ok=False)
    return result.exit_code, {c["check"]: c for c in json.loads(result.output)}


def test_two_records_on_one_path_are_reported_and_not_deleted_blindly(vault: Path) -> None:
    live = run_json(vault, "db", "add", "person", "--set", "name=Ann Lee")
    code, checks = doctor(vault)
    assert checks["records"]["ok"], checks["records"]
    # A stale record left on the same note (as `cp A.md B.md` once left behind).
    brain = Brain(vault)
    collection = brain.pack.get_type("person").store_collection
    stale = dict(brain.store.collection(collection).get(live["id"]), id="stale0000001")
    brain.store.collection(collection).put(stale)

    code, checks = doctor(vault)
    found = checks["records"]
    assert code == 1 and not found["ok"] and found["level"] == "error"
    assert "People/Ann Lee.md" in found["detail"] and "stale0000001" in found["detail"]
    assert live["id"] in found["detail"]

    before = (vault / "People/Ann Lee.md").read_bytes()
    result = run(vault, "db", "delete", "person", "stale0000001", ok=False)
    assert result.exit_code != 0
    assert live["id"] in result.output and "doctor" in result.output
    assert (vault / "People/Ann Lee.md").read_bytes() == before
    assert run_json(vault, "db", "show", "person", "stale0000001")["path"] == "People/Ann Lee.md"


def test_a_record_alone_on_its_path_is_deleted(vault: Path) -> None:
    rec = run_json(vault, "db", "add", "person", "--set", "name=Bo Chen")
    run(vault, "db", "delete", "person", rec["id"])
    assert not (vault / "People/Bo Chen.md").exists()
