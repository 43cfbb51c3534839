"""The classes of person-finding misses of the names3 round (issue 42, the seventh dev set's
voices), each on thoughts of its own, none a dev set's line: streets, towns after travel
words and before their sights, shops at the end of an errand, brands before what they make,
pets, Vietnamese kinship words and function words, and Pidgin and romaji words that are no
names."""

from __future__ import annotations

import pytest

from vaultbrain.classify.corpus import corpus_vocabulary, load_corpus
from vaultbrain.classify.entities import find_people
from vaultbrain.classify.placewords import no_one, street, viet_title, vietnamese

COMMON = corpus_vocabulary(load_corpus("vaultbrain-base"))


def names(text: str) -> list[str]:
    return [p.title for p in find_people(text, COMMON)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a capitalised word before a street word is a street, with or without a number
        ("the smoke alarm at 7 Harrison Street keeps beeping", []),
        ("Morgan Avenue resurfacing starts next week", []),
        ("drop the spare keys at 22 Florence Lane", []),
        ("check the gutters on Wesley Crescent", []),
        # the person on the street is still someone; "Dr" and "St" stay titles
        ("Priya lives on Campbell Road now", ["Priya"]),
        ("ring Dave about the boiler at Elm Close", ["Dave"]),
        ("Frau Dr. Weiß hat angerufen", ["Frau Dr. Weiß"]),
        # an errand ends at a shop; meeting someone does not
        ("grab some firelighters from Homebase on the way", []),
        ("pop into Wilkos for bin bags", []),
        ("price up paint at Wickes and Dulux", []),
        ("ran into Cressida at the market", ["Cressida"]),
        # a shop of two words, and a second shop joined to it by "and"
        ("reserve the sofa at Harvey Norman or Dick Smith", []),
        ("buy the bike from Sam Smith", []),
        # a given name in capitals after a contact word is someone; letters beyond ASCII too
        ("text BJØRN the gate code", ["BJØRN"]),
        ("ask SUNNY to water the plants", ["SUNNY"]),
        ("email HR about the leave", []),
        # two lowercase names no English writes often, before what a couple does
        ("sione and tevita are moving to auckland", ["Sione", "Tevita"]),
        ("eggs and milk are low", []),
        # a town after a travel word, and before its sights
        ("flights to Austin for the wedding", []),
        ("we're moving down to Hobart in spring", []),
        ("the train from Reading to Oxford is delayed", []),
        ("a cycling tour of Bruges's old canals", []),
        ("Milo's old bike needs a new chain", ["Milo"]),
        # a brand before what it makes
        ("get a Ralph Lauren voucher for the raffle", []),
        ("a Paul Smith wallet for dad's birthday", []),
        # a chain its founder named: a surname with an "s" that no surname is
        ("a coffee van like Tim Hortons by the station", []),
        ("dinner with Dan Phillips and Sam Edwards", ["Dan Phillips", "Sam Edwards"]),
        # a given name, then who they are to the writer: someone
        ("Tomasz my landlord wants the rent early", ["Tomasz"]),
        ("Order our dinner from the new place", []),
        # a name does not run on across a full stop; a title's stop is no sentence end
        ("I owe Sam Smith. Never again", ["Sam Smith"]),
        ("met Dr. Okafor at the clinic", ["Dr. Okafor"]),
        # a pet: a name, "the" and an animal; "the nurse" is someone's job
        ("Pepper the spaniel needs her jabs", []),
        ("Luna the cat is off her food", []),
        ("Maria the nurse called back", ["Maria"]),
        # Vietnamese: the kinship word and the name together, the function words no one
        ("gọi cho anh Tuấn về cái xe", ["anh Tuấn"]),
        ("chị Lan mới về nhà", ["chị Lan"]),
        ("hẹn cô Mai ở Đà Nẵng", ["cô Mai"]),
        ("moved to New York with Sam Smith", ["Sam Smith"]),
        # Pidgin and romaji words are everyday words, not names
        ("wahala no dey finish for this office", []),
        ("abeg remind Tunde about the generator", ["Tunde"]),
        ("we have a nomikai on kinyoubi", []),
        # "em" and "anh" are English or a name outside a Vietnamese line
        ("send em the slides", []),
    ],
)
def test_names3_classes(text: str, want: list[str]) -> None:
    assert names(text) == want


def test_street_and_no_one_read_the_words_after_the_name() -> None:
    toks = ["at", "Harrison", "Street", "now"]
    assert street(toks, 1) and not street(toks, 2)
    assert no_one(["a", "Ted", "Baker", "voucher"], 1, 3)
    assert no_one(["Biscuit", "the", "cat"], 0, 1)
    assert not no_one(["ask", "Ted", "Baker", "now"], 1, 3)


def test_vietnamese_titles_need_a_diacritic_or_a_vietnamese_line() -> None:
    assert vietnamese({"gọi", "cho", "hoa"}) and not vietnamese({"cho", "call"})
    assert viet_title("chị", False) and viet_title("anh", True)
    assert not viet_title("anh", False) and not viet_title("em", False)
