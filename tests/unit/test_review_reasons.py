"""The reason a thought waits, as its inbox mark and Needs Review say it (capture/reasons.py):
a table from what the capture holds to the words the person reads."""

from __future__ import annotations

from typing import Any

import pytest

from vaultbrain.capture.gestures import Gesture, TypeNames, read_arrow
from vaultbrain.capture.reasons import why_waiting

NAMES = TypeNames(("person", "project", "idea", "admin", "link"))
UNREACHABLE = {"kind": "unreachable", "cause": "the LLM server is not running"}
TIMEOUT = {"kind": "timeout", "cause": "no reply in 60 s"}


def rec(cls: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"classification": cls, **extra}


def person_unnamed(**extra: Any) -> dict[str, Any]:
    cls = {
        "destinations": [{"type": "unknown", "title": ""}],
        "confidence": 0.3,
        "classified_by": "heuristic",
        "unnamed": ["person"],
        **extra,
    }
    return rec(cls)


ROWS = [
    (
        "a name two notes share: the pipeline's reason",
        rec({"classified_by": "heuristic"}, review_reason="“Sam” fits two notes"),
        True,
        "“Sam” fits two notes",
    ),
    (
        "noise, with its kind, whatever the LLM",
        rec({"classified_by": "lmstudio:qwen", "noise": "a Python traceback", "confidence": 0.9}),
        True,
        "noise: a Python traceback",
    ),
    (
        "person read, no name, no LLM at all (the issue's case)",
        person_unnamed(error="LLM unavailable (unreachable): …", fallback=UNREACHABLE),
        False,
        "no name found: which person? write → person Name",
    ),
    (
        "a person named elsewhere in the reading is no unnamed person",
        rec(
            {
                "destinations": [{"type": "person", "title": "Ann"}],
                "classified_by": "heuristic",
                "confidence": 0.4,
                "unnamed": ["person"],
            }
        ),
        False,
        "no LLM configured, embedded classifier unsure (0.40)",
    ),
    (
        "the default endpoint refused, nothing set up: no LLM",
        rec(
            {
                "destinations": [{"type": "idea", "title": "Kites"}],
                "classified_by": "heuristic",
                "confidence": 0.42,
                "error": "LLM unavailable (unreachable): the LLM server is not running",
                "fallback": UNREACHABLE,
            }
        ),
        False,
        "no LLM configured, embedded classifier unsure (0.42)",
    ),
    (
        "an LLM set up and down: unreachable, with its cause",
        rec(
            {
                "destinations": [{"type": "idea", "title": "Kites"}],
                "classified_by": "heuristic",
                "confidence": 0.42,
                "fallback": UNREACHABLE,
            }
        ),
        True,
        "model unreachable: the LLM server is not running",
    ),
    (
        "a server that answers too slowly is there: unreachable even unset",
        rec({"destinations": [], "classified_by": "heuristic", "fallback": TIMEOUT}),
        False,
        "model unreachable: no reply in 60 s",
    ),
    (
        "the LLM answered and was unsure",
        rec(
            {
                "destinations": [{"type": "idea", "title": "Kites"}],
                "classified_by": "lmstudio:qwen",
                "confidence": 0.31,
            }
        ),
        True,
        "model unsure (0.31)",
    ),
    (
        "provider heuristic: the embedded classifier alone",
        rec({"destinations": [], "classified_by": "heuristic", "confidence": 0.1}),
        False,
        "no LLM configured, the embedded classifier found nothing to file",
    ),
    ("not classified yet: nothing to say", rec({}), True, ""),
]


@pytest.mark.parametrize(("record", "llm", "said"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_the_reason_a_thought_waits(record: dict[str, Any], llm: bool, said: str) -> None:
    assert why_waiting(record, llm) == said


def test_an_unconfigured_llm_is_never_called_unreachable() -> None:
    for row in ROWS:
        if row[2] is False and row[1]["classification"].get("fallback") == UNREACHABLE:
            assert "unreachable" not in why_waiting(row[1], False)


@pytest.mark.parametrize(
    ("part", "types", "title"),
    [
        ("→ person Sarah Chen", ("person",), "Sarah Chen"),
        ("-> person Ann", ("person",), "Ann"),
        ("→ person", ("person",), ""),
        ("→ person, admin", ("person", "admin"), ""),
    ],
)
def test_a_type_and_a_name_after_the_arrow(part: str, types: tuple, title: str) -> None:
    reading, rest = read_arrow(part, NAMES)
    assert reading is not None and reading.gesture is Gesture.RETYPE
    assert (reading.types, reading.title, rest) == (types, title, "")


def test_words_after_a_type_that_are_no_name_stay_the_persons() -> None:
    reading, rest = read_arrow("→ idea for later", NAMES)
    assert reading is None and rest == "→ idea for later"
