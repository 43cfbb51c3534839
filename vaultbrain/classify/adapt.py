"""The embedded classifier learns the vault it lives in, from the store's collections.

What it learns, each weighted above the shipped corpus:
- every record of a fileable type: its title and aliases (a record named "Catan" in Projects
  is a project, and no person), weight :data:`W_RECORD`;
- the captures filed to records (the ``log`` lines a record keeps, with the capture's id): one
  example per capture, labelled with the types of every record it went to, once the person
  has not left it unconfirmed (weight :data:`W_CAPTURE`);
- every correction in ``corrections.jsonl`` (``fix``, ``→ type``, re-typing a note), labelled
  with the type it was corrected to (weight :data:`W_CORRECTION`).

Counts are additive (``learned.py``), so learning is incremental: a cold process loads the
state it cached (``<state dir>/classifier/``), reads only corrections appended since, and
relearns only records whose store summary changed. ``rebuild`` starts from scratch (``reindex``
calls it); both leave the cache on disk. The corpus model is cached there too, keyed by a
hash of the corpus, so a cold ``capture`` loads it instead of training it.
"""

from __future__ import annotations

import logging
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultbrain.classify.embedded import (
    Embedded,
    corpus_embedded,
    corpus_key,
    model_labels,
    training_labels,
)
from vaultbrain.classify.entities import KnownNames, find_people
from vaultbrain.classify.learned import Counts, features
from vaultbrain.store import Store

log = logging.getLogger(__name__)

W_RECORD = 2.0
W_CAPTURE = 3.0
W_CORRECTION = 6.0
CACHE_VERSION = 2
CORRECTIONS = "corrections.jsonl"
SAVE_EVERY = 25  # records relearned before the state is written back to the state dir
_LOADED: dict[str, Embedded] = {}  # corpus models read from a state dir, by path (immutable)
_LEARNING: dict[tuple[str, str], VaultLearning] = {}  # (state dir, pack identity) -> learning


@dataclass
class VaultLearning:
    """What one vault taught the embedded classifier, in a form that learns incrementally."""

    pack: str
    types: list[str]
    counts: Counts
    names: KnownNames = field(default_factory=KnownNames)
    # "collection/id" -> (marker, type, title, aliases, capture ids it logs)
    records: dict[str, tuple[Any, str, str, tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict
    )
    # capture id -> {"text", "types": {type: [record keys]}, "hints": [...] (as learnt)}
    captures: dict[str, dict[str, Any]] = field(default_factory=dict)
    corrections_at: int = 0
    corrections: dict[str, int] = field(default_factory=dict)  # type -> corrections to it
    versions: dict[str, Any] = field(default_factory=dict)
    unsaved: int = 0  # records relearned since the state was last written

    # -- what each source contributes ------------------------------------------------------
    def _doc(self, text: str, hints: list[str], labels: list[str], weight: float) -> None:
        if labels:
            self.counts.add(features(text, hints), labels, weight)

    def _hints(self, text: str, common: frozenset[str]) -> list[str]:
        from vaultbrain.classify.embedded import hints

        return sorted(hints(text, find_people(text, common, self.names), self.names))

    def _capture_labels(self, cap: dict[str, Any]) -> list[str]:
        types = sorted(t for t, keys in cap["types"].items() if keys)
        return training_labels(types, types)

    def _capture_doc(self, cid: str, sign: float) -> None:
        cap = self.captures.get(cid)
        if cap is not None:
            self._doc(cap["text"], cap["hints"], self._capture_labels(cap), sign * W_CAPTURE)

    def add_record(
        self, key: str, record: dict[str, Any], common: frozenset[str], marker: Any = None
    ) -> None:
        type_name = str(record.get("type") or "")
        if type_name not in self.types:
            return
        title = str(record.get("title") or "").strip()
        aliases = tuple(str(a) for a in record.get("aliases") or [] if str(a).strip())
        if title:  # first: a capture that names this record knows it
            self.names.add(type_name, title, aliases)
        cids: list[str] = []
        if record.get("confirmed") is not False:  # an unconfirmed suggestion teaches nothing
            for entry in record.get("log") or []:
                if not isinstance(entry, dict) or not entry.get("capture") or not entry.get("text"):
                    continue
                cid = str(entry["capture"])
                cids.append(cid)
                self._capture_doc(cid, -1)
                cap = self.captures.setdefault(
                    cid, {"text": str(entry["text"]), "types": {}, "hints": []}
                )
                cap["types"].setdefault(type_name, [])
                if key not in cap["types"][type_name]:
                    cap["types"][type_name].append(key)
                cap["hints"] = self._hints(cap["text"], common)
                self._capture_doc(cid, +1)
        if title:
            name_text = " ".join([title, *aliases])
            self._doc(name_text, ["#known:" + type_name], training_labels([type_name]), W_RECORD)
        self.records[key] = (marker, type_name, title, aliases, tuple(cids))

    def remove_record(self, key: str) -> None:
        old = self.records.pop(key, None)
        if old is None:
            return
        _, type_name, title, aliases, cids = old
        if title:
            self.names.remove(type_name, title, aliases)
            name_text = " ".join([title, *aliases])
            self._doc(name_text, ["#known:" + type_name], training_labels([type_name]), -W_RECORD)
        for cid in cids:
            cap = self.captures.get(cid)
            if cap is None:
                continue
            self._capture_doc(cid, -1)
            keys = cap["types"].get(type_name, [])
            if key in keys:
                keys.remove(key)
            if not any(cap["types"].values()):
                del self.captures[cid]
            else:
                self._capture_doc(cid, +1)

    def add_correction(self, entry: dict[str, Any], common: frozenset[str]) -> None:
        text, to = str(entry.get("text") or ""), str(entry.get("to") or "")
        if text and to in self.types:
            self._doc(text, self._hints(text, common), training_labels([to]), W_CORRECTION)
            self.corrections[to] = self.corrections.get(to, 0) + 1

    def examples_per_type(self) -> dict[str, int]:
        """Examples of each type: records, captures filed to one, corrections to one."""
        out = dict.fromkeys(self.types, 0)
        for _, type_name, title, _, _ in self.records.values():
            out[type_name] += bool(title)
        for cap in self.captures.values():
            for type_name, keys in cap["types"].items():
                out[type_name] += bool(keys)
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
    aliases = summary.get("aliases")
    return (
        summary.get("type"),
        summary.get("title"),
        tuple(aliases) if isinstance(aliases, list) else aliases,
        summary.get("updated"),
        summary.get("rev"),
        summary.get("base_hash"),
    )


def _cache_dir(store: Store) -> Path:
    return store.root / "classifier"


def _load(path: Path) -> Any:
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)  # our own cache in this machine's state dir
    except FileNotFoundError:
        return None
    except Exception as exc:  # a torn or foreign cache is relearnt, never fatal
        log.info("ignoring the classifier cache %s: %s", path, exc)
        return None
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None


def _save(path: Path, data: dict[str, Any]) -> None:
    from vaultbrain.vault.files import atomic_write_file

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_file(path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL), durable=False)
    except Exception as exc:  # a cache that cannot be written is rebuilt next time
        log.info("could not write the classifier cache %s: %s", path, exc)


def corpus_model(store: Store | None, pack: Any, save: bool = True) -> Embedded:
    """The corpus model for ``pack``, from the state dir's cache when it is current (trained
    once per process otherwise, and cached unless ``save`` is false)."""
    types = _types(pack)
    if store is None:
        return corpus_embedded(tuple(types), pack.name)
    key = corpus_key(types, pack.name)
    path = _cache_dir(store) / f"corpus-{key}.pickle"
    hit = _LOADED.get(str(path))
    if hit is not None:
        return hit
    data = _load(path)
    if data is not None and isinstance(data.get("embedded"), Embedded):
        _LOADED[str(path)] = data["embedded"]
        return data["embedded"]
    emb = corpus_embedded(tuple(types), pack.name)
    if save:
        _save(path, {"version": CACHE_VERSION, "embedded": emb})
    return emb


def _vault_path(store: Store, pack: Any) -> Path:
    return _cache_dir(store) / f"vault-{pack.name}.pickle"


def rebuild(store: Store, pack: Any, save: bool = True) -> VaultLearning:
    """Learn the vault from scratch (``reindex``): every record, capture log and correction."""
    common = corpus_model(store, pack, save).common
    learning = VaultLearning(pack.identity, _types(pack), Counts(model_labels(_types(pack))))
    records: list[tuple[str, dict[str, Any], Any]] = []
    for name in _collections(pack):
        col = store.collection(name)
        learning.versions[name] = col.disk_version()
        for rec in col.all():
            records.append((f"{name}/{rec['id']}", rec, _marker(rec)))
    # names first, so a capture's hints know every record it may name
    for _, rec, _ in records:
        if rec.get("type") in learning.types and rec.get("title"):
            learning.names.add(rec["type"], str(rec["title"]), rec.get("aliases") or [])
    for key, rec, marker in records:
        learning.add_record(key, rec, common, marker)
    _read_corrections(store, learning, common)
    if save:
        learning.unsaved = 0
        _save(_vault_path(store, pack), {"version": CACHE_VERSION, "learning": learning})
        _LEARNING[(str(store.root), pack.identity)] = learning
    return learning


def _read_corrections(store: Store, learning: VaultLearning, common: frozenset[str]) -> bool:
    """Learn the corrections appended since last time; whether there were any."""
    import json

    path = store.root / CORRECTIONS
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        size = 0
    if size < learning.corrections_at:  # the file was replaced: start over on it
        learning.corrections_at = 0
    if size == learning.corrections_at:
        return False
    with open(path, "rb") as fh:
        fh.seek(learning.corrections_at)
        chunk = fh.read(size - learning.corrections_at)
    end = chunk.rfind(b"\n") + 1  # a line still being written waits for next time
    for line in chunk[:end].splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            learning.add_correction(entry, common)
    learning.corrections_at += end
    return end > 0


def vault_learning(store: Store, pack: Any, save: bool = True) -> VaultLearning:
    """What the vault taught, brought up to date incrementally (a correction counts at once).
    ``save``: keep the updated state in the state dir (``vaultbrain classify`` writes nothing)."""
    memo_key = (str(store.root), pack.identity)
    learning = _LEARNING.get(memo_key)  # a long-running daemon keeps it in memory
    if learning is None:
        data = _load(_vault_path(store, pack))
        learning = data.get("learning") if data else None
    if not isinstance(learning, VaultLearning) or learning.pack != pack.identity:
        learning = rebuild(store, pack, save)
        _LEARNING[memo_key] = learning
        return learning
    _LEARNING[memo_key] = learning
    common = corpus_model(store, pack, save).common
    if _read_corrections(store, learning, common):
        learning.unsaved += SAVE_EVERY  # a correction is worth keeping at once
    for name in _collections(pack):
        col = store.collection(name)
        version = col.disk_version()
        if learning.versions.get(name) == version:
            continue
        prefix = f"{name}/"
        current = {f"{prefix}{s['id']}": s for s in col.summaries()}
        for key in [k for k in learning.records if k.startswith(prefix) and k not in current]:
            learning.remove_record(key)
        for key, summary in current.items():
            marker = _marker(summary)
            old = learning.records.get(key)
            if old is not None and old[0] == marker:
                continue
            rec = col.get(summary["id"])
            learning.remove_record(key)
            learning.unsaved += 1
            if rec is not None:
                learning.add_record(key, rec, common, marker)
        learning.versions[name] = version
    # Written back only now and then: a process that finds the cache a few records behind
    # relearns just those (reading their summaries it needs anyway), which costs less than
    # writing the whole state after every capture.
    if save and learning.unsaved >= SAVE_EVERY:
        learning.unsaved = 0
        _save(_vault_path(store, pack), {"version": CACHE_VERSION, "learning": learning})
    return learning


def embedded_for(store: Store | None, pack: Any, save: bool = True) -> Embedded:
    """The embedded classifier for this vault: the corpus model plus what the vault taught.
    With no store (no vault), the corpus model alone."""
    base = corpus_model(store, pack, save)
    if store is None:
        return base
    learning = vault_learning(store, pack, save)
    return base.with_vault(learning.counts, learning.names)


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
