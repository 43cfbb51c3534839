"""The classes of person-finding misses of the names2 round (issue 42, the sixth dev set's
voices), each on thoughts of its own, none a dev set's line: kinship words and honorifics of
other cultures kept whole with the name, a name in capitals in any alphabet, Tagalog and
Swahili function words that are no names, and a lowercase guess in a line that capitalises
its names."""

from __future__ import annotations

import pytest

from vaultbrain.classify.corpus import corpus_vocabulary, load_corpus
from vaultbrain.classify.entities import find_people
from vaultbrain.classify.namerun import capital_names
from vaultbrain.classify.namewords import mixed_function_words

COMMON = corpus_vocabulary(load_corpus("vaultbrain-base"))


def names(text: str) -> list[str]:
    return [p.title for p in find_people(text, COMMON)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a kinship word or an honorific of another culture opens the name, and stays in it
        ("take baba Otieno his glasses on friday", ["baba Otieno"]),
        ("mama Achieng is hosting the harambee", ["mama Achieng"]),
        ("lolo Ben wants the rice cooker fixed", ["lolo Ben"]),
        ("pick up tito Ramon from the airport", ["tito Ramon"]),
        ("Sheikh Omar leads the prayers this week", ["Sheikh Omar"]),
        # "Ate" is a Tagalog elder sister only before a name inside a sentence
        ("nagluto si Ate Marites ng adobo for the party", ["Ate Marites"]),
        ("Ate a whole pizza at lunch", []),
        # before a word in lower case, such a title needs a given name: a dish is no one
        ("make baba ganoush for the picnic", []),
        # a title after the name, as Japanese and Hindi write it
        ("email Tanaka sensei the recital dates", ["Tanaka sensei"]),
        ("ask Yamada san about the visa letter", ["Yamada san"]),
        ("Suzuki sensei moved the lesson to six", ["Suzuki sensei"]),
        # a given name that is also a title, before a word, is the name ("Lola" in Spanish)
        ("cenar con Lola para hablar del viaje", ["Lola"]),
        # a name typed in capitals in a line that is not, in any alphabet
        ("call ZOFIA KOWALCZYK about the invoice", ["Zofia Kowalczyk"]),
        ("thank LARS ÅSTRÖM for the loan of the van", ["Lars Åström"]),
        ("the NHS GP letter came", []),
        # Tagalog and Swahili function words, two different ones in a line, are no names
        ("leo ni siku nzuri for a walk", []),
        ("pupunta ako sa Manila next week", []),
        ("kita tayo sa Friday ni Carlo", ["Carlo"]),
        # names of more shapes: a joined Arabic particle typed in lower case, a chat handle,
        # a two-letter given name after a contact word
        ("lunch w/ khalid al-masri on thursday", ["Khalid Al-Masri"]),
        ("@priya can you sanity check the query", ["Priya"]),
        ("forward the invoice to accounts@example.org", []),
        ("coffee w/ ed after standup", ["Ed"]),
        ("call us if the parcel is late", []),
        # after a contact word, capitalised words ending in a surname are one name
        ("ring Te Aroha Ngata about the hall booking", ["Te Aroha Ngata"]),
        ("email Google Cloud Support the logs", []),
        # two names joined by "&" after an article, the last possessive, are a firm
        ("a Marks & Spencer's picnic for the team", []),
        ("Priya & Sam's wedding is in the spring", ["Priya", "Sam"]),
        # who capitalises one name capitalises all: a lowercase first word is a verb
        ("tumpigie Bibi Zawadi kesho about the fees", ["Bibi Zawadi"]),
    ],
)
def test_names2_classes(text: str, want: list[str]) -> None:
    assert names(text) == want


def test_capital_names_reads_every_alphabet_by_unicode_case() -> None:
    assert capital_names("met ŁUKASZ WÓJCIK at the depot") == "met Łukasz Wójcik at the depot"
    assert capital_names("the CNC MILL is down") == "the CNC MILL is down"
    assert capital_names("all lower case") == "all lower case"


def test_function_words_need_two_different_ones() -> None:
    assert mixed_function_words({"leo", "sana", "long"}) >= {"leo", "sana"}
    assert not mixed_function_words({"leo", "is", "here"})
    assert not mixed_function_words({"na", "long", "day"})
