"""The graph the active pack declares, over the whole vault: full-text search, whoknows,
typed links and takes.

Everything here is derived from the vault and kept in ``<state_dir>/graph/`` (one index per pack identity)
(:mod:`vaultbrain.graph.index`); the vault is written only where vaultbrain owns the note
(its own record notes), never otherwise. :func:`graph_of` is the process's index (kept in
the brain's memo); :func:`note_changed` is the hook the notes ↔ store sync calls for every note it
reads or finds gone.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from vaultbrain.graph.index import GraphIndex, index_path
from vaultbrain.graph.open import graph_if_open, graph_of

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger(__name__)

__all__ = [
    "GraphIndex",
    "abandon",
    "filling",
    "graph_if_open",
    "graph_of",
    "note_changed",
    "prepare",
    "rebuild",
]


def note_changed(brain: Brain, rel: str, note: Any | None, parsed: Any = None) -> None:
    """A note was read by the sync (``note``: its NoteFile) or found gone (None).

    Nothing happens until the index exists (a first search or ``reindex`` builds it): a
    person who never searches pays nothing. A failure here never fails the sync: the next
    catch-up re-reads the note. On vaultbrain's own notes the typed links it touches are
    shown as properties (:mod:`vaultbrain.graph.show`).
    """
    key = brain.pack_key
    current = graph_if_open(brain)
    if (current is None or current.identity != key) and not index_path(
        brain.state_dir, key
    ).exists():
        return
    try:
        graph = graph_of(brain)
        if graph.filler_pid is not None or not graph.live:
            return  # (a child building the index reads every note itself)
        from vaultbrain.graph.show import after_change

        if note is not None and graph.unchanged(rel, note.mtime_ns, note.size):
            return  # a scan re-reading a note the index already holds as it is
        if graph.filling:
            # A reindex filling the index: link properties are checked once, for every
            # own note, when it ends (rebuild); a target may not be indexed yet anyway.
            if note is None:
                graph.note_changed(rel, None)
            else:
                graph.note_changed(rel, note.text, note.mtime_ns, note.size, parsed)
        elif note is None:
            after_change(brain, graph, rel, None, (0, 0))
        else:
            after_change(brain, graph, rel, note.text, (note.mtime_ns, note.size), parsed)
    except (sqlite3.Error, OSError) as exc:
        log.warning("graph index: %s not updated (%s); the next search catches up", rel, exc)


def filling(brain: Brain) -> bool:
    """True while a reindex fills the index from the notes its scan reads (:func:`prepare`).
    Otherwise a note the scan finds unchanged need not be looked up in the index one by
    one: a built index is caught up by stat at the end (:func:`rebuild`), a search's
    catch-up does the same, and a child building it reads every note itself."""
    graph = graph_if_open(brain)
    return graph is not None and graph.filling


def prepare(brain: Brain) -> None:
    """Before ``reindex``'s scan: an index that is missing or typed under another pack is
    built by a child process on the other core while the scan runs (Linux, a process with
    no other thread: see :mod:`vaultbrain.graph.fill`), or else filled from the notes the
    scan reads (each parsed once); the rest by the catch-up that :func:`rebuild` runs after
    it."""
    from vaultbrain.graph.fill import start_filler

    try:
        graph = graph_of(brain)
        if not graph.built:
            if start_filler(brain, graph):
                return
            graph.begin_fill()
        graph.begin_bulk()
    except (sqlite3.Error, OSError) as exc:
        log.warning("graph index not opened (%s); the next search builds it", exc)


def abandon(brain: Brain) -> None:
    """``reindex`` was interrupted: a filler still running is stopped (its rows are not
    committed; the rerun builds the index again), and what the scan wrote is kept."""
    from vaultbrain.graph.fill import stop_filler

    graph = graph_if_open(brain)
    if graph is None:
        return
    stop_filler(graph)
    try:
        graph.end_bulk()
    except (sqlite3.Error, OSError):
        pass  # the next reindex or search catches the index up


def rebuild(
    brain: Brain,
    walk: tuple[str, Callable[[], Mapping[str, tuple[int, int]]]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """``reindex``: the index in step with the whole vault. Built from scratch when it is
    missing (a lost state dir, a first run) or was typed under another pack; otherwise
    caught up by stat, which reads only notes that changed, so a warm ``reindex`` stays a
    stat of each note; ``walk``: the scan's (stamp, stats) (``NotesCache.walk``), so the
    vault is walked once. Then the link properties of vaultbrain's own notes are checked.
    Returns how many notes were (re)read; -1 when the index could not be written (said in
    the log; the next search builds it). ``progress(done, total)`` while the index is built
    (by the child beside the scan, or here)."""
    from vaultbrain.graph.extract import generated_keys
    from vaultbrain.graph.fill import wait_for_filler
    from vaultbrain.graph.show import reconcile

    try:
        graph = graph_of(brain)
        if wait_for_filler(graph, progress) is False:
            log.warning("graph index: the build beside the scan failed; building it here")
        graph.end_bulk()  # what the scan wrote (prepare)
        stamp, stats = walk if walk is not None else (None, None)
        done = graph.catch_up(brain.vault, stats, stamp, progress=progress)
        packs = (brain.pack, *brain.folder_packs)
        if any(p.manifest.link_types for p in packs):
            managed = {k for p in packs for k in generated_keys(p)}
            reconcile(brain, graph, graph.linked_own_notes(managed))
        return done["indexed"]
    except (sqlite3.Error, OSError) as exc:
        log.warning("graph index not rebuilt (%s); the next search builds it", exc)
        return -1
