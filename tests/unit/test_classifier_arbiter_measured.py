"""The probe's measure of a model decides whether its people stand without a name the
embedded classifier found (classify/arbiter.py, issue 42 item 4): a model measured right
about people keeps "bex"; one measured wrong, or not measured, does not."""

from __future__ import annotations

from vaultbrain.classify.arbiter import decide
from vaultbrain.classify.reliability import Reliability
from vaultbrain.classify.result import Band, Classification, Destination

AUTO, MIN = 0.8, 0.5
THOUGHT = "bex has started pilates, loves it"


def _decide(measured: dict[str, list[float]] | None) -> list[tuple[str, str]]:
    """What the pair files (nothing when the thought goes to review)."""
    llm = Classification([Destination("person", "Bex", {})], 0.9, "", "llm")
    mine = Classification([Destination("unknown", "Bex has started pilates", {})], 0.3, "", "h")
    rel = Reliability(types=4).with_measured(measured)
    d = decide(THOUGHT, llm, mine, rel, AUTO, MIN, names=frozenset())
    if d.band is Band.REVIEW:
        return []
    return [(x.type, x.title) for x in d.classification.destinations if x.type != "unknown"]


def test_a_model_measured_right_about_people_keeps_a_name_the_embedded_classifier_missed() -> None:
    strong = {"person": [10.0, 10.0], "admin": [10.0, 9.0], "unknown": [4.0, 4.0]}
    assert _decide(strong) == [("person", "Bex")]


def test_a_model_measured_wrong_about_people_or_not_measured_makes_no_one() -> None:
    small = {"person": [8.0, 2.0], "admin": [10.0, 1.0], "unknown": [6.0, 3.0]}
    assert _decide(small) == []
    assert _decide(None) == []
    # too few people in the probe to say
    assert _decide({"person": [3.0, 3.0]}) == []
