"""The graph the active pack declares, over the whole vault: full-text search, whoknows,
typed links and takes.

Everything here is derived from the vault and kept in ``<state_dir>/graph.sqlite``
(:mod:`vaultbrain.graph.index`); the vault is written only where vaultbrain owns the note
(its own record notes), never otherwise. :func:`open_graph` is what ``Brain.graph()``
returns; :func:`note_changed` is the hook the notes ↔ store sync calls for every note it
reads or finds gone.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING, Any

from vaultbrain.graph.index import INDEX_FILE, GraphIndex

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger(__name__)

__all__ = ["GraphIndex", "open_graph", "note_changed", "rebuild", "pack_key"]


def pack_key(brain: Brain) -> str:
    """The identity the index's typing is keyed by: the active pack and the folder packs."""
    return "+".join([brain.pack.identity, *(p.identity for p in brain.folder_packs)])


def open_graph(brain: Brain, current: GraphIndex | None) -> GraphIndex:
    """``current`` if it still fits the brain's packs, else the index opened afresh."""
    key = pack_key(brain)
    if current is not None and current.identity == key:
        current.typer = brain.typer
        return current
    if current is not None:
        current.close()
    return GraphIndex(brain.state_dir, brain.typer, key)


def note_changed(brain: Brain, rel: str, note: Any | None) -> None:
    """A note was read by the sync (``note``: its NoteFile) or found gone (None).

    Nothing happens until the index exists (a first search or ``reindex`` builds it): a
    person who never searches pays nothing. A failure here never fails the sync: the next
    catch-up re-reads the note. On vaultbrain's own notes the typed links it touches are
    shown as properties (:mod:`vaultbrain.graph.show`).
    """
    if not (brain.state_dir / INDEX_FILE).exists():
        return
    try:
        graph = brain.graph()
        if not graph.built:
            return
        from vaultbrain.graph.show import after_change

        if note is None:
            after_change(brain, graph, rel, None, (0, 0))
        else:
            after_change(brain, graph, rel, note.text, (note.mtime_ns, note.size))
    except (sqlite3.Error, OSError) as exc:
        log.warning("graph index: %s not updated (%s); the next search catches up", rel, exc)


def rebuild(brain: Brain) -> int:
    """``reindex``: the index from scratch (every note read again); -1 when the index could
    not be written (said in the log; search builds it later)."""
    from vaultbrain.graph.extract import generated_keys
    from vaultbrain.graph.show import reconcile

    try:
        graph = brain.graph()
        n = graph.rebuild(brain.vault)
        managed = {k for p in (brain.pack, *brain.folder_packs) for k in generated_keys(p)}
        reconcile(brain, graph, graph.linked_own_notes(managed))
        return n
    except (sqlite3.Error, OSError) as exc:
        log.warning("graph index not rebuilt (%s); the next search builds it", exc)
        return -1
