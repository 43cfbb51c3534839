"""A vault made by ``vaultbrain init`` and the Brain on it, for unit tests of the core.

The provider is the heuristic one, so nothing asks an LLM server.
"""

from __future__ import annotations

from pathlib import Path

from vaultbrain.brain import Brain
from vaultbrain.filing.setup import init_vault


def new_brain(root: Path) -> Brain:
    """``init`` on the (empty, Obsidian-like) folder ``root``, then a fresh Brain on it."""
    brain = Brain(root)
    init_vault(brain)
    brain.settings.set("provider", "heuristic")
    return Brain(root)
