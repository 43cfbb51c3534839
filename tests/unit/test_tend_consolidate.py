"""The consolidate phase's matching, as a table of people and projects (pure: no vault)."""

from __future__ import annotations

from typing import Any

import pytest

from vaultbrain.tend.cards import Card
from vaultbrain.tend.consolidate import entity_pairs, name_tokens, person_pairs, title_tokens


def person(rel: str, name: str, aliases: tuple[str, ...] = (), email: str = "") -> Card:
    data: dict[str, Any] = {"type": "person", "name": name}
    card = Card(f"People/{rel}.md", "person", name, data, "", "h", 0.0, list(aliases))
    if email:
        card.emails = {email.lower()}
    return card


def project(rel: str, people: tuple[str, ...] = ()) -> Card:
    card = Card(f"Projects/{rel}.md", "project", rel, {"type": "project"}, "", "h", 0.0)
    card.links = {f"people/{p.lower()}" for p in people}
    return card


def pairs(cards: list[Card]) -> set[tuple[str, str]]:
    return {(p.other.split("/")[1][:-3], p.keep.split("/")[1][:-3]) for p in person_pairs(cards)}


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ([person("Sam", "Sam"), person("Sam Ortiz", "Sam Ortiz")], {("Sam", "Sam Ortiz")}),
        (  # which Sam? two have surnames: no proposal
            [person("Sam", "Sam"), person("Sam Ortiz", "Sam Ortiz"), person("Sam Lee", "Sam Lee")],
            set(),
        ),
        ([person("DW", "DW"), person("Dana Wu", "Dana Wu", ("DW",))], {("DW", "Dana Wu")}),
        (
            [
                person("L. Park", "L. Park", email="lee@p.io"),
                person("Lee Park", "Lee Park", email="LEE@p.io"),
            ],
            {("L. Park", "Lee Park")},
        ),
        (
            [person("Sam Ortiz", "Sam Ortiz"), person("Samuel Ortiz", "Samuel Ortiz")],
            {("Sam Ortiz", "Samuel Ortiz")},
        ),
        (
            [person("Dr. Ann Lee", "Dr. Ann Lee"), person("Ann Lee", "Ann Lee")],
            {("Dr. Ann Lee", "Ann Lee")},
        ),
        ([person("Alex Kim", "Alex Kim"), person("Alex Park", "Alex Park")], set()),
        (  # the same alias on two people with other surnames: nobody's in particular
            [
                person("Sam Lee", "Sam Lee", ("Sammy",)),
                person("Sam Ortiz", "Sam Ortiz", ("Sammy",)),
            ],
            set(),
        ),
        (  # the same name, other e-mail addresses: two people
            [person("Jo", "Jo Park", email="a@x.io"), person("Jo Park", "Jo Park", email="b@x.io")],
            set(),
        ),
        (  # a shared e-mail cannot join two surnames
            [
                person("Ann Lee", "Ann Lee", email="a@x.io"),
                person("Ann Kim", "Ann Kim", email="a@x.io"),
            ],
            set(),
        ),
    ],
)
def test_people(cards: list[Card], expected: set[tuple[str, str]]) -> None:
    assert pairs(cards) == expected


def test_a_hundred_people_who_share_first_names_are_never_merged() -> None:
    firsts = ["Alex", "Maria", "Sam", "Li", "Noor"]
    cards = [
        person(f"{firsts[i % 5]} Surname{i}", f"{firsts[i % 5]} Surname{i}") for i in range(100)
    ]
    cards += [person("Alex", "Alex"), person("Maria", "Maria")]
    assert person_pairs(cards) == []


def test_projects_with_near_titles_and_the_same_people() -> None:
    people = {"people/sam": None}
    cards = [
        project("Website redesign", ("Sam",)),
        project("The website redesign project", ("Sam",)),
        project("Website redesigns", ("Sam",)),
        project("Garden", ("Ann",)),
        project("Gardens", ("Bo",)),
        project("Launch 2026"),
        project("Launch 2027"),
    ]
    known = {f"people/{n}": person(n.title(), n.title()) for n in ("sam", "ann", "bo")}
    del people
    got = {(p.other[9:-3], p.keep[9:-3]) for p in entity_pairs(cards, known)}
    assert {o for o, _ in got} | {k for _, k in got} == {
        "Website redesign",
        "The website redesign project",
        "Website redesigns",
    }
    assert len(got) == 2


def test_tokens() -> None:
    assert name_tokens("Dr. Sam J. Ortiz") == ["sam", "ortiz"]
    assert title_tokens("The Website Redesigns project") == ["website", "redesign"]


def test_groups_whose_sizes_changed_keep_the_note_a_full_match_would() -> None:
    """Only sizes changed (a line added to a note): the last groups, their kept notes chosen
    again, are what matching everything again finds (reorient)."""
    from vaultbrain.tend.consolidate import Meta, reorient

    def group() -> list[Card]:
        return [
            person("Ann Lee", "Ann Lee", email="ann@x.io"),
            person("A. Lee", "A. Lee", email="ann@x.io"),
            person("Ann M Lee", "Ann M Lee", email="ann@x.io"),
            project("Bridge survey", ("Ann Lee",)),
            project("The bridge survey", ("Ann Lee",)),
        ]

    def found(cards: list[Card], meta: Meta | None = None) -> list[Any]:
        people = {"people/ann lee": cards[0]}
        return person_pairs(cards[:3], meta) + entity_pairs(cards[3:], people, meta)

    def rows(found: list[Any]) -> list[tuple[str, str, str]]:
        return sorted((p.other, p.keep, p.why) for p in found)

    meta: Meta = {}
    first = found(group(), meta)
    assert len(first) == 3
    after = group()
    after[2].body_size = 5000  # a long note now: kept, where the shorter path was
    after[4].body_size = 900
    got = reorient(first, meta, after)
    assert got is not None
    assert {p.keep for p in got} == {"People/Ann M Lee.md", "Projects/The bridge survey.md"}
    assert {p.keep for p in got} != {p.keep for p in first}
    assert rows(got) == rows(found(after))
