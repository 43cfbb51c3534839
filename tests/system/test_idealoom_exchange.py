"""Import and export against a real temp vault: the conflict table, deletions both ways,
recreate, iCloud placeholders, malformed and duplicate notes, file names and CAS races."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from vaultbrain.brain import Brain
from vaultbrain.errors import UserError
from vaultbrain.idealoom import (
    ListBook,
    add_idea,
    create_list,
    delete_list,
    edit_list,
    move_idea,
    run_export,
    run_import,
)
from vaultbrain.idealoom.exchange import ExchangeResult
from vaultbrain.vault import Vault, content_hash


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime(2026, 1, 2, 9, 30)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1)
        return self.now


class RecordingVault(Vault):
    """A real Vault that remembers every path it was asked to touch."""

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.touched: list[str] = []

    def resolve(self, rel):  # type: ignore[no-untyped-def]
        self.touched.append(str(rel))
        return super().resolve(rel)


def make_app(vault: Path, state: Path | None = None, enabled: bool = True) -> Brain:
    app = Brain(vault, state_dir=state, clock=Clock())
    if enabled:
        app.settings.set("idealoom.enabled", "true")
    return app


@pytest.fixture
def app(vault: Path) -> Brain:
    return make_app(vault)


def only(result: ExchangeResult) -> tuple[str, str]:
    assert len(result.items) == 1, result.to_dict()
    item = result.items[0]
    return item.outcome, item.reason


def exported(app: Brain, **kw: object) -> tuple[str, Path]:
    """A list created and exported: its id and its note's file."""
    fields = {"prompt": "What could I build in a weekend?", "category": "personal",
              "title": "Weekend projects", "ideas": ["A bird feeder camera", "A tide clock"]}  # fmt: skip
    fields.update(kw)
    lst = create_list(app, **fields)  # type: ignore[arg-type]
    assert only(run_export(app)) == ("exported", "new-note")
    path = ListBook(app).find(lst.id).sync.path
    assert path is not None
    return lst.id, app.vault.root / path


def edit_note(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_export_writes_a_dated_note_and_a_fresh_machine_imports_it_identically(
    app: Brain, vault: Path, tmp_path: Path
) -> None:
    lst = create_list(
        app,
        prompt="#1 thing to build this year?",
        title='He said "hi" \\o/ C:\\temp',
        category='"quoted"',
        help_text="Think about:\n1. cost\n2. time",
        ideas=["first \\ idea", '"second"'],
    )
    result = run_export(app)
    assert only(result) == ("exported", "new-note")
    path = vault / "Idea Loom" / "2026-01-02-he-said-hi-o-c-temp.md"
    assert path.is_file()
    record = ListBook(app).get(lst.id)
    assert record is not None
    assert record.sync.path == "Idea Loom/2026-01-02-he-said-hi-o-c-temp.md"
    assert record.sync.base_hash == content_hash(path.read_bytes())

    other = make_app(vault, tmp_path / "other-machine")
    assert only(run_import(other)) == ("imported", "new-list")
    copy = ListBook(other).get(lst.id)
    assert copy is not None
    assert copy.content() == record.content()
    assert copy.sync.path == record.sync.path
    # and nothing is written back: the import is already in step
    before = path.read_bytes()
    assert only(run_export(other)) == ("skipped", "unchanged")
    assert path.read_bytes() == before


# -- the conflict table, end to end -------------------------------------------------------


def test_row_both_unchanged_is_skipped_and_nothing_written(app: Brain) -> None:
    _list_id, path = exported(app)
    before = path.read_bytes(), path.stat().st_mtime_ns
    assert only(run_import(app)) == ("skipped", "unchanged")
    assert only(run_export(app)) == ("skipped", "unchanged")
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_row_note_changed_imports_and_export_skips(app: Brain) -> None:
    list_id, path = exported(app)
    edit_note(path, "2. A tide clock", "2. A tide clock\n3. A sundial")
    edited = path.read_bytes()
    assert only(run_export(app)) == ("skipped", "external-change")
    assert path.read_bytes() == edited
    assert only(run_import(app)) == ("imported", "note-changed")
    lst = ListBook(app).get(list_id)
    assert lst is not None
    assert lst.ideas == ("A bird feeder camera", "A tide clock", "A sundial")
    assert lst.sync.base_hash == content_hash(edited)
    assert only(run_export(app)) == ("skipped", "unchanged")
    assert path.read_bytes() == edited


def test_row_list_changed_exports_and_import_skips(app: Brain) -> None:
    list_id, path = exported(app)
    move_idea(app, list_id, 2, 1)
    before = path.read_bytes()
    assert only(run_import(app)) == ("skipped", "local-change")
    assert path.read_bytes() == before
    lst = ListBook(app).get(list_id)
    assert lst is not None and lst.ideas == ("A tide clock", "A bird feeder camera")
    assert only(run_export(app)) == ("exported", "list-changed")
    assert "1. A tide clock\n2. A bird feeder camera\n" in path.read_text()
    assert ListBook(app).get(list_id).sync.base_hash == content_hash(path.read_bytes())  # type: ignore[union-attr]
    assert only(run_import(app)) == ("skipped", "unchanged")


def test_row_both_changed_is_a_conflict_and_neither_side_is_overwritten(app: Brain) -> None:
    list_id, path = exported(app)
    edit_note(path, "2. A tide clock", "2. A tide clock in the note")
    add_idea(app, list_id, "A local idea")
    note_before = path.read_bytes()
    local_before = ListBook(app).get(list_id).content()  # type: ignore[union-attr]
    for run in (run_import, run_export):
        assert only(run(app)) == ("conflicted", "both-sides-changed")
        assert path.read_bytes() == note_before
        assert ListBook(app).get(list_id).content() == local_before  # type: ignore[union-attr]
    assert ListBook(app).get(list_id).sync.outcome == "conflicted"  # type: ignore[union-attr]

    # Resolved by hand: make the note say what the list says; both sides agree again.
    edit_note(path, "2. A tide clock in the note", "2. A tide clock\n3. A local idea")
    assert only(run_import(app)) == ("skipped", "converged")
    assert only(run_export(app)) == ("skipped", "unchanged")


def test_a_conflict_resolved_for_the_vault_side(app: Brain) -> None:
    list_id, path = exported(app)
    edit_note(path, "2. A tide clock", "2. The vault's version")
    edit_list(app, list_id, title="Local title")
    assert only(run_import(app)) == ("conflicted", "both-sides-changed")
    # Forget the local list: the note is then the only version, and import takes it.
    delete_list(app, list_id)
    assert only(run_import(app)) == ("imported", "new-list")
    assert ListBook(app).get(list_id).ideas[1] == "The vault's version"  # type: ignore[union-attr]


def test_the_write_is_compare_and_swap(app: Brain, vault: Path) -> None:
    list_id, path = exported(app)
    add_idea(app, list_id, "A local idea")

    class RacingVault(Vault):
        """The person saves the note in Obsidian between our read and our write."""

        raced = False

        def replace(self, rel: str, text: str, expected_hash: str | None) -> str:
            if not self.raced:
                self.raced = True
                edit_note(path, "2. A tide clock", "2. Typed meanwhile")
            return super().replace(rel, text, expected_hash)

    app.vault = RacingVault(vault, app.state_dir)
    assert only(run_export(app)) == ("conflicted", "both-sides-changed")
    assert "2. Typed meanwhile" in path.read_text()
    assert "A local idea" not in path.read_text()


# -- deletions, both ways ----------------------------------------------------------------


def test_a_deleted_note_is_missing_for_import_and_export_and_nothing_is_written(
    app: Brain, vault: Path
) -> None:
    list_id, path = exported(app)
    path.unlink()
    add_idea(app, list_id, "edited after the deletion")
    for run in (run_import, run_export):
        result = run(app)
        assert only(result) == ("missing", "note-deleted-externally")
        assert result.counts()["failed"] == 0
        assert not path.exists()
    assert list((vault / "Idea Loom").iterdir()) == []
    lst = ListBook(app).get(list_id)
    assert lst is not None and lst.ideas[-1] == "edited after the deletion"


def test_recreate_missing_writes_the_note_again_at_its_path(app: Brain) -> None:
    list_id, path = exported(app)
    path.unlink()
    edit_list(app, list_id, status="completed")
    assert only(run_export(app, recreate_missing=True)) == ("exported", "recreated")
    assert path.is_file()
    assert "status: completed" in path.read_text()
    assert only(run_export(app)) == ("skipped", "unchanged")
    assert only(run_import(app)) == ("skipped", "unchanged")


def test_recreate_when_the_path_now_holds_another_note(app: Brain, vault: Path) -> None:
    list_id, path = exported(app)
    other = create_list(app, prompt="Other?", category="c", title="Another")
    results = {i.list_id: i for i in run_export(app).items}
    other_path = vault / results[other.id].path  # type: ignore[operator]
    # A valid note of another list now sits at the first list's path.
    other_path.replace(path)
    results = {i.list_id: i for i in run_export(app).items}
    assert (results[list_id].outcome, results[list_id].reason) == (
        "missing", "note-deleted-externally",
    )  # fmt: skip
    assert results[other.id].path == "Idea Loom/2026-01-02-weekend-projects.md"
    results = {i.list_id: i for i in run_export(app, recreate_missing=True).items}
    suffixed = f"Idea Loom/2026-01-02-weekend-projects-{list_id[:8]}.md"
    assert (results[list_id].outcome, results[list_id].reason) == ("exported", "recreated")
    assert results[list_id].path == suffixed
    assert (results[other.id].outcome, results[other.id].reason) == ("skipped", "unchanged")
    assert "# What could I build" in (vault / suffixed).read_text()
    assert "# Other?" in path.read_text()


def test_a_path_holding_a_malformed_note_is_not_missing(app: Brain) -> None:
    list_id, path = exported(app)
    path.write_text("# Something else entirely\n")
    for result in (run_export(app, recreate_missing=True), run_import(app)):
        item = result.items[0]
        assert (item.outcome, item.reason, item.list_id) == ("malformed", "no-frontmatter", list_id)
    assert path.read_text() == "# Something else entirely\n"


def test_deleting_a_local_list_leaves_its_note_alone(app: Brain) -> None:
    list_id, path = exported(app)
    before = path.read_bytes()
    delete_list(app, list_id)
    assert run_export(app).items == []
    assert path.read_bytes() == before
    # The note is the person's to remove; an explicit import brings the list back.
    assert only(run_import(app)) == ("imported", "new-list")


# -- iCloud placeholders -----------------------------------------------------------------


def test_an_icloud_placeholder_is_unavailable_never_missing(app: Brain, vault: Path) -> None:
    _list_id, path = exported(app)
    path.unlink()
    placeholder = path.with_name(f".{path.name}.icloud")
    placeholder.write_bytes(b"bplist00")
    for result in (run_import(app), run_export(app), run_export(app, recreate_missing=True)):
        assert only(result) == ("unavailable", "icloud-placeholder")
    assert not path.exists()
    # A placeholder of a note no list knows is reported too.
    (vault / "Idea Loom" / ".Someone else's.md.icloud").write_bytes(b"")
    items = run_import(app).items
    assert [(i.outcome, i.path) for i in items] == [
        ("unavailable", "Idea Loom/2026-01-02-weekend-projects.md"),
        ("unavailable", "Idea Loom/Someone else's.md"),
    ]


# -- malformed, unreadable and duplicate notes --------------------------------------------


def test_a_malformed_note_is_reported_with_its_line_and_never_half_imported(
    app: Brain, vault: Path
) -> None:
    list_id, path = exported(app)
    edit_note(path, "2. A tide clock", "2. A tide clock\n4. Skipped a number\n5. more")
    before = ListBook(app).get(list_id).content()  # type: ignore[union-attr]
    result = run_import(app)
    item = result.items[0]
    assert (item.outcome, item.reason, item.line, item.list_id) == (
        "malformed", "numbering-not-dense", 17, list_id,
    )  # fmt: skip
    assert ListBook(app).get(list_id).content() == before  # type: ignore[union-attr]
    broken = path.read_bytes()
    assert only(run_export(app)) == ("malformed", "numbering-not-dense")
    assert path.read_bytes() == broken
    # A stranger's malformed note is reported without a list.
    (vault / "Idea Loom" / "Draft.md").write_text("---\ntitle: x\n---\n# p\n")
    reasons = {(i.path, i.reason, i.line) for i in run_import(app).items}
    assert ("Idea Loom/Draft.md", "missing-id", 1) in reasons


def test_a_note_that_is_not_text_fails_to_read(app: Brain, vault: Path) -> None:
    folder = vault / "Idea Loom"
    folder.mkdir()
    (folder / "binary.md").write_bytes(b"\x00\x01\x02")
    item = run_import(app).items[0]
    assert (item.outcome, item.reason) == ("failed", "unreadable")
    assert "binary" in item.message


def test_the_same_id_in_two_notes_skips_both_and_imports_neither(
    app: Brain, vault: Path, tmp_path: Path
) -> None:
    list_id, path = exported(app)
    copy = path.with_name("copy.md")
    shutil.copy(path, copy)
    other = make_app(vault, tmp_path / "other-machine")
    result = run_import(other)
    assert [(i.outcome, i.reason, i.path) for i in result.items] == [
        ("skipped", "duplicate-id", "Idea Loom/2026-01-02-weekend-projects.md"),
        ("skipped", "duplicate-id", "Idea Loom/copy.md"),
    ]
    assert ListBook(other).all() == []
    # The machine that owns the list writes neither note.
    add_idea(app, list_id, "new")
    before = path.read_bytes(), copy.read_bytes()
    assert only(run_export(app)) == ("skipped", "duplicate-id")
    assert (path.read_bytes(), copy.read_bytes()) == before


# -- file names and paths ----------------------------------------------------------------


def test_a_name_collision_appends_the_first_8_characters_of_the_id(app: Brain, vault: Path) -> None:
    folder = vault / "Idea Loom"
    folder.mkdir()
    (folder / "2026-01-02-same-title.md").write_text("someone's own note\n")
    a = create_list(app, prompt="p?", category="c", title="Same title")
    b = create_list(app, prompt="q?", category="c", title="Same title")
    result = run_export(app)
    paths = {i.list_id: i.path for i in result.items}
    assert paths[a.id] == f"Idea Loom/2026-01-02-same-title-{a.id[:8]}.md"
    assert paths[b.id] == f"Idea Loom/2026-01-02-same-title-{b.id[:8]}.md"
    assert (folder / "2026-01-02-same-title.md").read_text() == "someone's own note\n"


def test_an_imported_note_keeps_its_path_forever(app: Brain, vault: Path) -> None:
    folder = vault / "Idea Loom"
    folder.mkdir()
    note = folder / "My weekend list.md"
    note.write_text(
        "---\nuuid: 7d3f7c0e-6d8c-4f57-9a3b-2c1d0e9f8a7b\ntitle: Weekend\ncategory: fun\n"
        "status: draft\ncreatedAt: 2025-05-06T07:08:09.000Z\nupdatedAt: 2025-05-06T07:08:09.000Z\n"
        "tags: [idea-loom]\naliases: [WE]\n---\n# What now?\n\n## Ideas\n1. kite\n"
    )
    assert only(run_import(app)) == ("imported", "new-list")
    list_id = "7d3f7c0e-6d8c-4f57-9a3b-2c1d0e9f8a7b"
    lst = ListBook(app).get(list_id)
    assert lst is not None
    # PortOS's `Z` stamps are kept as written (issue 18): an export gives them back unchanged
    assert (lst.created, lst.modified) == ("2025-05-06T07:08:09.000Z", "2025-05-06T07:08:09.000Z")
    edit_list(app, list_id, title="A completely new title")
    assert only(run_export(app)) == ("exported", "list-changed")
    assert sorted(p.name for p in folder.iterdir()) == ["My weekend list.md"]
    text = note.read_text()
    assert "title: A completely new title\n" in text
    assert "aliases: [WE]\ntags: [idea-loom]\n" not in text  # order as the person wrote it
    assert "tags: [idea-loom]\naliases: [WE]\n" in text
    assert "createdAt: 2025-05-06T07:08:09.000Z\n" in text


def test_a_renamed_note_is_followed_by_its_id(app: Brain) -> None:
    list_id, path = exported(app)
    moved = path.with_name("renamed in Obsidian.md")
    path.rename(moved)
    assert only(run_import(app)) == ("skipped", "unchanged")
    assert ListBook(app).get(list_id).sync.path == "Idea Loom/renamed in Obsidian.md"  # type: ignore[union-attr]
    add_idea(app, list_id, "after the move")
    assert only(run_export(app)) == ("exported", "list-changed")
    assert "3. after the move" in moved.read_text()
    assert not path.exists()


def test_the_folder_setting_is_used(app: Brain, vault: Path) -> None:
    app.settings.set("idealoom.folder", "Lists/Loom")
    create_list(app, prompt="p?", category="c", title="T")
    item = run_export(app).items[0]
    assert item.path == "Lists/Loom/2026-01-02-t.md"
    assert (vault / "Lists" / "Loom" / "2026-01-02-t.md").is_file()


# -- disabled: no vault I/O at all --------------------------------------------------------


def test_a_disabled_integration_refuses_to_exchange_and_touches_no_vault_file(
    vault: Path,
) -> None:
    app = make_app(vault, enabled=False)
    recording = RecordingVault(vault, app.state_dir)
    app.vault = recording
    lst = create_list(app, prompt="p?", category="c")
    add_idea(app, lst.id, "x")
    move_idea(app, lst.id, 1, 1)
    edit_list(app, lst.id, title="t")
    with pytest.raises(UserError, match="idealoom settings --enabled true"):
        run_import(app)
    with pytest.raises(UserError):
        run_export(app)
    assert recording.touched == []
    assert not (vault / "Idea Loom").exists()
