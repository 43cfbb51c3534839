"""The lock that keeps digest and review runs from overlapping.

The daemon's scheduler, ``daemon --once`` and ``vaultbrain digest run`` may all try to write a
digest at the same moment, from different threads or processes. One ``flock`` on a file in
the state dir serialises them across processes; a re-entrant thread lock in front of it lets
the scheduler hold the lock while it calls the same core functions the CLI calls.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from vaultbrain.errors import VaultbrainError

LOCK_NAME = "digest.lock"


class BusyError(VaultbrainError):
    """Another digest or review is being written right now."""


class _RunLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._rlock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextlib.contextmanager
    def hold(self, timeout: float) -> Iterator[None]:
        deadline = time.monotonic() + max(timeout, 0.0)
        if timeout > 0:
            acquired = self._rlock.acquire(timeout=timeout)
        else:
            acquired = self._rlock.acquire(blocking=False)
        if not acquired:
            raise BusyError("a digest or review is being written right now; try again shortly")
        try:
            if self._depth == 0:
                self._fd = self._flock(deadline)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
                    os.close(self._fd)
                    self._fd = None
        finally:
            self._rlock.release()

    def _flock(self, deadline: float) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise BusyError(
                        "a digest or review is being written by another vaultbrain process; "
                        "try again shortly"
                    ) from None
                time.sleep(0.05)


_LOCKS: dict[Path, _RunLock] = {}
_LOCKS_GUARD = threading.Lock()


def run_lock(state_dir: Path, timeout: float = 0.0) -> contextlib.AbstractContextManager[None]:
    """Hold the run lock of ``state_dir``; BusyError if it is not free within ``timeout`` s."""
    path = (Path(state_dir) / LOCK_NAME).resolve()
    with _LOCKS_GUARD:
        lock = _LOCKS.get(path)
        if lock is None:
            lock = _LOCKS[path] = _RunLock(path)
    return lock.hold(timeout)
