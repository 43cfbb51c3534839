"""The graph index a process has open: kept in the brain's memo, opened on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.graph.index import GraphIndex

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def graph_of(brain: Brain) -> GraphIndex:
    """The graph index of this process, opened on first use and again when the packs it is
    typed under change (the one it replaces is closed)."""
    key = brain.pack_key  # the identity the index is typed under
    current = brain.kept("graph")
    graph = brain.memo(
        "graph", key, lambda: GraphIndex(brain.state_dir, brain.typer, key, brain.inbox_rel)
    )
    if current is not None and current is not graph:
        current.close()
    graph.typer = brain.typer
    graph.inbox = brain.inbox_rel
    return graph


def graph_if_open(brain: Brain) -> GraphIndex | None:
    """The graph index this process has open, if any (no file is looked at)."""
    return brain.kept("graph")
