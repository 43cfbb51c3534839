"""What a command's log lines look like (vaultbrain/cli/context.py ``set_up_logging``): a
command other than the daemon shows errors only, the daemon its infos, stamped with the time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )


def test_a_command_shows_errors_only_without_a_time() -> None:
    done = run(
        "import logging\n"
        "from vaultbrain.cli.context import set_up_logging\n"
        "set_up_logging(False, 0, False)\n"
        "log = logging.getLogger('vaultbrain.test')\n"
        "log.debug('a debug line')\n"
        "log.info('an info line')\n"
        "log.warning('a warning %s', 'line')\n"
        "log.error('an error %s', 'line')\n"
        "logging.getLogger('somelibrary').warning('not shown: below errors')\n"
        "logging.getLogger('somelibrary').error('shown')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "ERROR vaultbrain.test: an error line",
        "ERROR somelibrary: shown",
    ]


def test_the_daemon_shows_infos_with_the_time() -> None:
    done = run(
        "import logging\n"
        "from vaultbrain.cli.context import set_up_logging\n"
        "set_up_logging(True, 0, False)\n"
        "logging.getLogger('vaultbrain.daemon').info('watching %s', 'the vault')\n"
        "logging.getLogger('vaultbrain.daemon').debug('not shown')\n"
        "logging.getLogger('httpx').info('not shown: a noisy library below warnings')\n"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].endswith(" INFO vaultbrain.daemon: watching the vault")
    assert lines[0][:4].isdigit()  # the date


def test_verbose_shows_debug_lines() -> None:
    done = run(
        "import logging\n"
        "from vaultbrain.cli.context import set_up_logging\n"
        "set_up_logging(False, 1, False)\n"
        "logging.getLogger('vaultbrain.test').debug('a debug line')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0].endswith(" DEBUG vaultbrain.test: a debug line")
