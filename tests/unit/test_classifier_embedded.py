"""The embedded classifier as the fallback sees it: types, people, titles, due dates, bands."""

from __future__ import annotations

import datetime as dt

import pytest

from vaultbrain.classify.embedded import analyse, classify_embedded
from vaultbrain.classify.result import UNKNOWN
from vaultbrain.packs import load_pack

TODAY = dt.date(2026, 12, 1)  # a Tuesday
PACK = load_pack("vaultbrain-base")


def dests(text: str, **kw) -> list[tuple[str, str]]:
    return [(d.type, d.title) for d in classify_embedded(text, TODAY, pack=PACK, **kw).destinations]


def test_every_destination_fits_the_pack_and_confidence_stays_below_auto() -> None:
    for text in [
        "ring the landlord about the damp tmrw",
        "Ottilie from the choir is moving to Leeds",
        "what if the allotment sold veg boxes",
        "shed roof: felt, battens, gutter",
        "ok",
    ]:
        c = classify_embedded(text, TODAY, max_confidence=0.79, pack=PACK)
        assert 0.0 <= c.confidence <= 0.79 and c.destinations and c.classified_by
        for d in c.destinations:
            if d.type == UNKNOWN:
                continue
            ptype = PACK.get_type(d.type)
            assert ptype is not None and d.title
            for name, value in d.fields.items():
                assert ptype.fields[name].coerce(value) == (True, value)


def test_a_date_phrase_is_the_due_date_not_part_of_the_title() -> None:
    c = classify_embedded("renew the car insurance by friday", TODAY, pack=PACK)
    admin = next(d for d in c.destinations if d.type == "admin")
    assert admin.title == "Renew the car insurance"
    assert admin.fields["due"] == "2026-12-04"
    tmrw = classify_embedded("dentist tmrw 9am", TODAY, pack=PACK)
    assert any(d.fields.get("due") == "2026-12-02" for d in tmrw.destinations)


def test_every_person_named_is_a_destination_with_the_whole_name() -> None:
    got = dests("Drinks with Siobhan O'Leary and Karl-Heinz Brandt after work")
    assert ("person", "Siobhan O'Leary") in got and ("person", "Karl-Heinz Brandt") in got


def test_a_known_person_links_by_first_name_and_a_known_game_is_no_person() -> None:
    c = classify_embedded(
        "play catan with priya sat",
        TODAY,
        known=[
            {"type": "person", "title": "Priya Shah", "aliases": []},
            {"type": "project", "title": "Catan", "aliases": []},
        ],
        pack=PACK,
    )
    people = [d.title for d in c.destinations if d.type == "person"]
    assert people == ["Priya Shah"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("the podcast relaunch: new artwork, new intro, move hosting", "project"),
        ("pay the council tax before the 1st", "admin"),
        ("an app that tells you which bin goes out this week", "idea"),
        ("Ottilie from the choir is moving to Leeds", "person"),
    ],
)
def test_everyday_thoughts_get_their_primary_type_at_least_as_a_suggestion(
    text: str, kind: str
) -> None:
    # no cap below auto_confidence (issue 42): a clear reading may be filed outright
    a = analyse(text, TODAY, pack=PACK)
    assert a.classification.destinations[0].type == kind
    assert 0.5 <= a.classification.confidence <= 1.0
    assert max(a.primaries, key=a.primaries.get) == kind


def test_a_thought_of_no_type_goes_to_review() -> None:
    c = classify_embedded("hmm ok", TODAY, pack=PACK)
    assert c.confidence < 0.5


def test_a_bare_url_is_a_link() -> None:
    c = classify_embedded("https://example.org/a", TODAY, pack=PACK)
    assert [(d.type, d.fields["url"]) for d in c.destinations] == [
        ("link", "https://example.org/a")
    ]
