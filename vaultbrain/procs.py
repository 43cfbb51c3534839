"""Processes: whether another vaultbrain process (a daemon, a capture, a job) is still alive,
and this one's cyclic garbage collector paused while it builds what it keeps."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator


def pid_alive(pid: int) -> bool:
    """True when ``pid`` names a running process (ours counts); a dead or invalid one is False."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, it is just not ours to signal
    return True


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a cold process builds what it keeps to the
    end (10,000 summaries, none of them garbage): running, it walks the young objects again
    and again as they come, a tenth of what loading them costs."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
