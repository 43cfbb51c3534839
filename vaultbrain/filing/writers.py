"""``adopt --apply``'s writer processes: the batches of a big adoption written on the
machine's other cores (reading, deciding, writing and parsing a note is the processor's work,
and Python runs one thread at a time).

Each writer is a :class:`concurrent.futures.ProcessPoolExecutor` of one process, forked with
everything the adoption needs already in memory (:func:`start` keeps the adoption's writer
in a module global that the children inherit), so a task is a span of the notes both sides
hold and nothing else is sent. One process per executor, so that each writer's last task
(:meth:`Writers.close`) is its own: it carries in what was written late into the files its
swaps displaced, then ends. A writer that dies makes its futures fail
(``BrokenProcessPool``): the caller writes those batches itself. Forking is safe only where
nothing else runs: Linux, and a process with one thread (the CLI; the daemon, with its
watcher threads, never forks); :func:`start` returns None anywhere else.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from contextlib import AbstractContextManager
from typing import Any

# VAULTBRAIN_FORK=never: nothing is forked (every batch written in-process, as on one core).
ENV = "VAULTBRAIN_FORK"

Serving = Callable[[], AbstractContextManager[Any]]

# In a writer process: what writes a span, and what it keeps open for its whole life.
_work: Callable[[Any], Any] | None = None
_serving: Serving | None = None
_open: contextlib.ExitStack | None = None


def cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not Linux)
        return os.cpu_count() or 1


class Writers:
    """The writer processes, given tasks in turn."""

    def __init__(self, pools: list[ProcessPoolExecutor]) -> None:
        self.pools = pools
        self.turn = 0

    def __len__(self) -> int:
        return len(self.pools)

    def submit(self, task: Any) -> Future[Any]:
        """``task`` given to the next writer still alive; a future that fails when none is."""
        for _ in range(len(self.pools)):
            pool = self.pools[self.turn % len(self.pools)]
            self.turn += 1
            try:
                return pool.submit(_do, task)
            except BrokenExecutor:  # (it died: the next one)
                continue
        lost: Future[Any] = Future()
        lost.set_exception(BrokenExecutor("every writer process is gone"))
        return lost

    def close(self) -> None:
        """Each writer ends its life (what it kept open finished, late writes carried in)
        once it has done the tasks it was given; a writer that died is let go."""
        ends = []
        for pool in self.pools:
            try:
                ends.append(pool.submit(_end))
            except BrokenExecutor:  # (it died)
                pass
        for end in ends:
            with contextlib.suppress(Exception):
                end.result()
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)


def start(n: int, work: Callable[[Any], Any], serving: Serving | None = None) -> Writers | None:
    """``n`` writer processes doing ``work(task)``, each inside ``serving()`` for its whole
    life; None where forking is not safe or would not help (one core, another thread
    running, ``VAULTBRAIN_FORK=never``)."""
    global _work, _serving
    if n < 1 or not sys.platform.startswith("linux") or cores() < 2:
        return None
    if threading.active_count() != 1 or os.environ.get(ENV) == "never":
        return None
    for stream in (sys.stdout, sys.stderr):  # (a child must not write what we buffered)
        with contextlib.suppress(Exception):
            stream.flush()
    _work, _serving = work, serving
    context = multiprocessing.get_context("fork")
    pools = []
    for _ in range(n):
        pool = ProcessPoolExecutor(1, context, initializer=_begin, initargs=(os.getpid(),))
        try:
            pool.submit(os.getpid).result()  # (forked now, with this process's state)
        except Exception:  # (out of processes or memory: fewer writers, or none)
            pool.shutdown(wait=False)
            break
        pools.append(pool)
    return Writers(pools) if pools else None


def _begin(parent: int) -> None:
    """A writer's start: Ctrl-C is the parent's (it stops the parent, which still reads what
    the writers finish); a writer whose parent is gone (a kill -9) ends."""
    global _open
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_orphaned, args=(parent,), daemon=True).start()
    _open = contextlib.ExitStack()
    if _serving is not None:
        _open.enter_context(_serving())


def _orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGKILL)


def _do(task: Any) -> Any:
    assert _work is not None
    return _work(task)


def _end() -> None:
    if _open is not None:
        _open.close()
