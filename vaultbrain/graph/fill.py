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

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING

from vaultbrain.graph.index import GraphIndex

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

__all__ = ["start_filler", "stop_filler", "wait_for_filler"]


def start_filler(brain: Brain, graph: GraphIndex) -> bool:
    """Fork a child that builds ``graph`` from the whole vault; False where that is not
    safe here (the caller fills the index in-process)."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    if os.environ.get("VAULTBRAIN_GRAPH_FILL") == "inline":
        return False
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:  # the child
        code = 1
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            child = GraphIndex(brain.state_dir, graph.typer, graph.identity)
            child.db.execute("PRAGMA cache_size=-131072")  # the whole build in memory
            child.rebuild(brain.vault)
            child.close()
            code = 0
        except BaseException:  # noqa: BLE001 - the parent sees the exit code and builds it
            code = 1
        finally:
            os._exit(code)
    graph.filler_pid = pid
    return True


def wait_for_filler(graph: GraphIndex) -> bool | None:
    """Wait for the child building ``graph``: True when it built the index, False when it
    failed, None when there was none."""
    pid, graph.filler_pid = graph.filler_pid, None
    if pid is None:
        return None
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    return os.waitstatus_to_exitcode(status) == 0 and graph.built


def stop_filler(graph: GraphIndex) -> None:
    """Stop a child still building ``graph`` (an interrupted ``reindex``)."""
    pid, graph.filler_pid = graph.filler_pid, None
    if pid is None:
        return
    try:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
