"""Cards for the notes tend has kept none of (its first cycle after a reindex, a fresh state
dir): made from what the reindex already read of each note instead of reading and parsing
10,000 notes again. The graph index holds each note's properties (as JSON) and body at the
stat it read them at, the notes cache the hash of the text at the stat the scan read it at.

The note stays the truth: a note counts only where both hold it at the very stat the walk
finds now, and that stat is older than the window in which a note written twice in one
timestamp tick could keep its size and time (the scan trusts a stat so, vaultbrain/filing/
scan.py); any other note is read from its file. A note whose properties the index holds as
none (none written, or a block that could not be read) is read too: only its file says which.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError, UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.tend")

SEED_AT_LEAST = 200  # fewer notes to read than this: reading them is as quick as the index
RACY_NS = 2_000_000_000  # (the scan's window: a stat younger than this may hide a rewrite)


class Seed:
    """What the reindex read of one note: its properties (and their JSON as the index keeps
    it, dates as written), body and content hash."""

    __slots__ = ("body", "data", "hash", "json")

    def __init__(self, data: dict[str, Any], json_: str, body: str, hash_: str) -> None:
        self.data, self.json, self.body, self.hash = data, json_, body, hash_


def seeds(brain: Brain, wanted: dict[str, tuple[int, int]]) -> dict[str, Seed]:
    """The notes of ``wanted`` (path -> its (mtime_ns, size) now) the graph index and the
    notes cache both hold at that stat: empty when there are few (reading them is as quick)
    or the index is not built."""
    if len(wanted) < SEED_AT_LEAST:
        return {}
    try:
        return _seeds(brain, wanted)
    except (sqlite3.Error, StorageError, UserError, OSError, ValueError) as exc:
        log.info("tend reads every note (the index could not say): %s", exc)
        return {}


def _seeds(brain: Brain, wanted: dict[str, tuple[int, int]]) -> dict[str, Seed]:
    from vaultbrain.filing.sync import notes_sync
    from vaultbrain.graph.open import graph_of

    sync = notes_sync(brain)
    sync.load_cache()
    cache = sync.cache
    hashes: dict[str, str] = {}
    for rel, stat in wanted.items():
        e = cache.get(rel)
        # [mtime_ns, size, hash, seen_at_ns, ...]: read at this stat, long enough after it
        if e is not None and len(e) > 3 and (e[0], e[1]) == stat and e[3] - e[0] > RACY_NS:
            hashes[rel] = str(e[2])
    if len(hashes) < SEED_AT_LEAST:
        return {}
    graph = graph_of(brain)
    if not graph.built:
        return {}
    inbox = brain.inbox_rel
    rels = [r for r in hashes if r != inbox and graph.reads(r)]  # (a body the index holds)
    found: dict[str, tuple[str, str]] = {}
    with graph.lock:
        for i in range(0, len(rels), 500):
            part = rels[i : i + 500]
            marks = ",".join("?" * len(part))
            sql = (
                "SELECT n.rel, n.mtime_ns, n.size, n.data, f.body FROM notes n "  # noqa: S608
                f"JOIN notes_fts f ON f.rowid = n.id WHERE n.rel IN ({marks})"
            )
            for rel, mtime_ns, size, data, body in graph.db.execute(sql, part):
                if (mtime_ns, size) == wanted[rel] and data and data != "{}":
                    found[rel] = (data, body or "")
    # (decoded at once: one decode of them all costs a fraction of one per note)
    rels = list(found)
    decoded = json.loads("[" + ",".join(found[r][0] for r in rels) + "]")
    return {
        r: Seed(d, found[r][0], found[r][1], hashes[r])
        for r, d in zip(rels, decoded, strict=True)
        if isinstance(d, dict) and d
    }
