"""The offline takes extractor as a table, the ``## Takes`` section left out of what is
extracted, and the extraction cache key (text, pack identity, model, prompt hash)."""

from __future__ import annotations

import pytest

from vaultbrain.graph.takes import Take, cache_key, fallback, without_takes

KINDS = ["fact", "take", "bet", "hunch"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Sarah thinks the market turns in spring.",
            [("take", "Sarah", "the market turns in spring.")],
        ),
        (
            "Tom Berg says that remote teams ship faster",
            [("take", "Tom Berg", "remote teams ship faster")],
        ),
        ("- Ada believes bees can count.", [("take", "Ada", "bees can count.")]),
        ("Omar bets rates fall by June.", [("bet", "Omar", "rates fall by June.")]),
        ("Omar bets on a June cut.", [("bet", "Omar", "a June cut.")]),
        (
            "Iris suspects the vendor is late again.",
            [("hunch", "Iris", "the vendor is late again.")],
        ),
        ("fact: the shed is 3 m wide", [("fact", "", "the shed is 3 m wide")]),
        ("- [ ] Fact: invoices go out on the 1st", [("fact", "", "invoices go out on the 1st")]),
        ("[[People/Sarah|Sarah]] thinks we should wait.", [("take", "Sarah", "we should wait.")]),
        ("[[Tom]] says no.", []),  # too short to be a claim
        ("He thinks it will rain.", []),  # a pronoun holds nothing we can name
        ("They say it works.", []),
        ("my cat thinks it owns the shed", []),  # lower case: not a name
        ("# Sarah thinks headings are not claims", []),
        (
            "Sarah thinks A is right. Tom bets B wins.",
            [("take", "Sarah", "A is right."), ("bet", "Tom", "B wins.")],
        ),
        (
            "Sarah thinks A is right.\nSarah thinks A is right.",
            [("take", "Sarah", "A is right.")],  # once per note
        ),
    ],
)
def test_fallback_extracts_the_obvious_forms(
    text: str, expected: list[tuple[str, str, str]]
) -> None:
    assert [(t.kind, t.holder, t.text) for t in fallback(text, KINDS)] == expected


def test_fallback_keeps_only_the_packs_kinds() -> None:
    text = "Omar bets rates fall.\nfact: water is wet"
    assert fallback(text, ["fact", "take"]) == [Take("fact", "", "water is wet")]


def test_the_takes_section_is_not_extracted_again() -> None:
    text = "Sarah thinks A.\n\n## Takes\n- take: Sarah: A is so · [[x]]\n\n## Log\n- 2026-01-01 x\n"
    assert without_takes(text) == "Sarah thinks A.\n\n## Log\n- 2026-01-01 x"


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (("Sarah thinks A.", "p@1+aa", "m", "h1"), ("Sarah thinks A.", "p@1+aa", "m", "h1"), True),
        (
            ("Sarah thinks A.", "p@1+aa", "m", "h1"),
            ("  sarah   THINKS a. ", "p@1+aa", "m", "h1"),
            True,
        ),
        (("Sarah thinks A.", "p@1+aa", "m", "h1"), ("Sarah thinks B.", "p@1+aa", "m", "h1"), False),
        (("Sarah thinks A.", "p@1+aa", "m", "h1"), ("Sarah thinks A.", "p@1+bb", "m", "h1"), False),
        (
            ("Sarah thinks A.", "p@1+aa", "m", "h1"),
            ("Sarah thinks A.", "p@1+aa", "m2", "h1"),
            False,
        ),
        (("Sarah thinks A.", "p@1+aa", "m", "h1"), ("Sarah thinks A.", "p@1+aa", "m", "h2"), False),
    ],
)
def test_cache_key(a: tuple[str, str, str, str], b: tuple[str, str, str, str], same: bool) -> None:
    assert (cache_key(*a) == cache_key(*b)) is same
