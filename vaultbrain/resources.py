"""Where the data the product ships (packs, prompts, templates) lives.

In a wheel they are copied into ``vaultbrain/_data``; in a source checkout they sit at the
top level of the repository, where a person looks for them.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir(kind: str) -> Path:
    """The folder holding shipped data of one kind: ``packs``, ``prompts``, ``templates`` or
    ``corpus`` (the embedded classifier's labelled thoughts)."""
    installed = _PKG / "_data" / kind
    if installed.is_dir():
        return installed
    return _PKG.parent / kind
