"""The records' names for a process that does not watch the vault (a cold ``vaultbrain
capture``): the vault's name index (vaultbrain/filing/names.py) asks the store's
``record_names`` table for the keys a question needs (a thought's destinations, a first
name), and learns a record's entry only when asked, instead of folding every record's title
and aliases into a dict of 10,000 keys."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

from vaultbrain.filing.index import collections_of
from vaultbrain.store.namekeys import named, named_from
from vaultbrain.vault.names import kind_of_words

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.store import Store


class StoredNames:
    """The records' names as the store keeps them (``record_names``), asked key by key,
    for the record notes a walk found (``rels``: lower-cased path -> the note's path)."""

    def __init__(self, store: Store, collections: list[str], rels: dict[str, str]) -> None:
        self.store = store
        self.collections = collections
        self.rels = rels  # (filled by the walk)
        self.ids: dict[str, tuple[str, str]] = {}  # lower-cased path -> (collection, id)
        self._asked: dict[str, list[str]] = {}
        self._summaries: dict[str, dict[str, Any]] = {}

    def _found(self, hits: list[tuple[str, str, dict[str, Any]]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for key, _, summary in hits:
            low = str(summary.get("path") or "").lower()
            rel = self.rels.get(low)
            if rel is None or self.ids.get(low, ("", ""))[1] != summary.get("id"):
                continue  # (no note of it in the walk, or another record's path)
            self._summaries.setdefault(rel, summary)
            bucket = out.setdefault(key, [])
            if rel not in bucket:
                bucket.append(rel)
        return out

    def prefetch(self, keys: list[str]) -> None:
        wanted = [k for k in dict.fromkeys(keys) if k and k not in self._asked]
        if wanted:
            found = self._found(named(self.store, wanted, self.collections))
            for key in wanted:
                self._asked[key] = found.get(key, [])

    def named(self, key: str) -> list[str]:
        """The record notes ``key`` (folded) names by title or alias."""
        self.prefetch([key])
        return list(self._asked.get(key, ()))

    def named_from(self, prefix: str) -> list[str]:
        """The record notes named by a title or alias whose folded form starts with ``prefix``."""
        found = self._found(named_from(self.store, prefix, self.collections))
        return [rel for rels in found.values() for rel in rels]

    def summary(self, rel: str) -> dict[str, Any] | None:
        """The summary of the record whose note is ``rel`` (None: no record's)."""
        if rel in self._summaries:
            return self._summaries[rel]
        low = rel.lower()
        if self.rels.get(low) != rel:
            return None
        collection, rid = self.ids[low]
        row = (
            self.store.conn()
            .execute(
                "SELECT summary FROM records WHERE collection = ? AND id = ? AND deleted = 0",
                (collection, rid),
            )
            .fetchone()
        )
        if row is None:
            return None
        summary: dict[str, Any] = json.loads(row[0])
        self._summaries[rel] = summary
        return summary


def stored_names(brain: Brain) -> StoredNames:
    """A :class:`StoredNames` of the brain's packs' collections, with the live records' paths
    (one query for the paths alone: no record's summary is read for a walk)."""
    cols = collections_of(brain.pack, brain.folder_packs)
    source = StoredNames(brain.store, cols, {})
    rows = (
        brain.store.conn()
        .execute(
            "SELECT path, collection, id FROM records WHERE deleted = 0 AND path IS NOT NULL"
            f" AND collection IN ({','.join('?' * len(cols))})",
            cols,
        )
        .fetchall()
    )
    source.ids = {path.lower(): (col, rid) for path, col, rid in rows if path}
    return source


def record_names_of(summary: dict[str, Any]) -> tuple[list[str], list[str], str]:
    """(aliases, other names, kind) of a record, from the store's summary of it."""
    aliases = [str(a) for a in summary.get("aliases") or [] if a]
    title = str(summary.get("title") or "").strip()
    return aliases, [title] if title else [], _kind_of_type(str(summary.get("type") or ""))


@functools.lru_cache(maxsize=256)
def _kind_of_type(type_name: str) -> str:
    """A record's kind by its type (a pack has a handful of types; a walk meets 10,000
    records)."""
    return kind_of_words([type_name]) or "other"
