"""Training the embedded classifier: on the shipped corpus (its training split, for the pack's
types), with the confidence it files with fitted on out-of-fold readings of that corpus."""

from __future__ import annotations

import functools
import hashlib
from collections import Counter

from vaultbrain.classify.corpus import Example, corpus_path, corpus_vocabulary, load_corpus, split
from vaultbrain.classify.entities import find_people
from vaultbrain.classify.learned import (
    DEFAULT_PLATT,
    Counts,
    Model,
    decision_features,
    features,
    fit_logistic,
    fit_steps,
    out_of_fold,
    platt_from,
    sigmoid,
)
from vaultbrain.classify.mentions import KnownNames, PersonMention
from vaultbrain.classify.noise import letter_pairs
from vaultbrain.classify.reading import (
    Embedded,
    addressed,
    decide,
    filed_people,
    hints,
    model_labels,
    primary,
    training_labels,
)

BASE_PACK = "vaultbrain-base"
BASE_TYPES = ("person", "project", "idea", "admin")


def corpus_examples(labels: list[str], pack_name: str) -> list[Example]:
    """The training split of the corpus that covers this pack: its own, or the default pack's
    when the pack has the default types. Labels the pack lacks are left out."""
    name = pack_name if corpus_path(pack_name) else BASE_PACK
    if name == BASE_PACK and not set(BASE_TYPES) <= set(labels):
        return []
    train, _ = split(load_corpus(name))
    return [Example(e.text, tuple(x for x in e.labels if x in labels), e.people) for e in train]


_CORPUS_KEYS: dict[tuple[tuple[str, ...], str], str] = {}


def corpus_key(labels: list[str], pack_name: str) -> str:
    """Changes whenever the corpus or the code that learns from it does (the corpus ships
    with the package: hashed once per process, not at every capture)."""
    memo = (tuple(labels), pack_name)
    key = _CORPUS_KEYS.get(memo)
    if key is None:
        key = _CORPUS_KEYS[memo] = _corpus_key(labels, pack_name)
    return key


def _corpus_key(labels: list[str], pack_name: str) -> str:
    path = corpus_path(pack_name) or corpus_path(BASE_PACK)
    h = hashlib.sha256(("|".join(labels) + "|v14").encode())
    if path is not None:
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def train_corpus(labels: list[str], pack_name: str) -> Embedded:
    """The corpus model for these labels (a few hundred ms: cached by ``adapt.py``)."""
    return train_examples(labels, corpus_examples(labels, pack_name))


def train_examples(labels: list[str], examples: list[Example]) -> Embedded:
    """A model learnt from these labelled thoughts (the corpus's training split, or a part of
    it for ``bench/bench_classifier.py``)."""
    # the training split's words only: the dev set's names stay unseen, as a person's are
    common = corpus_vocabulary(examples or split(load_corpus(BASE_PACK))[0])
    pairs = letter_pairs(common)
    if not examples:
        return Embedded(labels, None, common, source="none", pairs=pairs)
    names = KnownNames()
    wide = model_labels(labels)
    counts = Counts(wide)
    examples = [Example(e.text, tuple(training_labels(e.labels)), e.people) for e in examples]
    # Each thought's hints are found as for a new thought: with the words only *other*
    # thoughts have. Else every word of a training thought is known, "#name" fires only on
    # real names there, and the model trusts it far more than it deserves on new text.
    seen = Counter(w for ex in examples for w in set(corpus_vocabulary([ex])))
    found: dict[str, list[PersonMention]] = {}
    feats: dict[str, set[str]] = {}
    for e in examples:
        people = find_people(e.text, _Without(common, corpus_vocabulary([e]), seen), names)
        found[e.text] = people
        feats[e.text] = features(e.text, hints(e.text, people, names))
    for ex in examples:
        counts.add(feats[ex.text], ex.labels, ex.weight)
    featlist = [feats[ex.text] for ex in examples]
    scores = out_of_fold(examples, wide, featlist)
    platt = platt_from(examples, wide, scores)
    decision = fit_decision(examples, wide, labels, scores, platt, featlist)
    model = Model([counts.frozen()], platt, decision)
    model.calibration = fit_calibration(examples, labels, scores, model, featlist, found)
    return Embedded(labels, model, common, names, "corpus", pairs)


def fit_calibration(
    examples: list[Example],
    labels: list[str],
    scores: list[list[float]],
    model: Model,
    feats: list[set[str]],
    found: dict[str, list[PersonMention]],
) -> dict[str, list[tuple[float, float]]]:
    """Per primary type, how often a reading with that primary type and raw confidence is
    right in every destination (its types all the thought's, its people all named), from
    the corpus's out-of-fold readings: the confidence the embedded classifier files with
    means that measured precision, type by type (:meth:`Model.calibrated`)."""
    wide = model.labels
    index = {lab: i for i, lab in enumerate(wide)}
    pairs: dict[str, list[tuple[float, bool]]] = {t: [] for t in labels}
    for ex, row, fs in zip(examples, scores, feats, strict=True):
        every = {}
        for lab in wide:
            a, b = model.platt.get(lab, DEFAULT_PLATT)
            every[lab] = sigmoid(a * row[index[lab]] + b)
        probs = {t: every[t] for t in labels}
        firsts = {t: every.get(primary(t), 0.0) for t in labels}
        sure = model.confidence([firsts[t] for t in labels], len(fs))
        people = filed_people(found[ex.text])
        to_person = addressed(ex.text, people)
        chosen, raw, named = decide(labels, probs, firsts, sure, people, to_person)
        if not chosen:
            continue
        gold = [t for t in ex.labels if not t.startswith("1:")]
        keys = {" ".join(p.lower().split()) for p in ex.people}
        ok = bool(gold) and chosen[0] == gold[0] and set(chosen) <= set(gold)
        if ok and "person" in chosen:
            ok = all(" ".join(p.title.lower().split()) in keys for p in named)
        pairs[chosen[0]].append((raw, ok))
    return {t: fit_steps(v) for t, v in pairs.items() if v}


def fit_decision(
    examples: list[Example],
    wide: list[str],
    labels: list[str],
    scores: list[list[float]],
    platt: dict[str, tuple[float, float]],
    feats: list[set[str]],
) -> list[float]:
    """How often the most likely primary type is the right one, as a function of how sure
    and how clear the model is (:func:`~vaultbrain.classify.learned.decision_features`),
    fitted on out-of-fold readings of the corpus: the confidence the embedded classifier
    files with. A thought of no type counts as a wrong first type."""
    rows, ys = [], []
    index = {lab: i for i, lab in enumerate(wide)}
    for ex, row, fs in zip(examples, scores, feats, strict=True):
        firsts = []
        for t in labels:
            a, b = platt.get(primary(t), DEFAULT_PLATT)
            firsts.append(sigmoid(a * row[index[primary(t)]] + b))
        top = labels[max(range(len(labels)), key=lambda k: firsts[k])]
        rows.append(decision_features(firsts, len(fs)))
        ys.append(primary(top) in ex.labels)
    return fit_logistic(rows, ys)


class _Without:
    """A vocabulary less the words only one thought has (that thought's own)."""

    def __init__(self, common: frozenset[str], own: frozenset[str], seen: Counter[str]) -> None:
        self.common, self.own, self.seen = common, own, seen

    def __contains__(self, word: object) -> bool:
        if word in self.own and self.seen[word] <= 1:  # type: ignore[index]
            return False
        return word in self.common


@functools.lru_cache(maxsize=4)
def corpus_embedded(labels: tuple[str, ...] = BASE_TYPES, pack_name: str = BASE_PACK) -> Embedded:
    """The corpus model, trained in this process (no state dir to cache it in)."""
    return train_corpus(list(labels), pack_name)
