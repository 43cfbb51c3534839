"""The LLM part: the pydantic models that check the answer, the prompt templates."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from vaultbrain.digest.facts import Action, Capture, DailyFacts, Item
from vaultbrain.digest.insights import (
    DAILY_TEMPLATE,
    DIGEST_SCHEMA,
    REVIEW_SCHEMA,
    WEEKLY_TEMPLATE,
    DigestInsights,
    ReviewInsights,
    Template,
    daily_facts_text,
    load_template,
)
from vaultbrain.digest.store_view import Ref
from vaultbrain.errors import UserError


def test_answer_is_trimmed_to_what_a_note_can_show() -> None:
    got = DigestInsights.model_validate(
        {
            "summary": "  You met Sarah.\n\n## Injected heading\n",
            "top_actions": ["one", "", "two", "three", "four"],
            "stuck": "- a list marker\nand a second line",
            "small_win": 42,
            "extra": "ignored",
        }
    )
    assert got.summary == "You met Sarah. ## Injected heading"
    assert got.top_actions == ["one", "two", "three"]
    assert got.stuck == "a list marker and a second line"
    assert got.small_win == "42"


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"summary": ""},
        {"summary": "   "},
        {"summary": ["not", "text"]},
        {"summary": "ok", "top_actions": {"a": 1}},
    ],
)
def test_answers_that_do_not_fit_are_refused(answer: dict) -> None:
    with pytest.raises(ValidationError):
        DigestInsights.model_validate(answer)


def test_review_answer() -> None:
    got = ReviewInsights.model_validate(
        {"summary": "A week.", "wins": "one win", "focus": ["a", "b", "c", "d"], "let_go": None}
    )
    assert got.wins == ["one win"] and got.focus == ["a", "b", "c"] and got.let_go == ""


def test_long_text_is_capped() -> None:
    got = DigestInsights.model_validate({"summary": "word " * 1000})
    assert len(got.summary) <= 1500 and got.summary.endswith("…")


def test_schemas_are_strict_and_match_the_models() -> None:
    for schema, model in ((DIGEST_SCHEMA, DigestInsights), (REVIEW_SCHEMA, ReviewInsights)):
        assert schema["additionalProperties"] is False
        assert set(schema["required"]) == set(schema["properties"]) == set(model.model_fields)


def test_shipped_templates_use_only_known_variables() -> None:
    daily = load_template(DAILY_TEMPLATE)
    weekly = load_template(WEEKLY_TEMPLATE)
    assert daily.variables == {"date", "weekday"}
    assert weekly.variables == {"week", "start", "end", "weekday"}
    text = daily.fill({"date": "2026-12-01", "weekday": "Tuesday"})
    assert "Today is 2026-12-01 (Tuesday)" in text and "{{" not in text
    assert "top_actions" in text and "small_win" in text


def test_template_with_an_unknown_variable_is_an_error() -> None:
    with pytest.raises(UserError, match="unknown variables: mood"):
        Template("x.md", "Today {{date}} you feel {{ mood }}").fill({"date": "d"})


def test_facts_text_names_records_without_links() -> None:
    sarah = Ref("person", "Sarah", "People/Sarah.md", "p1")
    facts = DailyFacts(
        day=dt.date(2026, 12, 1),
        captures=[Capture("c1", "Met with Sarah", "19:30", "filed", (sarah,))],
        actions=[Action("New person added", sarah)],
        people=[Item(sarah, "follow up: next week")],
        needs_review=2,
    )
    text = daily_facts_text(facts)
    assert '"Met with Sarah" (filed → person Sarah)' in text
    assert "- New person added: Sarah" in text
    assert "Thoughts waiting for review: 2" in text
    assert "[[" not in text
    assert "Admin overdue: none" in text
