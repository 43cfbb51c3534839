"""vaultbrain/filing/writers.py: adopt's writer processes, real ones. Their answers are what
the work gives in this process; a task that fails, or that a writer held when it was killed,
fails its future (an error, not a hang) and the next tasks go to a writer still alive; each
writer's ``serving`` ends as the writer does; nothing is forked where it is not safe."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import BrokenExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.forking import one_thread  # noqa: F401 (the fixture)

from vaultbrain.filing import writers

pytestmark = [
    pytest.mark.skipif(writers.cores() < 2, reason="one core: nothing is forked"),
    pytest.mark.usefixtures("one_thread"),
]


def _square(n: int) -> tuple[int, int]:
    if n == 13:
        raise ValueError("thirteen")
    if n == 99:
        os._exit(7)  # a writer killed mid-task
    return n * n, os.getpid()


def test_answers_are_the_work_done_elsewhere_and_serving_ends_with_the_writer(
    tmp_path: Path,
) -> None:
    ended = tmp_path / "ended"
    ended.mkdir()

    @contextmanager
    def serving() -> Iterator[None]:
        (ended / f"began-{os.getpid()}").touch()
        yield
        (ended / f"ended-{os.getpid()}").touch()

    team = writers.start(2, _square, serving)
    assert team is not None and len(team) == 2
    futures = [team.submit(n) for n in range(10)]
    answers = [f.result() for f in futures]
    assert [a[0] for a in answers] == [n * n for n in range(10)]
    pids = {a[1] for a in answers}
    assert len(pids) == 2 and os.getpid() not in pids
    team.close()
    assert sorted(p.name for p in ended.iterdir()) == sorted(
        f"{what}-{pid}" for pid in pids for what in ("began", "ended")
    )


def test_a_failed_task_fails_its_future_and_the_writer_goes_on() -> None:
    team = writers.start(1, _square)
    assert team is not None
    try:
        failed = team.submit(13)
        after = team.submit(3)
        with pytest.raises(ValueError, match="thirteen"):
            failed.result()
        assert after.result()[0] == 9
    finally:
        team.close()


def test_a_killed_writer_is_an_error_not_a_hang() -> None:
    team = writers.start(2, _square)
    assert team is not None
    try:
        killed = team.submit(99)
        with pytest.raises(BrokenExecutor):
            killed.result(timeout=60)
        # the other writer takes what comes next
        answers = [team.submit(n).result(timeout=60)[0] for n in (2, 3, 4)]
        assert answers == [4, 9, 16]
    finally:
        team.close()


def test_nothing_is_forked_where_it_is_not_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert writers.start(2, _square) is None  # another thread runs
    finally:
        stop.set()
        other.join()
    monkeypatch.setenv(writers.ENV, "never")
    assert writers.start(2, _square) is None
    monkeypatch.delenv(writers.ENV)
    assert writers.start(0, _square) is None
