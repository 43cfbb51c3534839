"""The records' names kept in ``state.db`` (``record_names``, vaultbrain/store/namekeys.py)
and the name index of a process that does not watch the vault, which asks it key by key
(vaultbrain/filing/stored_names.py): for a generated vault of records and hand-made notes,
it answers every name, alias and first name as the full index a daemon keeps does."""

from __future__ import annotations

import json
import random
import sqlite3
import tarfile
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.filing import names
from vaultbrain.filing.db import add_record, delete_record
from vaultbrain.filing.sync import notes_sync
from vaultbrain.store import Store
from vaultbrain.store.namekeys import key_rows
from vaultbrain.store.records import summarize
from vaultbrain.vault.names import fold

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statedirs"
FIRST = ["Sam", "Ada", "Zoë", "Jean-Luc", "Miriam", "Ravi", "Ólafur", "Kim"]
LAST = ["Smith", "Jones", "Ångström", "O'Neil", "Picard", "Lee", "Park"]


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _generated(vault: Path) -> Brain:
    """People, projects and ideas as records (some with aliases, two Sams, accents), hand-made
    notes that are no records (aliases, ``name:``, a company), a template, a deleted record."""
    brain = new_brain(vault)
    rng = random.Random(43)
    for i, (first, last) in enumerate((f, la) for f in FIRST for la in LAST):
        values = {"name": f"{first} {last}"}
        if i % 3 == 0:
            values["aliases"] = f"{first[:3]}{i},Dr {last}"
        add_record(brain, "person", values)
    add_record(brain, "person", {"name": "Sam"})  # a one-word name beside the Sams
    for i in range(25):
        add_record(brain, "project", {"name": f"Project {rng.choice(LAST)} {i}"})
        add_record(brain, "idea", {"title": f"Idea about {rng.choice(FIRST)} number {i}"})
    gone = add_record(brain, "person", {"name": "Gone Person", "aliases": "Ghost"})
    delete_record(brain, "person", gone["id"])
    renamed = add_record(brain, "person", {"name": "Old Name", "aliases": "Was"})
    note = vault / renamed["path"]  # the person edits the aliases; the sync takes it in
    note.write_text(note.read_text("utf-8").replace("- Was", "- Renamed"), "utf-8")
    notes_sync(brain).sync_path(renamed["path"])
    _write(vault, "References/Sam Smith.md", "---\naliases: [Sammy]\n---\nthe other Sam\n")
    _write(vault, "CRM/Jane Doe.md", "---\nname: Janey D\naliases: [JD]\n---\n")
    _write(vault, "Companies/Acme Corp.md", "---\ntype: company\naliases: [Acme]\n---\n")
    _write(vault, "Notes/Zoë Ångström.md", "plain\n")
    _write(vault, "Templates/Person.md", "---\naliases: [Template person]\n---\n")
    _write(vault, "People/Hand Made.md", "---\ntype: person\naliases: [Handy]\n---\n")
    notes_sync(brain).sync_path("People/Hand Made.md")  # taken in as a record by the sync
    return brain


def renamed_path(brain: Brain) -> str:
    people = brain.store.collection("people").summaries()
    found = [s for s in people if "Renamed" in (s.get("aliases") or ())]
    return str(found[0]["path"])


def _questions(brain: Brain) -> tuple[set[str], set[str]]:
    """Every name, alias and first word the vault's notes and records have (and some none has)."""
    asked = {"nobody", "sammy", "acme", "jd", "janey d", "template person", "ghost", "old name"}
    for col in ("people", "projects", "ideas"):
        for s in brain.store.collection(col).summaries(include_deleted=True):
            asked |= {str(s.get("title")), *map(str, s.get("aliases") or ())}
            asked.add(str(s.get("path", "")).rsplit("/", 1)[-1][:-3])
    for path in brain.vault.root.rglob("*.md"):
        asked.add(path.stem)
    asked |= {n.upper() for n in asked} | {fold(n) for n in asked}
    firsts = {n.split()[0] for n in asked if n.split()} | {"sa", "z", "jean"}
    return asked, firsts


def test_the_stored_names_answer_as_the_full_index(vault: Path) -> None:
    brain = _generated(vault)
    daemon = Brain(vault)
    names.follow(daemon)  # a watching process keeps every name in memory
    full = names.note_names(daemon)
    capture = Brain(vault)  # (kept: the index reads a note's kind through it)
    cold = names.note_names(capture)  # a cold capture asks the store
    assert full.records is None and cold.records is not None
    assert len(cold.aliases) < len(full.aliases)  # (records' names are not loaded)
    asked, firsts = _questions(brain)
    assert len(asked) > 300
    for name in sorted(asked):
        assert cold.lookup(name) == full.lookup(name), name
    for word in sorted(firsts):
        assert cold.by_first_name(word) == full.by_first_name(word), word
    for rel in sorted({r for n in asked for r in full.lookup(n)}):
        assert cold.kind(rel) == full.kind(rel), rel
        assert cold.entry(rel) == full.entry(rel), rel
    # the cases the table is for
    assert len(cold.by_first_name("sam")) > 2  # two Sams and more: ambiguous, as before
    assert cold.lookup("ghost") == [] and cold.lookup("was") == []
    assert cold.lookup("renamed") == [renamed_path(brain)]
    assert cold.lookup("new name") == full.lookup("new name")
    assert cold.lookup("zoe angstrom") == full.lookup("zoe angstrom") != []
    assert cold.lookup("handy") == ["People/Hand Made.md"]


def test_a_record_note_gone_from_the_disk_is_no_name(vault: Path) -> None:
    brain = new_brain(vault)
    rec = add_record(brain, "person", {"name": "Lost Note", "aliases": "Lossy"})
    (vault / rec["path"]).unlink()
    assert names.note_names(Brain(vault)).lookup("lossy") == []
    names.follow(daemon := Brain(vault))
    assert names.note_names(daemon).lookup("lossy") == []


def test_the_names_table_is_written_with_the_record(vault: Path) -> None:
    brain = new_brain(vault)
    rec = add_record(brain, "person", {"name": "Ada Lovelace", "aliases": "Countess,ÉMILIE"})
    conn = brain.store.conn()
    rows = set(conn.execute("SELECT key, how FROM record_names WHERE id = ?", (rec["id"],)))
    assert rows == {("ada lovelace", "b"), ("countess", "b"), ("emilie", "f"), ("émilie", "l")}
    delete_record(brain, "person", rec["id"])  # a tombstone keeps its rows, not found by them
    assert names.note_names(Brain(vault)).lookup("countess") == []
    brain.store.collection("people").drop(rec["id"])
    assert conn.execute("SELECT count(*) FROM record_names").fetchone() == (0,)


def test_the_migration_keys_the_records_already_stored(vault: Path, tmp_path: Path) -> None:
    """A state.db made before m006 (its rows written by hand, as m001's schema holds them)
    gets every record's names when it is next opened."""
    from vaultbrain.store import migrations

    state = tmp_path / "state"
    state.mkdir()
    conn = sqlite3.connect(state / "state.db")
    before = [(n, f) for n, f in migrations.MIGRATIONS if n < "m006"]
    conn.isolation_level = None
    saved = list(migrations.MIGRATIONS)
    migrations.MIGRATIONS[:] = before
    try:
        migrations.migrate(conn, state)
    finally:
        migrations.MIGRATIONS[:] = saved
    summaries = [
        {"id": "p1", "type": "person", "title": "Sam Smith", "aliases": ["Sammy"]},
        {"id": "p2", "type": "person", "title": "Zoë  Ångström", "path": "People/Zoë.md"},
        {"id": "p3", "type": "person", "title": "Gone", "deleted": True},
    ]
    for seq, s in enumerate(summaries, 1):
        text = json.dumps(s)
        conn.execute(
            "INSERT INTO records VALUES ('people', ?, ?, ?, 'person', ?, ?, ?, ?)",
            (s["id"], text, text, s["title"], s.get("path"), int(bool(s.get("deleted"))), seq),
        )
    conn.close()
    store = Store(state)
    rows = store.conn().execute("SELECT key, id, how FROM record_names ORDER BY id, key")
    want = sorted((k, s["id"], h) for s in summaries for k, h in key_rows(s))
    assert sorted(rows) == want
    assert ("zoe angstrom", "p2", "f") in want and ("zoë  ångström", "p2", "l") in want
    assert ("m006_record_names",) in store.conn().execute("SELECT name FROM _migrations")


@pytest.mark.parametrize("fixture", ["fresh", "adopt5000", "second"])
def test_the_migration_on_the_kept_state_dirs(fixture: str, tmp_path: Path) -> None:
    """The state dirs an earlier version made (tests/fixtures/statedirs): migrated, every
    record the fixture holds is keyed as :func:`key_rows` keys it, tombstones too."""
    with tarfile.open(FIXTURES / f"{fixture}.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    expected = json.loads((tmp_path / "expected.json").read_text("utf-8"))
    store = Store(tmp_path / "Vault" / ".vaultbrain")
    want = sorted(
        (key, collection, rid, how)
        for collection, recs in expected["records"].items()
        for rid, rec in recs.items()
        for key, how in key_rows(summarize(rec))
    )
    got = store.conn().execute("SELECT key, collection, id, how FROM record_names").fetchall()
    assert sorted(got) == want
    if fixture == "adopt5000":
        assert len(want) >= 5000
