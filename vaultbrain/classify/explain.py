"""What each classifier would make of a thought, for ``vaultbrain classify``: the embedded
classifier (types with probabilities, people, title, due date), the LLM's answer when one is
configured and answers, and what the pair decides (classify/arbiter.py: ``second_opinion``
in the report, with the decided result under ``pair``). Captures nothing and writes nothing
but the LLM's answer to the classification cache (vaultbrain/classify/cache.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from vaultbrain.classify.adapt import embedded_for
from vaultbrain.classify.arbiter import decide, names_found
from vaultbrain.classify.cache import ask_cached
from vaultbrain.classify.embedded import analyse
from vaultbrain.classify.heuristic import classify_heuristic
from vaultbrain.classify.reliability import Reliability
from vaultbrain.classify.result import band_for
from vaultbrain.errors import LLMError, UserError
from vaultbrain.store import Store


def explain(
    text: str,
    store: Store | None,
    pack: Any,
    today: dt.date,
    known: list[dict[str, Any]],
    auto_confidence: float,
    min_confidence: float,
    llm: Any = None,
    examples: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A report of every classifier's answer for ``text``. ``llm``: an LLMClassifier, or
    ``None`` to leave the LLM out."""
    text = text.strip()
    if not text:
        raise UserError("nothing to classify: give the thought as TEXT (or - for stdin)")
    cap = max(0.0, min(0.75, auto_confidence - 0.01))  # the old rules' own ceiling
    emb = embedded_for(store, pack, save=False)
    analysis = analyse(text, today, emb, known, 1.0, pack)
    embedded = analysis.to_dict()
    embedded["learned_from"] = emb.source
    embedded["band"] = band_for(
        analysis.classification.confidence, auto_confidence, min_confidence
    ).value
    report: dict[str, Any] = {
        "text": text,
        "embedded": embedded,
        "rules": classify_heuristic(text, today, known, cap).to_dict(),
        "llm": None,
    }
    if llm is not None:
        try:
            state = store.root if store is not None else None  # a later capture reuses it
            result, _ = ask_cached(llm, state, pack, text, today, known, examples or [])
        except LLMError as exc:
            report["llm"] = {"error": f"{exc.kind}: {exc}"}
        else:
            band = band_for(result.confidence, auto_confidence, min_confidence)
            mine = analyse(text, today, emb, known, 1.0, pack)
            decision = decide(
                text,
                result,
                mine.classification,
                emb.reliability or Reliability(types=len(emb.labels)),
                auto_confidence,
                min_confidence,
                emb.known_types(),
                names_found(mine),
            )
            report["llm"] = {**result.to_dict(), "band": band.value}
            report["second_opinion"] = decision.audit
            report["pair"] = decision.classification.to_dict()
    return report
