"""One daemon per vault: an exclusive lock in the state dir.

``flock`` locks die with their process, so the lock of a killed daemon (kill -9, a crash, a
power cut) is stale by construction and the next daemon simply takes it over.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from vaultbrain.errors import UserError
from vaultbrain.vault.atomic import write_all


class DaemonLock:
    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / "daemon.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                pid = os.read(fd, 32).decode().strip() or "?"
            except OSError:
                pid = "?"
            os.close(fd)
            raise UserError(
                f"another vaultbrain daemon (pid {pid}) is already watching this vault; "
                "stop it first (`vaultbrain service status`)"
            ) from None
        try:
            # Who holds it, for the message a second daemon gives; the flock is the lock, so
            # a full disk that refuses these few bytes does not stop the daemon.
            os.ftruncate(fd, 0)
            write_all(fd, f"{os.getpid()}\n".encode())
            os.fsync(fd)
        except OSError:
            pass
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> DaemonLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
