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
from vaultbrain.classify.result import Classification
from vaultbrain.errors import LLMError

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
    index = brain.records()
    known = [
        {"type": k["type"], "title": k["title"], "aliases": k.get("aliases", [])}
        for k in index.mentioned(cap.text)
    ]
    examples = correction_examples(brain, cap.text)
    started = time.perf_counter()
    try:
        result, audit = classify_with_fallback(
            s.get("provider"),
            s.get("fallback"),
            brain.client,
            brain.pack,
            cap.text,
            brain.today(),
            known,
            examples,
            float(s.get("auto_confidence")),
            store=brain.store,
            learnt=brain.embedded,
        )
    except LLMError as exc:
        return _failed(brain, journal, cap, exc)
    extra = None
    # A reply that is no classification at all goes to review as before: filing the embedded
    # reading then is the fallback's to do (`fallback`), not the pair's.
    answered = bool(result.destinations) or not result.error
    if audit.get("provider") != "heuristic" and s.get("second_opinion") and answered:
        result, extra = _arbitrate(brain, cap.text, result, known, audit)
    elapsed = (time.perf_counter() - started) * 1000
    return store_classification(brain, journal, cap, result, audit, elapsed, extra)


def _arbitrate(
    brain: Brain,
    text: str,
    result: Classification,
    known: list[dict[str, Any]],
    audit: dict[str, Any],
) -> tuple[Classification, dict[str, Any] | None]:
    """The embedded classifier reads the thought too, and the arbiter decides from both
    (classify/arbiter.py): the decided result (its band in it) and the votes to keep on the
    capture; the LLM's own reading and the decision go to the audit."""
    from vaultbrain.classify.arbiter import AUDIT_KEY, arbitrate

    s = brain.settings
    try:
        decision = arbitrate(
            text,
            result,
            brain.embedded(),
            brain.pack,
            brain.today(),
            known,
            float(s.get("auto_confidence")),
            float(s.get("min_confidence")),
        )
    except Exception as exc:  # the LLM's reading stands if the embedded classifier fails
        log.warning("the embedded classifier failed beside the LLM: %s", exc)
        return result, None
    audit[AUDIT_KEY] = decision.audit
    audit["llm_parsed"] = result.to_dict()
    return decision.classification, {"votes": decision.votes}


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
    extra: dict[str, Any] | None = None,
) -> Capture:
    pack = brain.pack
    first = [True]

    def keep(c: Capture) -> bool:
        if c.classified:
            first[0] = False
            return False  # another worker got there first; never ask twice
        c.classification = result.to_dict()
        c.pack = pack.identity
        c.model = result.model
        c.timings["classify_ms"] = round(elapsed, 2)
        c.last_error = None
        if extra:
            c.extra.update(extra)
        return True

    def entry(c: Capture) -> dict[str, Any] | None:
        if not first[0]:
            return None
        return {
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
            "timings": {
                "classify_ms": round(elapsed, 2),
                "llm_ms": round(result.elapsed_ms, 2),
            },
            "tokens": result.usage,
            **audit,
        }

    # Not fsynced: a power cut that loses it means asking the model again.
    return journal.advance(cap.id, keep, durable=False, audit=entry)


def _failed(brain: Brain, journal: Journal, cap: Capture, exc: LLMError) -> Capture:
    if exc.kind == "cancelled":
        return cap  # stopped, not failed: still pending, tried again at the next start
    base = float(brain.settings.get("retry_seconds"))

    def count(c: Capture) -> None:
        c.attempts += 1
        c.last_error = f"{exc.kind}: {exc.cause}"  # shown in notes: no raw server text
        # Wall-clock, for other processes and the next start; the daemon waits by its own
        # monotonic clock, bounded by retry_delay, so a clock stepped back cannot stall it.
        c.next_attempt = time.time() + retry_delay(base, c.attempts)
        if not exc.retryable and c.attempts >= 3:
            c.classification = Classification(
                [], 0.0, "", "lmstudio", error=f"the classifier failed: {exc.cause}"
            ).to_dict()

    done = journal.advance(
        cap.id,
        count,
        audit=lambda c: {
            "kind": "classification_failed",
            "error": str(exc),
            "error_kind": exc.kind,
            "attempts": c.attempts,
        },
    )
    # INFO once per capture (the client's FailureLog warns once per kind of failure); the
    # retries that fail the same way are debug: a long outage is not a wall of lines.
    level = logging.INFO if done.attempts <= 1 else logging.DEBUG
    log.log(level, "capture %s: classifier failed (%s); will retry", cap.id, exc)
    return done
