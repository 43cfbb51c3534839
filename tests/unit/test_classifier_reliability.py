"""How far each voter is trusted on a vault: the sums of outcomes and agreement
(classify/reliability.py), and what a capture record says (classify/adapt.py)."""

from __future__ import annotations

import random

import pytest

from vaultbrain.classify.reliability import STOOD, Reliability, vote_evidence

TYPES = ["person", "project", "idea", "admin"]


def votes(llm: str | None, emb: str | None, q: float = 0.8) -> dict:
    return {"llm": {"type": llm, "confidence": 0.9}, "embedded": {"type": emb, "confidence": q}}


def test_outcomes_give_each_voter_its_precision_per_type() -> None:
    rel = Reliability(types=4)
    for _ in range(30):
        rel.add(votes("project", "idea"), ("project",), 1.0)  # the LLM was right
    before = rel.embedded("idea", 0.8).p
    assert rel.llm("project", 0.9).p > 0.9
    assert before < 0.35
    assert rel.embedded("admin", 0.8).p == pytest.approx(0.8)  # nothing measured: its own
    assert rel.llm("idea", 0.9).p == pytest.approx(0.63)  # its stated confidence, with salt
    assert rel.llm("idea", None).p == pytest.approx(0.55)


def test_a_capture_taken_out_leaves_the_sums_as_they_were() -> None:
    rel = Reliability(types=4)
    rel.add(votes("idea", "idea"), None, 0.0)
    rel.add(votes("admin", "person"), ("person",), 1.0)
    snapshot = repr(rel.to_dict())
    rel.add(votes("project", "idea", 0.9), ("idea",), STOOD)
    rel.add(votes("project", "idea", 0.9), ("idea",), STOOD, sign=-1)
    assert repr(rel.to_dict()) == snapshot
    assert Reliability.from_dict(rel.to_dict()).to_dict() == rel.to_dict()


def probe(rng: random.Random, r: float, n: int = 44) -> dict[str, list[float]]:
    """The record a model right ``r`` of the time leaves on a probe of ``n`` thoughts."""
    rec: dict[str, list[float]] = {}
    for _ in range(n):
        truth = rng.choice(TYPES)
        said = truth if rng.random() < r else rng.choice([t for t in TYPES if t != truth])
        row = rec.setdefault(said, [0.0, 0.0])
        row[0] += 1
        row[1] += said == truth
    return rec


@pytest.mark.parametrize("r", [0.3, 0.6, 0.95])
def test_the_probe_is_the_llms_prior(r: float) -> None:
    """A model measured on the probe starts trusted for what it has shown there, whatever
    it says of itself; before it is measured, its stated confidence with salt."""
    rel = Reliability(types=4).with_measured(probe(random.Random(4), r, n=400))
    mean = sum(rel.llm(t, 0.9).p for t in TYPES) / len(TYPES)
    assert mean == pytest.approx(r, abs=0.12)
    assert rel.llm("idea", 0.1).p == rel.llm("idea", 0.99).p  # measured, not stated
    assert Reliability(types=4).llm("idea", 0.9).p == pytest.approx(0.63)


def test_agreement_no_longer_scores_the_llm() -> None:
    """A strong model that keeps disagreeing with a confidently wrong embedded classifier is
    not scored down for being right (the circular prior the issue named)."""
    rng = random.Random(3)
    rel = Reliability(types=4).with_measured(probe(rng, 0.95))
    before = {t: rel.llm(t, 0.9).p for t in TYPES}
    for _ in range(400):
        truth = rng.choice(TYPES)
        wrong = rng.choice([t for t in TYPES if t != truth])
        rel.add(votes(truth, wrong, 0.9), None, 0.0)  # undecided: agreement only
    assert {t: rel.llm(t, 0.9).p for t in TYPES} == before
    assert rel.summary()["agreement"]["observed"] == 400  # still counted, for trust --summary


def test_the_persons_outcomes_outweigh_the_probe() -> None:
    """A model measured strong that the person keeps correcting on a type loses it."""
    rel = Reliability(types=4).with_measured({"idea": [10.0, 10.0], "admin": [10.0, 9.0]})
    assert rel.llm("idea", 0.9).p > 0.85
    for _ in range(30):
        rel.add(votes("idea", "admin"), ("admin",), 1.0)
    assert rel.llm("idea", 0.9).p < 0.3
    assert rel.llm("admin", 0.9).p > 0.8  # the other types keep their measure


def test_what_the_person_decided_is_no_longer_a_guess_by_agreement() -> None:
    rel = Reliability(types=4)
    for _ in range(10):
        rel.add(votes("project", "admin"), ("project",), 1.0)
    assert rel.agreement == {}
    assert rel.llm("project", 0.9).p > 0.85


@pytest.mark.parametrize(
    ("record", "truth", "weight"),
    [
        ({"status": "suggested"}, None, 0.0),
        ({"status": "needs_review"}, None, 0.0),
        ({"status": "filed", "destinations": [{"type": "idea"}]}, ("idea",), STOOD),
        (
            {"status": "filed", "confirmed_at": "x", "destinations": [{"type": "idea"}]},
            ("idea",),
            1.0,
        ),
        (
            {"status": "filed", "resolved_by": "resolve", "destinations": [{"type": "admin"}]},
            ("admin",),
            1.0,
        ),
        (
            {"status": "corrected", "destinations": [{"type": "person"}, {"type": "admin"}]},
            ("person", "admin"),
            1.0,
        ),
        ({"status": "dismissed"}, (), 1.0),
    ],
)
def test_a_capture_record_says_what_became_of_its_votes(
    record: dict, truth: tuple | None, weight: float
) -> None:
    v = votes("idea", "admin")
    assert vote_evidence({**record, "votes": v}) == (v, truth, weight)
    assert vote_evidence(record) is None  # a capture the pair never read


def test_the_summary_shows_what_each_voter_named_and_got_right() -> None:
    rel = Reliability(types=4)
    rel.add(votes("project", "idea"), ("project",), 1.0)
    rel.add(votes("project", "project"), ("project",), 1.0)
    s = rel.summary()
    assert s["llm"]["project"] == {"named": 2.0, "right": 2.0}
    assert s["embedded"] == {
        "idea": {"named": 1.0, "right": 0.0},
        "project": {"named": 1.0, "right": 1.0},
    }
    assert s["agreement"]["observed"] == 0


def decided(t: str, band: str = "suggest") -> dict:
    return {**votes(None, t), "decided": {"type": t, "types": [t], "band": band}}


def test_the_persons_bar_is_earned_by_confirmations_and_lost_by_corrections() -> None:
    rel = Reliability(types=4)
    for _ in range(4):
        rel.add(decided("idea"), ("idea",), 1.0)
    assert rel.bar("idea", 0.8) is None  # four: not yet
    rel.add(decided("idea"), ("idea",), 1.0)
    assert rel.bar("idea", 0.8) == "earned"  # 5 of 5, counted as 5 of 6: 0.83
    assert rel.bar("idea", 0.9) is None  # a higher bar needs more
    rel.add(decided("idea", "auto"), ("admin",), 1.0)  # a filing the person corrected
    assert rel.bar("idea", 0.8) is None
    rel.add(decided("idea", "auto"), (), 1.0)  # and one dismissed
    assert rel.bar("idea", 0.8) == "lost"
    assert rel.person_summary(0.8)["idea"] == {
        "confirmed": 5,
        "corrected": 2,
        "auto_filing": "lost",
    }
    # a thought filed alone that stood says nothing of the person's bar
    rel.add(decided("admin", "auto"), ("admin",), STOOD)
    assert "admin" not in (rel.person or {})
    assert Reliability.from_dict(rel.to_dict()).person == rel.person
