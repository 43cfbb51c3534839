"""One contract, run against each classifier: the embedded one and the LLM one.

Whatever classifies a thought returns a Classification that fits the active pack: known
types or ``unknown``, titles, fields the type declares with values that fit, a confidence
in [0, 1]. The LLM twin runs against the real loopback server.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator

import pytest
from support.lmstudio import FakeLMStudio

from vaultbrain.classify.classifier import LLMClassifier
from vaultbrain.classify.heuristic import classify_heuristic
from vaultbrain.classify.llm import LLMClient
from vaultbrain.classify.result import Classification
from vaultbrain.packs import load_pack

TODAY = dt.date(2026, 12, 1)
THOUGHTS = [
    "Met with Sarah about the new project. Need to follow up next week.",
    "Idea: a podcast about bees",
    "Pay the rent by Friday",
    "the sky is blue",
    "Call Bob tomorrow about the roof",
]


def _llm_answer(body: dict) -> str:
    thought = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
    # answer the way a decent model would, through the same heuristics, plus junk to drop
    c = classify_heuristic(thought, TODAY)
    dests = [
        {"type": d.type, "title": d.title, "fields": {**d.fields, "bogus": 1}}
        for d in c.destinations
    ]
    return json.dumps(
        {"destinations": dests, "confidence": c.confidence + 0.2, "reasoning": "contract"}
    )


@pytest.fixture(params=["heuristic", "llm"])
def classify(request: pytest.FixtureRequest) -> Iterator[Callable[[str], Classification]]:
    pack = load_pack("vaultbrain-base")
    if request.param == "heuristic":
        yield lambda text: classify_heuristic(text, TODAY, [], 0.75)
        return
    server = FakeLMStudio().start()
    server.responder = _llm_answer
    client = LLMClient(server.url, timeout=5)
    try:
        yield lambda text: LLMClassifier(client).classify(pack, text, TODAY, [], [])[0]
    finally:
        client.close()
        server.stop()


@pytest.mark.parametrize("thought", THOUGHTS)
def test_a_classification_fits_the_pack(
    classify: Callable[[str], Classification], thought: str
) -> None:
    pack = load_pack("vaultbrain-base")
    result = classify(thought)
    assert 0.0 <= result.confidence <= 1.0
    assert result.destinations, "every thought gets at least one destination (maybe unknown)"
    assert result.classified_by
    for d in result.destinations:
        if d.type == "unknown":
            continue
        ptype = pack.get_type(d.type)
        assert ptype is not None and d.title
        for name, value in d.fields.items():
            spec = ptype.fields[name]
            assert spec.coerce(value) == (True, value), (name, value)


def test_the_sarah_example_is_understood_by_both(classify: Callable[[str], Classification]) -> None:
    result = classify(THOUGHTS[0])
    got = {(d.type, d.title) for d in result.destinations}
    assert {
        ("person", "Sarah"),
        ("project", "New project"),
        ("admin", "Follow up with Sarah"),
    } <= got
    admin = next(d for d in result.destinations if d.type == "admin")
    assert admin.fields["due"] == "2026-12-08"
