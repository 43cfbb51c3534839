"""The command line: a thin front end. Commands parse, call one core function, render.

This module is the ``vaultbrain`` script's entry (:func:`main`); the click group and its
table of commands, each imported when it runs, are vaultbrain/cli/group.py's, and what every
command shares is vaultbrain/cli/context.py's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``vaultbrain`` script: one command line through the click group, then exit with
    its code."""
    from vaultbrain.cli.group import run

    sys.exit(run(list(sys.argv[1:] if argv is None else argv)))
