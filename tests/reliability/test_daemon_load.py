"""The daemon on a big state dir: idle must mean idle.

The state dir lives inside the vault and holds one folder per record; the watcher is
recursive on the vault, so a 10,000-record store is 10,000 more inotify watches. Reading
folders (a rescan, watchdog's own re-walk after an overflow) must not flood the event queue.
"""

from __future__ import annotations

import time
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_an_idle_daemon_on_a_big_store_stays_idle(vault: Path, daemon) -> None:
    # 12,000 record folders, as a 12,000-record store has (their contents do not matter here)
    blobs = vault / ".vaultbrain" / "load-test"
    for i in range(12_000):
        (blobs / f"r{i:05d}").mkdir(parents=True)
    d = daemon().start()
    d.wait_ready(60)
    time.sleep(1.0)
    assert d.proc is not None
    before = cpu_seconds(d.proc.pid)
    time.sleep(4.0)
    used = cpu_seconds(d.proc.pid) - before
    log = d.output()
    assert d.stop() == 0
    assert "queue overflowed" not in log, log.count("queue overflowed")
    assert used < 1.0, f"{used:.2f} s of CPU in 4 s of idling"
