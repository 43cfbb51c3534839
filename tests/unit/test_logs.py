"""vaultbrain/logs.py: a logger that loads logging only for a line that is shown."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultbrain import logs

ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter, as a command is: the configuration deferred to errors only.
DEFERRED = """
import sys
from vaultbrain import logs
from vaultbrain.cli.context import set_up_logging
set_up_logging(False, 0, False, deferred=True)
log = logs.get_logger("vaultbrain.test")
log.debug("a debug line")
log.info("an info line")
log.warning("a warning %s", "line")
print("loaded after warnings:", "logging" in sys.modules, flush=True)
print("enabled:", log.isEnabledFor(logs.WARNING), log.isEnabledFor(logs.ERROR), flush=True)
log.error("an error %s", "line")
print("loaded after an error:", "logging" in sys.modules, flush=True)
log.warning("another warning")
log.error("another error")
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )


def test_a_deferred_configuration_drops_lines_below_errors_without_loading_logging() -> None:
    done = run(DEFERRED)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "loaded after warnings: False",
        "enabled: False True",
        "loaded after an error: True",
    ]
    # The errors are written as the configuration says (no time: not the daemon, not -v);
    # nothing below them.
    assert done.stderr.splitlines() == [
        "ERROR vaultbrain.test: an error line",
        "ERROR vaultbrain.test: another error",
    ]


def test_settle_configures_before_a_library_that_logs_on_its_own() -> None:
    done = run(
        "import sys\n"
        "from vaultbrain import logs\n"
        "from vaultbrain.cli.context import set_up_logging\n"
        "set_up_logging(False, 0, False, deferred=True)\n"
        "logs.settle()\n"
        "import logging\n"
        "logging.getLogger('somelibrary').warning('not shown: below errors')\n"
        "logging.getLogger('somelibrary').error('shown')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["ERROR somelibrary: shown"]


def test_the_daemon_configures_at_once_and_shows_infos() -> None:
    done = run(
        "import sys\n"
        "from vaultbrain import logs\n"
        "from vaultbrain.cli.context import set_up_logging\n"
        "set_up_logging(True, 0, False)\n"
        "print('logging' in sys.modules)\n"
        "logs.get_logger('vaultbrain.daemon').info('watching %s', 'the vault')\n"
        "logs.get_logger('vaultbrain.daemon').debug('not shown')\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].endswith(" INFO vaultbrain.daemon: watching the vault")


def test_a_line_is_the_callers_and_reaches_the_real_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logs.get_logger("vaultbrain.test.caller")
    assert logs.get_logger("vaultbrain.test.caller") is log
    with caplog.at_level(logging.DEBUG, logger="vaultbrain.test.caller"):
        log.info("one %s", "info")
        log.log(logs.WARNING, "one warning")
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("it failed")
    records = [r for r in caplog.records if r.name == "vaultbrain.test.caller"]
    assert [(r.levelname, r.getMessage()) for r in records] == [
        ("INFO", "one info"),
        ("WARNING", "one warning"),
        ("ERROR", "it failed"),
    ]
    # The file and function of each line are the caller's, not the wrapper's.
    assert {r.funcName for r in records} == {
        "test_a_line_is_the_callers_and_reaches_the_real_logger"
    }
    assert {Path(r.pathname).name for r in records} == {"test_logs.py"}
    assert records[2].exc_info is not None and records[2].exc_info[0] is ValueError
    # Anything else is the real logger's.
    assert (
        log.getEffectiveLevel() == logging.getLogger("vaultbrain.test.caller").getEffectiveLevel()
    )
