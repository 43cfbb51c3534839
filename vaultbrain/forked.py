"""Work handed to forked processes, to use the machine's other cores.

Python runs one thread at a time: a job bound by the processor (``adopt --apply`` reading,
deciding, writing and parsing 12,000 notes) uses one core however many threads it has. A
:class:`Crew` is a few children forked from this process, each taking the tasks handed to it
in turn and sending back each answer (pickled, through a pipe); answers are read in the order
their tasks were given. The children are forked with everything the job needs already in
memory, so a task is small (a range of a list both sides hold) and no state is sent.

Forking is safe only where nothing else runs: Linux, and a process with one thread (the
CLI; the daemon, with its watcher threads, never forks). :func:`crew` returns None anywhere
else, and the caller does the work itself; it must be able to, for a child that dies or
fails hands its task back (:class:`Lost`) to be done in-process. Ctrl-C stops the parent,
not the children: they finish the tasks they were given, which the parent still reads, and
end when told (or when the parent is gone). The graph filler (vaultbrain/graph/fill.py) is
the same idea for one job.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

__all__ = ["Crew", "Lost", "crew", "cores"]

T = TypeVar("T")
R = TypeVar("R")

# VAULTBRAIN_FORK=never: nothing is forked (every job done in-process, as on one core).
ENV = "VAULTBRAIN_FORK"


class Lost(Exception):
    """A task's child died or failed on it: the task is the caller's to do."""


def cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def crew(
    n: int,
    work: Callable[[T], R],
    serving: Callable[[], AbstractContextManager[Any]] | None = None,
) -> Crew[T, R] | None:
    """``n`` children doing ``work(task)``, each inside ``serving()`` for its whole life (what
    it keeps open while it works, and finishes as it ends); None where forking is not safe
    or would not help (one core, another thread running, ``VAULTBRAIN_FORK=never``)."""
    if n < 1 or not sys.platform.startswith("linux") or cores() < 2:
        return None
    if threading.active_count() != 1 or os.environ.get(ENV) == "never":
        return None
    for stream in (sys.stdout, sys.stderr):  # (a child must not write what we buffered)
        with contextlib.suppress(Exception):
            stream.flush()
    team: Crew[T, R] = Crew()
    for _ in range(n):
        ours, theirs = Pipe()
        try:
            pid = os.fork()
        except OSError:
            ours.close()
            theirs.close()
            break
        if pid == 0:
            ours.close()
            for _pid, conn, _waiting in team._children:
                conn.close()  # (another child's pipe: its end must close when the parent's does)
            _serve(theirs, work, serving)  # never returns
        theirs.close()
        team._children.append((pid, ours, deque()))
    if not team._children:
        return None
    return team


def _serve(
    conn: Connection,
    work: Callable[[Any], Any],
    serving: Callable[[], AbstractContextManager[Any]] | None,
) -> None:
    """A child's life: tasks until told to end (None) or the parent is gone, then out."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # (the parent's Ctrl-C: see the module)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with serving() if serving is not None else contextlib.nullcontext():
            while True:
                try:
                    task = conn.recv()
                except (EOFError, OSError):
                    break  # the parent is gone
                if task is None:
                    break
                try:
                    answer: tuple[bool, Any] = (True, work(task))
                except Exception as exc:  # noqa: BLE001 - the parent does the task itself
                    answer = (False, f"{type(exc).__name__}: {exc}")
                try:
                    conn.send(answer)
                except (OSError, ValueError):
                    break
        code = 0
    except BaseException as exc:  # noqa: BLE001 - the parent sees the exit code
        with contextlib.suppress(Exception):
            log.error("a forked worker failed: %s", exc)
    finally:
        os._exit(code)  # (nothing inherited is flushed or finalized twice)


class Pending(Generic[R]):
    """A task given to a child: :meth:`result` waits for its answer."""

    def __init__(self, crew: Crew[Any, R], child: int) -> None:
        self._crew, self._child = crew, child
        self._answer: tuple[bool, Any] | None = None

    def result(self) -> R:
        """The answer, or :class:`Lost` (the child failed on it, or died first)."""
        while self._answer is None:
            self._crew._read(self._child)
        ok, value = self._answer
        if not ok:
            raise Lost(value)
        return value  # type: ignore[no-any-return]


class Crew(Generic[T, R]):
    """Children forked by :func:`crew`, given tasks in turn."""

    def __init__(self) -> None:
        # (pid, our end of its pipe, its tasks not answered yet, oldest first)
        self._children: list[tuple[int, Connection, deque[Pending[R]]]] = []
        self._turn = 0

    def __len__(self) -> int:
        return len(self._children)

    def submit(self, task: T) -> Pending[R]:
        """Give ``task`` to the next child (in turn). A task must be small: a child reads
        its next only once it has answered the last."""
        i = self._turn % len(self._children)
        self._turn += 1
        _pid, conn, waiting = self._children[i]
        pending: Pending[R] = Pending(self, i)
        try:
            conn.send(task)
        except (OSError, ValueError):
            pending._answer = (False, "the worker process is gone")
            return pending
        waiting.append(pending)
        return pending

    def _read(self, i: int) -> None:
        """The next answer of child ``i``, to the oldest task it was given."""
        _pid, conn, waiting = self._children[i]
        head = waiting[0]
        try:
            head._answer = conn.recv()
        except (EOFError, OSError) as exc:
            for pending in waiting:  # it died: every task it held is lost
                pending._answer = (False, f"the worker process stopped ({exc or 'gone'})")
            waiting.clear()
            return
        waiting.popleft()

    def close(self) -> None:
        """Tell each child to end, and wait for it (it finishes what it keeps open). Our end
        of its pipe is closed first: a child sending an answer nobody will read stops there,
        rather than wait on us as we wait on it."""
        children, self._children = self._children, []
        for _pid, conn, waiting in children:
            with contextlib.suppress(OSError, ValueError):
                conn.send(None)
            conn.close()
            for pending in waiting:
                pending._answer = (False, "the worker processes were closed")
        for pid, _conn, _waiting in children:
            with contextlib.suppress(ChildProcessError):
                _wait(pid)


def _wait(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except InterruptedError:  # pragma: no cover - retried by Python itself
            continue
