"""For tests that fork (vaultbrain/filing/writers.py forks only a process with one thread): the
threads earlier tests left in this process (an HTTP stub's handler, kept by a client not
collected yet) are let end first."""

from __future__ import annotations

import gc
import threading
import time

import pytest


@pytest.fixture
def one_thread() -> None:
    """This process down to its main thread (the clients holding a stub's connections
    collected, so its handler threads end), or the test fails saying which are left."""
    deadline = time.monotonic() + 10
    while threading.active_count() > 1 and time.monotonic() < deadline:
        gc.collect()
        for t in threading.enumerate():
            if t is not threading.main_thread():
                t.join(0.1)
    others = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    assert not others, f"threads left by earlier tests: {others}"
