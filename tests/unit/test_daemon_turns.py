"""The daemon's loop (vaultbrain/daemon/runner.py) while only the files its swaps displaced are
watched (vaultbrain/vault/late.py): each turn looks at them, and the rest of a turn (refresh,
the state dir's check, the inbox, hooks) runs no more often than with nothing watched. Turns
are driven one by one here, on a real vault and store, with no watcher."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.brains import new_brain
from support.swaps import opened_before_the_swap

from vaultbrain.capture.guard import trust_state
from vaultbrain.capture.inbox_pass import inbox_known
from vaultbrain.daemon import runner
from vaultbrain.daemon.runner import Daemon
from vaultbrain.machine import FilerWatch


@pytest.fixture
def watching(vault: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Daemon, list, list[str]]:
    """A daemon whose last full turn just ran, with the inbox swapped while an appender held
    it open: (daemon, the appender's handle, the names of the full turn's steps as they run)."""
    brain = new_brain(vault)
    (vault / "Inbox.md").write_text("- one\n")
    d = Daemon(brain, watch=False)
    # What ``Daemon.run`` sets up before its loop (the lock and the watcher aside).
    d.filer = FilerWatch(brain.vault, brain.state_dir)
    d.sync.scan()
    trust_state(brain.store)
    inbox_known(brain)
    # No time-dependent choice in these turns: a turn waits 1 ms, looks at the displaced
    # files every time, and (after the first) a whole turn is due only after an hour.
    monkeypatch.setattr(runner, "IDLE_TICK", 0.001)
    monkeypatch.setattr(runner, "TICK", 0.001)
    monkeypatch.setattr(runner, "LATE_LOOK_EVERY", 0.0)
    steps: list[str] = []
    for name in ("_check_state", "_reap_workers", "_submit_due", "_tick_hooks"):
        real = getattr(d, name)

        def record(*args, _real=real, _name=name, **kwargs):
            steps.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(d, name, record)
    d._inbox_dirty = False
    d._turn(None, 0.0)  # the first turn is a whole one
    assert steps and steps[0] == "_check_state"
    monkeypatch.setattr(runner, "IDLE_TICK", 3600.0)

    held = opened_before_the_swap(monkeypatch, "a")
    brain.vault.edit("Inbox.md", lambda n: n.text.replace("- one", "- [x] one"))
    assert brain.vault.late, "the displaced inbox is watched"
    steps.clear()
    return d, held, steps


def test_turns_that_only_watch_displaced_files_look_at_them_and_do_nothing_else(
    watching: tuple[Daemon, list, list[str]], vault: Path
) -> None:
    d, held, steps = watching
    assert d._busy() and not d._work_soon(), "only the watch keeps the loop quick"
    for _ in range(3):
        d._turn(None, 0.0)
    assert steps == [], "no refresh, state check, inbox pass or hook while only watching"
    # A line the appender writes late is still carried in by these short turns.
    held[0].write("- two, typed as we wrote\n")
    held[0].close()
    for _ in range(3):  # a change is taken once it held still from one look to the next
        d._turn(None, 0.0)
    assert (vault / "Inbox.md").read_text() == "- [x] one\n- two, typed as we wrote\n"
    assert steps == []


def test_work_for_a_whole_turn_ends_the_short_turns_at_once(
    watching: tuple[Daemon, list, list[str]],
) -> None:
    d, held, steps = watching
    held[0].close()
    d._inbox_dirty = True  # an event for the inbox, as the watcher's drain would mark it
    assert d._work_soon()
    d._turn(None, 0.0)
    assert steps[:1] == ["_check_state"] and "_submit_due" in steps and "_tick_hooks" in steps
