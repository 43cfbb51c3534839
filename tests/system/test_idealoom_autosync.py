"""Automatic export: two opt-ins re-read at fire time, a 5 s debounce on an injected clock,
and the least powerful path (never creates, recreates, deletes or resolves)."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest

from vaultbrain.brain import Brain
from vaultbrain.idealoom import (
    AutoExporter,
    ListBook,
    add_idea,
    create_list,
    edit_list,
    move_idea,
    run_export,
    run_import,
)
from vaultbrain.idealoom.autosync import last_auto_export
from vaultbrain.idealoom.pending import QUEUE_NAME, PendingExports
from vaultbrain.vault import Vault


class FakeClock:
    """Epoch seconds that move only when told. It starts at the real time, just before the
    edits, because the core edit functions queue with the real time, as the CLI does."""

    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class CountingVault(Vault):
    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.writes: list[str] = []
        self.touched: list[str] = []

    def resolve(self, rel):  # type: ignore[no-untyped-def]
        self.touched.append(str(rel))
        return super().resolve(rel)

    def replace(self, rel: str, text: str, expected_hash: str | None) -> str:
        self.writes.append(rel)
        return super().replace(rel, text, expected_hash)

    def create(self, rel: str, text: str) -> str:
        self.writes.append(rel)
        return super().create(rel, text)


def make_app(vault: Path, *, enabled: bool = True, auto: bool = True) -> Brain:
    app = Brain(vault, clock=lambda: dt.datetime(2026, 1, 2, 9, 30))
    app.settings.set("idealoom.enabled", str(enabled).lower())
    app.settings.set("idealoom.auto_export", str(auto).lower())
    app.vault = CountingVault(vault, app.state_dir)
    return app


def vault_of(app: Brain) -> CountingVault:
    assert isinstance(app.vault, CountingVault)
    return app.vault


def exported_list(app: Brain) -> tuple[str, Path]:
    lst = create_list(
        app, prompt="Weekend?", category="fun", title="Weekend", ideas=["a", "b", "c", "d"]
    )
    run_export(app)
    path = ListBook(app).get(lst.id).sync.path  # type: ignore[union-attr]
    assert path is not None
    vault_of(app).writes.clear()
    vault_of(app).touched.clear()
    return lst.id, app.vault.root / path


def test_nothing_runs_at_start_up_and_an_idle_tick_does_no_vault_io(vault: Path) -> None:
    app = make_app(vault)
    exported_list(app)
    fresh = make_app(vault)
    exporter = AutoExporter(fresh, clock=FakeClock())
    assert not exporter.pending()
    assert exporter.tick() is None
    assert vault_of(fresh).touched == []


def test_reordering_one_move_at_a_time_is_one_write(vault: Path) -> None:
    app = make_app(vault)
    list_id, path = exported_list(app)
    clock = FakeClock()
    exporter = AutoExporter(app, clock=clock)
    for _ in range(3):  # three moves, two seconds apart
        move_idea(app, list_id, 4, 1)
        assert exporter.schedule(list_id)
        assert exporter.pending()
        assert exporter.tick() is None
        clock.advance(2)
    # the last move was at +4: not due at +8.5, due at +9
    clock.advance(2.5)
    assert exporter.tick() is None
    assert vault_of(app).writes == []
    clock.advance(0.5)
    result = exporter.tick()
    assert result is not None
    assert [(i.outcome, i.reason) for i in result.items] == [("exported", "list-changed")]
    assert vault_of(app).writes == [ListBook(app).get(list_id).sync.path]  # type: ignore[union-attr]
    assert "1. b\n2. c\n3. d\n4. a\n" in path.read_text()
    assert not exporter.pending()
    assert exporter.tick() is None
    assert last_auto_export(app)["counts"]["exported"] == 1  # type: ignore[index]


def test_a_list_edited_without_pause_is_still_written_after_the_max_wait(vault: Path) -> None:
    app = make_app(vault)
    list_id, _ = exported_list(app)
    clock = FakeClock()
    exporter = AutoExporter(app, clock=clock)
    for _ in range(15):  # an edit every 4 s for 56 s
        add_idea(app, list_id, "more")
        exporter.schedule(list_id)
        assert exporter.tick() is None
        clock.advance(4)
    # 60 s after the first edit, although the last one was only 4 s ago
    result = exporter.tick()
    assert result is not None and result.counts()["exported"] == 1


@pytest.mark.parametrize("key", ["idealoom.enabled", "idealoom.auto_export"])
def test_turning_either_opt_in_off_cancels_queued_work(vault: Path, key: str) -> None:
    app = make_app(vault)
    list_id, path = exported_list(app)
    clock = FakeClock()
    exporter = AutoExporter(app, clock=clock)
    add_idea(app, list_id, "queued")
    assert exporter.pending()
    before = path.read_bytes()
    # Turned off from another process (`vaultbrain settings set …`) while the export waits.
    Brain(vault).settings.set(key, "false")
    clock.advance(10)
    assert exporter.tick() is None
    assert not exporter.pending()
    assert path.read_bytes() == before
    assert vault_of(app).touched == []
    # Turning it back on does not revive the cancelled work.
    Brain(vault).settings.set(key, "true")
    clock.advance(10)
    assert exporter.tick() is None


def test_edits_queue_nothing_while_it_is_off(vault: Path) -> None:
    app = make_app(vault, auto=False)
    list_id, _ = exported_list(app)
    add_idea(app, list_id, "x")
    exporter = AutoExporter(app, clock=FakeClock())
    assert not exporter.schedule(list_id)
    assert not exporter.pending()


def test_it_never_creates_a_note(vault: Path) -> None:
    app = make_app(vault)
    lst = create_list(app, prompt="New?", category="c")
    clock = FakeClock()
    add_idea(app, lst.id, "x")
    exporter = AutoExporter(app, clock=clock)
    clock.advance(6)
    result = exporter.tick()
    assert result is not None
    assert [(i.outcome, i.reason) for i in result.items] == [("skipped", "never-exported")]
    assert vault_of(app).writes == []
    assert not (vault / "Idea Loom").exists()


def test_it_never_recreates_a_deleted_note(vault: Path) -> None:
    app = make_app(vault)
    list_id, path = exported_list(app)
    path.unlink()
    clock = FakeClock()
    add_idea(app, list_id, "x")
    clock.advance(6)
    result = AutoExporter(app, clock=clock).tick()
    assert result is not None
    assert [(i.outcome, i.reason) for i in result.items] == [("missing", "note-deleted-externally")]
    assert not path.exists()
    assert vault_of(app).writes == []


def test_it_never_resolves_a_conflict(vault: Path) -> None:
    app = make_app(vault)
    list_id, path = exported_list(app)
    path.write_text(path.read_text().replace("1. a", "1. edited in Obsidian"))
    edited = path.read_bytes()
    clock = FakeClock()
    edit_list(app, list_id, status="completed")
    clock.advance(6)
    result = AutoExporter(app, clock=clock).tick()
    assert result is not None
    assert [(i.outcome, i.reason) for i in result.items] == [("conflicted", "both-sides-changed")]
    assert path.read_bytes() == edited
    assert vault_of(app).writes == []


def test_an_import_schedules_nothing_and_an_identical_export_is_skipped(
    vault: Path, tmp_path: Path
) -> None:
    first = make_app(vault)
    list_id, _path = exported_list(first)
    other = Brain(vault, state_dir=tmp_path / "other", clock=lambda: dt.datetime(2026, 1, 3))
    other.settings.set("idealoom.enabled", "true")
    other.settings.set("idealoom.auto_export", "true")
    other.vault = CountingVault(vault, other.state_dir)
    run_import(other)
    clock = FakeClock()
    exporter = AutoExporter(other, clock=clock)
    assert not exporter.pending()  # no feedback loop: an import queues no export
    exporter.schedule(list_id)  # even if something queued one, the note already matches
    clock.advance(6)
    result = exporter.tick()
    assert result is not None
    assert [(i.outcome, i.reason) for i in result.items] == [("skipped", "unchanged")]
    assert vault_of(other).writes == []


def test_a_list_deleted_while_queued_is_dropped(vault: Path) -> None:
    app = make_app(vault)
    list_id, _ = exported_list(app)
    clock = FakeClock()
    exporter = AutoExporter(app, clock=clock)
    exporter.schedule(list_id)
    ListBook(app).drop(list_id)
    clock.advance(6)
    result = exporter.tick()
    assert result is not None and result.items == []
    assert not exporter.pending()


def test_the_queue_ignores_entries_of_the_wrong_shape(vault: Path) -> None:
    """The queue lives in state.db (no torn line can happen there); an entry written by an
    older or newer vaultbrain with another shape is passed over, not fatal."""
    app = make_app(vault)
    list_id, _ = exported_list(app)
    queue = PendingExports(app.store)
    app.store.append_jsonl(QUEUE_NAME, {"list": 3, "at": 1.0})
    app.store.append_jsonl(QUEUE_NAME, {"list": "L1", "at": "soon"})
    app.store.append_jsonl(QUEUE_NAME, {"torn": True})
    assert queue.windows() == {}
    exporter = AutoExporter(app, clock=FakeClock())
    exporter.schedule(list_id)
    assert set(queue.windows()) == {list_id}
