"""Which ``schema`` verbs get used: one line per invocation in the state dir, never sent.

Six verbs are experimental (init, fork, edit, diff, graph, explain); ``schema usage`` shows
how often each verb ran so a person (or a later release) can see which ones earn their keep.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass
from typing import Any

EVENTS = "schema-events.jsonl"
EXPERIMENTAL = frozenset({"init", "fork", "edit", "diff", "graph", "explain"})
VERBS = (
    "active",
    "list",
    "show",
    "validate",
    "use",
    "install",
    "detect",
    "suggest",
    "review-candidates",
    "review-orphans",
    "init",
    "fork",
    "edit",
    "diff",
    "graph",
    "lint",
    "explain",
    "downgrade",
    "usage",
)


def parse_since(text: str) -> dt.timedelta:
    """``30d``, ``12h``, ``2w``, ``90m`` as a timedelta (bounded: vaultbrain.bounds)."""
    from vaultbrain.bounds import span

    return span(text)


def record_event(store: Any, verb: str, at: dt.datetime, ok: bool, **extra: Any) -> None:
    entry = {"at": at.isoformat(timespec="seconds"), "verb": verb, "ok": ok}
    entry.update({k: v for k, v in extra.items() if v is not None})
    store.append_jsonl(EVENTS, entry)


@dataclass
class VerbUsage:
    verb: str
    count: int
    failed: int
    share: float
    experimental: bool
    last: str | None


def usage_since(store: Any, since: dt.timedelta, now: dt.datetime) -> list[VerbUsage]:
    """Invocations per verb in the window, every verb listed (zero counts included)."""
    cutoff = now - since
    counts: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    last: dict[str, str] = {}
    for entry in store.read_jsonl(EVENTS):
        try:
            at = dt.datetime.fromisoformat(str(entry.get("at")))
        except ValueError:
            continue
        if at < cutoff or at > now + dt.timedelta(minutes=1):
            continue
        verb = str(entry.get("verb"))
        counts[verb] += 1
        if not entry.get("ok", True):
            failed[verb] += 1
        last[verb] = max(last.get(verb, ""), str(entry.get("at")))
    total = sum(counts.values()) or 1
    verbs = list(VERBS) + sorted(v for v in counts if v not in VERBS)
    return [
        VerbUsage(v, counts[v], failed[v], counts[v] / total, v in EXPERIMENTAL, last.get(v))
        for v in verbs
    ]
