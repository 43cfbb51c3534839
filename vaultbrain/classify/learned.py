"""The embedded classifier's learned model: one-vs-rest naive Bayes over word n-grams (and
character n-grams, measured and left off: see :data:`CHAR_NGRAMS`), with Platt-calibrated
probabilities.

Why naive Bayes and not scikit-learn: importing scikit-learn costs more than the whole
400 ms a cold ``vaultbrain capture`` may take, and its models cannot learn one correction
without a refit. Naive Bayes is a table of counts: a thought adds its features' counts, a
correction adds its own (weighted above the corpus), a deleted record subtracts its own, and
the answer for a new thought needs only the counts of the ~100 features it has. Pure Python
is fast enough for that (a few ms per thought), so the package needs no numpy.

Counts are weighted document frequencies: ``feature -> [all, label 1, label 2, …]``, plus the
same per-label totals. Raw naive Bayes log-odds are far too sure of themselves (n-grams are
anything but independent), so each label's score goes through a sigmoid whose slope and offset
were fitted on out-of-fold scores of the training corpus (Platt scaling); the dev set takes no
part in it.
"""

from __future__ import annotations

import bisect
import math
import unicodedata
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify.corpus import Example
from vaultbrain.patterns import LazyPattern

ALPHA = 1.0  # additive smoothing of the per-label feature frequencies (chosen on the dev set)
# Character n-grams of each word, off: measured on the dev set (bench/bench_classifier.py),
# 3- and 4-grams lowered primary-type accuracy from 0.84 to 0.75 (naive Bayes counts a word's
# dozen n-grams as a dozen independent clues and they drown the words), and down-weighted
# (x0.05) or only for unseen words they still lowered it. Left configurable for other packs.
CHAR_NGRAMS: tuple[int, ...] = ()
DEFAULT_PLATT = (0.05, 0.0)
LONG = 16  # features beyond which a thought's evidence is damped (chosen on the dev sets)  # a gentle slope until there is enough to fit one
_WORD = LazyPattern(r"[^\W_]+(?:['’][^\W_]+)*|[?!:→@#€$£%]|[\U0001F000-\U0001FAFF\u2600-\u27BF]")


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _fold(word: str) -> str:
    """A word without its accents ("mañana" → "manana"): phones often type them without."""
    return "".join(
        ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch)
    )


def features(text: str, extra: Iterable[str] = ()) -> set[str]:
    """The features of a thought: words (and, for a word with accents, the word without
    them), word pairs, the first word (imperatives: "pay", "call", "book"), character n-grams
    of each word if :data:`CHAR_NGRAMS` names sizes, and the caller's ``extra`` hints. (The
    last six letters of long words, for German compounds, were measured: no better on the
    corpus's dev set, so left out.)"""
    words = _WORD.findall(normalise(text))
    out: set[str] = set(extra)
    if words:
        out.add("^" + words[0])
    for i, w in enumerate(words):
        out.add(w)
        if i:
            out.add(words[i - 1] + " " + w)
        if not w.isascii():  # "médico" and "medico" are one word to the model
            folded = _fold(w)
            if folded != w:
                out.add(folded)
        if CHAR_NGRAMS and len(w) > 3 and w[0].isalpha():
            padded = f"<{w}>"
            for n in CHAR_NGRAMS:
                out.update("~" + padded[j : j + n] for j in range(len(padded) - n + 1))
    if not words:
        out.add("#empty")
    elif len(words) <= 3:
        out.add("#short")
    elif len(words) >= 12:
        out.add("#long")
    return out


class CompactTable:
    """A read-only feature table in two pieces that pickle and load fast (a dict of feature
    to row number, and one flat array of numbers): the corpus model's, loaded by every cold
    ``capture`` that falls back."""

    def __init__(self, table: dict[str, list[float]], width: int) -> None:
        self.width = width
        self.rows = {f: n for n, f in enumerate(table)}
        self.values = array("d", (v for row in table.values() for v in row))

    def get(self, f: str, default: Any = None) -> list[float] | None:
        n = self.rows.get(f)
        if n is None:
            return default
        return self.values[n * self.width : (n + 1) * self.width].tolist()

    def items(self) -> Iterable[tuple[str, list[float]]]:
        for f in self.rows:
            yield f, self.get(f) or []

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, f: object) -> bool:
        return f in self.rows

    def __getstate__(self) -> dict[str, Any]:
        return {"width": self.width, "rows": list(self.rows), "values": self.values}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.width = state["width"]
        rows = state["rows"]
        self.rows = dict(zip(rows, range(len(rows)), strict=True))  # a third faster than a loop
        self.values = state["values"]


@dataclass
class Counts:
    """Weighted document frequencies per label: what naive Bayes needs, and all of it additive."""

    labels: list[str]
    docs: list[float] = field(default_factory=list)  # [all, per label…]
    mass: list[float] = field(default_factory=list)  # feature occurrences, [all, per label…]
    table: Any = field(default_factory=dict)  # dict[str, list[float]] or a CompactTable

    def __post_init__(self) -> None:
        width = len(self.labels) + 1
        self.docs = self.docs or [0.0] * width
        self.mass = self.mass or [0.0] * width

    def add(self, feats: Iterable[str], labels: Iterable[str], weight: float = 1.0) -> None:
        """Learn one thought (a negative ``weight`` forgets one learnt before)."""
        idx = [0] + [self.labels.index(lab) + 1 for lab in set(labels) if lab in self.labels]
        feats = list(feats)
        width = len(self.labels) + 1
        for i in idx:
            self.docs[i] += weight
            self.mass[i] += weight * len(feats)
        table = self.table
        for f in feats:
            row = table.get(f)
            if row is None:
                if weight <= 0:
                    continue
                row = table[f] = [0] * width
            for i in idx:
                row[i] += weight
            if row[0] <= 1e-9:
                del table[f]

    def add_many(self, docs: Iterable[tuple[Iterable[str], Iterable[str], float]]) -> None:
        """Learn many thoughts at once: those with the same labels and weight are summed
        first, so a 10,000-record vault costs a few thousand row updates, not 10,000 calls."""
        groups: dict[tuple[tuple[str, ...], float], dict[str, int]] = {}
        sizes: dict[tuple[tuple[str, ...], float], list[int]] = {}
        for feats, labels, weight in docs:
            key = (tuple(sorted(set(labels))), weight)
            tally = groups.setdefault(key, {})
            size = sizes.setdefault(key, [0, 0])
            size[0] += 1
            for f in feats:
                tally[f] = tally.get(f, 0) + 1
                size[1] += 1
        width = len(self.labels) + 1
        for (labels, weight), tally in groups.items():
            idx = [0] + [self.labels.index(lab) + 1 for lab in labels if lab in self.labels]
            n_docs, n_feats = sizes[(labels, weight)]
            for i in idx:
                self.docs[i] += weight * n_docs
                self.mass[i] += weight * n_feats
            table = self.table
            for f, n in tally.items():
                row = table.get(f)
                if row is None:
                    row = table[f] = [0] * width
                for i in idx:
                    row[i] += weight * n

    def frozen(self) -> Counts:
        """These counts with a :class:`CompactTable`: for a model that learns no more."""
        table = CompactTable(dict(self.table.items()), len(self.labels) + 1)
        return Counts(list(self.labels), list(self.docs), list(self.mass), table)

    def merged(self, other: Counts) -> Counts:
        """These counts plus ``other``'s (same labels), leaving both as they were."""
        out = Counts(list(self.labels), list(self.docs), list(self.mass), dict(self.table.items()))
        for i, v in enumerate(other.docs):
            out.docs[i] += v
        for i, v in enumerate(other.mass):
            out.mass[i] += v
        for f, row in other.table.items():
            mine = out.table.get(f)
            out.table[f] = [a + b for a, b in zip(mine, row, strict=True)] if mine else list(row)
        return out

    def to_dict(self) -> dict[str, Any]:
        table = dict(self.table.items())
        return {"labels": self.labels, "docs": self.docs, "mass": self.mass, "table": table}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Counts:
        return cls(list(d["labels"]), list(d["docs"]), list(d["mass"]), dict(d["table"]))


class Scorer:
    """Naive Bayes log-odds of each label (label vs. not) from the counts: a list of counts
    (the corpus's and the vault's) acts as their sum, without building it. Each feature's
    weights are worked out once and kept, which makes scoring many thoughts cheap."""

    def __init__(self, counts: Counts | list[Counts], vocab: int | None = None) -> None:
        self.parts = counts if isinstance(counts, list) else [counts]
        width = len(self.parts[0].labels) + 1
        docs = [sum(c.docs[i] for c in self.parts) for i in range(width)]
        mass = [sum(c.mass[i] for c in self.parts) for i in range(width)]
        # The smoothing's vocabulary: the parts' sizes added up, an upper bound of the distinct
        # features of them all. Counting those exactly would cost a pass over the vault's
        # table in every cold process; the bound moves no probability by more than a hair.
        vocab = max(vocab or sum(len(c.table) for c in self.parts), 1)
        self.range = range(1, width)
        self.pos_den = [0.0] + [math.log(mass[i] + ALPHA * vocab) for i in self.range]
        self.neg_den = [0.0] + [math.log(mass[0] - mass[i] + ALPHA * vocab) for i in self.range]
        self.bias = [math.log((docs[i] + 1) / (docs[0] - docs[i] + 1)) for i in self.range]
        self.cache: dict[str, list[float] | None] = {}

    def weights(self, f: str) -> list[float] | None:
        try:
            return self.cache[f]
        except KeyError:
            pass
        found = [r for c in self.parts if (r := c.table.get(f)) is not None]
        w: list[float] | None = None
        if found:  # a feature seen nowhere leaves the odds as they are
            row = found[0] if len(found) == 1 else [sum(x) for x in zip(*found, strict=True)]
            w = [
                math.log(row[i] + ALPHA)
                - self.pos_den[i]
                - math.log(max(row[0] - row[i], 0.0) + ALPHA)
                + self.neg_den[i]
                for i in self.range
            ]
        self.cache[f] = w
        return w

    def __call__(self, feats: Iterable[str]) -> list[float]:
        evidence = [0.0] * len(self.bias)
        n = 0
        for f in feats:
            n += 1
            w = self.weights(f)
            if w is not None:
                for i, x in enumerate(w):
                    evidence[i] += x
        # A long thought's words are many clues that say the same thing over and over (naive
        # Bayes counts each as independent): beyond LONG features, their sum is scaled down
        # by the square root, or a rambling thought is "certainly none of the types".
        damp = 1.0 if n <= LONG else math.sqrt(LONG / n)
        return [b + e * damp for b, e in zip(self.bias, evidence, strict=True)]


def scores(counts: Counts | list[Counts], feats: Iterable[str]) -> list[float]:
    """Naive Bayes log-odds of each label for one thought (see :class:`Scorer`)."""
    return Scorer(counts)(feats)


def sigmoid(x: float) -> float:
    if x < -60:
        return 0.0
    if x > 60:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def fit_platt(pairs: list[tuple[float, bool]], steps: int = 300) -> tuple[float, float]:
    """Slope and offset of ``sigmoid(a·score + b)`` minimising log loss (Newton's method on
    two parameters, with Platt's smoothed targets so a separable fold does not run off)."""
    if not pairs:
        return DEFAULT_PLATT
    n_pos = sum(1 for _, y in pairs if y)
    n_neg = len(pairs) - n_pos
    hi, lo = (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2)
    data = [(s, hi if y else lo) for s, y in pairs]
    a, b = 0.05, 0.0
    for _ in range(steps):
        g_a = g_b = h_aa = h_ab = h_bb = 0.0
        for s, t in data:
            p = sigmoid(a * s + b)
            d, w = p - t, max(p * (1 - p), 1e-9)
            g_a += d * s
            g_b += d
            h_aa += w * s * s
            h_ab += w * s
            h_bb += w
        h_aa += 1e-6
        h_bb += 1e-6
        det = h_aa * h_bb - h_ab * h_ab
        if det <= 0:
            break
        da = (h_bb * g_a - h_ab * g_b) / det
        db = (h_aa * g_b - h_ab * g_a) / det
        a, b = a - da, b - db
        if abs(da) < 1e-7 and abs(db) < 1e-7:
            break
    return a, b


def out_of_fold(
    examples: list[Example], labels: list[str], feats: list[set[str]], folds: int = 4
) -> list[list[float]]:
    """Each example's scores (one per label) from counts of the other folds: what the model
    would say of it had it never seen it."""
    out: list[list[float]] = [[] for _ in examples]
    full = Counts(list(labels))
    for j, ex in enumerate(examples):
        full.add(feats[j], ex.labels, ex.weight)
    for k in range(folds):
        # the other folds' counts: everything, less this fold
        counts = Counts(list(labels), list(full.docs), list(full.mass))
        counts.table = {f: list(row) for f, row in full.table.items()}
        for j, ex in enumerate(examples):
            if j % folds == k:
                counts.add(feats[j], ex.labels, -ex.weight)
        scorer = Scorer(counts)
        for j in range(k, len(examples), folds):
            out[j] = scorer(feats[j])
    return out


def calibrate(
    examples: list[Example], labels: list[str], featurise: Any, folds: int = 4
) -> dict[str, tuple[float, float]]:
    """Platt parameters per label from ``folds``-fold out-of-fold scores of ``examples``."""
    feats = [featurise(ex) for ex in examples]
    return platt_from(examples, labels, out_of_fold(examples, labels, feats, folds))


def platt_from(
    examples: list[Example], labels: list[str], scores: list[list[float]]
) -> dict[str, tuple[float, float]]:
    pairs: dict[str, list[tuple[float, bool]]] = {lab: [] for lab in labels}
    for ex, row in zip(examples, scores, strict=True):
        for lab, sc in zip(labels, row, strict=True):
            pairs[lab].append((sc, lab in ex.labels))
    return {lab: fit_platt(pairs[lab]) for lab in labels}


def wilson_low(right: float, n: float, z: float = 1.2816) -> float:
    """The lower end of the Wilson interval of a share ``right / n`` (one-sided, 90%)."""
    if n <= 0:
        return 0.0
    p = right / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - margin) / (1 + z * z / n))


def fit_steps(pairs: list[tuple[float, bool]], min_block: int = 8) -> list[tuple[float, float]]:
    """Isotonic regression (pool adjacent violators) of rightness on a raw confidence: steps
    ``(lowest raw confidence of the block, share right in it)``, non-decreasing. A block
    holds at least ``min_block`` readings, and its share is the lower end of its 90% interval
    (:func:`wilson_low`): a block of 20 readings all right says 0.93, not 1.0, and 0.9 means
    at least 0.9 on readings of the kind measured."""
    if not pairs:
        return []
    pairs = sorted(pairs)
    blocks: list[list[float]] = []  # [lowest raw, right, n]
    for raw, ok in pairs:
        blocks.append([raw, float(ok), 1.0])
        while len(blocks) > 1 and (
            blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]
            or blocks[-2][2] < min_block
        ):
            last = blocks.pop()
            blocks[-1][1] += last[1]
            blocks[-1][2] += last[2]
    if len(blocks) > 1 and blocks[-1][2] < min_block:  # the top block too small: pooled
        last = blocks.pop()
        blocks[-1][1] += last[1]
        blocks[-1][2] += last[2]
    steps = [(lo if i else 0.0, wilson_low(right, n)) for i, (lo, right, n) in enumerate(blocks)]
    out: list[tuple[float, float]] = []
    for lo, share in steps:  # shrinking may break monotony by a hair: kept non-decreasing
        out.append((lo, max(share, out[-1][1]) if out else share))
    return out


def decision_features(firsts: list[float], n_feats: int) -> list[float]:
    """What the confidence in a primary type goes by: how sure the model is of the first type
    (log-odds), by how much more than of the second, and how long the thought is."""
    ranked = [*sorted(firsts, reverse=True), 0.0, 0.0]
    top, second = (min(max(p, 1e-4), 1 - 1e-4) for p in ranked[:2])
    logit = math.log(top / (1 - top))
    return [logit, logit - math.log(second / (1 - second)), math.log1p(n_feats)]


def fit_logistic(rows: list[list[float]], ys: list[bool], steps: int = 25) -> list[float]:
    """Weights (bias last) of a logistic regression, by Newton's method with a little ridge
    (a few iterations over a couple of thousand rows: part of training the corpus model)."""
    if not rows:
        return []
    d = len(rows[0]) + 1
    ridge = 1e-3
    w = [0.0] * d
    data = [([*x, 1.0], 1.0 if y else 0.0) for x, y in zip(rows, ys, strict=True)]
    pairs = [(i, j) for i in range(d) for j in range(i, d)]
    for _ in range(steps):
        grad = [ridge * v for v in w]
        upper = [0.0] * len(pairs)
        for x, y in data:
            p = sigmoid(sum(a * b for a, b in zip(w, x, strict=True)))
            g, h = p - y, max(p * (1 - p), 1e-9)
            for i in range(d):
                grad[i] += g * x[i]
            for k, (i, j) in enumerate(pairs):
                upper[k] += h * x[i] * x[j]
        hess = [[0.0] * d for _ in range(d)]
        for k, (i, j) in enumerate(pairs):
            hess[i][j] = hess[j][i] = upper[k] + (ridge if i == j else 0.0)
        step = _solve_linear(hess, grad)
        if step is None:
            break
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(v) for v in step) < 1e-6:
            break
    return w


def _solve_linear(a: list[list[float]], b: list[float]) -> list[float] | None:
    """``a·x = b`` by Gaussian elimination (a few unknowns)."""
    n = len(b)
    m = [[*row, v] for row, v in zip(a, b, strict=True)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[pivot][c]) < 1e-12:
            return None
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


@dataclass
class Model:
    """Counts plus calibration: what classifies a thought."""

    counts: list[Counts]  # summed: the corpus's, then the vault's
    platt: dict[str, tuple[float, float]]
    # weights of :func:`decision_features`: the chance that the first primary type is right
    decision: list[float] = field(default_factory=list)
    # per primary type, isotonic steps (raw confidence at or above, measured precision):
    # out-of-fold readings of the corpus, each right only if every destination was (fit_steps)
    calibration: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    _scorer: Scorer | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "counts": self.counts,
            "platt": self.platt,
            "decision": self.decision,
            "calibration": self.calibration,
            "_scorer": None,
        }

    def calibrated(self, type_name: str, raw: float) -> float:
        """The measured precision of readings with this primary type at this raw confidence
        (``raw`` itself when the type has no calibration)."""
        steps = self.calibration.get(type_name)
        if not steps:
            return raw
        k = bisect.bisect_right([lo for lo, _ in steps], raw) - 1
        return steps[max(k, 0)][1]

    def confidence(self, firsts: list[float], n_feats: int) -> float | None:
        """The chance that the most likely primary type is the right one (None: not fitted)."""
        if not self.decision:
            return None
        x = [*decision_features(firsts, n_feats), 1.0]
        return sigmoid(sum(a * b for a, b in zip(self.decision, x, strict=True)))

    @property
    def labels(self) -> list[str]:
        return self.counts[0].labels

    def probabilities(self, feats: Iterable[str]) -> dict[str, float]:
        """The calibrated probability of each label: every destination, not only the first."""
        raw = self.scorer(feats)
        out = {}
        for lab, s in zip(self.labels, raw, strict=True):
            a, b = self.platt.get(lab, DEFAULT_PLATT)
            out[lab] = sigmoid(a * s + b)
        return out

    @property
    def scorer(self) -> Scorer:
        """Made once per model: the counts of a model do not change under it."""
        if self._scorer is None:
            self._scorer = Scorer(self.counts)
        return self._scorer

    def examples_per_label(self) -> dict[str, int]:
        """Examples of each label the counts hold (weighted: a vault example counts more)."""
        return {
            lab: round(sum(c.docs[i + 1] for c in self.counts)) for i, lab in enumerate(self.labels)
        }
