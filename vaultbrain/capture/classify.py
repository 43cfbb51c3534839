"""Step 2 of filing: ask a classifier once, and keep its answer on the capture.

The answer is stored before anything is filed, so a crash between asking and filing never
asks again. A failed call is counted on the capture with its retry time; three failures
that retrying cannot fix end as a classification with an error (the capture goes to review).
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture
from vaultbrain.classify.classifier import classify_with_fallback
from vaultbrain.classify.result import Band, Classification, judge
from vaultbrain.errors import LLMError
from vaultbrain.filing.index import records
from vaultbrain.filing.linked import follow_links, known_of, typed_links
from vaultbrain.filing.typed import apply_typed
from vaultbrain.vault.inline import shown_words, unshield
from vaultbrain.vault.typed import parse_typed, trailing_tags

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
    # The person's Markdown is how the words look: the classifiers read what Obsidian shows
    # (``~~Monday~~`` is "Monday", a wikilink its alias), and a typed link names its note.
    # Tags at the end tag the thought (the Tasks line keeps them), they are not its words:
    # ``book the car service #car`` is about booking the car service, titled so.
    words = trailing_tags(typed.words or cap.text)[0] or typed.words or cap.text
    # Each span of the person's Markdown (code, math, a link, a URL) stays whole and is never
    # read as syntax (an arrow in ``ssl → cert`` cuts no title, a date in a code span is
    # none): shielded for the embedded classifier; the LLM and the lookups read it plain.
    shielded = shown_words(words) or words
    text = unshield(shielded)
    linked = typed_links(brain, cap.text)
    known = [
        {"type": k["type"], "title": k["title"], "aliases": k.get("aliases", [])}
        for k in index.mentioned(text)
    ]
    known += [k for k in known_of(linked) if k not in known]
    examples = correction_examples(brain, text)
    started = time.perf_counter()
    try:
        result, audit = classify_with_fallback(
            s.get("provider"),
            s.get("fallback"),
            brain.client,
            brain.pack,
            shielded,
            brain.today(),
            known,
            examples,
            float(s.get("auto_confidence")),
            store=brain.store,
            learnt=lambda: embedded_of(brain),
        )
    except LLMError as exc:
        return _failed(brain, journal, cap, exc)
    result = _unshielded(result)
    extra: dict[str, Any] | None = None
    # A reply that is no classification at all goes to review as before: filing the embedded
    # reading then is the fallback's to do (`fallback`), not the pair's.
    answered = bool(result.destinations) or not result.error
    if audit.get("provider") != "heuristic" and s.get("second_opinion") and answered:
        result, extra = _arbitrate(brain, text, result, known, audit)
    result = follow_links(apply_typed(result, typed, brain.pack), linked, brain.pack)
    # The one judgement, stored with the classification: filing (and a rerun after a crash)
    # never judges it again. A result the arbiter decided carries its band (judge keeps it).
    band = judge(result, float(s.get("auto_confidence")), float(s.get("min_confidence")))
    elapsed = (time.perf_counter() - started) * 1000
    votes = (extra or {}).get("votes")
    if votes is None and audit.get("provider") == "heuristic":
        result, band, votes = _embedded_bar(brain, result, band)
    return store_classification(brain, journal, cap, result, audit, elapsed, band, votes)


def _unshielded(result: Classification) -> Classification:
    """``result`` with the person's Markdown spans given back in its titles, fields and
    reasoning (a classifier read them shielded: :func:`vaultbrain.vault.inline.shown_words`)."""

    def back(value: Any) -> Any:
        if isinstance(value, str):
            return unshield(value)
        if isinstance(value, list):
            return [back(v) for v in value]
        if isinstance(value, dict):
            return {k: back(v) for k, v in value.items()}
        return value

    result.destinations = [
        replace(d, title=unshield(d.title), fields=back(d.fields)) for d in result.destinations
    ]
    result.reasoning = unshield(result.reasoning) if result.reasoning else result.reasoning
    return result


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
            embedded_of(brain),
            brain.pack,
            brain.today(),
            known,
            float(s.get("auto_confidence")),
            float(s.get("min_confidence")),
            measured_prior(brain),
        )
    except Exception as exc:  # the LLM's reading stands if the embedded classifier fails
        log.warning("the embedded classifier failed beside the LLM: %s", exc)
        return result, None
    audit[AUDIT_KEY] = decision.audit
    audit["llm_parsed"] = result.to_dict()
    return decision.classification, {"votes": decision.votes}


def _embedded_bar(
    brain: Brain, result: Classification, band: Band
) -> tuple[Classification, Band, dict[str, Any]]:
    """The embedded classifier alone decided: the person's bar for its type applies (a type
    they keep confirming files alone, one they keep correcting is a suggestion), and its
    vote is kept so the bar learns how the person takes it (classify/reliability.py)."""
    from vaultbrain.classify.arbiter import decided_vote, person_bar, primary

    reliability = getattr(embedded_of(brain), "reliability", None)
    if reliability is not None:
        band, bar = person_bar(
            reliability, result, band, float(brain.settings.get("auto_confidence"))
        )
        if bar is not None:
            result.band = band.value
            why = {"earned": "suggestions confirmed, it files alone"}.get(
                bar, "keeps being corrected, a suggestion"
            )
            result.reasoning = f"{result.reasoning}; the person's bar: {primary(result)} {why}"
    vote = {"type": primary(result), "confidence": round(result.confidence, 4)}
    return result, band, {"embedded": vote, "decided": decided_vote(result, band)}


def measured_prior(brain: Brain) -> dict[str, list[float]] | None:
    """The probe's record of the model in use (classify/probe.py), the pair's LLM prior."""
    from vaultbrain.classify.probe import prior_for

    client = brain.client
    if client is None:
        return None
    try:
        return prior_for(brain.store, client.endpoint, client.served_model())
    except Exception:  # no model to name: no record to use
        return None


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
    votes: dict[str, Any] | None = None,
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
        votes=votes,
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
