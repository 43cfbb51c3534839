"""The embedded classifier: the learned model (``classify/learned.py``) decides the types,
``classify/entities.py`` finds the people and the titles, ``classify/dates.py`` the due date.

It answers when no LLM does. What it learnt: the shipped corpus (``corpus/<pack>.txt``, its
training split) and, through ``classify/adapt.py``, the vault it lives in. Its confidence is
the calibrated probability of the primary type, capped below ``auto_confidence``: what it
files is a suggestion for the person to confirm.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
from collections import Counter
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify import heuristic as rules
from vaultbrain.classify.corpus import Example, corpus_path, corpus_vocabulary, load_corpus, split
from vaultbrain.classify.dates import find_date, mentions_date
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
from vaultbrain.classify.mentions import COMMON as ENTITY_COMMON
from vaultbrain.classify.mentions import KnownNames, PersonMention
from vaultbrain.classify.noise import letter_pairs, noise_reason
from vaultbrain.classify.phrases import phrase, protect, unprotect
from vaultbrain.classify.reliability import Reliability
from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.typed import drop_dangling

CLASSIFIED_BY = "heuristic"  # the provider's name in settings and the audit trail
THRESHOLD = 0.5  # a type at or above this probability is a destination
FLOOR = 0.2  # below this, not even a guess for the review queue
MIN_EXAMPLES = 10  # examples of a type before the classifier has a say on it
BASE_PACK = "vaultbrain-base"
BASE_TYPES = ("person", "project", "idea", "admin")
_IDEA_CUE = LazyPattern(
    r"^\s*(?:(?:[\w-]+\s+){0,2}(?:idea|idee|idée|concept|thought)\s*(?:[:\-–—]|for\b[^:\-–—]{0,30}[:\-–—])\s*"
    r"|shower thought:?\s*|maybe\s+(?=an?\b)|what about\s+)",
    re.I,
)
_LEAD = LazyPattern(
    r"^\s*(?:(?:re|fwd?|todo|to-?do|note|proj(?:ect)?|update on|reminder)\s*[:\-–—]?\s+|[-*•]\s+|\[ ?\]\s+|"
    r"[\U0001F000-\U0001FAFF\u2600-\u27BF]\ufe0f?\s*)+",
    re.I,
)
_ARTICLE = LazyPattern(r"^(?:the|a|an|our|my|this|that)\s+", re.I)
_ABOUT = LazyPattern(r"\b(?:about|re:?|regarding|on)\s+((?:the|our|my)\s+)?(\S.*)$", re.I)
_PROJECT_HEAD = LazyPattern(r"^(.{2,60}?)\s*(?::\s|\s[-–—]\s)")
_WORDS = LazyPattern(r"[\w'’\-]+")
_FOLLOW_UP = LazyPattern(r"\bfollow(?:\s|-)?up\b", re.I)


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
        words = _WORDS.findall(text.lower())
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


def featurise(text: str, common: Container[str], names: KnownNames) -> set[str]:
    return features(text, hints(text, _filed_people(find_people(text, common, names)), names))


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
    h = hashlib.sha256(("|".join(labels) + "|v12").encode())
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
        people = _filed_people(found[ex.text])
        chosen, raw, named = decide(labels, probs, firsts, sure, people)
        if not chosen:
            continue
        gold = [t for t in ex.labels if not t.startswith("1:")]
        keys = {" ".join(p.lower().split()) for p in ex.people}
        ok = bool(gold) and chosen[0] == gold[0] and set(chosen) <= set(gold)
        if ok and "person" in chosen:
            ok = all(" ".join(p.title.lower().split()) in keys for p in named)
        pairs[chosen[0]].append((raw, ok))
    return {t: fit_steps(v) for t, v in pairs.items() if v}


def _filed_people(people: list[PersonMention]) -> list[PersonMention]:
    """A lowercase guess ("grab") yields to any better evidence in the same thought."""
    if any(p.evidence != "guess" for p in people):
        return [p for p in people if p.evidence != "guess"]
    return people


def decide(
    labels: list[str],
    probs: dict[str, float],
    firsts: dict[str, float],
    sure: float | None,
    people: list[PersonMention],
) -> tuple[list[str], float, list[PersonMention]]:
    """The types a thought is filed to (the primary first), the raw confidence of that
    reading, and the people it files: from the model's odds and the people found."""
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
    first = chosen[0]
    raw = (
        sure if sure is not None and ranked and first == ranked[0] else firsts.get(first, THRESHOLD)
    )
    if first == "person" and raw < THRESHOLD:
        raw = max(THRESHOLD, min(0.7, 0.5 + 0.05 * len(named)))
    return chosen, raw, named


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
    people = _filed_people(find_people(thought, emb.common, names))
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
    chosen, raw, people_to_file = decide(emb.labels, probs, firsts, sure, people)
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
        dests += _destinations(t, thought, today, people_to_file, names, due, due_words, pack)
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
        dests, round(min(max_confidence, conf), 2), why, CLASSIFIED_BY, unnamed=unnamed
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


def _fit(pack: Any, type_name: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Only fields the pack's type declares, with values that fit them."""
    if pack is None:
        return fields
    ptype = pack.get_type(type_name)
    if ptype is None:
        return {}
    out = {}
    for k, v in fields.items():
        spec = ptype.fields.get(k)
        if spec is not None and spec.coerce(v) == (True, v):
            out[k] = v
    return out


def _destinations(
    t: str,
    thought: str,
    today: dt.date,
    people: list[PersonMention],
    names: KnownNames,
    due: str | None,
    due_words: str | None,
    pack: Any,
) -> list[Destination]:
    fields: dict[str, Any]
    if t == "person":
        follow = _FOLLOW_UP.search(thought)
        fields = {"follow_ups": ["Follow up" + (f" {due_words}" if due_words else "")]}
        return [
            Destination("person", p.title, _fit(pack, t, fields) if follow else {}) for p in people
        ]
    if t == "admin":
        # A priority only when the thought gives one (no default medium).
        fields = {"status": "open"}
        if due:
            fields["due"] = due
        if rules._URGENT.search(thought):
            fields["priority"] = "high"
        elif rules._LOW.search(thought):
            fields["priority"] = "low"
        return [
            Destination("admin", admin_title(thought, due_words, people), _fit(pack, t, fields))
        ]
    if t == "project":
        fields = {"status": "planned"}
        for status, pat in rules._STATUS.items():
            if pat.search(thought):
                fields["status"] = status
        return [Destination("project", project_title(thought, names), _fit(pack, t, fields))]
    if t == "idea":
        fields = {"one_liner": rules.one_liner(thought), "maturity": "raw"}
        title = named_record("idea", thought, names) or idea_title(thought)
        return [Destination("idea", title, _fit(pack, t, fields))]
    title = named_record(t, thought, names) or phrase(
        _strip_date(_LEAD.sub("", thought), due_words), 10
    )
    return [Destination(t, title, {})]


def _strip_date(text: str, date_words: str | None) -> str:
    if not date_words:
        return text
    pattern = r"\s*\b(?:by|on|before|until|till|due|at)?\s*" + re.escape(date_words) + r"(?!\w)"
    out = re.sub(pattern, " ", text, count=1, flags=re.I)
    # Without its date words a phrase may end on the word that led to them ("for", "by").
    return drop_dangling(" ".join(out.split()).strip(" ,:-–—")) or text


def admin_title(thought: str, due_words: str | None, people: list[PersonMention]) -> str:
    """The task, as a short imperative: what to do, without when."""
    guarded = protect(_LEAD.sub("", thought))
    m = rules._ACTION.search(guarded) or rules._IMPERATIVE.match(guarded)
    if m:
        action = rules._clean_action(unprotect(m.group("act")), due_words)
        if people and re.fullmatch(
            r"(?:follow up|call|email|e-mail|text|ping|message|remind|thank)", action, re.I
        ):
            verb = action.lower()
            action = (
                f"{verb} with {people[0].title}"
                if verb == "follow up"
                else f"{verb} {people[0].title}"
            )
        if action:
            return phrase(action, 10)
    return phrase(_strip_date(unprotect(guarded), due_words), 10)


def named_record(type_name: str, thought: str, names: KnownNames) -> str | None:
    """The title of a vault record of this type that the thought names (the longest name)."""
    words = _WORDS.findall(thought.lower())
    for n in range(6, 0, -1):
        for i in range(len(words) - n + 1):
            for ty, title in sorted(names.names.get(" ".join(words[i : i + n]), ())):
                if ty == type_name:
                    return title
    return None


def project_title(thought: str, names: KnownNames) -> str:
    """A vault project the thought names, else the words it leads with ("Kitchen renovation -
    get three quotes" → ``Kitchen renovation``), else the project phrase."""
    known = named_record("project", thought, names)
    if known:
        return known
    body = _LEAD.sub("", thought)
    guarded = protect(body)
    for pattern in rules._PROJECT:
        m = pattern.search(guarded)
        if m and m.group(1).strip():
            raw = m.group(1).strip()
            title = f"{raw} project" if pattern is rules._PROJECT[0] else raw
            if title.lower() not in ("project", "the project"):
                return rules._cap(unprotect(title))
    head = _PROJECT_HEAD.match(guarded)
    if head and 1 <= len(head.group(1).split()) <= 7:
        return rules._cap(_ARTICLE.sub("", unprotect(head.group(1)).strip()))
    topic = _ABOUT.search(guarded)  # "met with Sarah about the garden" → Garden
    if topic:
        return rules._cap(phrase(unprotect(topic.group(2)), 4, 1))
    return rules._cap(_ARTICLE.sub("", phrase(body, 6)))


def idea_title(thought: str) -> str:
    """The idea itself, whole: without "idea:" in front, a short phrase of it."""
    m = rules._IDEA.match(thought)
    if m:
        cue = thought[: m.start("idea")].strip()
        body = m.group("idea").strip()
        if cue.lower().startswith(("what if", "how about")):
            body = f"{cue} {body}"
    else:
        body = _IDEA_CUE.sub("", _LEAD.sub("", thought), count=1)
    return phrase(body or thought, 12)
