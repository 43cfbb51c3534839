"""People and titles in a thought: whole names, every person, the vault's names; whole phrases."""

from __future__ import annotations

import pytest

from vaultbrain.classify.corpus import corpus_vocabulary, load_corpus
from vaultbrain.classify.entities import find_people
from vaultbrain.classify.mentions import KnownNames
from vaultbrain.classify.phrases import phrase, protect, unprotect

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


# -- issue 42: a person needs evidence ----------------------------------------------------
@pytest.mark.parametrize(
    ("text", "want"),
    [
        # full names stay whole, in either order, with a given name that is also a word
        ("Supper with Ada Lovelace next week", ["Ada Lovelace"]),
        ("Dinner with Rosa Parks on Friday", ["Rosa Parks"]),
        ("Chen Jia plays the guzheng beautifully", ["Chen Jia"]),
        ("met Maria José Pereira at the market", ["Maria José Pereira"]),
        # a title, a contact verb, a possessive or something said of them
        ("get mrs chen some flowers for feeding the cat", ["Mrs Chen"]),
        ("Oliver said the match is off", ["Oliver"]),
        ("ring bertha about the church fete", ["Bertha"]),
        ("Ingrid and Tomasz are coming for dinner", ["Ingrid", "Tomasz"]),
        ("ran into Cressida at the garden centre", ["Cressida"]),
        # names that are words, with context
        ("Ask Joy whether she wants the bike", ["Joy"]),
        ("Pearl is ninety this year", ["Pearl"]),
    ],
)
def test_a_name_with_evidence_is_a_person_and_stays_whole(text: str, want: list[str]) -> None:
    assert names(text) == want


@pytest.mark.parametrize(
    "text",
    [
        # a sentence's first verb, in English and in other languages
        "Recycle the old laptops at the tip",
        "Paint the fence on Saturday if it stays dry",
        "Bellen met de huisarts over de uitslag",
        "Chiamare la banca domani mattina",
        "Zapłacić za gaz do piątku",
        # weekdays and months, abbreviated
        "Clean the gutters before Wed",
        "pay the window cleaner Thu",
        # shops named after their founders, and places
        "grab bread from Greggs on the way",
        "buy a drill at Wickes",
        "pick up the prescription from Boots",
        "had a Big Mac at lunch, never again",
        "Thiago's cousin flew to São Paulo",
        # code identifiers and exception names
        "Fix the KeyError in the export script",
        "getUserById returns null for deleted accounts",
        # frequent words, lower case, after a cue or not
        "cooking with anxious dogs is hard",
        "Grace period for the loan ends soon",
        "Rose petals for the cake",
        "mark the year 9 essays by monday",
        # a German compound noun at a sentence's start
        "Zahnarzttermin nächsten Dienstag verschieben",
    ],
)
def test_words_that_only_look_like_names_are_no_one(text: str) -> None:
    found = names(text)
    assert not [n for n in found if n != "Thiago"], found


def test_a_rare_word_is_a_name_only_where_something_says_so() -> None:
    # "suki" is a rare English word: a name after a contact verb, not on its own
    assert names("tell suki the venue changed") == ["Suki"]
    assert names("sanjay's restaurant opens next month") == ["Sanjay"]


def test_the_word_lists_are_sorted_and_found_by_search() -> None:
    """The shipped lists are searched in place (namewords.SortedWords): sorted as bytes."""
    from vaultbrain.classify.namewords import (
        SortedWords,
        given_name,
        only_a_name,
        only_a_word,
        surname,
    )
    from vaultbrain.resources import data_dir

    for name in ("given-names", "surnames", "everyday-words-en", "common-words-en"):
        data = (data_dir("corpus") / f"{name}.txt").read_bytes()
        lines = [ln for ln in data.split(b"\n") if ln and not ln.startswith(b"#")]
        assert lines == sorted(lines) and len(lines) > 5000, name
    words = SortedWords(b"# a header\napple\nbanana\ncherry\n")
    assert "banana" in words and "apple" in words and "cherry" in words
    assert "b" not in words and "durian" not in words and "" not in words and len(words) == 3
    assert given_name("thandiwe") and surname("nowak") and surname("okafor")
    assert only_a_word("paint") and only_a_word("bellen") and not only_a_word("will")
    assert only_a_name("thandiwe") and not only_a_name("mark") and not only_a_name("paint")
