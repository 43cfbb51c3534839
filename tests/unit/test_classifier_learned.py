"""The learned model: additive counts (learn and forget exactly), calibrated probabilities."""

from __future__ import annotations

import pytest

from vaultbrain.classify.corpus import Example
from vaultbrain.classify.learned import (
    Counts,
    Model,
    Scorer,
    calibrate,
    features,
    fit_platt,
    sigmoid,
)

LABELS = ["person", "admin"]


def test_features_have_words_pairs_the_first_word_and_hints() -> None:
    f = features("Pay the BILL tmrw 💸", ["#date"])
    assert {"pay", "the bill", "^pay", "💸", "#date"} <= f
    assert "#empty" in features("   ")


def test_character_ngrams_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import vaultbrain.classify.learned as learned

    monkeypatch.setattr(learned, "CHAR_NGRAMS", (3, 4))
    assert {"~<bi", "~ill>", "~<bil"} <= features("the bill")


def test_forgetting_a_thought_undoes_learning_it() -> None:
    counts = Counts(list(LABELS))
    counts.add(features("call marco"), ["person"], 2.0)
    before = (list(counts.docs), list(counts.mass), {k: list(v) for k, v in counts.table.items()})
    counts.add(features("pay the gas bill"), ["admin"], 6.0)
    counts.add(features("pay the gas bill"), ["admin"], -6.0)
    assert (counts.docs, counts.mass, counts.table) == before


def test_a_list_of_counts_scores_as_their_sum() -> None:
    a, b = Counts(list(LABELS)), Counts(list(LABELS))
    a.add(features("call marco tomorrow"), ["person", "admin"])
    a.add(features("buy milk"), ["admin"])
    b.add(features("marco is moving to lisbon"), ["person"], 3.0)
    feats = features("call marco about lisbon")
    vocab = len(a.table) + len(b.table)  # the bound a list of counts uses
    assert Scorer([a, b])(feats) == pytest.approx(Scorer(a.merged(b), vocab)(feats))
    assert Scorer([a.frozen(), b])(feats) == pytest.approx(Scorer([a, b])(feats))


def test_platt_scaling_is_monotone_and_stays_inside_zero_and_one() -> None:
    pairs = [(float(s), s > 0) for s in range(-20, 21)] + [(2.0, False), (-3.0, True)]
    a, b = fit_platt(pairs)
    assert a > 0
    probs = [sigmoid(a * s + b) for s in range(-20, 21)]
    assert probs == sorted(probs)
    assert 0.0 < probs[0] < 0.2 and 0.8 < probs[-1] < 1.0


def test_a_small_model_learns_its_examples() -> None:
    examples = [
        Example(t, labels)
        for t, labels in [
            ("call marco tomorrow", ("person", "admin")),
            ("marco is moving to lisbon", ("person",)),
            ("priya got the job", ("person",)),
            ("lunch with priya", ("person",)),
            ("pay the gas bill", ("admin",)),
            ("buy milk and eggs", ("admin",)),
            ("renew the passport", ("admin",)),
            ("book the dentist", ("admin",)),
        ]
    ]
    counts = Counts(list(LABELS))
    for ex in examples:
        counts.add(features(ex.text), ex.labels)
    model = Model([counts], calibrate(examples, LABELS, lambda ex: features(ex.text), folds=2))
    p = model.probabilities(features("pay the water bill"))
    assert p["admin"] > p["person"]
    q = model.probabilities(features("priya is moving"))
    assert q["person"] > q["admin"]
    assert model.examples_per_label() == {"person": 4, "admin": 5}
