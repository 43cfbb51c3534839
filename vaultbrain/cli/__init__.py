"""The command line: a thin front end. Commands parse, call one core function, render.

This module is the ``vaultbrain`` script's entry (:func:`main`). The everyday capture form
(``vaultbrain [--vault DIR] [--state-dir DIR] capture [--json] TEXT``: a phone's shortcut
over ssh, a script, one process per thought) runs without click, so that a capture the
daemon takes costs less than importing click does (vaultbrain/cli/thought.py). Every other
command line, and a capture with any other option, goes through the click group
(vaultbrain/cli/group.py), which says the same things the same way (what both share:
vaultbrain/cli/context.py).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from vaultbrain.cli import context


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``vaultbrain`` script: one command line, then the process ends (:func:`_leave`).
    The everyday capture form runs without click; every other line through the group."""
    context.ONE_COMMAND = True
    args = list(sys.argv[1:] if argv is None else argv)
    from vaultbrain.cli.thought import everyday_capture

    form = everyday_capture(args)
    if form is None:
        from vaultbrain.cli.group import run

    _leave(form.run() if form is not None else run(args))


def _leave(code: int) -> NoReturn:
    """The command is done. The exit handlers run (the last look at the files a swap displaced,
    the logs flushed), then the process ends without tearing the interpreter down: freeing
    the objects of a 10,000-note vault's indexes one by one, and a last collection, is time
    a person (or a phone's shortcut) waits for and nothing else. When another thread still
    runs, the usual exit waits for it."""
    import atexit
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate()[1:]):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
