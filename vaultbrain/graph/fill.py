"""The graph index built beside a first ``reindex``, on the machine's other core.

A first import is bound by one core: the scan reads, parses and files every note, and the
graph index (FTS5, names, links) of the same notes costs a third of that again. When the
index has to be built from nothing, ``reindex`` forks a child that builds it from the vault
while the parent's scan runs; the parent waits for it at the end and catches up by stat
whatever changed meanwhile (usually nothing). The child writes only the index file, in one
transaction: killed or failed, it leaves the index unbuilt, and the parent builds it itself.

Forking is safe only where nothing else runs: Linux, and a process with one thread (the CLI's
``reindex``; the daemon, with its watcher threads, fills the index in-process as before).
The child shares nothing with the parent but the notes it reads; it opens its own connection
and leaves with ``os._exit``, so no buffer or handle inherited from the parent is touched.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import sqlite3
import sys
import threading
import time
from typing import TYPE_CHECKING

from vaultbrain.graph.index import GraphIndex, Progress
from vaultbrain.graph.open import graph_of

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger(__name__)

__all__ = ["Builder", "start_filler", "stop_filler", "wait_for_filler"]

# The child's progress, told to the parent through a pipe: "done total\n" lines.
_pipes: dict[int, int] = {}  # filler pid -> the read end of its pipe


def start_filler(brain: Brain, graph: GraphIndex) -> bool:
    """Fork a child that builds ``graph`` from the whole vault; False where that is not
    safe here (the caller fills the index in-process)."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    if os.environ.get("VAULTBRAIN_GRAPH_FILL") == "inline":
        return False
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return False
    if pid == 0:  # the child
        code = 1
        try:
            os.close(read_end)
            os.set_blocking(write_end, False)  # a parent that does not read never stalls it
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it (stop_filler)

            def tell(done: int, total: int) -> None:
                try:
                    os.write(write_end, f"{done} {total}\n".encode())
                except OSError:
                    pass  # nobody listens: the build goes on

            child = GraphIndex(brain.state_dir, graph.typer, graph.identity, graph.inbox)
            child.db.execute("PRAGMA cache_size=-131072")  # the whole build in memory
            child.rebuild(brain.vault, tell)
            child.close()
            code = 0
        except BaseException:  # noqa: BLE001 - the parent sees the exit code and builds it
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    os.set_blocking(read_end, False)
    _pipes[pid] = read_end
    graph.filler_pid = pid
    return True


def wait_for_filler(graph: GraphIndex, progress: Progress | None = None) -> bool | None:
    """Wait for the child building ``graph``: True when it built the index, False when it
    failed, None when there was none. ``progress(done, total)`` as the child tells it."""
    pid, graph.filler_pid = graph.filler_pid, None
    if pid is None:
        return None
    pipe = _pipes.pop(pid, None)
    try:
        if pipe is not None and progress is not None:
            _follow(pipe, pid, progress)
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    finally:
        if pipe is not None:
            os.close(pipe)
    return os.waitstatus_to_exitcode(status) == 0 and graph.built


def _follow(pipe: int, pid: int, progress: Progress) -> None:
    """Hand on the child's progress lines until it has closed its end (it ended)."""
    pending = b""
    while True:
        ready, _, _ = select.select([pipe], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(pipe, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            return  # the child is gone
        pending += chunk
        *lines, pending = pending.split(b"\n")
        if lines:
            try:
                done, total = (int(x) for x in lines[-1].split())
            except ValueError:
                continue
            progress(done, total)


def stop_filler(graph: GraphIndex) -> None:
    """Stop a child still building ``graph`` (an interrupted ``reindex``)."""
    pid, graph.filler_pid = graph.filler_pid, None
    if pid is None:
        return
    pipe = _pipes.pop(pid, None)
    if pipe is not None:
        os.close(pipe)
    try:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


class Builder:
    """The daemon's build of a missing graph index, on a thread of its own with a connection
    of its own (the daemon's watcher threads rule out a fork): the daemon is ready and files
    meanwhile, a first search finds the index built. One transaction: stopped or failed, it
    leaves the index unbuilt (the next search or reindex builds it). Notes changed while it
    read are caught up by stat at its end. Progress goes to the log every few seconds."""

    LOG_EVERY_S = 5.0

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.indexed = 0
        self._stop = threading.Event()

    def needed(self) -> bool:
        """Whether the index of the brain's packs is missing (or was never finished)."""
        return not graph_of(self.brain).built

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="vb-graph-build", daemon=True)
        self.thread.start()

    def done(self) -> bool:
        return self.thread is not None and not self.thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self.thread is not None:
            self.thread.join(timeout)

    def run(self, progress: Progress | None = None) -> int:
        """Build it here and now (``daemon --once``, a first search); returns notes indexed."""
        graph = graph_of(self.brain)
        return int(graph.catch_up(self.brain.vault, progress=progress)["indexed"])

    def _run(self) -> None:
        started = last = time.monotonic()

        def progress(done: int, total: int) -> None:
            nonlocal last
            if self._stop.is_set():
                raise _Stopped
            now = time.monotonic()
            if now - last >= self.LOG_EVERY_S:
                last = now
                log.info("building the search index: %d of %d notes", done, total)

        main = graph_of(self.brain)
        own = GraphIndex(self.brain.state_dir, main.typer, main.identity, main.inbox)
        try:
            self.indexed = own.rebuild(self.brain.vault, progress)
        except _Stopped:
            log.info("the search index build stopped; the next search or reindex builds it")
            return
        except BaseException as exc:  # noqa: BLE001 - logged; a search builds it later
            self.error = exc
            log.warning("the search index was not built (%s); a search builds it", exc)
            return
        finally:
            own.close()
        try:
            caught = main.catch_up(self.brain.vault)["indexed"]  # what changed while it read
        except (sqlite3.Error, OSError) as exc:
            log.warning("the search index was not caught up (%s); a search does it", exc)
            return
        log.info(
            "search index built: %d notes in %.1fs%s",
            self.indexed,
            time.monotonic() - started,
            f" ({caught} changed meanwhile, read again)" if caught else "",
        )


class _Stopped(Exception):
    """The daemon stops: the build's transaction is rolled back."""
