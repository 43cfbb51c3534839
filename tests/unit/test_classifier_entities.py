"""People and titles in a thought: whole names, every person, the vault's names; whole phrases."""

from __future__ import annotations

import pytest

from vaultbrain.classify.corpus import corpus_vocabulary, load_corpus
from vaultbrain.classify.entities import KnownNames, find_people, phrase, protect, unprotect

COMMON = corpus_vocabulary(load_corpus("vaultbrain-base"))


def names(text: str, known: KnownNames | None = None) -> list[str]:
    return [p.title for p in find_people(text, COMMON, known)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Liam O'Brien called about the fuse box", ["Liam O'Brien"]),
        ("José Álvarez wants his climbing shoes back", ["José Álvarez"]),
        ("Anneke van der Berg moved in next door", ["Anneke van der Berg"]),
        ("drinks with Jean-Luc on friday", ["Jean-Luc"]),
        ("Dr. Okafor said to retest in six weeks", ["Dr. Okafor"]),
        ("Lunch with Priya and Marco", ["Priya", "Marco"]),
        ("coffee w priya and marco", ["Priya", "Marco"]),
        ("Pay Dr. Müller's invoice", ["Dr. Müller"]),
        ("Kitchen renovation - get three quotes", []),
        ("Launch the podcast website: pick a theme", []),
    ],
)
def test_people_are_found_whole_and_all_of_them(text: str, want: list[str]) -> None:
    assert names(text) == want


def test_a_known_person_is_named_by_first_name_or_alias_when_only_one_fits() -> None:
    known = KnownNames()
    known.add("person", "Priya Shah", ["P"])
    known.add("person", "Marco Rossi")
    known.add("person", "Marco Bianchi")
    found = find_people("coffee with priya and Marco tmrw", COMMON, known)
    assert [(p.name, p.record) for p in found] == [("priya", "Priya Shah"), ("Marco", None)]
    assert found[0].evidence == "known"
    assert known.person("priya shah") == "Priya Shah"
    assert known.person("Marco") is None  # two Marcos: no guess


def test_a_name_the_vault_knows_as_something_else_is_no_person() -> None:
    known = KnownNames()
    known.add("project", "Catan")
    known.add("idea", "Lisbon Trip", ["Lisbon"])
    assert names("play Catan with Sarah on friday", known) == ["Sarah"]
    assert names("Lisbon with Marco", known) == ["Marco"]
    assert names("play Catan with Sarah on friday") == ["Catan", "Sarah"]


def test_forgetting_a_record_forgets_its_names() -> None:
    known = KnownNames()
    known.add("person", "Priya Shah", ["PS"])
    known.remove("person", "Priya Shah", ["PS"])
    assert known.person("priya") is None and known.names == {}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "Dr. Müller is the orthopaedic surgeon for my knee",
            "Dr. Müller is the orthopaedic surgeon for my knee",
        ),
        (
            "Pay the electricity bill (€84.20) by friday. Then relax",
            "Pay the electricity bill (€84.20) by friday",
        ),
        ("upgrade the plugin to v2.1. it fixes sync", "Upgrade the plugin to v2.1"),
        (
            "look into e.g. switching energy supplier. more later",
            "Look into e.g. switching energy supplier",
        ),
        (
            "write about the history of the early church and the Council of Nicaea and the creed",
            "Write about the history of the early church and the Council of Nicaea",
        ),
        ("Kitchen renovation - get three quotes and choose tiles", "Kitchen renovation"),
        ("Lunch with Priya and Marco re: podcast", "Lunch with Priya and Marco re: podcast"),
        (
            "one two three four five six seven eight nine ten eleven",
            "One two three four five six seven eight nine ten",
        ),
    ],
)
def test_a_title_is_a_whole_phrase(text: str, want: str) -> None:
    assert phrase(text, 10) == want


def test_periods_inside_abbreviations_and_numbers_are_protected() -> None:
    text = "Dr. Okafor: pay €84.20 for v2.1, e.g. today. Done."
    guarded = protect(text)
    assert guarded.count(".") == 2  # "today." and "Done."
    assert unprotect(guarded) == text


def test_the_old_pattern_classifier_no_longer_cuts_at_a_period_inside_a_title() -> None:
    import datetime as dt

    from vaultbrain.classify.heuristic import classify_heuristic

    c = classify_heuristic(
        "Need to pay Dr. Müller's invoice (€84.20) by friday", dt.date(2026, 12, 1)
    )
    admin = next(d for d in c.destinations if d.type == "admin")
    assert admin.title == "Pay Dr. Müller's invoice (€84.20)"
    assert admin.fields["due"] == "2026-12-04"
    c = classify_heuristic("need to upgrade to v2.1 e.g. for sync. then test", dt.date(2026, 12, 1))
    assert [d.title for d in c.destinations if d.type == "admin"] == [
        "Upgrade to v2.1 e.g. for sync"
    ]


def test_the_place_cue_check_answers_as_the_pattern_without_compiling_it_for_most_texts() -> None:
    from vaultbrain.classify.namewords import ends_in_place_cue, place_cues

    heads = ["Met with ", "moved to ", "lives in  ", "back from\n", "Lunch (in ", "Going aux "]
    heads += ["MOVED TO ", "İN ", "ın ", "flew to", "tin ", "again ", "", "   ", "em", "Team "]
    for head in heads:
        assert ends_in_place_cue(head) == bool(place_cues().search(head)), head
