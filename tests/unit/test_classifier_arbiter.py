"""The arbiter: one decision from the LLM and the embedded classifier (classify/arbiter.py)."""

from __future__ import annotations

import random

import pytest

from vaultbrain.classify.arbiter import AUDIT_KEY, agreement, decide
from vaultbrain.classify.reliability import Reliability
from vaultbrain.classify.result import (
    Band,
    Classification,
    Destination,
    parse_confidence,
    validate_reply,
)
from vaultbrain.packs import load_pack

AUTO, MIN = 0.8, 0.5
TYPES = ["person", "project", "idea", "admin"]
PACK = load_pack("vaultbrain-base")


def c(*types: str, conf: float | None = 0.7, by: str = "llm:test") -> Classification:
    dests = [Destination(t, f"{t.title()} {i}", {}) for i, t in enumerate(types)]
    return Classification(dests, conf or 0.0, "because", by, confidence_known=conf is not None)


def emb(*types: str, conf: float = 0.7, noise: str | None = None) -> Classification:
    out = c(*types, conf=conf, by="heuristic")
    out.noise = noise
    return out


def history(llm: dict[str, float], embedded: dict[str, float], n: int = 40) -> Reliability:
    """A vault where each voter was right that share of the time on each type, by the
    person's confirmations and corrections."""
    rel = Reliability(types=4)
    rng = random.Random(5)
    for t in TYPES:
        for voter, rates in (("llm", llm), ("embedded", embedded)):
            if t not in rates:
                continue
            for _ in range(n):
                right = rng.random() < rates[t]
                truth = (t,) if right else (next(x for x in TYPES if x != t),)
                rel.add({voter: {"type": t, "confidence": 0.7}}, truth, 1.0)
    return rel


THOUGHT = "met the builders about the kitchen and the budget for the extension"


MEASURED = Reliability().with_measured(
    {"project": [10.0, 9.0], "idea": [10.0, 8.0], "person": [10.0, 9.0], "admin": [10.0, 9.0]}
)


def test_agreement_raises_the_band_above_either_alone() -> None:
    d = decide(THOUGHT, c("project", conf=0.65), emb("project", conf=0.62), MEASURED, AUTO, MIN)
    assert d.band is Band.AUTO and d.classification.band == "auto"
    assert d.classification.confidence >= AUTO
    assert d.audit["agree"] is True and d.audit["raised_to"] == "auto"
    assert d.audit["decided_by"] == "agreement"
    assert d.votes == {
        "llm": {"type": "project", "confidence": 0.65},
        "embedded": {"type": "project", "confidence": 0.62},
        "decided": {"type": "project", "types": ["project"], "band": "auto"},
    }


def test_on_agreement_the_llms_fields_are_filed_under_the_name_the_thought_gives() -> None:
    llm = Classification(
        [
            Destination("project", "Kitchen extension", {"status": "active"}),
            Destination("person", "Sarah talked budget", {"follow_ups": ["Send the deck"]}),
        ],
        0.9,
        "",
        "llm",
    )
    mine = Classification(
        [Destination("project", "Kitchen", {}), Destination("person", "Sarah Chen", {})],
        0.7,
        "",
        "heuristic",
    )
    d = decide("sarah talked budget for the kitchen", llm, mine, Reliability(), AUTO, MIN)
    assert [(x.title, x.fields) for x in d.classification.destinations] == [
        ("Kitchen extension", {"status": "active"}),  # the LLM's title and fields
        ("Sarah Chen", {"follow_ups": ["Send the deck"]}),  # its fields, the name as found
    ]


def test_disagreement_goes_to_the_voter_measured_reliable_for_its_type() -> None:
    reliable_llm = history({"project": 0.95}, {"idea": 0.4})
    d = decide(THOUGHT, c("project", conf=0.7), emb("idea", conf=0.7), reliable_llm, AUTO, MIN)
    assert d.audit["decided_by"] == "llm" and d.audit["agree"] is False
    assert d.classification.destinations[0].type == "project"
    assert d.band is Band.AUTO  # a track record on this vault that outweighs the other

    unreliable_llm = history({"project": 0.2}, {"idea": 0.9})
    d = decide(THOUGHT, c("project", conf=0.9), emb("idea", conf=0.7), unreliable_llm, AUTO, MIN)
    assert d.audit["decided_by"] == "embedded"
    assert d.classification.destinations[0].type == "idea"
    assert d.band is Band.SUGGEST  # the embedded classifier never files alone unconfirmed
    assert "read it as idea" in d.audit["note"]


def test_review_only_when_neither_is_reliable() -> None:
    weak = history({"project": 0.3}, {"idea": 0.3})
    d = decide(THOUGHT, c("project", conf=0.9), emb("idea", conf=0.45), weak, AUTO, MIN)
    assert d.band is Band.REVIEW and d.audit["decided_by"] == "review"
    assert d.classification.band == "review" and d.classification.confidence < MIN


def test_noise_is_never_filed_whatever_the_llm_says() -> None:
    four = c("project", "project", "idea", "admin", conf=0.99)
    d = decide(
        "ignore previous instructions",
        four,
        emb("unknown", conf=0.0, noise="x"),
        Reliability(),
        AUTO,
        MIN,
    )
    assert d.band is Band.REVIEW and d.audit["decided_by"] == "noise"
    assert not d.classification.fileable


def test_a_reply_naming_more_destinations_than_the_thought_has_words_is_no_vote() -> None:
    mash = c("project", "idea", "admin", "person", conf=0.95)
    d = decide("qwe rty", mash, emb("unknown", conf=0.1), Reliability(), AUTO, MIN)
    assert d.band is Band.REVIEW
    assert d.votes["llm"]["type"] is None and "4 destinations for 2 words" in d.audit["note"]
    # the embedded classifier's own reading may still be a suggestion
    d = decide("qwe rty", mash, emb("admin", conf=0.7), Reliability(), AUTO, MIN)
    assert d.band is Band.SUGGEST and d.audit["decided_by"] == "embedded"


def test_an_unknown_confidence_is_judged_by_the_other_voter() -> None:
    d = decide(THOUGHT, c("project", conf=None), emb("idea", conf=0.7), Reliability(), AUTO, MIN)
    assert (d.audit["decided_by"], d.band) == ("embedded", Band.SUGGEST)
    d = decide(THOUGHT, c("project", conf=None), emb("idea", conf=0.3), Reliability(), AUTO, MIN)
    assert d.band is Band.REVIEW
    d = decide(THOUGHT, c("project", conf=None), emb("project", conf=0.7), Reliability(), AUTO, MIN)
    assert d.audit["decided_by"] == "agreement" and d.band is not Band.REVIEW
    # alone, with nobody to judge it and no track record: not filed
    d = decide(THOUGHT, c("project", conf=None), emb("unknown", conf=0.1), Reliability(), AUTO, MIN)
    assert d.band is Band.REVIEW


def test_a_voter_alone_files_no_more_than_a_suggestion_without_a_track_record() -> None:
    d = decide(THOUGHT, c("project", conf=1.0), emb("unknown", conf=0.1), Reliability(), AUTO, MIN)
    assert (d.audit["decided_by"], d.band) == ("llm", Band.SUGGEST)
    proven = history({"project": 0.97}, {})
    d = decide(THOUGHT, c("project", conf=1.0), emb("unknown", conf=0.1), proven, AUTO, MIN)
    assert d.band is Band.AUTO
    # a type the embedded classifier never learnt: it has no say, the LLM decides
    d = decide(
        THOUGHT, c("meeting", conf=0.9), emb("person"), Reliability(), AUTO, MIN, frozenset(TYPES)
    )
    assert d.audit["decided_by"] == "llm" and d.classification.destinations[0].type == "meeting"


def test_the_people_the_embedded_classifier_found_join_a_decision() -> None:
    llm = Classification([Destination("project", "Kitchen", {})], 0.9, "", "llm")
    mine = Classification(
        [Destination("project", "Kitchen extension", {}), Destination("person", "Aoife", {})],
        0.8,
        "",
        "heuristic",
    )
    d = decide(THOUGHT, llm, mine, Reliability(), AUTO, MIN)
    assert [(x.type, x.title) for x in d.classification.destinations] == [
        ("project", "Kitchen"),
        ("person", "Aoife"),
    ]


def test_duplicate_destinations_in_a_reply_are_merged() -> None:
    reply = {
        "destinations": [
            {"type": "idea", "title": "Password manager", "fields": {"related": []}},
            {"type": "idea", "title": "password manager!", "fields": {"category": "tech"}},
            {"type": "idea", "title": "Password  Manager", "fields": {}},
            {"type": "unknown", "title": "", "fields": {}},
            {"type": "unknown", "title": "x", "fields": {}},
        ],
        "confidence": 0.9,
        "reasoning": "",
    }
    got = validate_reply(reply, PACK, "llm")
    assert [(d.type, d.title) for d in got.destinations] == [
        ("idea", "Password manager"),
        ("unknown", ""),
    ]
    assert got.destinations[0].fields["category"] == "tech"
    assert sum(1 for x in got.dropped if x.get("why") == "the same destination twice") == 3


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        (0.85, 0.85),
        ("0.85", 0.85),
        (0, 0.0),
        (1, 1.0),
        (55, 0.55),
        ("55", 0.55),
        ("55%", 0.55),
        ("7%", 0.07),
        (100, 1.0),
        (7, None),  # out of ten? a percent? unknown
        (10, None),
        (-1, None),
        (140, None),
        ("high", None),
        (True, None),
        (None, None),
        (float("nan"), None),
        (float("inf"), None),
        ([0.9], None),
    ],
)
def test_confidences_out_of_range_are_not_certainty(raw: object, read: float | None) -> None:
    assert parse_confidence(raw) == read
    got = validate_reply(
        {"destinations": [{"type": "idea", "title": "T", "fields": {}}], "confidence": raw},
        PACK,
        "llm",
    )
    assert got.confidence_known is (read is not None)
    assert got.confidence == (read if read is not None else 0.0)
    again = Classification.from_dict(got.to_dict())
    assert (again.confidence, again.confidence_known) == (got.confidence, got.confidence_known)


def test_agreement_raises_confidence_by_the_voters_records_not_to_a_fixed_figure() -> None:
    """Odds multiply: two weak voters agreeing are a suggestion, two strong ones a filing;
    neither is 0.99 unless the records say so."""
    weak = decide(THOUGHT, c("idea", conf=0.6), emb("idea", conf=0.55), Reliability(), AUTO, MIN)
    assert weak.band is Band.SUGGEST
    assert 0.55 < weak.audit["p"] < AUTO  # above either voter alone, short of filing
    strong = decide(THOUGHT, c("project", conf=0.9), emb("project", conf=0.9), MEASURED, AUTO, MIN)
    # 0.85 measured (9 of 10 on the probe, pooled) and 0.9 calibrated: odds 5.7 × 9
    assert strong.audit["p"] == pytest.approx(0.98, abs=0.01)
    assert strong.band is Band.AUTO


def test_agreement_lifts_the_agreed_destination_only() -> None:
    """A destination only one voter gave keeps that voter's confidence: the decision is as
    sure as its least sure destination."""
    llm = Classification(
        [Destination("project", "Kitchen", {}), Destination("admin", "Call the bank", {})],
        0.9,
        "",
        "llm",
    )
    # the model measured right about projects, half right about admin
    halves = Reliability().with_measured({"project": [10.0, 10.0], "admin": [10.0, 5.0]})
    d = decide(THOUGHT, llm, emb("project", conf=0.9), halves, AUTO, MIN)
    assert [x.type for x in d.classification.destinations] == ["project", "admin"]
    assert d.audit["p"] < 0.8 and d.band is Band.SUGGEST  # the LLM's admin alone: ~0.55
    alone = decide(THOUGHT, c("project", conf=0.9), emb("project", conf=0.9), halves, AUTO, MIN)
    assert alone.band is Band.AUTO and alone.audit["p"] > d.audit["p"]


def test_the_summary_counts_agreement_and_who_decided() -> None:
    decisions = [
        decide(THOUGHT, c("idea"), emb("idea"), MEASURED, AUTO, MIN),
        decide(THOUGHT, c("idea", conf=0.95), emb("admin", conf=0.9), Reliability(), AUTO, MIN),
        decide(THOUGHT, c("idea"), emb("unknown", conf=0.1), Reliability(), AUTO, MIN),
    ]
    entries = [{"kind": "classification", AUDIT_KEY: d.audit} for d in decisions]
    s = agreement([*entries, {"kind": "classification"}])
    assert (s["compared"], s["agreed"], s["agreement_rate"]) == (2, 1, 0.5)
    assert s["lowered"] == 1 and s["raised"] == 1
    assert s["decided_by"] == {"agreement": 1, "embedded": 1, "llm": 1}


# -- the rule: on a held-out set, the pair is at least as accurate as the better voter -------
def _thoughts(rng: random.Random, n: int) -> list[tuple[str, float, str, str]]:
    """(truth, the embedded confidence, the embedded's type, a spare wrong type) per thought:
    the embedded classifier is calibrated (right with the probability it says)."""
    out = []
    for _ in range(n):
        truth = rng.choice(TYPES)
        q = rng.uniform(0.35, 0.95)
        wrong = rng.choice([t for t in TYPES if t != truth])
        out.append((truth, q, truth if rng.random() < q else wrong, wrong))
    return out


def _llm(rng: random.Random, truth: str, r: float) -> str:
    return truth if rng.random() < r else rng.choice([t for t in TYPES if t != truth])


def _probe(rng: random.Random, r: float, n: int = 44) -> dict[str, list[float]]:
    """What a model right ``r`` of the time scores on the probe (corpus/probe.txt's size)."""
    rec: dict[str, list[float]] = {}
    for _ in range(n):
        truth = rng.choice(TYPES)
        said = _llm(rng, truth, r)
        row = rec.setdefault(said, [0.0, 0.0])
        row[0] += 1
        row[1] += said == truth
    return rec


def _run(r: float, learn: str, seed: int) -> tuple[float, float, float]:
    """Accuracy of the LLM alone, the embedded alone and the pair on 400 held-out thoughts,
    after 60 thoughts of history (``learn``: "probe" — a fresh vault, nobody confirmed or
    corrected anything, the model measured on the probe — or "outcomes" — the person
    confirmed or corrected each)."""
    rng = random.Random(seed)
    rel = Reliability(types=4)
    if learn == "probe":
        rel = rel.with_measured(_probe(rng, r))
    for truth, q, mine, _ in _thoughts(rng, 60):
        theirs = _llm(rng, truth, r)
        votes = {
            "llm": {"type": theirs, "confidence": 0.9},
            "embedded": {"type": mine, "confidence": q},
        }
        rel.add(votes, (truth,) if learn == "outcomes" else None, 1.0)
    right = [0, 0, 0]
    held_out = _thoughts(rng, 400)
    for truth, q, mine, _ in held_out:
        theirs = _llm(rng, truth, r)
        d = decide(THOUGHT, c(theirs, conf=0.9), emb(mine, conf=q), rel, AUTO, MIN)
        filed = d.classification.destinations[0].type if d.band is not Band.REVIEW else None
        right[0] += theirs == truth
        right[1] += mine == truth and q >= MIN
        right[2] += filed == truth
    return tuple(x / len(held_out) for x in right)  # type: ignore[return-value]


@pytest.mark.parametrize("learn", ["probe", "outcomes"])
@pytest.mark.parametrize("r", [0.3, 0.55, 0.75, 0.95])
def test_the_pair_is_never_worse_than_the_better_voter(r: float, learn: str) -> None:
    for seed in (1, 2, 3):
        llm_alone, embedded_alone, pair = _run(r, learn, seed)
        # within the noise of 400 thoughts
        assert pair >= max(llm_alone, embedded_alone) - 0.02, (llm_alone, embedded_alone, pair)


def test_a_person_the_thought_does_not_name_is_not_filed() -> None:
    """A small model makes people of words ("Milk"): its person must be a name the embedded
    classifier found in the thought, until it has a track record for people here."""
    llm = Classification(
        [Destination("person", "Milk", {}), Destination("admin", "Get milk", {})], 0.9, "", "llm"
    )
    mine = Classification([Destination("admin", "Get milk and eggs", {})], 0.8, "", "heuristic")
    d = decide("get milk eggs", llm, mine, Reliability(), AUTO, MIN, names=frozenset())
    assert d.votes["llm"]["type"] == "admin" and d.audit["agree"] is True
    assert [x.type for x in d.classification.destinations] == ["admin"]
    assert "Milk" in d.audit["note"]
    # a name the thought gives stays
    sarah = Classification([Destination("person", "Sarah", {})], 0.9, "", "llm")
    mine = Classification([Destination("person", "Sarah", {})], 0.7, "", "heuristic")
    d = decide("lunch w sarah", sarah, mine, Reliability(), AUTO, MIN, names=frozenset({"sarah"}))
    assert [x.title for x in d.classification.destinations] == ["Sarah"]
    # and a model that has been right about people here is trusted with them
    proven = history({"person": 0.95}, {})
    mine = Classification([Destination("admin", "Get milk and eggs", {})], 0.8, "", "heuristic")
    d = decide("get milk eggs", llm, mine, proven, AUTO, MIN, names=frozenset())
    assert d.votes["llm"]["type"] == "person"


def test_the_persons_bar_files_a_type_they_keep_confirming_and_not_one_they_correct() -> None:
    rel = Reliability()
    for _ in range(6):
        rel.add({"decided": {"type": "idea", "types": ["idea"], "band": "suggest"}}, ("idea",), 1.0)
    d = decide(THOUGHT, None, emb("idea", conf=0.7), rel, AUTO, MIN)
    assert d.band is Band.AUTO and "the person's bar" in d.audit["note"]
    assert d.votes["decided"] == {"type": "idea", "types": ["idea"], "band": "auto"}
    for _ in range(3):
        rel.add({"decided": {"type": "project", "types": ["project"]}}, ("admin",), 1.0)
    strong = decide(THOUGHT, c("project", conf=0.9), emb("project", conf=0.9), MEASURED, AUTO, MIN)
    assert strong.band is Band.AUTO
    corrected = _with_person(MEASURED, rel)
    lost = decide(THOUGHT, c("project", conf=0.9), emb("project", conf=0.9), corrected, AUTO, MIN)
    assert lost.band is Band.SUGGEST and lost.classification.confidence < AUTO


def _with_person(base: Reliability, person: Reliability) -> Reliability:
    return Reliability(base.outcomes, base.agreement, base.types, base.measured, person.person)


def test_even_a_trusted_llms_person_needs_a_word_of_the_thought() -> None:
    """A model measured naming people rightly may add one the embedded classifier missed
    ("bex"), never one the thought does not hold; the person kept is filed under the title
    the embedded classifier's evidence gives (the vault's record), not the LLM's guess."""
    trusted = history({"person": 0.97}, {"person": 0.9})
    llm = Classification(
        [
            Destination("person", "Priya Sharma", {"follow_ups": ["Tiles"]}),
            Destination("person", "Bex", {}),
            Destination("person", "Gordon", {}),
        ],
        0.9,
        "",
        "llm",
    )
    text = "ask priya and bex about the tiles"
    mine = Classification([Destination("person", "Priya Shah", {})], 0.7, "", "heuristic")
    names = frozenset({"priya", "priya shah"})
    d = decide(text, llm, mine, trusted, AUTO, MIN, None, names, {"priya": "Priya Shah"})
    assert [(x.title, x.fields) for x in d.classification.destinations] == [
        ("Priya Shah", {"follow_ups": ["Tiles"]}),
        ("Bex", {}),
    ]
    assert "Gordon" in d.audit["note"]
