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
    ("ask `[[Sam]]` about the syntax", "ask Sam about the syntax"),
    ("see [[Foo → Bar]] later", "see Foo → Bar later"),
    ("see [[Quarterly plan|plan → review]] today", "see plan → review today"),
    ("call [Sam](People/Sam.md) about rent", "call Sam about rent"),
    ("escaped \\[\\[Nope\\]\\] brackets", "escaped Nope brackets"),
    ("call\u200bSam about the lease", "callSam about the lease"),
    ("call \u202eTom\u202c about rent", "call Tom about rent"),
    ("co\u00adop meeting \u2066x\u2069", "coop meeting x"),
    ("להתקשר \u200fלדנה", "להתקשר \u200fלדנה"),  # (a direction mark shapes what is shown)
    ("***really*** call **Ann _today_**", "really call Ann today"),
    ("buy milk &amp; eggs", "buy milk & eggs"),
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


@pytest.mark.parametrize(
    ("text", "links"),
    [
        ("call [Sam](People/Sam.md) about rent", [WikiLink("People/Sam", "", "Sam")]),
        ("see [notes](<Work/Q3 plan.md#Goals>)", [WikiLink("Work/Q3 plan", "Goals", "notes")]),
        ("see [notes](Work/Q3%20plan.md)", [WikiLink("Work/Q3 plan", "", "notes")]),
        ("read [the guide](https://x.org/guide.md)", []),
        ("open [vault](obsidian://open?vault=x) and [top](#top)", []),
        ("escaped \\[\\[Nope\\]\\] and `[x](y.md)`", []),
        ("talk to [[Foo → Bar]]", [WikiLink("Foo → Bar")]),
        ("ping [[Sam^abc]]", [WikiLink("Sam^abc")]),
    ],
)
def test_markdown_links_to_notes_are_typed_links_too(text: str, links: list[WikiLink]) -> None:
    assert wikilinks(text) == links


def test_a_thoughts_own_arrow_and_link_stay_its_words() -> None:
    line = "ping Bob → [[Projects/Kiln]] → [[People/Bob|Bob]] · [[Projects/Kiln|Kiln]]"
    # Known thought, or not (a lost state dir, another machine): ours is the last suffix.
    for original in ("ping Bob → [[Projects/Kiln]]", None):
        words, suffix, remark = split_taken(line, original)
        assert words == "ping Bob → [[Projects/Kiln]]"
        assert suffix == "→ [[People/Bob|Bob]] · [[Projects/Kiln|Kiln]]" and remark == ""


# -- a typed wikilink names its note (vaultbrain/filing/linked.py) ----------------------------
def _linked(target: str, alias: str = "", kind: str = "", title: str = "", rel: str | None = ""):
    from vaultbrain.filing.linked import Linked
    from vaultbrain.vault.inline import parse_wikilink

    link = parse_wikilink(f"{target}|{alias}" if alias else target)
    where = f"{target}.md" if rel == "" else rel
    return Linked(link, where, kind, title or link.name)


def _follow(dests: list[tuple[str, str]], *linked):  # type: ignore[no-untyped-def]
    from vaultbrain.classify.result import Classification, Destination
    from vaultbrain.filing.linked import follow_links
    from vaultbrain.packs import load_pack

    result = Classification([Destination(t, n, {}) for t, n in dests], 0.9, "", "test")
    out = follow_links(result, list(linked), load_pack("vaultbrain-base"))
    return [(d.type, d.title) for d in out.destinations]


def test_a_link_with_an_alias_is_the_person_it_links() -> None:
    sarah = _linked("People/Sarah Connor", "Sarah", "person", "Sarah Connor")
    for named in ("Sarah", "Sarah Connor Sarah", "Connor", "sarah connor"):
        assert _follow([("person", named)], sarah) == [("person", "Sarah Connor")]
    assert _follow([("person", "Sarah"), ("person", "Tom")], sarah) == [
        ("person", "Sarah Connor"),
        ("person", "Tom"),
    ]


def test_a_link_to_a_project_is_never_a_person() -> None:
    kiln = _linked("Projects/Kiln", kind="project", title="Kiln")
    assert _follow([("person", "Kiln"), ("person", "Tom")], kiln) == [
        ("project", "Kiln"),
        ("person", "Tom"),
    ]
    assert _follow([("project", "Kiln budget")], kiln) == [("project", "Kiln")]
    # An admin task that mentions the project stays a task, and the project is added.
    assert _follow([("admin", "Order Kiln shelves")], kiln) == [
        ("admin", "Order Kiln shelves"),
        ("project", "Kiln"),
    ]


def test_a_link_to_a_note_not_made_yet_gives_the_new_note_its_name() -> None:
    zed = _linked("Zed Quinn", "Zed", rel=None)
    assert _follow([("person", "Zed")], zed) == [("person", "Zed Quinn")]
    assert _follow([("idea", "Pottery")], zed) == [("idea", "Pottery")]  # not added


def test_a_new_notes_name_is_never_split_at_its_arrow() -> None:
    """``[[Foo → Bar]]`` to no note yet: a classifier that read the arrow as a break and
    named "Foo", "Bar" or "Foo Bar" names that note; a person named elsewhere stays."""
    kiln = _linked("Kiln → Glaze", rel=None)
    for named in ("Kiln", "Glaze", "Kiln Glaze", "kiln → glaze"):
        assert _follow([("person", named)], kiln) == [("person", "Kiln → Glaze")]
    assert _follow([("person", "Kiln"), ("person", "Glaze")], kiln) == [("person", "Kiln → Glaze")]
    assert _follow([("person", "Ann")], kiln) == [("person", "Ann")]
    plan = _linked("Quarterly plan", "plan → review", rel=None)
    assert _follow([("idea", "review")], plan) == [("idea", "Quarterly plan")]
    party = _linked("Ann party", rel=None)  # (a word of the name is not the name)
    assert _follow([("person", "Ann")], party) == [("person", "Ann")]


def test_a_known_notes_name_is_never_split_at_its_arrow() -> None:
    glaze = _linked("Projects/Kiln → Glaze", kind="project", title="Kiln → Glaze")
    assert _follow([("person", "Kiln")], glaze) == [("project", "Kiln → Glaze")]
    assert _follow([("person", "Kiln"), ("person", "Tom")], glaze) == [
        ("project", "Kiln → Glaze"),
        ("person", "Tom"),
    ]
