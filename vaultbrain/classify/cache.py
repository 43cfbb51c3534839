"""The classification cache: an LLM's answer to a thought, kept in the state dir's database
(the table ``classify_cache``; a ``classify-cache.sqlite`` an earlier version kept beside it
is taken in once and removed) so an identical thought captured again is not asked again.

A row's key is (normalised thought, pack identity, model, prompt hash). The prompt hash covers
everything else the model was shown: the filled system prompt (template, the pack's types,
today's date, the known records and the correction examples) and the reply schema. So a row
written under one pack is never read under another, a new correction that changes the prompt's
examples is a new key, and ``schema use``/``downgrade`` need no eviction: old rows are simply
never looked up again, and the oldest are pruned past :data:`MAX_ROWS`.

Only the LLM's successful answers are kept (never the embedded fallback's). The cache is a
speed-up, never a source of truth: any failure to read or write it is logged and ignored.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.result import Classification, reply_schema
from vaultbrain.errors import StorageError

if TYPE_CHECKING:
    import datetime as dt
    import sqlite3

    from vaultbrain.classify.classifier import LLMClassifier
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.classify.prompt import Prompt
    from vaultbrain.packs import ResolvedPack
    from vaultbrain.store import Store

log = logging.getLogger("vaultbrain.classify")

CACHE_TABLE = "classify_cache"  # a table of the state dir's database (m004_classify_cache)
MAX_ROWS = 5000
_PRUNE_EVERY = 100  # answers between two looks for rows past MAX_ROWS (at most)
_OPEN: dict[str, ClassificationCache] = {}


def normalise_thought(text: str) -> str:
    """The thought as the cache compares it: Unicode NFC, whitespace runs collapsed, no edge
    spaces. Case is kept: a title the model writes follows the thought's own capitals."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def prompt_hash(system: str, pack: ResolvedPack) -> str:
    """A hash of what the model is shown besides the thought: the filled system prompt and the
    reply schema it must follow (the pack's)."""
    h = hashlib.sha256()
    h.update(system.encode("utf-8"))
    h.update(b"\0")
    h.update(_schema_bytes(pack))
    return h.hexdigest()[:16]


# pack identity -> its reply schema as the hash reads it (an identity names the pack's
# content, so this never goes stale; built once, not for every capture)
_SCHEMA_BYTES: dict[str, bytes] = {}


def _schema_bytes(pack: ResolvedPack) -> bytes:
    data = _SCHEMA_BYTES.get(pack.identity)
    if data is None:
        text = json.dumps(reply_schema(pack), sort_keys=True, ensure_ascii=False)
        data = _SCHEMA_BYTES[pack.identity] = text.encode("utf-8")
    return data


@dataclass(frozen=True)
class CacheKey:
    thought: str
    pack: str
    model: str
    prompt: str

    @classmethod
    def of(cls, thought: str, pack: str, model: str, prompt: str) -> CacheKey:
        return cls(normalise_thought(thought), pack, model, prompt)

    @property
    def digest(self) -> str:
        # JSON keeps the parts apart: no choice of separator can make two keys collide.
        parts = json.dumps([self.thought, self.pack, self.model, self.prompt], ensure_ascii=False)
        return hashlib.sha256(parts.encode("utf-8")).hexdigest()


class ClassificationCache:
    """The cache of a state dir: the table ``classify_cache`` of its database (migration
    m004_classify_cache), shared by the CLI and the daemon. Written without waiting for the
    disk (a cache: a power cut may cost an answer, never tear one)."""

    def __init__(self, state_dir: Path | str) -> None:
        self.state_dir = Path(state_dir)
        self._lock = threading.Lock()
        self._puts = 0

    @classmethod
    def of(cls, state_dir: Path | str) -> ClassificationCache:
        """The process's cache object for ``state_dir``."""
        key = str(state_dir)
        cache = _OPEN.get(key)
        if cache is None:
            cache = _OPEN[key] = cls(state_dir)
        return cache

    def _store(self) -> Store:
        from vaultbrain.store import Store

        return Store.of(self.state_dir)

    def close(self) -> None:
        """Nothing of its own to close (the store's connections are the store's)."""

    def get(self, key: CacheKey) -> tuple[Classification, dict[str, Any]] | None:
        """The cached (classification, audit) for ``key``, or None."""
        try:
            row = (
                self._store()
                .conn()
                .execute(
                    "SELECT result, audit, created FROM classify_cache WHERE key = ?",
                    (key.digest,),
                )
                .fetchone()
            )
        except StorageError as exc:
            log.warning("the classification cache could not be read: %s", exc)
            return None
        if row is None:
            return None
        try:
            data, audit = json.loads(row[0]), json.loads(row[1])
            result = Classification.from_dict(data)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("a classification cache row is unreadable: %s", exc)
            return None
        result.raw = data.get("raw")
        result.usage = dict(data.get("usage") or {})
        audit["cache"] = {"hit": True, "written": row[2]}
        return result, audit

    def put(self, key: CacheKey, result: Classification, audit: dict[str, Any]) -> None:
        data = result.to_dict()
        data["raw"] = (result.raw or "")[:20000]
        data["usage"] = result.usage
        row = (
            key.digest,
            key.pack,
            key.model,
            key.prompt,
            json.dumps(data, ensure_ascii=False),
            json.dumps(audit, ensure_ascii=False, default=str),
            time.time(),
        )
        with self._lock:
            # Bounded: the oldest rows go (a row under a pack no longer used included),
            # looked at once in a while rather than at every answer.
            prune = self._puts % max(1, min(_PRUNE_EVERY, MAX_ROWS // 10)) == 0
            self._puts += 1

        def write(conn: sqlite3.Connection, _: int) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO classify_cache "
                "(key, pack, model, prompt_hash, result, audit, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            if prune:
                conn.execute(
                    "DELETE FROM classify_cache WHERE created < (SELECT created FROM "
                    "classify_cache ORDER BY created DESC LIMIT 1 OFFSET ?)",
                    (MAX_ROWS - 1,),
                )

        try:
            self._store().write(write, durable=False, size=len(row[4]) + len(row[5]))
        except StorageError as exc:
            log.warning("the classification cache could not be written: %s", exc)

    def __len__(self) -> int:
        row = self._store().conn().execute("SELECT COUNT(*) FROM classify_cache").fetchone()
        return int(row[0])


@dataclass(frozen=True)
class CacheSlot:
    """One thought's place in the cache: look it up, or fill it with the LLM's answer."""

    cache: ClassificationCache
    key: CacheKey

    def get(self) -> tuple[Classification, dict[str, Any]] | None:
        return self.cache.get(self.key)

    def put(self, result: Classification, audit: dict[str, Any]) -> None:
        self.cache.put(self.key, result, audit)


def slot_for(
    state_dir: Path | str | None,
    client: LLMClient,
    pack: ResolvedPack,
    text: str,
    today: dt.date,
    known: list[dict[str, Any]],
    examples: list[dict[str, Any]],
    prompt: Prompt | None = None,
) -> CacheSlot | None:
    """The cache slot of a classification the LLM is about to be asked for; None without a
    state dir. ``prompt``: the one built from these arguments, if the caller has it.

    The model part is the endpoint and the id of the model the server says it serves
    (:meth:`LLMClient.served_model`), not the port alone nor the configured name: LM Studio
    swapped for llama.cpp on the same port, or another model loaded, is asked afresh rather
    than answered with the previous model's replies. None too when the server does not say
    (it is down: the ask that follows fails as it would have)."""
    if state_dir is None:
        return None
    from vaultbrain.classify.prompt import build_prompt
    from vaultbrain.errors import LLMError

    try:
        model = f"{client.endpoint}|{client.served_model()}"
    except LLMError:
        return None
    if prompt is None:
        prompt = build_prompt(pack, text, today, known, examples)
    digest = prompt_hash(prompt.system, pack)
    return CacheSlot(
        ClassificationCache.of(state_dir), CacheKey.of(text, pack.identity, model, digest)
    )


def ask_cached(
    classifier: LLMClassifier,
    state_dir: Path | str | None,
    pack: ResolvedPack,
    text: str,
    today: dt.date,
    known: list[dict[str, Any]],
    examples: list[dict[str, Any]],
) -> tuple[Classification, dict[str, Any]]:
    """The LLM's (classification, audit) for ``text``: from the cache when this thought was
    answered under the same key, else asked and kept. Raises LLMError as the LLM does."""
    from vaultbrain.classify.prompt import build_prompt

    prompt = build_prompt(pack, text, today, known, examples)  # (once: the key and the ask)
    slot = slot_for(state_dir, classifier.client, pack, text, today, known, examples, prompt)
    if slot is not None and (hit := slot.get()) is not None:
        return hit
    result, audit = classifier.classify(pack, text, today, known, examples, prompt)
    if slot is not None:
        slot.put(result, audit)
    return result, audit
