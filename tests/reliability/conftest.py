"""Shared set-up for the fault-injection tests: vaults, the daemon as a subprocess, a small
tmpfs for "disk full", and subprocesses that obey file permissions although we run as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from faults import NO_DAC, SmallDisk, make_vault


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    make_vault(root)
    return root


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("needs root and mount(8) to make a small tmpfs")
    point = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield SmallDisk(point)
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


@pytest.fixture
def obey_permissions() -> list[str]:
    """A command prefix under which root obeys file mode bits (no DAC override)."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv(1) is not installed: cannot drop root's DAC override")
    probe = subprocess.run(
        ["setpriv", f"--bounding-set={NO_DAC}", sys.executable, "-c", "import vaultbrain"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.strip()[:200]}")
    return ["setpriv", f"--bounding-set={NO_DAC}"]
