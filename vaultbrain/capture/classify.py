"""Step 2 of filing: ask a classifier once, and keep its answer on the capture.

The answer is stored before anything is filed, so a crash between asking and filing never
asks again. A failed call is counted on the capture with its retry time; three failures
that retrying cannot fix end as a classification with an error (the capture goes to review).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture
from vaultbrain.classify.classifier import classify_with_fallback
from vaultbrain.classify.result import Band, Classification, judge
from vaultbrain.errors import LLMError
from vaultbrain.filing.index import records
from vaultbrain.filing.typed import apply_typed
from vaultbrain.vault.typed import parse_typed

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal

log = logging.getLogger("vaultbrain.filing")
MAX_RETRY_SECONDS = 600.0


def retry_delay(base: float, attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed call: doubling from ``base``, at most
    ten minutes. The daemon bounds its (monotonic) waits by it, whatever the wall clock says."""
    return min(MAX_RETRY_SECONDS, base * 2 ** min(max(attempts, 1) - 1, 12))


def classify(brain: Brain, journal: Journal, cap: Capture) -> Capture:
    """The capture with its classification stored, or with the failure counted."""
    s = brain.settings
    index = records(brain)
    # Tasks' and Dataview's syntax is meaning, not words: the classifiers read the words,
    # the typed fields are given to their answer (vault/typed.py, filing/typed.py).
    typed = parse_typed(cap.text)
    text = typed.words or cap.text
    known = [
        {"type": k["type"], "title": k["title"], "aliases": k.get("aliases", [])}
        for k in index.mentioned(text)
    ]
    examples = correction_examples(brain, text)
    started = time.perf_counter()
    try:
        result, audit = classify_with_fallback(
            s.get("provider"),
            s.get("fallback"),
            brain.client,
            brain.pack,
            text,
            brain.today(),
            known,
            examples,
            float(s.get("auto_confidence")),
            store=brain.store,
            learnt=lambda: embedded_of(brain),
        )
    except LLMError as exc:
        return _failed(brain, journal, cap, exc)
    result = apply_typed(result, typed, brain.pack)
    band = _judged(brain, text, result, known, audit)
    elapsed = (time.perf_counter() - started) * 1000
    return store_classification(brain, journal, cap, result, audit, elapsed, band)


def _judged(
    brain: Brain,
    text: str,
    result: Classification,
    known: list[dict[str, Any]],
    audit: dict[str, Any],
) -> Band:
    """The one judgement of a result: its band, with the embedded classifier's second
    opinion on an LLM's answer when that is on. Stored with the classification, so filing
    (and a rerun after a crash) never judges it again."""
    s = brain.settings
    auto, minimum = float(s.get("auto_confidence")), float(s.get("min_confidence"))
    band = judge(result, auto, minimum)
    if audit.get("provider") != "heuristic" and result.fileable and s.get("second_opinion"):
        band = _second_opinion(brain, text, result, known, audit) or band
    return band


def _second_opinion(
    brain: Brain,
    text: str,
    result: Classification,
    known: list[dict[str, Any]],
    audit: dict[str, Any],
) -> Band | None:
    """The embedded classifier reads the thought too: when it disagrees with the LLM on the
    primary type, a result the LLM would have filed alone becomes a suggestion. Returns the
    band to file in (None: the LLM's own); the comparison goes to the audit."""
    from vaultbrain.classify.embedded import classify_embedded
    from vaultbrain.classify.second_opinion import AUDIT_KEY, second_opinion

    s = brain.settings
    auto, minimum = float(s.get("auto_confidence")), float(s.get("min_confidence"))
    cap = max(0.0, min(0.75, auto - 0.01))
    try:
        mine = classify_embedded(text, brain.today(), known, cap, embedded_of(brain), brain.pack)
    except Exception as exc:  # a second opinion never stops a capture
        log.warning("the embedded classifier failed beside the LLM: %s", exc)
        return None
    band = judge(result, auto, minimum)
    opinion = second_opinion(result, mine, band)
    audit[AUDIT_KEY] = opinion.audit
    return opinion.band


def correction_examples(brain: Brain, text: str) -> list[dict[str, Any]]:
    from vaultbrain.filing.corrections import similar_corrections

    return similar_corrections(brain.store, text, int(brain.settings.get("correction_examples")))


def store_classification(
    brain: Brain,
    journal: Journal,
    cap: Capture,
    result: Classification,
    audit: dict[str, Any],
    elapsed: float,
    band: Band | None = None,
) -> Capture:
    pack = brain.pack
    entry = {
        "kind": "classification",
        "input": cap.text,
        "pack": pack.identity,
        "model": result.model,
        "classified_by": result.classified_by,
        "raw": (result.raw or "")[:20000],
        "parsed": result.to_dict(),
        "dropped": result.dropped,
        "confidence": result.confidence,
        "reasoning": result.reasoning,
        "band": band.value if band is not None else None,
        "timings": {"classify_ms": round(elapsed, 2), "llm_ms": round(result.elapsed_ms, 2)},
        "tokens": result.usage,
        **audit,
    }
    return journal.classified(
        cap.id,
        result.to_dict(),
        pack.identity,
        result.model,
        elapsed,
        entry,
        band=band.value if band is not None else None,
    )


def _failed(brain: Brain, journal: Journal, cap: Capture, exc: LLMError) -> Capture:
    if exc.kind == "cancelled":
        return cap  # stopped, not failed: still pending, tried again at the next start
    base = float(brain.settings.get("retry_seconds"))
    attempts = cap.attempts + 1
    give_up = None
    if not exc.retryable and attempts >= 3:
        give_up = Classification(
            [], 0.0, "", "lmstudio", error=f"the classifier failed: {exc.cause}"
        ).to_dict()
    done = journal.failed(
        cap.id,
        f"{exc.kind}: {exc.cause}",  # shown in notes: no raw server text
        # Wall-clock, for other processes and the next start; the daemon waits by its own
        # monotonic clock, bounded by retry_delay, so a clock stepped back cannot stall it.
        time.time() + retry_delay(base, attempts),
        give_up,
        {"kind": "classification_failed", "error": str(exc), "error_kind": exc.kind},
    )
    # INFO once per capture (the client's FailureLog warns once per kind of failure); the
    # retries that fail the same way are debug: a long outage is not a wall of lines.
    level = logging.INFO if done.attempts <= 1 else logging.DEBUG
    log.log(level, "capture %s: classifier failed (%s); will retry", cap.id, exc)
    return done


def embedded_of(brain: Brain) -> Any:
    """The embedded classifier with what the vault taught, brought up to date once per unit
    of work (``Brain.refresh``): a burst of captures is not relearnt one by one."""
    from vaultbrain.classify.adapt import embedded_for

    return brain.memo(
        "embedded",
        (brain.generation, brain.pack_key),
        lambda: embedded_for(brain.store, brain.pack, save=brain.keeps_learning),
    )
