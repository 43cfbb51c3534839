"""Lookup of existing records by name, alias and path, across the pack's collections.

Built from the store's collection summaries, kept in step with our own writes, and rebuilt
for a collection when another process changed it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError
from vaultbrain.packs import ResolvedPack
from vaultbrain.patterns import LazyPattern
from vaultbrain.procs import collector_paused
from vaultbrain.store import Store
from vaultbrain.store.snap import damages, record_names

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

# Changes another process made that are looked at one by one (more: every summary compared).
_FOLLOW_AT_MOST = 2000
_UNKNOWN = object()
# Paths looked up in the collections' kept rows before the table of every path is built.
_KEPT_LOOKUPS = 64  # (a lookup the kept rows cannot answer)
_WORD = LazyPattern(r"[\w][\w'’\-.&]*", re.UNICODE)
MAX_NGRAM = 5
# A collection with no snapshot of its names and at most this many records is looked over
# record by record for a name (a larger one has the name index built).
_SCAN_AT_MOST = 1000


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
    key = (brain.pack_key, damages())  # (built again after a damaged snapshot was met)

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
        # collection -> id -> summary (as a collection's snapshot gave them, each read as it
        # is first asked for)
        self._records: dict[str, MutableMapping[str, dict[str, Any]]] = {}
        self._marks: dict[str, tuple[int, int]] = {}  # each collection's change feed, followed
        self._names: dict[str, set[tuple[str, str]]] = {}  # lower name -> {(collection, id)}
        self._checked = 0.0
        # Names are learnt only when first asked for: a scan needs paths and ids alone. So are
        # content hashes (moves of notes that carry no id are found by their content), and
        # paths (a cold capture looks up a few names, and no path: 10,000 paths lower-cased
        # for nothing were a tenth of it).
        self._paths: dict[str, tuple[str, str]] | None = None
        self._path_lookups = 0
        # collection -> the ids changed here since it was learnt: the rows a collection's
        # snapshot kept are not taken for them (the change feed names the store's changes;
        # these are this index's, whichever store object wrote them)
        self._touched: dict[str, set[str]] = {}
        self._names_built = False
        self._hashes: dict[str, set[tuple[str, str]]] | None = None
        self.refresh(force=True)

    @property
    def collections(self) -> list[str]:
        return self._collections

    def refresh(self, force: bool = False) -> None:
        """Pick up changes other processes made to the store (only what changed is relearnt).

        Our own writes update the lookup directly, so a check is needed only for other
        processes: at most every 0.2 s, and always (``force``) before a decision that a
        stale view could get wrong, such as planning where a thought is filed.
        """
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
        """The records each of ``keys`` names (title or alias, lower-cased). Before the
        name index is built (a cold process asks for the few names of one thought), from
        the names each collection's snapshot kept and the records changed since, not by
        building an index of every record's names."""
        if self._names_built:
            names = self._names
            return {k: names[k] for k in keys if k in names}
        found = self._kept_hits("names", set(keys), self._keys, scan_small=True)
        if found is None:  # (a large collection without its names kept, or too changed)
            names = self._name_index()
            return {k: names[k] for k in keys if k in names}
        return {key: set(hits) for key, hits in found.items()}

    def _kept_hits(
        self,
        kind: str,
        keys: set[str],
        keys_of: Callable[[dict[str, Any]], list[str]],
        scan_small: bool = False,
    ) -> dict[str, list[tuple[str, str]]] | None:
        """(collection, id) of the records each of ``keys`` names, from the rows of ``kind``
        each collection's snapshot kept (vaultbrain/store/snap.py's ``kept_rows``) and the
        records changed since (their keys: ``keys_of``), in the collections' order; not by
        a table of every record's. None when a collection has no such rows (``scan_small``:
        one of at most _SCAN_AT_MOST records is looked over instead), lost them, or changed
        too much since: the table is built then."""
        found: dict[str, list[tuple[str, str]]] = {}
        for collection in self.collections:
            records = self._records.get(collection)
            if not records:
                continue
            kept = self.store.collection(collection).kept_rows(kind)
            if kept is None and not (scan_small and len(records) <= _SCAN_AT_MOST):
                return None
            if kept is None:
                changed: Any = records  # a small collection: each of its records looked at
            else:
                if self._long_since(collection, kept):
                    return None
                rows, changed = kept[0], set(kept[1]) | self._touched.get(collection, set())
                try:
                    kept_hits = {key: rows.values(key) for key in keys}
                except StorageError:  # (a snapshot that lost them, set aside)
                    return None
                for key, ids in kept_hits.items():
                    for rid in ids:
                        if rid not in changed and rid in records:
                            found.setdefault(key, []).append((collection, rid))
            for rid in changed:
                summary = records.get(rid)
                if summary is not None:
                    for key in keys_of(summary):
                        if key in keys:
                            found.setdefault(key, []).append((collection, rid))
        return found

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
        # (every change to a record here passes by: what the kept rows say of it is stale)
        self._touched.setdefault(collection, set()).add(rid)
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

        self._forget(collection, record["id"])
        if not record.get("deleted"):
            self._learn(collection, summarize(record))
        self._versions[collection] = self.store.collection(collection).version()

    def remove(self, collection: str, rid: str) -> None:
        self._forget(collection, rid)
        self._versions[collection] = self.store.collection(collection).version()

    # -- queries -------------------------------------------------------------------------
    def find(self, type_name: str, title: str) -> dict[str, Any] | None:
        """The record of this type named ``title`` (by name or alias, any case)."""
        ptype = self.pack.get_type(type_name)
        if ptype is None:
            return None
        key = title.strip().lower()
        for collection, rid in sorted(self._named([key]).get(key, ())):
            summary = self._records.get(collection, {}).get(rid)
            if summary and summary.get("type") == ptype.name:
                return summary
        return None

    def by_path(self, rel: str) -> tuple[str, dict[str, Any]] | None:
        key = rel.lower()
        hit: Any
        if self._paths is not None:
            hit = self._paths.get(key)
        else:
            # (a few paths looked up in the kept rows; a walk of the vault looks up each
            # note's: the table is built then)
            self._path_lookups += 1
            hit = self._kept_path(key) if self._path_lookups <= _KEPT_LOOKUPS else _UNKNOWN
            if hit is _UNKNOWN:
                self._paths = {
                    s["path"].lower(): (collection, rid)
                    for collection, records in self._records.items()
                    for rid, s in records.items()
                    if s.get("path")
                }
                hit = self._paths.get(key)
        if hit is None:
            return None
        collection, rid = hit
        summary = self._records.get(collection, {}).get(rid)
        return (collection, summary) if summary else None

    def _kept_path(self, key: str) -> Any:
        """The (collection, id) of the record whose note is at ``key`` (lower-cased), None
        when none is, from the paths each collection's snapshot kept and the records changed
        since, as :meth:`_named` looks up names (a cold capture looks up a few paths: a table
        of 10,000 was a tenth of it). ``_UNKNOWN`` when a collection kept none: the table is
        built then."""
        found = self._kept_hits("paths", {key}, lambda s: [str(s.get("path") or "").lower()])
        if found is None:
            return _UNKNOWN
        hits = found.get(key, [])
        if len(hits) > 1:  # (two records say one note: the one the table would keep, the last)
            order = {c: i for i, c in enumerate(self._records)}
            return max(hits, key=lambda h: (order[h[0]], list(self._records[h[0]]).index(h[1])))
        return hits[0] if hits else None

    def _long_since(self, collection: str, kept: tuple[Any, list[str]]) -> bool:
        """Whether so many records changed since a collection's rows were kept (a daemon's
        hours) that looking each of them over costs more than the table of every record."""
        return len(kept[1]) + len(self._touched.get(collection, ())) > _SCAN_AT_MOST

    def by_id(self, rid: str) -> tuple[str, dict[str, Any]] | None:
        for collection, records in self._records.items():  # (a few collections)
            summary = records.get(rid)
            if summary:
                return collection, summary
        return None

    def by_hash(self, content_hash: str) -> list[tuple[str, dict[str, Any]]]:
        """Records whose note, when last read or written, had exactly this content."""
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
        return [(c, s) for c, recs in self._records.items() for s in recs.values()]

    def get(self, collection: str, rid: str) -> dict[str, Any] | None:
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
                    summary = self._records.get(hit[0], {}).get(hit[1])
                    if summary:
                        found.append(summary)
                        if len(found) >= limit:
                            return found
        return found

    def versions(self) -> dict[str, Any]:
        """The store version each collection was last learnt at."""
        return dict(self._versions)

    def __len__(self) -> int:
        return sum(len(v) for v in self._records.values())
