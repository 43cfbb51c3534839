"""The trust trail's counts read incrementally (vaultbrain/capture/trust.py `classifications`):
whatever was appended, replaced, cut or torn, they equal a full read of the trail."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

from vaultbrain.brain import Brain
from vaultbrain.capture import trust
from vaultbrain.filing.setup import init_vault


def full_read(trail: Path) -> dict[str, Any]:
    """The counts from every whole line of the trail, parsed one by one (as before)."""
    by_model, fallbacks, waits, handler = 0, Counter(), Counter(), Counter()
    text = trail.read_text("utf-8") if trail.exists() else ""
    for raw in text.split("\n")[:-1]:  # (a last line without its newline is not written yet)
        try:
            e = json.loads(raw)
        except ValueError:
            continue
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
    vault = tmp_path / "Vault"
    brain = Brain(vault)
    init_vault(brain)
    trail = brain.store.root / "audit.jsonl"
    rnd = random.Random(4)
    assert counted(brain) == full_read(trail)
    for step in range(120):
        what = rnd.random()
        if what < 0.7 or not trail.exists():  # lines appended
            with open(trail, "a", encoding="utf-8") as fh:
                for _ in range(rnd.randint(1, 5)):
                    fh.write(json.dumps(entry(rnd)) + "\n")
        elif what < 0.8:  # a line being appended: counted once its newline lands
            with open(trail, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry(rnd))[:20])
            assert counted(brain) == full_read(trail)
            with open(trail, "a", encoding="utf-8") as fh:
                fh.write('"}\n')  # (torn: not JSON, skipped like a crash's torn line)
        elif what < 0.9:  # replaced by a shorter trail (a new file)
            lines = trail.read_text("utf-8").splitlines(keepends=True)
            tmp = trail.with_suffix(".new")
            tmp.write_text("".join(lines[: len(lines) // 2]), "utf-8")
            os.replace(tmp, trail)
        else:  # cut in place (the same file), and maybe grown past where it was read to
            text = trail.read_bytes()
            cut = text[: text.rfind(b"\n", 0, len(text) // 3) + 1]
            with open(trail, "r+b") as fh:
                fh.truncate(0)
                fh.write(cut)
                if rnd.random() < 0.5:
                    for _ in range(40):
                        fh.write((json.dumps(entry(rnd)) + "\n").encode())
        assert counted(brain) == full_read(trail), step
    # The second opinion reads the same entries.
    agreed = trust.second_opinion_summary(brain)
    assert agreed.get("compared", 0) == sum(
        1
        for raw in trail.read_text("utf-8").splitlines()
        if raw.startswith("{") and _kind(raw) == "classification"
    )


def _kind(raw: str) -> str | None:
    try:
        return json.loads(raw).get("kind")
    except ValueError:
        return None
