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

import atexit
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
    serving: Callable[[], AbstractContextManager[list[Callable[[], None]] | None]] | None = None,
) -> Crew[T, R] | None:
    """``n`` children doing ``work(task)``, each inside ``serving()`` for its whole life (what
    it keeps open while it works, and finishes as it ends); None where forking is not safe
    or would not help (one core, another thread running, ``VAULTBRAIN_FORK=never``).
    ``serving()`` may give a list of steps a child takes once it has told the parent it is
    done (see :meth:`Crew.close`): its own tidying, which nobody waits for."""
    _reap()
    if n < 1 or not sys.platform.startswith("linux") or cores() < 2:
        return None
    if threading.active_count() != 1 or os.environ.get(ENV) == "never":
        return None
    for stream in (sys.stdout, sys.stderr):  # (a child must not write what we buffered)
        with contextlib.suppress(Exception):
            stream.flush()
    team: Crew[T, R] = Crew()
    for _ in range(n):
        try:
            ours, theirs = Pipe()
        except OSError:  # (out of descriptors: fewer children, or none)
            break
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
    serving: Callable[[], AbstractContextManager[list[Callable[[], None]] | None]] | None,
) -> None:
    """A child's life: tasks until told to end (None) or the parent is gone, then ``None``
    sent back (done: the parent goes on), then its own tidying, then out."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # (the parent's Ctrl-C: see the module)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with serving() if serving is not None else contextlib.nullcontext() as afterwards:
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
        with contextlib.suppress(OSError, ValueError):
            conn.send(None)  # (every answer is a tuple)
        conn.close()
        for step in afterwards or ():
            step()
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
        self._finished = False  # (told to end: see finish)

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
        except (OSError, ValueError):  # (gone, or its pipe closed: see _read)
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
        except (EOFError, OSError) as exc:  # it died: every task it held is lost
            self._lose(i, f"the worker process stopped ({exc or 'gone'})")
            return
        except BaseException:
            # Ctrl-C while an answer was coming in (the likeliest moment: this process
            # mostly waits on its children), or an answer that cannot be read. Part of it
            # may have been read: the pipe is out of step, so the child's tasks are lost
            # (the caller does them) and the pipe closed (the child ends on its next send).
            self._lose(i, "its answer was interrupted")
            conn.close()
            raise
        waiting.popleft()

    def _lose(self, i: int, why: str) -> None:
        _pid, _conn, waiting = self._children[i]
        for pending in waiting:
            pending._answer = (False, why)
        waiting.clear()

    def finish(self) -> None:
        """Tell each child to end once it has answered every task it was given (their
        answers are still read): it ends while the caller finishes its own work."""
        for _pid, conn, _waiting in self._children:
            with contextlib.suppress(OSError, ValueError):
                conn.send(None)
        self._finished = True

    def close(self) -> None:
        """Tell each child to end, and wait until it says it is done (what it keeps open
        finished); its own tidying after that is not waited for (the child is reaped later:
        :func:`_reap`). A child with tasks unanswered is not read: our end of its pipe is
        closed (an answer nobody reads stops it there, rather than wait on us as we wait
        on it) and its end is waited for."""
        children, self._children = self._children, []
        for pid, conn, waiting in children:
            if not self._finished:
                with contextlib.suppress(OSError, ValueError):
                    conn.send(None)
            said_done = self._finished and not waiting and _done(conn)
            conn.close()
            for pending in waiting:
                pending._answer = (False, "the worker processes were closed")
            if said_done:
                _unreaped.append(pid)
            else:
                with contextlib.suppress(ChildProcessError):
                    _wait(pid)
        _reap()


def _done(conn: Connection) -> bool:
    """Whether the child at the other end of ``conn`` said it is done (False: it died)."""
    while True:
        try:
            if conn.recv() is None:
                return True
        except (EOFError, OSError):
            return False


# Children that said they were done and are tidying up: reaped once they have ended (at the
# next crew, after a close, and as the process ends; an exiting CLI leaves them to init).
_unreaped: list[int] = []


@atexit.register
def _reap() -> None:
    for pid in list(_unreaped):
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _unreaped.remove(pid)


def _wait(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except InterruptedError:  # pragma: no cover - retried by Python itself
            continue
