"""Notes ↔ store in step, in-process: conflicts, vanished folders, copies, bad notes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json

from vaultbrain.brain import Brain
from vaultbrain.filing.index import loaded_records
from vaultbrain.filing.sync import NoteSync


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "db", "add", "person", "--set", "name=Sarah", "--set", "contact=s@example.com")
    return root


def sync_for(vault: Path) -> tuple[Brain, NoteSync]:
    app = Brain(vault)
    return app, NoteSync(app)


def test_both_sides_changed_is_a_conflict_and_nothing_is_overwritten(vault: Path) -> None:
    app, sync = sync_for(vault)
    col = app.store.collection("people")
    rec = next(col.all())
    rec["fields"]["contact"] = "store@example.com"
    rec["store_dirty"] = True
    col.put(rec)
    note = vault / "People/Sarah.md"
    person_text = note.read_text().replace("s@example.com", "note@example.com")
    note.write_text(person_text)
    report = sync.scan()
    assert report.conflicts == 1
    assert note.read_text() == person_text
    assert col.get(rec["id"])["fields"]["contact"] == "store@example.com"
    conflicts = list(app.store.collection("conflicts").all())
    assert (
        conflicts[0]["kind"] == "both-sides-changed" and conflicts[0]["path"] == "People/Sarah.md"
    )


def test_store_side_change_is_exported_with_cas(vault: Path) -> None:
    before = (vault / "People/Sarah.md").read_text()
    run(vault, "db", "update", "person", "Sarah", "--set", "topics=bees,honey")
    after = (vault / "People/Sarah.md").read_text()
    assert frontmatter(vault / "People/Sarah.md")["topics"] == ["bees", "honey"]
    assert after.split("---\n", 2)[2] == before.split("---\n", 2)[2]  # body untouched


def test_a_vanished_folder_is_not_a_mass_deletion(vault: Path) -> None:
    run(vault, "db", "add", "person", "--set", "name=Bob")
    (vault / "People").rename(vault.parent / "unmounted")
    result = run(vault, "reindex")
    assert "the folder People/ is gone" in result.output
    assert {r["title"] for r in run_json(vault, "db", "list", "person")} == {"Sarah", "Bob"}
    (vault.parent / "unmounted").rename(vault / "People")
    run(vault, "reindex")
    assert len(run_json(vault, "db", "list", "person")) == 2


def test_a_copied_note_becomes_a_new_record(vault: Path) -> None:
    """A copy is a record of its own, known by path: the `id:` in it is the person's now,
    shared with the original, and stays as it is (duplicated ids included)."""
    text = (vault / "People/Sarah.md").read_text()
    copied = text.replace("name: Sarah", "name: Sarah B")
    (vault / "People/Sarah copy.md").write_text(copied)
    run(vault, "reindex")
    people = run_json(vault, "db", "list", "person")
    assert len(people) == 2 and len({p["id"] for p in people}) == 2
    assert (vault / "People/Sarah copy.md").read_text() == copied
    run(vault, "reindex")
    assert len(run_json(vault, "db", "list", "person")) == 2  # and stays one record


def test_bad_frontmatter_is_reported_and_the_store_keeps_its_copy(vault: Path) -> None:
    note = vault / "People/Sarah.md"
    broken = note.read_text().replace("name: Sarah", "name: [unclosed")
    note.write_text(broken)
    result = run(vault, "reindex")
    assert "People/Sarah.md" in result.output and "not valid YAML" in result.output
    assert note.read_text() == broken
    assert run_json(vault, "db", "show", "person", "Sarah")["fields"]["contact"] == "s@example.com"


def test_warm_reindex_reads_nothing(vault: Path) -> None:
    run(vault, "reindex")
    doc = run_json(vault, "reindex")
    assert doc["read"] == 0 and doc["unchanged"] == doc["scanned"] >= 1


def test_deleted_note_is_never_resurrected(vault: Path) -> None:
    (vault / "People/Sarah.md").unlink()
    assert run_json(vault, "reindex")["tombstoned"] == 1
    run(vault, "reindex")
    assert not (vault / "People/Sarah.md").exists()
    assert run_json(vault, "db", "list", "person") == []


def test_a_folder_typed_by_its_own_pack(vault: Path, env_home: Path) -> None:
    pack_dir = env_home / "schema-packs" / "cooking"
    pack_dir.mkdir(parents=True)
    (pack_dir / "pack.yaml").write_text(
        "api_version: vaultbrain-schema-pack-v1\nname: cooking\nversion: 0.1.0\n"
        "extends: vaultbrain-base\npage_types:\n  - name: recipe\n    primitive: concept\n"
        "    path_prefixes: [Recipes/]\n    fields:\n      title: {type: text}\n"
    )
    run(vault, "settings", "set", "schema_pack.source.Recipes", "cooking")
    (vault / "Recipes").mkdir()
    (vault / "Recipes/Soup.md").write_text("---\ntitle: Soup\n---\nleeks\n")
    doc = run_json(vault, "reindex")
    assert doc["created"] == 1
    app = Brain(vault)
    recipes = list(app.store.collection("recipes").all())
    assert [r["title"] for r in recipes] == ["Soup"] and recipes[0]["type"] == "recipe"
    assert (
        vault / "Recipes/Soup.md"
    ).read_text() == "---\ntitle: Soup\n---\nleeks\n"  # unasked: unwritten
    assert run_json(vault, "reindex")["created"] == 0


# -- a warm scan from the cache alone ---------------------------------------------------
def _warm(vault: Path) -> None:
    run(vault, "db", "add", "person", "--set", "name=Bob")
    (vault / "Misc").mkdir(exist_ok=True)
    (vault / "Misc" / "Loose.md").write_text("---\ntitle: 1\n---\nin no type's folder\n")
    (vault / "Projects").mkdir(exist_ok=True)
    (vault / "Projects" / "Scratch.md").write_text("no frontmatter, in a typed folder\n")
    run(vault, "reindex")
    run(vault, "reindex")  # now the cache holds every note, with the store's version


def test_an_unchanged_vault_is_scanned_without_building_the_record_index(vault: Path) -> None:
    _warm(vault)
    cold_app = Brain(vault)
    slow = NoteSync(cold_app)
    slow._pin()  # the record index, the long way: what the cache must agree with
    expected = slow.scan()
    _app, sync = sync_for(vault)
    report = sync.scan()
    assert loaded_records(sync.app) is None
    assert report.read == 0 and report.unchanged == report.scanned == expected.scanned
    assert (report.in_folders, report.untyped_in_folders) == (
        expected.in_folders,
        expected.untyped_in_folders,
    )
    assert report.untyped_in_folders >= 1


def test_a_note_deleted_while_nothing_ran_is_still_tombstoned(vault: Path) -> None:
    _warm(vault)
    (vault / "People/Bob.md").unlink()
    assert run_json(vault, "reindex")["tombstoned"] == 1
    assert {r["title"] for r in run_json(vault, "db", "list", "person")} == {"Sarah"}


def test_a_store_changed_by_another_process_is_not_trusted_from_the_cache(vault: Path) -> None:
    _warm(vault)
    # Another process files a record (its note included) after the cache was written…
    run(vault, "db", "add", "person", "--set", "name=Carol")
    (vault / "People/Carol.md").unlink()  # …and its note is gone before the next scan
    _app, sync = sync_for(vault)
    assert not sync._cache_current()
    report = sync.scan()
    assert report.tombstoned == 1
    assert {r["title"] for r in run_json(vault, "db", "list", "person")} == {"Sarah", "Bob"}


def test_the_cache_forgets_notes_that_are_gone(vault: Path) -> None:
    _warm(vault)
    (vault / "Misc" / "Loose.md").unlink()
    app, sync = sync_for(vault)
    sync.scan()
    assert "Misc/Loose.md" not in sync.cache
    again = NoteSync(app)
    again.load_cache()
    assert "Misc/Loose.md" not in again.cache and "People/Bob.md" in again.cache


def test_db_delete_moves_the_note_to_the_state_dirs_trash(vault: Path) -> None:
    note = (vault / "People/Sarah.md").read_text()
    out = run(vault, "db", "delete", "person", "Sarah").output
    trashed = vault / ".vaultbrain" / "trash"
    kept = list(trashed.rglob("Sarah.md"))
    assert len(kept) == 1 and kept[0].read_text() == note and str(kept[0]) in out
    assert not (vault / "People/Sarah.md").exists()
    assert not (vault / ".trash").exists()  # the vault's dot-folders are never written
    run(vault, "db", "add", "person", "--set", "name=Sarah")
    run(vault, "db", "delete", "person", "Sarah")
    assert len(list(trashed.rglob("Sarah*.md"))) == 2  # a second one is not overwritten
    assert run_json(vault, "db", "list", "person") == []


def test_inbox_lines_follow_a_renamed_note(vault: Path) -> None:
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "settings", "set", "note_style", "full")  # a suggestion's line links its notes
    run(vault, "capture", "Idea: a hive scale that weighs honey")
    inbox = vault / "Inbox.md"
    old = next((vault / "Ideas").glob("*.md"))
    assert f"[[Ideas/{old.stem}|" in inbox.read_text()
    old.rename(vault / "Ideas" / "Hive scale.md")
    run(vault, "daemon", "--once")
    text = inbox.read_text()
    assert "[[Ideas/Hive scale|" in text and f"[[Ideas/{old.stem}|" not in text, text
    cap = run_json(vault, "inbox", "--json")[0]
    assert [d["path"] for d in cap["destinations"]] == ["Ideas/Hive scale.md"]
    # Obsidian renames too, and updates the link in the inbox itself: it is not turned back.
    (vault / "Ideas" / "Hive scale.md").rename(vault / "Ideas" / "Honey scale.md")
    inbox.write_text(inbox.read_text().replace("[[Ideas/Hive scale|", "[[Ideas/Honey scale|"))
    before = inbox.read_text()
    run(vault, "daemon", "--once")
    assert inbox.read_text() == before
    assert "[[Ideas/Honey scale|" in before


def test_daemon_once_never_rewrites_an_inbox_being_typed_in(vault: Path) -> None:
    run(vault, "settings", "set", "provider", "heuristic")
    run(vault, "settings", "set", "inbox_settle_seconds", "10")
    run(vault, "capture", "Idea: a hive scale that weighs honey")
    inbox = vault / "Inbox.md"
    # vaultbrain wrote the inbox last, so a cron run need not wait out the settle time…
    run(vault, "daemon", "--once")
    # …but once the person types in it, nothing is rewritten until it has been quiet.
    typed = inbox.read_text().replace(" → [[", " →→ [[") + "- Idea: typed a moment ago\n"
    inbox.write_text(typed)
    run(vault, "daemon", "--once")
    assert inbox.read_text() == typed
    assert len(run_json(vault, "inbox", "--json")) == 1
    run(vault, "settings", "set", "inbox_settle_seconds", "0.2")
    time.sleep(0.3)
    run(vault, "daemon", "--once")
    text = inbox.read_text()
    assert "- [x] Idea: typed a moment ago →" in text or "- [ ] Idea: typed a moment ago →" in text
    assert len(run_json(vault, "inbox", "--json")) == 2
