"""The embedded classifier learns the vault it lives in, from the store's collections.

What it learns, each weighted above the shipped corpus:
- every record of a fileable type: its title and aliases (a record named "Catan" in Projects
  is a project, and no person), from the collections' summaries (no record file is read),
  weight :data:`W_RECORD`;
- the captures filed to records (the inbox collection: the thought, and the types of the
  records it was filed to, the first one primary), once they stand: filed (by the LLM on its
  own, or confirmed by the person) or corrected; a suggestion nobody confirmed teaches
  nothing (weight :data:`W_CAPTURE`);
- every correction in ``corrections.jsonl`` (``fix``, ``→ type``, re-typing a note), labelled
  with the type it was corrected to (weight :data:`W_CORRECTION`).

Counts are additive (``learned.py``), so learning is incremental: a cold process loads the
state it cached (in ``state.db``'s blobs), reads only corrections appended since, and
relearns only records and captures whose store summary changed. ``rebuild`` starts from
scratch (``reindex`` calls it). The corpus model is cached there too, keyed by a hash of the
corpus, so a cold ``capture`` loads it instead of training it.
"""

from __future__ import annotations

import logging
import pickle
import time
import weakref
from collections.abc import Container, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify.entities import find_people
from vaultbrain.classify.learned import Counts, features
from vaultbrain.classify.mentions import KnownNames
from vaultbrain.classify.reading import Embedded, model_labels, training_labels
from vaultbrain.classify.reliability import Reliability, vote_evidence
from vaultbrain.classify.training import corpus_embedded, corpus_key
from vaultbrain.errors import VaultbrainError
from vaultbrain.procs import collector_paused
from vaultbrain.statuses import STOOD, CaptureStatus
from vaultbrain.store import Store

log = logging.getLogger(__name__)

# Whole numbers: the vault's counts stay integers, which the state dir's cache stores in a
# quarter of the room floats take and reads back faster.
W_RECORD = 2
W_CAPTURE = 3
W_CORRECTION = 6
CACHE_VERSION = 7
CORRECTIONS = "corrections.jsonl"
INBOX = "inbox"
LEARNT = STOOD  # the captures the classifier learns from: what a thought became and stood by
# the captures whose record is read: those it learns from, and those whose votes say how
# reliable each voter is (classify/reliability.py)
READ = frozenset(CaptureStatus) - {CaptureStatus.PENDING}
SAVE_EVERY = 25  # records relearned before the state is written back to the state dir
SAVE_SECONDS = 30.0
URGENT = 1_000_000  # unsaved count that means: write now (a correction)
_LOADED: dict[str, Embedded] = {}  # corpus models read from a store, by name (a content hash)


@dataclass
class VaultLearning:
    """What one vault taught the embedded classifier, in a form that learns incrementally."""

    pack: str
    types: list[str]
    counts: Counts
    names: KnownNames = field(default_factory=KnownNames)
    # "collection/id" -> (type, title, aliases): from the store's summaries alone
    records: MutableMapping[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    # capture id -> (marker, text, labels, hints as learnt, votes as counted); labels empty:
    # nothing to learn; votes None: nothing counted
    captures: MutableMapping[str, tuple[Any, ...]] = field(default_factory=dict)
    # the voters' reliability, from the votes the captures keep (classify/reliability.py)
    reliability: Reliability = field(default_factory=Reliability)
    corrections_at: int = 0
    corrections: dict[str, int] = field(default_factory=dict)  # type -> corrections to it
    versions: dict[str, Any] = field(default_factory=dict)
    unsaved: int = 0  # records and captures relearned since the state was last written

    # -- what each source contributes ------------------------------------------------------
    def _hints(self, text: str, common: Container[str]) -> tuple[str, ...]:
        from vaultbrain.classify.reading import hints

        return tuple(sorted(hints(text, find_people(text, common, self.names), self.names)))

    def _record_doc(self, type_name: str, title: str, aliases: tuple[str, ...]) -> tuple:
        text = " ".join([title, *aliases])
        return features(text, ["#known:" + type_name]), training_labels([type_name])

    def add_record(self, key: str, summary: dict[str, Any], bulk: list | None = None) -> None:
        type_name = str(summary.get("type") or "")
        title = str(summary.get("title") or "").strip()
        if type_name not in self.types or not title:
            return
        aliases = tuple(str(a) for a in summary.get("aliases") or [] if str(a).strip())
        self.names.add(type_name, title, aliases)
        feats, labels = self._record_doc(type_name, title, aliases)
        if bulk is not None:
            bulk.append((feats, labels, W_RECORD))
        else:
            self.counts.add(feats, labels, W_RECORD)
        self.records[key] = (type_name, title, aliases)

    def remove_record(self, key: str) -> None:
        old = self.records.pop(key, None)
        if old is None:
            return
        type_name, title, aliases = old
        self.names.remove(type_name, title, aliases)
        feats, labels = self._record_doc(type_name, title, aliases)
        self.counts.add(feats, labels, -W_RECORD)

    def set_capture(
        self,
        cid: str,
        marker: Any,
        record: dict[str, Any] | None,
        common: Container[str],
        bulk: list | None = None,
    ) -> None:
        """Learn a capture as it stands now (forgetting what it taught before): filed (by the
        LLM on its own or confirmed by the person) or corrected, with its destinations' types,
        the first one primary. Suggestions, reviews and pending captures teach nothing."""
        old = self.captures.pop(cid, None)
        if old is not None and old[2]:
            self.counts.add(features(old[1], old[3]), old[2], -W_CAPTURE)
        if old is not None and old[4] is not None:
            votes, truth, weight = old[4]
            self.reliability.add(votes, truth, weight, sign=-1)
        if marker is None:  # the capture is gone
            return
        labels: tuple[str, ...] = ()
        record = record or {}
        text = str(record.get("text") or "")
        if record.get("status") in LEARNT and text:
            types = [
                str(d.get("type"))
                for d in record.get("destinations") or []
                if isinstance(d, dict) and d.get("type") in self.types
            ]
            if types:
                labels = tuple(training_labels(list(dict.fromkeys(types))))
        hints = self._hints(text, common) if labels else ()
        if labels:
            feats = features(text, hints)
            if bulk is not None:
                bulk.append((feats, labels, W_CAPTURE))
            else:
                self.counts.add(feats, labels, W_CAPTURE)
        counted = vote_evidence(record)
        if counted is not None:
            self.reliability.add(*counted)
        self.captures[cid] = (marker, text if labels else "", labels, hints, counted)

    def add_correction(self, text: str, types: list[str], common: Container[str]) -> None:
        """One correction: the thought, and the types the person gave it, the first primary
        ("→ person, admin" is one thought of two types, not two thoughts of one each)."""
        types = [t for t in dict.fromkeys(types) if t in self.types]
        if text and types:
            hints = self._hints(text, common)
            self.counts.add(features(text, hints), training_labels(types), W_CORRECTION)
            for to in types:
                self.corrections[to] = self.corrections.get(to, 0) + 1

    def examples_per_type(self) -> dict[str, int]:
        """Examples of each type: records, captures filed to one, corrections to one."""
        out = dict.fromkeys(self.types, 0)
        for type_name, _, _ in self.records.values():
            out[type_name] += 1
        for _, _, labels, *_ in self.captures.values():
            for label in labels:
                if label in out:
                    out[label] += 1
        for type_name, n in self.corrections.items():
            out[type_name] += n
        return out


def _types(pack: Any) -> list[str]:
    return [t.name for t in pack.fileable_types()]


def _collections(pack: Any) -> list[str]:
    seen: list[str] = []
    for t in pack.fileable_types():
        if t.store_collection not in seen:
            seen.append(t.store_collection)
    return seen


def _marker(summary: dict[str, Any]) -> Any:
    """What of a record the classifier learns, as :meth:`VaultLearning.add_record` keeps it."""
    title = str(summary.get("title") or "").strip()
    aliases = tuple(str(a) for a in summary.get("aliases") or [] if str(a).strip())
    return (str(summary.get("type") or ""), title, aliases)


def _capture_marker(summary: dict[str, Any]) -> Any:
    """Changes when a capture may have changed: its status, its last update, its revision."""
    return (summary.get("status"), summary.get("updated"), summary.get("rev"))


def _load(store: Store, name: str) -> Any:
    try:
        data = store.read_blob(name)
    except VaultbrainError as exc:
        log.info("could not read the classifier cache %s: %s", name, exc)
        return None
    if data is None:
        return None
    try:
        with collector_paused():  # (10,000 records' worth)
            value = pickle.loads(data)  # our own cache in this machine's state.db
    except Exception as exc:  # a torn or foreign cache is relearnt, never fatal
        log.info("ignoring the classifier cache %s: %s", name, exc)
        return None
    return value if isinstance(value, dict) and value.get("version") == CACHE_VERSION else None


def _save(store: Store, name: str, data: dict[str, Any]) -> None:
    try:
        store.write_blob(name, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception as exc:  # a cache that cannot be written is rebuilt next time
        log.info("could not write the classifier cache %s: %s", name, exc)


def _vault_name(pack: Any) -> str:
    return f"classifier/vault-{pack.name}"


@dataclass
class _Followed:
    """What this process holds of one database's learning for one pack: the learning, when
    it was last written, and how far it followed each collection (the summary objects last
    learnt from, by record key; the change feed's mark at the last look)."""

    learning: VaultLearning | None = None
    saved_at: float = 0.0
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    marks: dict[str, tuple[int, int]] = field(default_factory=dict)


# Kept with the store object (and gone with it), by the database's own id: a state dir lost
# and made again under a long-running daemon is another database, learnt afresh, not a
# continuation of the one at the same path.
_FOLLOWED: weakref.WeakKeyDictionary[Store, dict[tuple[str, str], _Followed]] = (
    weakref.WeakKeyDictionary()
)


def _followed(store: Store, pack: Any) -> _Followed:
    ident = store.head(store.conn())[0]
    held = _FOLLOWED.get(store)
    if held is None:
        held = _FOLLOWED[store] = {}
    key = (ident, pack.identity)
    followed = held.get(key)
    if followed is None:
        for old in [k for k in held if k[0] != ident]:
            del held[old]
        followed = held[key] = _Followed()
    return followed


def forget_learning() -> None:
    """Drop what this process holds of every store's learning (a benchmark's cold start)."""
    _FOLLOWED.clear()
    _LOADED.clear()


def _keep(store: Store, pack: Any, learning: VaultLearning) -> None:
    """Write the learning (nothing unsaved from here on), then a small stamp of what it was
    learnt from (the collections' versions, how far into the corrections), so a process can
    tell the saved state is current without unpickling it (55 ms at 10,000 records)."""
    _followed(store, pack).saved_at = time.monotonic()
    learning.unsaved = 0
    _save(store, _vault_name(pack), {"version": CACHE_VERSION, "learning": learning})
    _stamp(store, pack, learning)


def _stamp(store: Store, pack: Any, learning: VaultLearning) -> None:
    """Write the stamp of ``learning``, which must be the state saved (as it is after a save,
    or when it was loaded and had nothing to learn: ``unsaved`` is 0)."""
    stamp = {
        "pack": learning.pack,
        "versions": learning.versions,
        "corrections_at": learning.corrections_at,
    }
    try:
        store.write_json(_vault_name(pack) + ".stamp", stamp)
    except Exception as exc:  # without a stamp the state is only unpickled to be checked
        log.info("could not write the classifier cache's stamp: %s", exc)


def catch_up_saved(store: Store, pack: Any) -> None:
    """``reindex`` with nothing new in the store: the saved learning brought up to date (not
    relearnt from every record). Its stamp says whether there is anything to do; a state
    loaded that had nothing to learn is stamped, so the next reindex need not load it."""
    if saved_learning_current(store, pack):
        return
    learning = vault_learning(store, pack)
    if learning.unsaved == 0:
        _stamp(store, pack, learning)


def saved_learning_current(store: Store, pack: Any) -> bool:
    """True when the saved learning was learnt from the store as it is now (by its stamp:
    a stat per collection, no unpickling). Only ever a shortcut: a state behind its stamp
    (two processes saving at once) is caught up by the next process that loads it, which
    goes by the state's own versions."""
    import json

    try:
        stamp = store.read_json(_vault_name(pack) + ".stamp")
    except VaultbrainError:
        return False
    size = store.log_head(CORRECTIONS)
    if not isinstance(stamp, dict) or stamp.get("pack") != pack.identity:
        return False
    now = {name: store.collection(name).disk_version() for name in _collections(pack)}
    now[INBOX] = store.inbox.disk_version()
    return size == stamp.get("corrections_at") and json.dumps(now, sort_keys=True) == json.dumps(
        stamp.get("versions"), sort_keys=True
    )


def corpus_model(store: Store | None, pack: Any, save: bool = True) -> Embedded:
    """The corpus model for ``pack``, from the state dir's cache when it is current (trained
    once per process otherwise, and cached unless ``save`` is false)."""
    types = _types(pack)
    if store is None:
        return corpus_embedded(tuple(types), pack.name)
    name = f"classifier/corpus-{corpus_key(types, pack.name)}"
    hit = _LOADED.get(name)
    if hit is not None:
        return hit
    data = _load(store, name)
    if data is not None and isinstance(data.get("embedded"), Embedded):
        _LOADED[name] = data["embedded"]
        return data["embedded"]
    emb = corpus_embedded(tuple(types), pack.name)
    if save:
        _save(store, name, {"version": CACHE_VERSION, "embedded": emb})
    return emb


def rebuild(store: Store, pack: Any, save: bool = True) -> VaultLearning:
    """Learn the vault from scratch (``reindex``): every record's names (from the store's
    summaries, no note read), every filed or corrected capture, every correction."""
    common = corpus_model(store, pack, save).common
    learning = VaultLearning(pack.identity, _types(pack), Counts(model_labels(_types(pack))))
    learning.reliability.types = len(learning.types)
    bulk: list[tuple[Any, Any, float]] = []
    for name in _collections(pack):
        col = store.collection(name)
        learning.versions[name] = col.disk_version()
        for summary in col.summaries():
            learning.add_record(f"{name}/{summary['id']}", summary, bulk)
    inbox = store.inbox
    learning.versions[INBOX] = inbox.disk_version()
    for summary in inbox.summaries():
        marker = _capture_marker(summary)
        record = inbox.get(summary["id"]) if summary.get("status") in READ else None
        learning.set_capture(summary["id"], marker, record, common, bulk)
    learning.counts.add_many(bulk)
    _read_corrections(store, learning, common)
    if save:
        _keep(store, pack, learning)
        _followed(store, pack).learning = learning
    return learning


def _read_corrections(store: Store, learning: VaultLearning, common: frozenset[str]) -> bool:
    """Learn the corrections appended since last time; whether there were any."""
    size = store.log_head(CORRECTIONS)  # (the last correction's number)
    if size < learning.corrections_at:  # another database: start over on it
        learning.corrections_at = 0
    if size == learning.corrections_at:
        return False
    rows = store.log_after(CORRECTIONS, learning.corrections_at)
    # the entries one resolution wrote (the same thought, at the same time) are one example
    group: tuple[str, str] | None = None
    types: list[str] = []
    for _, entry in rows:
        key = (str(entry.get("text") or ""), str(entry.get("at") or ""))
        if key != group:
            if group is not None:
                learning.add_correction(group[0], types, common)
            group, types = key, []
        types.append(str(entry.get("to") or ""))
    if group is not None:
        learning.add_correction(group[0], types, common)
    learning.corrections_at = rows[-1][0] if rows else size
    return bool(rows)


def vault_learning(store: Store, pack: Any, save: bool = True) -> VaultLearning:
    """What the vault taught, brought up to date incrementally (a correction counts at once).
    ``save``: keep the updated state in the state dir (``vaultbrain classify`` writes nothing)."""
    memo = _followed(store, pack)
    learning = memo.learning  # a long-running daemon keeps it in memory
    if learning is None:
        data = _load(store, _vault_name(pack))
        learning = data.get("learning") if data else None
    if not isinstance(learning, VaultLearning) or learning.pack != pack.identity:
        learning = rebuild(store, pack, save)
        memo.learning = learning
        memo.seen.clear()
        return learning
    memo.learning = learning
    seen_of, marks = memo.seen, memo.marks
    common = corpus_model(store, pack, save).common
    if _read_corrections(store, learning, common):
        learning.unsaved += URGENT  # a correction is worth keeping at once
    for name in _collections(pack):
        col = store.collection(name)
        version = col.disk_version()
        if learning.versions.get(name) == version:
            continue
        prefix = f"{name}/"
        mark, changed = col.changes_since(marks.get(name))
        marks[name] = mark
        if name not in seen_of and name in learning.versions:
            # A state saved by a look a little while ago (this process's first look): what
            # changed since is in the index log's tail.
            changed = col.ids_changed_since(learning.versions[name])
            if changed is not None:
                seen_of[name] = {}
        if changed is not None and name in seen_of:
            # In step with this process's last look: only the records that changed since.
            learning.unsaved += _learn_changed(learning, col, prefix, changed, seen_of[name])
            learning.versions[name] = version
            continue
        seen = seen_of.setdefault(name, {})
        first = not seen
        present: set[str] = set()
        for summary in col.summaries():
            key = prefix + summary["id"]
            present.add(key)
            learning.unsaved += _learn_one(learning, key, summary, seen)
        gone: list[str] = []
        if first:  # learnt in another process: any of its records may be gone since
            gone = [k for k in learning.records if k.startswith(prefix) and k not in present]
        elif len(seen) != len(present):
            gone = [k for k in seen if k not in present]
        for key in gone:
            seen.pop(key, None)
            if key in learning.records:
                learning.remove_record(key)
                learning.unsaved += 1
        if first:  # not followable from its saved version (log folded): saved, not redone
            learning.unsaved = max(learning.unsaved, SAVE_EVERY)
        learning.versions[name] = version
    inbox = store.inbox
    version = inbox.disk_version()
    if learning.versions.get(INBOX) != version:
        mark, changed = inbox.changes_since(marks.get(INBOX))
        marks[INBOX] = mark
        if INBOX not in seen_of and INBOX in learning.versions:
            changed = inbox.ids_changed_since(learning.versions[INBOX])  # as above
            if changed is not None:
                seen_of[INBOX] = {}
        if changed is not None and INBOX in seen_of:
            current = {}
            for cid in dict.fromkeys(changed):
                now = inbox.summary(cid)
                if now is not None:
                    current[cid] = now
                elif cid in learning.captures:
                    learning.set_capture(cid, None, None, common)
                    learning.unsaved += 1
        else:
            current = {s["id"]: s for s in inbox.summaries()}
            for cid in [c for c in learning.captures if c not in current]:
                learning.set_capture(cid, None, None, common)
                learning.unsaved += 1
        seen = seen_of.setdefault(INBOX, {})
        for cid, summary in current.items():
            if seen.get(cid) is summary:
                continue
            seen[cid] = summary
            marker = _capture_marker(summary)
            old = learning.captures.get(cid)
            if old is not None and old[0] == marker:
                continue
            record = inbox.get(cid) if summary.get("status") in READ else None
            learning.set_capture(cid, marker, record, common)
            learning.unsaved += 1
        learning.versions[INBOX] = version
    # Written back only now and then: a process that finds the cache a few records behind
    # relearns just those (reading their summaries it needs anyway), which costs less than
    # writing the whole state after every capture.
    # ...and at most every SAVE_SECONDS: a burst of captures relearns each in memory, and a
    # 10,000-record state is not pickled again every 25 of them. A correction is kept at once.
    due = time.monotonic() - memo.saved_at >= SAVE_SECONDS
    if save and learning.unsaved >= SAVE_EVERY and (due or learning.unsaved >= URGENT):
        _keep(store, pack, learning)
    return learning


def keep_learning(store: Store, pack: Any) -> bool:
    """Write back the learning this process holds, if it learnt anything since its last
    write: the daemon's own time for it (its periodic save and its stop), so no capture waits
    for a 10,000-record state to be pickled. True when it was written."""
    learning = _followed(store, pack).learning
    if learning is None or learning.unsaved <= 0:
        return False
    _keep(store, pack, learning)
    return True


def _learn_changed(
    learning: VaultLearning,
    col: Any,
    prefix: str,
    changed: list[str],
    seen: dict[str, Any],
) -> int:
    """What :func:`vault_learning` does for every record, for the records that changed
    (gone or deleted ones are unlearnt). Returns how many were (un)learnt."""
    learnt = 0
    for rid in dict.fromkeys(changed):
        key = prefix + rid
        summary = col.summary(rid)
        if summary is None:
            seen.pop(key, None)
            if key in learning.records:
                learning.remove_record(key)
                learnt += 1
            continue
        learnt += _learn_one(learning, key, summary, seen)
    return learnt


def _learn_one(
    learning: VaultLearning, key: str, summary: dict[str, Any], seen: dict[str, Any]
) -> int:
    """One record's summary learnt, if it changed: 1, else 0. The store hands out the same
    summary object while a record is unchanged, so that costs one comparison."""
    if seen.get(key) is summary:
        return 0
    seen[key] = summary
    old = learning.records.get(key)
    if old is not None and old == _marker(summary):
        return 0
    learning.remove_record(key)
    learning.add_record(key, summary)
    return 1


def embedded_for(store: Store | None, pack: Any, save: bool = True) -> Embedded:
    """The embedded classifier for this vault: the corpus model plus what the vault taught.
    With no store (no vault), the corpus model alone."""
    base = corpus_model(store, pack, save)
    if store is None:
        return base
    try:
        learning = vault_learning(store, pack, save)
    except (OSError, VaultbrainError) as exc:  # the state dir unreadable: the corpus still knows
        log.warning("the embedded classifier could not learn the vault: %s", exc)
        return base
    return base.with_vault(learning.counts, learning.names, learning.reliability)


def example_counts(store: Store | None, pack: Any) -> dict[str, Any]:
    """How many examples the embedded classifier has per type, from the corpus and from the
    vault, and which it learns from (for ``doctor``: a pack the corpus does not cover learns
    from the vault alone)."""
    base = corpus_model(store, pack, save=False)
    types = _types(pack)
    corpus = (
        {t: v for t, v in base.model.examples_per_label().items() if t in types}
        if base.model
        else dict.fromkeys(types, 0)
    )
    vault = (
        vault_learning(store, pack, save=False).examples_per_type()
        if store
        else dict.fromkeys(types, 0)
    )
    has_corpus = any(corpus.values())
    has_vault = any(vault.values())
    source = (
        "corpus+vault"
        if has_corpus and has_vault
        else "corpus"
        if has_corpus
        else "vault"
        if has_vault
        else "none"
    )
    return {"source": source, "corpus": corpus, "vault": vault}
