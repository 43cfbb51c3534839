"""How the embedded classifier reads a thought: what it knows (:class:`Embedded`: the model,
the words that are not names, the vault's record names), the labels and hints it reads with,
and the decision from the model's odds to the types a thought is filed to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify.dates import mentions_date
from vaultbrain.classify.learned import (
    DEFAULT_PLATT,
    Counts,
    Model,
)
from vaultbrain.classify.mentions import CUES, KnownNames, PersonMention
from vaultbrain.classify.reliability import Reliability
from vaultbrain.patterns import LazyPattern

THRESHOLD = 0.5  # a type at or above this probability is a destination
FLOOR = 0.2  # below this, not even a guess for the review queue
MIN_EXAMPLES = 10  # examples of a type before the classifier has a say on it
WORDS = LazyPattern(r"[\w'’\-]+")


@dataclass
class Embedded:
    """What the embedded classifier knows: the model (``None`` when it has nothing to learn
    from), the words that are not names, and the vault's record names."""

    labels: list[str]
    model: Model | None
    common: frozenset[str]
    names: KnownNames = field(default_factory=KnownNames)
    source: str = "corpus"  # corpus | corpus+vault | vault | none
    pairs: frozenset[str] = frozenset()  # letter pairs of ordinary words (classify/noise.py)
    # how far the LLM and this classifier can be trusted on this vault (classify/arbiter.py)
    reliability: Reliability | None = None

    def with_vault(
        self, counts: Counts | None, names: KnownNames, reliability: Reliability | None = None
    ) -> Embedded:
        """The same corpus model, summed with what the vault taught (``adapt.py``)."""
        model, source = self.model, self.source
        if counts is not None and counts.docs[0]:
            if self.model is None:
                platt = {lab: DEFAULT_PLATT for lab in model_labels(self.labels)}
                model, source = Model([counts], platt), "vault"
            else:
                model = Model(
                    [*self.model.counts, counts],
                    self.model.platt,
                    self.model.decision,
                    self.model.calibration,
                )
                source = "corpus+vault"
        return Embedded(self.labels, model, self.common, names, source, self.pairs, reliability)

    def known_types(self) -> frozenset[str]:
        """The types it has seen enough examples of to name (and to disagree about)."""
        if self.model is None:
            return frozenset()
        per = self.model.examples_per_label()
        return frozenset(t for t in self.labels if per.get(primary(t), 0) >= MIN_EXAMPLES)


def hints(text: str, people: list[PersonMention], names: KnownNames) -> set[str]:
    """Features beyond the words: who and what the thought names, and whether it has a date."""
    out: set[str] = set()
    if any(p.strong for p in people):
        out.add("#person")
    elif people:
        out.add("#name")
    if any(p.record for p in people):
        out.add("#known:person")
    if names.names:
        words = WORDS.findall(text.lower())
        for n in range(1, 5):
            for i in range(len(words) - n + 1):
                for ty, _ in names.names.get(" ".join(words[i : i + n]), ()):
                    if ty != "person":
                        out.add("#known:" + ty)
    if mentions_date(text):
        out.add("#date")
    return out


def primary(type_name: str) -> str:
    """The model's label for "this type is the thought's primary destination"."""
    return "1:" + type_name


def model_labels(types: list[str]) -> list[str]:
    """One label per type (is it a destination?) and one per type as the primary one."""
    return [*types, *map(primary, types)]


def training_labels(types: tuple[str, ...] | list[str], primaries: Any = None) -> list[str]:
    """A thought's labels for the model: its types, and its primary type (the first, unless
    ``primaries`` names them: a capture filed to two records names no one first)."""
    if not types:
        return []
    first = list(primaries) if primaries is not None else [types[0]]
    return [*types, *map(primary, first)]


def filed_people(people: list[PersonMention]) -> list[PersonMention]:
    """A lowercase guess ("grab") yields to any better evidence in the same thought."""
    if any(p.evidence != "guess" for p in people):
        return [p for p in people if p.evidence != "guess"]
    return people


def addressed(text: str, people: list[PersonMention]) -> bool:
    """The thought opens with a contact verb and the person it is addressed to, named on
    good evidence ("send Stelian the cable schedule", "- [ ] email [[Beatriz Costa]] the
    minutes"): the corpus files such a thought to the person first, its task second."""
    words = [w for w in WORDS.findall(text.lower()) if any(c.isalpha() for c in w)][:4]
    if len(words) < 2 or words[0] not in CUES:
        return False
    return any(p.strong and p.name.lower().split()[0] == words[1] for p in people)


def decide(
    labels: list[str],
    probs: dict[str, float],
    firsts: dict[str, float],
    sure: float | None,
    people: list[PersonMention],
    to_person: bool = False,
) -> tuple[list[str], float, list[PersonMention]]:
    """The types a thought is filed to (the primary first), the raw confidence of that
    reading, and the people it files: from the model's odds and the people found.
    ``to_person``: the thought is addressed to someone it names (:func:`addressed`), whose
    record is then its primary destination."""
    # The primary type by its own odds (a thought naming a person and a task is one or the
    # other first), then every other type likely enough to be a destination too.
    ranked = sorted(firsts, key=lambda t: (-firsts[t], -probs[t]))
    chosen = []
    if ranked and (firsts[ranked[0]] if sure is None else sure) >= FLOOR:
        chosen.append(ranked[0])
    chosen += [
        t
        for t in sorted(probs, key=lambda t: -probs[t])
        if probs[t] >= THRESHOLD and t not in chosen
    ]
    # A name the thought gives on good evidence is a person destination whatever the odds.
    named: list[PersonMention] = []
    if "person" in labels:
        named = [p for p in people if p.strong or "person" in chosen]
        if named and "person" not in chosen:
            chosen.append("person")
        elif not named and "person" in chosen:
            chosen.remove("person")
    if not chosen:
        return [], 0.0, named
    if to_person and named and "person" in chosen and chosen[0] != "person":
        chosen.remove("person")
        chosen.insert(0, "person")
    first = chosen[0]
    raw = (
        sure if sure is not None and ranked and first == ranked[0] else firsts.get(first, THRESHOLD)
    )
    if first == "person" and raw < THRESHOLD:
        raw = max(THRESHOLD, min(0.7, 0.5 + 0.05 * len(named)))
    return chosen, raw, named
