"""The trust trail's counts read incrementally (vaultbrain/capture/trust.py `classifications`):
whatever another process appended, or a database made anew, they equal a full read of the
trail."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from support.state import entries

from vaultbrain.brain import Brain
from vaultbrain.capture import trust
from vaultbrain.filing.setup import init_vault


def full_read(state: Path) -> dict[str, Any]:
    """The counts from every entry of the trail, read one by one (as before)."""
    by_model, fallbacks, waits, handler = 0, Counter(), Counter(), Counter()
    for e in entries(state):
        if e.get("kind") == "classification":
            if e.get("fallback_from"):
                fallbacks[e.get("fallback_kind") or "error"] += 1
            elif e.get("provider") in trust.HANDLERS:
                handler[e["provider"]] += 1
            elif e.get("provider") not in trust.NOT_THE_MODEL:
                by_model += 1
        elif e.get("kind") == "classification_failed":
            waits[e.get("error_kind") or "error"] += 1
    return {
        "by_model": by_model,
        "fallbacks": sum(fallbacks.values()),
        "handler": dict(handler),
        "waits": dict(waits),
    }


def counted(brain: Brain) -> dict[str, Any]:
    c = trust.llm_counts(brain)
    return {
        "by_model": c["classified_by_model"],
        "fallbacks": c["fallbacks"],
        "handler": c["classified_by_handler"],
        "waits": c["llm_failed_attempts"],
    }


def entry(rnd: random.Random) -> dict[str, Any]:
    kind = rnd.choice(["classification", "classification_failed", "adopt", "resolution"])
    e: dict[str, Any] = {"kind": kind, "at": "2026-12-04T00:00:00"}
    if kind == "classification":
        e["provider"] = rnd.choice(["lmstudio", "heuristic", "url", "person", None])
        if rnd.random() < 0.3:
            e |= {"fallback_from": "lmstudio", "fallback_kind": "unreachable"}
        e["second_opinion"] = {"agree": rnd.random() < 0.5, "decided_by": "llm"}
    elif kind == "classification_failed":
        e["error_kind"] = rnd.choice(["timeout", "unreachable"])
    else:
        e["note"] = "mentions the word classification in passing"  # skipped all the same
    return e


def test_counts_follow_every_change_of_the_trail(tmp_path: Path) -> None:
    from vaultbrain.store import Store

    vault = tmp_path / "Vault"
    brain = Brain(vault)
    init_vault(brain)
    state = brain.store.root
    rnd = random.Random(4)
    assert counted(brain) == full_read(state)
    for step in range(120):
        if rnd.random() < 0.9:  # entries appended by another process
            other = Store(state)
            for _ in range(rnd.randint(1, 5)):
                other.audit(entry(rnd))
            other.close()
        else:  # the state dir's database made anew (moved aside by hand)
            for name in ("state.db", "state.db-wal", "state.db-shm"):
                (state / name).unlink(missing_ok=True)
            other = Store(state)
            for _ in range(rnd.randint(0, 3)):
                other.audit(entry(rnd))
            other.close()
        assert counted(brain) == full_read(state), step
    # The second opinion reads the same entries.
    agreed = trust.second_opinion_summary(brain)
    assert agreed.get("compared", 0) == sum(
        1 for e in entries(state) if e.get("kind") == "classification"
    )
