"""The daemon as a real subprocess on a temp vault."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


class DaemonProcess:
    def __init__(self, vault: Path, log: Path, env: dict[str, str] | None = None) -> None:
        self.vault = vault
        self.log = log
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *extra: str) -> DaemonProcess:
        self.offset = self.log.stat().st_size if self.log.exists() else 0
        fh = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vaultbrain", "--vault", str(self.vault), "daemon", *extra],
            stdout=fh,
            stderr=fh,
            env=self.env,
        )
        fh.close()
        return self

    def wait_ready(self, timeout: float = 20) -> None:
        wait_for(lambda: "watching" in self.output(), timeout, self.log)

    def output(self) -> str:
        return self.log.read_bytes()[self.offset :].decode(errors="replace")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, timeout: float = 20) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def wait_for(predicate: Callable[[], object], timeout: float = 20, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
    raise AssertionError(f"timed out after {timeout}s\n{tail}")
