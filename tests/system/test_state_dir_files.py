"""What a vault's state dir holds (issue 43): ``state.db`` (with its WAL files), the vault it
serves (``vault.json``), the graph and vector files and the logs, nothing else. The machine's
id, its settings, the LLM's and the embeddings' forms and the classification cache are
documents and a table of the database; a state dir of an earlier version that kept them in
files of their own beside it has them taken in once, and the files removed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lmstudio import FakeLMStudio, reply

from vaultbrain.machine import this_machine
from vaultbrain.store import Store, migrations

# Exactly what may sit in a state dir, at its top: the database and its WAL files, the record
# of the vault it serves (read for many state dirs at once, to find the one of a vault: a
# small file, not a database to open), the graph and vector indexes, the daemon's logs, and
# the locks a running daemon and digest hold (flock files: empty of state).
ALLOWED = {
    "state.db",
    "state.db-wal",
    "state.db-shm",
    "vault.json",
    "graph",
    "vectors",
    "logs",
    "daemon.lock",
    "digest.lock",
}
SIDE_FILES = (
    "settings.json",
    "machine.json",
    "llm-forms.json",
    "embedding-forms.json",
    "classify-cache.sqlite",
)


def idea_for(body: dict) -> str:
    if body.get("response_format", {}).get("json_schema", {}).get("name") != "brain_classification":
        return json.dumps({"summary": "n/a"})
    thought = json.loads(body["messages"][-1]["content"].split("\n", 1)[1])
    return reply([{"type": "idea", "title": thought[:60], "fields": {}}], 0.9)


def top_level(state: Path) -> set[str]:
    return {p.name for p in state.iterdir()}


def test_a_fresh_vault_s_state_dir_holds_the_database_and_nothing_of_its_own(
    vault: Path, lmstudio: FakeLMStudio, daemon
) -> None:
    lmstudio.responder = idea_for
    run(vault, "init")
    run(vault, "settings", "set", "second_opinion", "false")
    for thought in ("Idea: a bee hotel made of old bricks", "Idea: a rain barrel by the shed"):
        doc = run_json(vault, "capture", thought)
        assert doc["status"] == "filed" and doc["classified_by"] == "lmstudio:test-model"
    run(vault, "settings", "set", "llm_concurrency", "3")
    run(vault, "filer", "claim")
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Idea: solar lights on the path\n")
    d = daemon().start("--once")
    assert d.proc.wait(120) == 0, d.log.read_text()
    state = vault / ".vaultbrain"
    assert top_level(state) <= ALLOWED, sorted(top_level(state) - ALLOWED)
    assert "state.db" in top_level(state)
    # What used to be files of their own is in the database.
    store = Store(state)
    settings = store.read_json("settings.json")
    assert settings["llm_concurrency"] == 3
    machine = store.read_json("machine.json")
    assert machine["id"] == this_machine(state).id
    forms = store.read_json("llm-forms.json")["entries"]
    assert [e["form"] for e in forms.values()] == ["json_schema_strict"]
    cached = store.conn().execute("SELECT count(*) FROM classify_cache").fetchone()[0]
    assert cached >= 2, "each LLM answer is kept"
    got = json.loads(run(vault, "settings", "get", "--json", "--where").output)
    assert got["llm_concurrency"]["value"] == 3 and got["llm_concurrency"]["from"] == "state dir"


def _old_state_dir(state: Path, endpoint: str) -> None:
    """``state`` as the version before m004 left it: a database of m001..m003 and the files
    of their own beside it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:3])
        Store(state).close()
    (state / "machine.json").write_text(json.dumps({"id": "0ld5ta7e1d00", "host": "old-host"}))
    (state / "settings.json").write_text(json.dumps({"llm_concurrency": 5, "model": ""}))
    key = f"{endpoint.rstrip('/')} test-model"
    form = {"form": "json_schema", "server": "lmstudio", "rejected": {}, "checked": "x"}
    (state / "llm-forms.json").write_text(json.dumps({"version": 1, "entries": {key: form}}))
    embed = {"form": "openai_batch", "model": "embed-1", "dim": 8, "pooled": "server"}
    (state / "embedding-forms.json").write_text(
        json.dumps({"version": 1, "entries": {"somewhere embed-1": embed}})
    )
    old = sqlite3.connect(state / "classify-cache.sqlite")
    old.execute(
        "CREATE TABLE classifications (key TEXT PRIMARY KEY, pack TEXT NOT NULL, "
        "model TEXT NOT NULL, prompt_hash TEXT NOT NULL, result TEXT NOT NULL, "
        "audit TEXT NOT NULL, created REAL NOT NULL)"
    )
    old.execute("INSERT INTO classifications VALUES ('k1', 'pack', 'm', 'p', '{}', '{}', 1.0)")
    old.commit()
    old.close()


def test_an_old_state_dir_s_files_are_taken_in_once_and_removed(
    vault: Path, lmstudio: FakeLMStudio, monkeypatch: pytest.MonkeyPatch
) -> None:
    lmstudio.responder = idea_for
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    run(vault, "init")
    monkeypatch.delenv("VAULTBRAIN_PROVIDER")
    state = vault / ".vaultbrain"
    for name in ("state.db", "state.db-wal", "state.db-shm"):
        (state / name).unlink(missing_ok=True)
    _old_state_dir(state, lmstudio.url)
    assert set(SIDE_FILES) <= top_level(state)

    # The next command opens the store: every file is taken in, then gone.
    got = json.loads(run(vault, "settings", "get", "--json", "--where").output)
    assert got["llm_concurrency"]["value"] == 5 and got["llm_concurrency"]["from"] == "state dir"
    assert not set(SIDE_FILES) & top_level(state), sorted(top_level(state))
    assert top_level(state) <= ALLOWED
    assert "0ld5ta7e1d00 (old-host)" in run(vault, "filer", "claim").output  # the same machine
    doc = run_json(vault, "capture", "Idea: a bee hotel made of old bricks")
    assert doc["status"] == "filed" and doc["classified_by"] == "lmstudio:test-model"
    # The remembered form is asked straight away: no probing from the strictest form.
    asked = [r.get("response_format", {}).get("json_schema", {}) for r in lmstudio.requests]
    assert asked and not [a for a in asked if a.get("strict")], asked
    store = Store(state)
    assert store.read_json("embedding-forms.json")["entries"]["somewhere embed-1"]["dim"] == 8
    rows = store.conn().execute("SELECT key, created FROM classify_cache ORDER BY created")
    assert rows.fetchall()[0] == ("k1", 1.0)
    applied = [r[0] for r in store.conn().execute("SELECT name FROM _migrations ORDER BY name")]
    assert {"m004_classify_cache", "m005_tend_cards"} <= set(applied)
    store.close()

    # Once: a file of the same name written again later (by hand) is the later word for
    # settings, and a machine id never changes under the database's.
    (state / "machine.json").write_text(json.dumps({"id": "n3wmach1ne00", "host": "x"}))
    (state / "settings.json").write_text(json.dumps({"llm_concurrency": 2}))
    got = json.loads(run(vault, "settings", "get", "--json", "--where").output)
    assert got["llm_concurrency"]["value"] == 2
    assert this_machine(state).id == "0ld5ta7e1d00"
    assert not set(SIDE_FILES) & top_level(state)


def test_a_settings_file_that_is_not_json_is_left_and_said(vault: Path) -> None:
    run(vault, "init")
    state = vault / ".vaultbrain"
    (state / "settings.json").write_text("{not json")
    out = run(vault, "settings", "get", ok=False).output
    assert "settings.json is not valid JSON; fix or delete it" in out
    assert (state / "settings.json").read_text() == "{not json"
    (state / "settings.json").write_text('{"llm_concurrency": 4}')
    assert run(vault, "settings", "get", "llm_concurrency").output.strip() == "4"
    assert not (state / "settings.json").exists()
