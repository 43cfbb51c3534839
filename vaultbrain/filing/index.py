"""Lookup of existing records by name, alias and path, across the pack's collections.

Built from the store's collection summaries, kept in step with our own writes, and rebuilt
for a collection when another process changed it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from vaultbrain.filing.namekeys import record_names
from vaultbrain.packs import ResolvedPack
from vaultbrain.patterns import LazyPattern
from vaultbrain.procs import collector_paused
from vaultbrain.store import Store
from vaultbrain.store.namekeys import LOWER, named

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

# Changes another process made that are looked at one by one (more: every summary compared).
_FOLLOW_AT_MOST = 2000
_WORD = LazyPattern(r"[\w][\w'’\-.&]*", re.UNICODE)
MAX_NGRAM = 5
# Questions asked of the store one by one before every record is loaded instead (a scan asks
# one per note; a capture a handful).
_ASK_BEFORE_LOADING = 64


def collections_of(pack: ResolvedPack, extra: list[ResolvedPack] | None = None) -> list[str]:
    """The store collections the records of these packs live in, each once, in order."""
    seen: list[str] = []
    for t in [t for p in (pack, *(extra or ())) for t in p.types]:
        if t.store_collection not in seen:
            seen.append(t.store_collection)
    return seen


def records(brain: Brain) -> RecordIndex:
    """The record index of the brain's packs, built on first use (it loads every record's
    summary, which a warm scan never needs), then kept in step by our own writes and by
    every ``Brain.refresh`` (other processes' writes)."""
    key = brain.pack_key

    def build() -> RecordIndex:
        brain.on_refresh("records", lambda: _follow_refresh(brain))
        with collector_paused():
            return RecordIndex(brain.store, brain.pack, brain.folder_packs)

    return brain.memo("records", key, build)


def loaded_records(brain: Brain) -> RecordIndex | None:
    """The record index if this process has built it (nothing is built here)."""
    return brain.kept("records")


def made_by_vaultbrain(brain: Brain) -> Callable[[str], bool]:
    """Whether the note at a path is a record vaultbrain made, or one the person adopted
    (what vaultbrain writes into unasked by a gesture or a setting); not a hand-made note
    known by path, nor any note outside the records."""
    index = records(brain)

    def ours(rel: str) -> bool:
        hit = index.by_path(rel)
        if hit is None or hit[1].get("deleted") or hit[1].get("path") != rel:
            return False
        record = brain.store.collection(hit[0]).get(hit[1]["id"])
        return record is not None and record.get("origin") != "vault"

    return ours


def _follow_refresh(brain: Brain) -> None:
    if brain.kept("records") is not None:
        records(brain).refresh(force=True)


class RecordIndex:
    def __init__(
        self, store: Store, pack: ResolvedPack, extra: list[ResolvedPack] | None = None
    ) -> None:
        self.store = store
        self.pack = pack
        self.extra = list(extra or [])  # per-folder packs (tier 3): their collections too
        self._collections = collections_of(pack, self.extra)
        self._versions: dict[str, Any] = {}
        # collection -> id -> summary
        self._records: dict[str, MutableMapping[str, dict[str, Any]]] = {}
        self._marks: dict[str, tuple[int, int]] = {}  # each collection's change feed, followed
        self._names: dict[str, set[tuple[str, str]]] = {}  # lower name -> {(collection, id)}
        self._checked = 0.0
        # Names are learnt only when first asked for: a scan needs paths and ids alone. So are
        # content hashes (moves of notes that carry no id are found by their content), and
        # paths (a cold capture looks up a few names, and no path: 10,000 paths lower-cased
        # for nothing were a tenth of it).
        self._paths: dict[str, tuple[str, str]] | None = None
        self._names_built = False
        self._hashes: dict[str, set[tuple[str, str]]] | None = None
        # Nothing is loaded until a question needs every record (all, by_hash…) or enough
        # questions were asked: a cold capture asks a few names and paths, each one indexed
        # query of the store (its record_names and path index), not 10,000 summaries.
        self._loaded = False
        self._asked = 0

    def load(self) -> RecordIndex:
        """Every record's summary in memory, from now on kept in step (a process that asks
        many questions: a scan, the daemon)."""
        if not self._loaded:
            self._loaded = True
            self.refresh(force=True)
        return self

    def _in_store(self) -> bool:
        """Whether this question is asked of the store (nothing loaded yet, and not yet so
        many questions that loading them all costs less)."""
        if self._loaded:
            return False
        self._asked += 1
        if self._asked > _ASK_BEFORE_LOADING:
            self.load()
            return False
        return True

    @property
    def collections(self) -> list[str]:
        return self._collections

    def refresh(self, force: bool = False) -> None:
        """Pick up changes other processes made to the store (only what changed is relearnt).

        Our own writes update the lookup directly, so a check is needed only for other
        processes: at most every 0.2 s, and always (``force``) before a decision that a
        stale view could get wrong, such as planning where a thought is filed.
        """
        if not self._loaded:
            return  # (nothing kept: each question reads the store as it is)
        now = time.monotonic()
        if not force and now - self._checked < 0.2:
            return
        self._checked = now
        for name in self.collections:
            col = self.store.collection(name)
            version = col.version()
            if self._versions.get(name) == version:
                continue
            current = self._records.setdefault(name, {})
            mark, changed = col.changes_since(self._marks.get(name))
            self._marks[name] = mark
            if current and changed is not None and len(changed) <= _FOLLOW_AT_MOST:
                # (the records the change feed names, not all 10,000 compared)
                for rid, summary in col.summaries_of(dict.fromkeys(changed)).items():
                    if summary is None:
                        self._forget(name, rid)
                    elif current.get(rid) != summary:
                        self._forget(name, rid)
                        self._learn(name, summary)
                self._versions[name] = version
                continue
            fresh = col.live_summaries()
            if not current:
                self._learn_all(name, fresh)
                self._versions[name] = version
                continue
            for rid in [rid for rid in current if rid not in fresh]:
                self._forget(name, rid)
            for rid, summary in fresh.items():
                if current.get(rid) != summary:
                    self._forget(name, rid)
                    self._learn(name, summary)
            self._versions[name] = version

    def _name_index(self) -> dict[str, set[tuple[str, str]]]:
        if not self._names_built:
            self._names_built = True
            names = self._names
            for collection, records in self._records.items():
                for rid, summary in records.items():
                    if summary.get("aliases"):
                        for key in self._keys(summary):
                            names.setdefault(key, set()).add((collection, rid))
                        continue
                    # (10,000 records on a cold capture: _keys of a title alone, written out)
                    key = str(summary.get("title", "")).strip().lower()
                    if key:
                        bucket = names.get(key)
                        if bucket is None:
                            names[key] = {(collection, rid)}
                        else:
                            bucket.add((collection, rid))
        return self._names

    def _named(self, keys: list[str]) -> dict[str, set[tuple[str, str]]]:
        """The records each of ``keys`` names (title or alias, lower-cased)."""
        names = self._name_index()
        return {k: names[k] for k in keys if k in names}

    def _stored(self, keys: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
        """(key, collection, summary) of each live record ``keys`` (lower-cased) name, as
        the store's record_names has them."""
        return named(self.store, keys, self.collections, LOWER)

    def _keys(self, summary: dict[str, Any]) -> list[str]:
        return record_names(summary)

    def _learn(self, collection: str, summary: dict[str, Any]) -> None:
        rid = summary["id"]
        self._records.setdefault(collection, {})[rid] = summary
        if self._hashes is not None and summary.get("base_hash"):
            self._hashes.setdefault(summary["base_hash"], set()).add((collection, rid))
        if self._names_built:
            for key in self._keys(summary):
                self._names.setdefault(key, set()).add((collection, rid))
        if self._paths is not None and summary.get("path"):
            self._paths[summary["path"].lower()] = (collection, rid)

    def _learn_all(self, collection: str, fresh: MutableMapping[str, dict[str, Any]]) -> None:
        """A collection's first load: :meth:`_learn` for each record, in bulk."""
        self._records[collection] = fresh
        if self._hashes is not None:
            for rid, summary in fresh.items():
                if summary.get("base_hash"):
                    self._hashes.setdefault(summary["base_hash"], set()).add((collection, rid))
        if self._paths is not None:
            self._paths.update(
                (s["path"].lower(), (collection, r)) for r, s in fresh.items() if s.get("path")
            )
        if self._names_built:
            for rid, summary in fresh.items():
                for key in self._keys(summary):
                    self._names.setdefault(key, set()).add((collection, rid))

    def _forget(self, collection: str, rid: str) -> None:
        old = self._records.get(collection, {}).pop(rid, None)
        if not old:
            return
        if self._hashes is not None and old.get("base_hash"):
            bucket = self._hashes.get(old["base_hash"])
            if bucket:
                bucket.discard((collection, rid))
        for key in self._keys(old) if self._names_built else ():
            bucket = self._names.get(key)
            if bucket:
                bucket.discard((collection, rid))
                if not bucket:
                    del self._names[key]
        paths = self._paths
        if (
            paths is not None
            and old.get("path")
            and paths.get(old["path"].lower())
            == (
                collection,
                rid,
            )
        ):
            del paths[old["path"].lower()]

    def upsert(self, collection: str, record: dict[str, Any]) -> None:
        """Our own write: update the lookup without a rebuild."""
        from vaultbrain.store.records import summarize

        if not self._loaded:
            return  # (nothing kept: the store has it)
        self._forget(collection, record["id"])
        if not record.get("deleted"):
            self._learn(collection, summarize(record))
        self._versions[collection] = self.store.collection(collection).version()

    def remove(self, collection: str, rid: str) -> None:
        if not self._loaded:
            return
        self._forget(collection, rid)
        self._versions[collection] = self.store.collection(collection).version()

    # -- queries -------------------------------------------------------------------------
    def find(self, type_name: str, title: str) -> dict[str, Any] | None:
        """The record of this type named ``title`` (by name or alias, any case)."""
        ptype = self.pack.get_type(type_name)
        if ptype is None:
            return None
        key = title.strip().lower()
        if self._in_store():
            found = {(c, str(sm.get("id"))): sm for _, c, sm in self._stored([key])}
            for hit in sorted(found):
                if found[hit].get("type") == ptype.name:
                    return found[hit]
            return None
        for collection, rid in sorted(self._named([key]).get(key, ())):
            summary = self._records.get(collection, {}).get(rid)
            if summary and summary.get("type") == ptype.name:
                return summary
        return None

    def by_path(self, rel: str) -> tuple[str, dict[str, Any]] | None:
        if rel.isascii() and self._in_store():
            # (ASCII: SQLite's lower() is Python's; another path loads every record)
            rows = (
                self.store.conn()
                .execute(
                    "SELECT collection, id, summary FROM records WHERE lower(path) = lower(?)"
                    f" AND +deleted = 0 AND +collection IN ({','.join('?' * len(self.collections))})",
                    (rel, *self.collections),
                )
                .fetchall()
            )
            if not rows:
                return None
            # (two records on one path: the one the loaded index would keep, the last)
            order = {c: i for i, c in enumerate(self.collections)}
            collection, _, summary = max(rows, key=lambda r: (order[r[0]], r[1]))
            return collection, json.loads(summary)
        self.load()
        if self._paths is None:
            self._paths = {
                s["path"].lower(): (collection, rid)
                for collection, records in self._records.items()
                for rid, s in records.items()
                if s.get("path")
            }
        hit = self._paths.get(rel.lower())
        if hit is None:
            return None
        collection, rid = hit
        summary = self._records.get(collection, {}).get(rid)
        return (collection, summary) if summary else None

    def by_id(self, rid: str) -> tuple[str, dict[str, Any]] | None:
        self.load()
        for collection, records in self._records.items():  # (a few collections)
            summary = records.get(rid)
            if summary:
                return collection, summary
        return None

    def by_hash(self, content_hash: str) -> list[tuple[str, dict[str, Any]]]:
        """Records whose note, when last read or written, had exactly this content."""
        self.load()
        if self._hashes is None:
            self._hashes = {}
            for collection, records in self._records.items():
                for rid, summary in records.items():
                    if summary.get("base_hash"):
                        self._hashes.setdefault(summary["base_hash"], set()).add((collection, rid))
        out = []
        for collection, rid in sorted(self._hashes.get(content_hash, ())):
            found = self._records.get(collection, {}).get(rid)
            if found:
                out.append((collection, found))
        return out

    def all(self) -> list[tuple[str, dict[str, Any]]]:
        self.load()
        return [(c, s) for c, recs in self._records.items() for s in recs.values()]

    def get(self, collection: str, rid: str) -> dict[str, Any] | None:
        self.load()
        return self._records.get(collection, {}).get(rid)

    def mentioned(self, text: str, limit: int = 12) -> list[dict[str, Any]]:
        """Records whose names or aliases occur in ``text``: bounded by the text, not the vault."""
        words = [w.strip(".&'’-").lower() for w in _WORD.findall(text)]
        words = [w for w in words if w]
        grams = [
            " ".join(words[i : i + n])
            for i in range(len(words))
            for n in range(1, MAX_NGRAM + 1)
            if i + n <= len(words)
        ]
        stored: dict[tuple[str, str], dict[str, Any]] = {}
        if self._in_store():
            names: dict[str, set[tuple[str, str]]] = {}
            for key, collection, summary in self._stored(grams):
                hit = (collection, str(summary.get("id")))
                names.setdefault(key, set()).add(hit)
                stored[hit] = summary
        else:
            names = self._named(grams)
        found: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        for i in range(len(words)):
            for n in range(MAX_NGRAM, 0, -1):
                if i + n > len(words):
                    continue
                key = " ".join(words[i : i + n])
                for hit in sorted(names.get(key, ())):
                    if hit in seen:
                        continue
                    seen.add(hit)
                    kept = stored.get(hit) or self._records.get(hit[0], {}).get(hit[1])
                    if kept:
                        found.append(kept)
                        if len(found) >= limit:
                            return found
        return found

    def versions(self) -> dict[str, Any]:
        """The store version each collection was last learnt at."""
        self.load()
        return dict(self._versions)

    def __len__(self) -> int:
        self.load()
        return sum(len(v) for v in self._records.values())
