"""The person's Markdown in a thought (vaultbrain/vault/inline.py): a title keeps the words
Obsidian shows and none of the syntax that vaultbrain or Obsidian would read again in a link;
a typed wikilink is read as the note it names."""

from __future__ import annotations

import pytest

from vaultbrain.filing.inbox import split_taken
from vaultbrain.vault.inline import WikiLink, plain_words, wikilinks
from vaultbrain.vault.typed import title_text

# (the thought, its title)
TITLES = [
    ("the call moved from ~~Monday~~ to Friday", "the call moved from Monday to Friday"),
    ("Lunch with [[People/Sarah Connor|Sarah]] next week", "Lunch with Sarah next week"),
    ("Lunch with [[Sarah Connor]]", "Lunch with Sarah Connor"),
    ("Read [[Books/Dune#Chapter 3]] tonight", "Read Dune Chapter 3 tonight"),
    ("See [[Meeting notes#^ab12cd]] again", "See Meeting notes again"),
    ("Sketch ![[kiln-plan.png]] for the shed", "Sketch kiln-plan.png for the shed"),
    ("Buy #groceries for the party tonight", "Buy groceries for the party tonight"),
    ("Rotate the `api_key` in the config", "Rotate the api_key in the config"),
    ("Poster for $E=mc^2$ in the lab", "Poster for E=mc^2 in the lab"),
    ("Pottery course next spring[^1]", "Pottery course next spring"),
    ("Pottery course ^[ask Dana] next spring", "Pottery course next spring"),
    ("Call **the plumber** _today_ about *the leak*", "Call the plumber today about the leak"),
    ("Pay ==rent== early", "Pay rent early"),
    ("Read [the guide](https://example.com/g) tonight", "Read the guide tonight"),
    ("Fix <kbd>Ctrl</kbd>+S saving", "Fix Ctrl+S saving"),
    ("Plan the garden %%not this year%% layout", "Plan the garden layout"),
    ("Document the `~~x~~` syntax", "Document the x syntax"),
    ("meeting moved →", "meeting moved"),
    ("costs $50 and $60 in total", "costs $50 and $60 in total"),
    ("snake_case_names stay", "snake_case_names stay"),
    ("C# and F# are languages", "C# and F# are languages"),
]


@pytest.mark.parametrize(("thought", "title"), TITLES, ids=[t for t, _ in TITLES])
def test_a_title_keeps_the_words_and_loses_the_syntax(thought: str, title: str) -> None:
    got = title_text(thought)
    assert got == title
    for mark in ("~~", "[[", "]]", "`", "**", "==", "%%", "[^"):
        assert mark not in got
    assert title_text(got) == got  # idempotent


def test_plain_words_of_plain_text_is_the_text() -> None:
    assert plain_words("  call   mom about the kiln ") == "call mom about the kiln"


def test_wikilinks_typed_in_a_thought() -> None:
    text = "Lunch with [[People/Sarah Connor|Sarah]], read ![[Dune#Ch 3]] and `[[not one]]`"
    assert wikilinks(text) == [
        WikiLink("People/Sarah Connor", "", "Sarah"),
        WikiLink("Dune", "Ch 3", "", embed=True),
    ]
    assert wikilinks(text)[0].name == "Sarah Connor"


def test_a_thoughts_own_arrow_and_link_stay_its_words() -> None:
    line = "ping Bob → [[Projects/Kiln]] → [[People/Bob|Bob]] · [[Projects/Kiln|Kiln]]"
    # Known thought, or not (a lost state dir, another machine): ours is the last suffix.
    for original in ("ping Bob → [[Projects/Kiln]]", None):
        words, suffix, remark = split_taken(line, original)
        assert words == "ping Bob → [[Projects/Kiln]]"
        assert suffix == "→ [[People/Bob|Bob]] · [[Projects/Kiln|Kiln]]" and remark == ""
