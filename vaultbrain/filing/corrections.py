"""Past corrections, shown to the classifier as examples so a corrected mistake is not repeated.

Corrections are kept in ``corrections.jsonl``. The few most similar to a new thought (token
overlap) are chosen; the prompt stays bounded however many there are.
"""

from __future__ import annotations

from typing import Any

from vaultbrain.patterns import LazyPattern
from vaultbrain.store import Store

_TOKEN = LazyPattern(r"[a-z0-9']+")
_STOP = {
    "the",
    "a",
    "an",
    "to",
    "of",
    "and",
    "or",
    "in",
    "on",
    "for",
    "with",
    "about",
    "is",
    "it",
    "at",
    "by",
    "i",
    "my",
    "we",
    "be",
    "this",
    "that",
    "need",
    "next",
}
MAX_SCAN = 5000


def tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall(text.lower()) if t not in _STOP and len(t) > 1}


def similar_corrections(store: Store, text: str, limit: int = 8) -> list[dict[str, Any]]:
    if limit <= 0:
        return []
    want = tokens(text)
    if not want:
        return []
    scored: list[tuple[float, int, dict[str, Any]]] = []
    for n, entry in enumerate(store.read_jsonl("corrections.jsonl")):
        if n >= MAX_SCAN:
            break
        have = tokens(entry.get("text", ""))
        if not have:
            continue
        overlap = len(want & have)
        if overlap == 0:
            continue
        score = overlap / len(want | have)
        scored.append((score, n, entry))
    scored.sort(key=lambda x: (-x[0], -x[1]))
    return [e for _, _, e in scored[:limit]]


def record_correction(
    store: Store, text: str, from_type: str | None, to_type: str, at: str
) -> None:
    store.append_jsonl(
        "corrections.jsonl", {"text": text[:1000], "from": from_type, "to": to_type, "at": at}
    )
