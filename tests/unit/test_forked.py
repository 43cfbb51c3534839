"""vaultbrain/forked.py: children forked to use the other cores, with real processes. Answers
come back in the order the tasks were given; a task a child failed on, or held when it died,
is Lost (the caller does it); each child's ``serving`` ends as the child does; Ctrl-C while
an answer comes in loses that child's tasks without a hang; and nothing is forked where it
is not safe."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.forking import one_thread  # noqa: F401 (the fixture)

from vaultbrain import forked
from vaultbrain.forked import Lost, crew

pytestmark = [
    pytest.mark.skipif(forked.cores() < 2, reason="one core: nothing is forked"),
    pytest.mark.usefixtures("one_thread"),
]


def _square(n: int) -> tuple[int, int]:
    if n == 13:
        raise ValueError("thirteen")
    if n == 99:
        os._exit(7)  # a child killed mid-task
    if n < 0:
        time.sleep(-n)
    return n * n, os.getpid()


def test_answers_in_order_from_several_children(tmp_path: Path) -> None:
    ended = tmp_path / "ended"
    ended.mkdir()

    @contextmanager
    def serving():
        yield
        (ended / str(os.getpid())).write_text("done")  # (as the child ends)

    team = crew(2, _square, serving)
    assert team is not None and len(team) == 2
    try:
        pending = [team.submit(n) for n in range(10)]
        answers = [p.result() for p in pending]
    finally:
        team.close()
    assert [a for a, _ in answers] == [n * n for n in range(10)]
    pids = {pid for _, pid in answers}
    assert len(pids) == 2 and os.getpid() not in pids
    assert {p.name for p in ended.iterdir()} == {str(pid) for pid in pids}


def test_a_failed_task_is_lost_and_the_child_goes_on() -> None:
    team = crew(1, _square)
    assert team is not None
    try:
        bad, good = team.submit(13), team.submit(4)
        with pytest.raises(Lost, match="ValueError: thirteen"):
            bad.result()
        assert good.result()[0] == 16
    finally:
        team.close()


def test_a_child_that_dies_loses_what_it_held() -> None:
    team = crew(2, _square)
    assert team is not None
    try:
        # child 0 takes 0, 99 (dies there), 4; child 1 takes 1, 3, 5
        tasks = [team.submit(n) for n in (0, 1, 99, 3, 4, 5)]
        assert tasks[0].result()[0] == 0
        for lost in (tasks[2], tasks[4]):
            with pytest.raises(Lost, match="stopped"):
                lost.result()
        assert [tasks[i].result()[0] for i in (1, 3, 5)] == [1, 9, 25]
        with pytest.raises(Lost):
            team.submit(6).result()  # (child 0's turn: it is gone)
    finally:
        team.close()


def test_ctrl_c_while_an_answer_comes_in_loses_it_without_a_hang() -> None:
    """(Python's own SIGINT handler for the test, whatever an earlier test left: a Ctrl-C
    is a KeyboardInterrupt; the child's task lasts well past the Ctrl-C on a busy machine.)"""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    team = crew(1, _square)
    assert team is not None
    slow, after = team.submit(-3), team.submit(2)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            slow.result()
        for pending in (slow, after):
            with pytest.raises(Lost, match="interrupted"):
                pending.result()
    finally:
        timer.join()
        team.close()  # (the child, its pipe closed, ends: a hang is the test's timeout)
        signal.signal(signal.SIGINT, before)


def test_nothing_is_forked_where_it_is_not_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert crew(2, _square) is None  # another thread runs
    finally:
        stop.set()
        other.join()
    monkeypatch.setenv("VAULTBRAIN_FORK", "never")
    assert crew(2, _square) is None
    monkeypatch.delenv("VAULTBRAIN_FORK")
    assert crew(0, _square) is None
