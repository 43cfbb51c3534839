"""Processes: whether another vaultbrain process (a daemon, a capture, a job) is still alive."""

from __future__ import annotations

import os


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
