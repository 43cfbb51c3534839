"""The embedded classifier: the learned model (``classify/learned.py``) decides the types
(``classify/reading.py``), ``classify/entities.py`` finds the people, ``classify/dates.py``
the due date, and ``classify/destinations.py`` titles what it files.

It answers when no LLM does. What it learnt: the shipped corpus (``corpus/<pack>.txt``, its
training split: ``classify/training.py``) and, through ``classify/adapt.py``, the vault it
lives in. Its confidence is
the calibrated probability of the primary type, capped below ``auto_confidence``: what it
files is a suggestion for the person to confirm.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify import heuristic as rules
from vaultbrain.classify.dates import find_date
from vaultbrain.classify.destinations import destinations_for
from vaultbrain.classify.entities import find_people
from vaultbrain.classify.learned import (
    features,
)
from vaultbrain.classify.mentions import COMMON as ENTITY_COMMON
from vaultbrain.classify.mentions import KnownNames, PersonMention
from vaultbrain.classify.noise import noise_reason
from vaultbrain.classify.phrases import phrase
from vaultbrain.classify.reading import (
    THRESHOLD,
    Embedded,
    addressed,
    decide,
    filed_people,
    hints,
    primary,
)
from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.classify.training import corpus_embedded

CLASSIFIED_BY = "heuristic"  # the provider's name in settings and the audit trail


class _Vocabulary:
    """Words that are no mash: the corpus's, the everyday ones, and the vault's names."""

    def __init__(self, common: frozenset[str], names: KnownNames) -> None:
        self.common, self.names = common, names

    def __contains__(self, word: object) -> bool:
        return (
            word in self.common
            or word in ENTITY_COMMON
            or word in self.names.names
            or word in self.names.first
        )


@dataclass
class Analysis:
    """Everything the embedded classifier concluded about a thought (``vaultbrain classify``)."""

    probabilities: dict[str, float]
    people: list[PersonMention]
    due: str | None
    due_words: str | None
    classification: Classification

    primaries: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "probabilities": {k: round(v, 3) for k, v in self.probabilities.items()},
            "primary": {k: round(v, 3) for k, v in self.primaries.items()},
            "people": [p.to_dict() for p in self.people],
            "due": self.due,
            "due_words": self.due_words,
            **self.classification.to_dict(),
        }


def analyse(
    text: str,
    today: dt.date,
    embedded: Embedded | None = None,
    known: list[dict[str, Any]] | None = None,
    max_confidence: float = 1.0,
    pack: Any = None,
) -> Analysis:
    """Classify ``text``: types with probabilities, people, titles, the due date."""
    emb = embedded or corpus_embedded()
    names = emb.names
    if known:
        names = _with_known(names, known)
    thought = " ".join(text.split())
    url = rules._URL.match(thought)
    if url:
        c = Classification(
            [Destination("link", url.group(1), {"url": url.group(1)})],
            min(0.7, max_confidence),
            "A bare URL: saved as a link",
            CLASSIFIED_BY,
        )
        return Analysis({}, [], None, None, c)
    noise = noise_reason(thought, _Vocabulary(emb.common, names), emb.pairs)
    if noise:
        c = Classification(
            [Destination(UNKNOWN, phrase(thought, 8), {})],
            0.0,
            f"Embedded classifier: not a thought to file ({noise})",
            CLASSIFIED_BY,
            noise=noise,
        )
        return Analysis({}, [], None, None, c)
    people = filed_people(find_people(thought, emb.common, names))
    probs: dict[str, float] = {}
    firsts: dict[str, float] = {}
    sure: float | None = None  # the chance that the first primary type is right
    if emb.model is not None:
        feats = features(thought, hints(thought, people, names))
        every = emb.model.probabilities(feats)
        probs = {t: every[t] for t in emb.labels}
        firsts = {t: every.get(primary(t), 0.0) for t in emb.labels}
        sure = emb.model.confidence([firsts[t] for t in emb.labels], len(feats))
    found = find_date(thought, today)
    due, due_words = (found[0].isoformat(), found[1]) if found else (None, None)
    to_person = addressed(thought, people)
    chosen, raw, people_to_file = decide(emb.labels, probs, firsts, sure, people, to_person)
    # the model reads a person, but no name is given on any evidence: said, never invented
    unnamed = (
        ["person"]
        if "person" in emb.labels
        and "person" not in chosen
        and (
            probs.get("person", 0.0) >= THRESHOLD
            or firsts
            and max(firsts, key=firsts.__getitem__) == "person"
        )
        else []
    )
    dests: list[Destination] = []
    for t in chosen:
        dests += destinations_for(t, thought, today, people_to_file, names, due, due_words, pack)
    reasons = ", ".join(f"{t} {probs[t]:.2f}" for t in chosen if t in probs)
    if not dests:
        ranked = sorted(firsts, key=lambda t: (-firsts[t], -probs[t]))
        top = firsts[ranked[0]] if ranked else 0.0
        c = Classification(
            [Destination(UNKNOWN, phrase(thought, 8), {})],
            round(min(0.3, top), 2),
            "Embedded classifier: "
            + ("a person, but no name is given" if unnamed else "no type is likely enough")
            + (f" (best: {ranked[0]} {top:.2f})" if ranked else ""),
            CLASSIFIED_BY,
            unnamed=unnamed,
        )
        return Analysis(probs, people, due, due_words, c, firsts)
    first = dests[0].type
    # calibrated: the measured precision of the corpus's out-of-fold readings like this one
    conf = emb.model.calibrated(first, raw) if emb.model is not None else raw
    why = f"Embedded classifier ({emb.source}): {reasons or 'a named person'}"
    if people_to_file:
        why += "; mentions " + ", ".join(p.title for p in people_to_file)
    c = Classification(
        dests, rounded_down(min(max_confidence, conf)), why, CLASSIFIED_BY, unnamed=unnamed
    )
    return Analysis(probs, people, due, due_words, c, firsts)


def classify_embedded(
    text: str,
    today: dt.date,
    known: list[dict[str, Any]] | None = None,
    max_confidence: float = 1.0,
    embedded: Embedded | None = None,
    pack: Any = None,
) -> Classification:
    """The embedded classifier's answer for one thought."""
    return analyse(text, today, embedded, known, max_confidence, pack).classification


def _with_known(names: KnownNames, known: list[dict[str, Any]]) -> KnownNames:
    new = [
        k
        for k in known
        if (str(k.get("type")), str(k.get("title", "")))
        not in names.names.get(str(k.get("title", "")).lower(), set())
    ]
    if not new:  # the vault's names hold them all already (the usual case): no copy
        return names
    out = KnownNames({k: set(v) for k, v in names.names.items()}, dict(names.first))
    for k in new:
        title = str(k.get("title", ""))
        if title and (str(k.get("type")), title) not in out.names.get(title.lower(), set()):
            out.add(str(k.get("type", "")), title, k.get("aliases") or [])
    return out


def rounded_down(confidence: float) -> float:
    """The calibrated confidence to two places, rounded down: a measured precision of 0.499
    is no 0.50 (it would pass ``min_confidence``), nor 0.945 a 0.95."""
    return math.floor(confidence * 100 + 1e-9) / 100
