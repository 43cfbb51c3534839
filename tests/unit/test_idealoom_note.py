"""IdeaLoom notes: what import accepts, what it refuses (and where), and exact round trips."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultbrain.idealoom.model import IdeaList, clean_help, help_problem, line_problem
from vaultbrain.idealoom.note import (
    LoomNote,
    Malformed,
    note_path,
    parse_loom_note,
    render_loom_note,
    slug,
    update_loom_note,
)

UUID = "0b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e"
NOTE = """\
---
id: 0b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e
title: Weekend projects
category: personal
status: draft
created: 2026-01-02T09:30:00
modified: 2026-01-03T18:05:12
tags:
  - idea-loom
---
# What could I build in a weekend?

## Help

Small, finishable, fun.

## Ideas

1. A bird feeder camera
2. A tide clock
"""


def lst(**kw: object) -> IdeaList:
    base = {
        "id": UUID,
        "title": "Weekend projects",
        "prompt": "What could I build in a weekend?",
        "category": "personal",
        "status": "draft",
        "help": "Small, finishable, fun.",
        "ideas": ("A bird feeder camera", "A tide clock"),
        "created": "2026-01-02T09:30:00",
        "modified": "2026-01-03T18:05:12",
    }
    base.update(kw)
    return IdeaList(**base)  # type: ignore[arg-type]


def parsed(text: str) -> LoomNote:
    note = parse_loom_note(text)
    assert isinstance(note, LoomNote), note
    return note


def test_the_canonical_note_parses_and_renders_back_byte_for_byte() -> None:
    note = parsed(NOTE)
    assert note.list == lst()
    assert render_loom_note(lst()) == NOTE


def test_accepts_what_people_really_write() -> None:
    text = """\
---
uuid: 0B0E6B3C-2D43-4B57-9D7E-1F2A3B4C5D6E
aliases: [Weekend]
title: "Weekend projects"
category: personal
status: Draft
createdAt: 2026-01-02T09:30:00.000Z
updatedAt: '2026-01-03T18:05:12Z'
tags: [projects, "#IdeaLoom"]
cssclasses:
  - wide
---

# What could I build in a weekend?

## Ideas
1) A bird feeder camera

2) A tide clock

## Help
Small, finishable, fun.
"""
    note = parsed(text)
    # A stamp with `Z` or an offset is kept as written (quoted or not), for the round trip.
    assert note.list == lst(created="2026-01-02T09:30:00.000Z", modified="2026-01-03T18:05:12Z")
    assert note.keys["id"] == "uuid"
    assert note.keys["created"] == "createdAt"
    assert note.keys["modified"] == "updatedAt"


@pytest.mark.parametrize(
    "tags",
    ["tags: idea-loom", "tags: '#idea-loom'", "tags: [idea-loom]", "tags:\n  - '#idea-loom'",
     "tags: work, idea-loom", "tag: idealoom", "tags:\n  - a\n  - IdeaLoom"],
)  # fmt: skip
def test_tag_forms(tags: str) -> None:
    text = NOTE.replace("tags:\n  - idea-loom", tags)
    assert parsed(text).list == lst()


def test_a_note_without_help_and_without_ideas_yet() -> None:
    text = "---\n" + NOTE.split("---\n")[1] + "---\n# Prompt?\n\n## Ideas\n"
    note = parsed(text)
    assert note.list.help == ""
    assert note.list.ideas == ()
    assert note.list.prompt == "Prompt?"


def test_date_only_timestamps_mean_midnight() -> None:
    text = NOTE.replace("created: 2026-01-02T09:30:00", "created: 2026-01-02")
    assert parsed(text).list.created == "2026-01-02T00:00:00"


def test_crlf_note() -> None:
    note = parsed(NOTE.replace("\n", "\r\n"))
    assert note.list == lst()
    changed = update_loom_note(note, replace(lst(), ideas=("x",)))
    assert "\r\n1. x\r\n" in changed and "\n1. x\n" not in changed.replace("\r\n", "")


def _swap(old: str, new: str) -> str:
    assert old in NOTE
    return NOTE.replace(old, new)


# Every reason a note is refused, with the line the person has to look at.
MALFORMED = [
    ("no-frontmatter", NOTE.split("---\n", 2)[2], 1),
    ("invalid-frontmatter", NOTE.replace("---\n# What", "# What"), 1),  # never closed
    ("invalid-frontmatter", _swap("title: Weekend projects", "title: a\n  b: c"), 4),
    ("invalid-frontmatter", _swap("status: draft\n", "status: draft\nstatus: draft\n"), 6),
    ("missing-id", _swap("id: 0b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e\n", ""), 1),
    ("invalid-id", _swap("id: 0b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e", "id: 42"), 2),
    ("conflicting-properties", _swap("title:", "uuid: 1b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e\ntitle:"), 3),
    ("missing-title", _swap("title: Weekend projects\n", ""), 1),
    ("invalid-title", _swap("title: Weekend projects", "title: [a, b]"), 3),
    ("missing-category", _swap("category: personal\n", ""), 1),
    ("invalid-category", _swap("category: personal", "category: {a: 1}"), 4),
    ("missing-status", _swap("status: draft\n", ""), 1),
    ("invalid-status", _swap("status: draft", "status: done"), 5),
    ("missing-created", _swap("created: 2026-01-02T09:30:00\n", ""), 1),
    ("invalid-created", _swap("created: 2026-01-02T09:30:00", "created: yesterday"), 6),
    ("missing-modified", _swap("modified: 2026-01-03T18:05:12\n", ""), 1),
    ("invalid-modified", _swap("modified: 2026-01-03T18:05:12", "modified: 12"), 7),
    ("missing-tag", _swap("tags:\n  - idea-loom", "tags: [work]"), 8),
    ("missing-tag", _swap("tags:\n  - idea-loom\n", ""), 1),
    ("missing-prompt", _swap("# What could I build in a weekend?\n", ""), 12),
    ("missing-prompt", _swap("# What could I build in a weekend?", "#"), 11),
    ("unexpected-content", _swap("# What", "Intro text\n# What"), 11),
    ("unexpected-content", _swap("weekend?\n\n## Help", "weekend?\nStray line\n## Help"), 12),
    ("extra-heading", _swap("## Ideas\n", "# Another prompt\n## Ideas\n"), 17),
    ("unknown-section", _swap("## Ideas\n", "## Notes\n\n## Ideas\n"), 17),
    ("duplicate-section", NOTE + "\n## Ideas\n3. Late\n", 22),
    ("missing-ideas", NOTE.split("## Ideas")[0], 16),
    ("not-numbered", _swap("2. A tide clock", "- A tide clock"), 20),
    ("not-numbered", _swap("2. A tide clock", "2.A tide clock"), 20),
    ("numbering-not-dense", _swap("2. A tide clock", "3. A tide clock"), 20),
    ("numbering-not-dense", _swap("1. A bird", "0. A bird"), 19),
    ("empty-idea", _swap("2. A tide clock", "2."), 20),
]  # fmt: skip


@pytest.mark.parametrize(("reason", "text", "line"), MALFORMED)
def test_malformed_reasons_and_lines(reason: str, text: str, line: int) -> None:
    result = parse_loom_note(text)
    assert isinstance(result, Malformed), result
    assert (result.reason, result.line) == (reason, line), result.message
    assert result.message


def test_every_reason_is_tested() -> None:
    reasons = {r for r, _, _ in MALFORMED}
    assert reasons >= {
        "no-frontmatter", "invalid-frontmatter", "missing-id", "invalid-id",
        "conflicting-properties", "missing-title", "invalid-title", "missing-category",
        "invalid-category", "missing-status", "invalid-status", "missing-created",
        "invalid-created", "missing-modified", "invalid-modified", "missing-tag",
        "missing-prompt", "unexpected-content", "extra-heading", "unknown-section",
        "duplicate-section", "missing-ideas", "not-numbered", "numbering-not-dense",
        "empty-idea",
    }  # fmt: skip


# -- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "title",
    ['He said "hi"', '"quoted at the start"', "back\\slash", "C:\\Users\\me",
     'mixed \\"escapes\\" \\n not a newline', "ends with \\", "it's", "'single'",
     "a: b #c", "#hashtag start", "- dash", "yes", "null", "0b101", "=", "2026-01-02 03:04:05",
     "[brackets]", "{braces}", "@at", "%percent", "50%", "émoji 🧶"],
)  # fmt: skip
def test_title_round_trip(title: str) -> None:
    assert line_problem(title) is None
    original = lst(title=title, category=title)
    assert parsed(render_loom_note(original)).list == original
    # and through an in-place update of an existing note
    updated = update_loom_note(parsed(NOTE), original)
    assert parsed(updated).list == original


@pytest.mark.parametrize("prompt", ["#1 priority this year?", "#1", "# not a heading", "##"])
def test_prompt_starting_with_hashes_round_trips(prompt: str) -> None:
    original = lst(prompt=prompt)
    text = render_loom_note(original)
    assert f"\n# {prompt}\n" in text
    assert parsed(text).list == original


def test_help_with_numbered_lines_stays_help() -> None:
    help_text = "Consider:\n1. cost\n2. time\n\n   3. indented\n- bullet\n### a sub-heading"
    assert help_problem(help_text) is None
    original = lst(help=help_text, ideas=("one",))
    note = parsed(render_loom_note(original))
    assert note.list.help == help_text
    assert note.list.ideas == ("one",)


@pytest.mark.parametrize("bad", ["## Ideas", "# Title", "  ## x", "##", "ok\n## Ideas\n1. x"])
def test_help_that_would_read_as_structure_is_refused(bad: str) -> None:
    assert help_problem(bad)


def test_clean_help_trims_blank_edges_and_crlf() -> None:
    assert clean_help("\r\n\r\n  a  \r\nb\r\n\r\n") == "  a  \nb"


@pytest.mark.parametrize(
    "bad", ["", "  ", "two\nlines", "cr\rline", "ls\u2028sep", "nul\x00", "tab\tinside"]
)
def test_line_fields_refuse_multi_line_and_control_text(bad: str) -> None:
    assert line_problem(bad)


# Text that passes the CLI's checks; hypothesis looks for what does not survive a round trip.
_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda s: s.strip() == s and line_problem(s) is None)
_help_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30
).filter(lambda s: help_problem(s) is None)
_lists = st.builds(
    lambda title, prompt, cat, status, help_lines, ideas: lst(
        title=title, prompt=prompt, category=cat, status=status,
        help=clean_help("\n".join(help_lines)), ideas=tuple(ideas),
    ),
    _text, _text, _text, st.sampled_from(["draft", "completed"]),
    st.lists(_help_line, max_size=4), st.lists(_text, max_size=5),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_lists)
def test_render_then_parse_is_identity(original: IdeaList) -> None:
    assert parsed(render_loom_note(original)).list == original


@settings(max_examples=300, deadline=None)
@given(_lists, _lists)
def test_updating_a_rendered_note_equals_rendering_the_new_list(a: IdeaList, b: IdeaList) -> None:
    assert update_loom_note(parsed(render_loom_note(a)), b) == render_loom_note(b)


def test_update_changes_only_the_lines_that_changed() -> None:
    person = """\
---
uuid: 0b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e
title:   Weekend projects   # my comment
aliases: [Weekend]
category: personal
status: draft
createdAt: 2026-01-02T09:30:00.000Z
updatedAt: 2026-01-03T18:05:12
tags: [idea-loom, projects]
---
# What could I build in a weekend?

## Help
Small, finishable, fun.
## Ideas
1) A bird feeder camera
2) A tide clock
"""
    note = parsed(person)
    new = replace(note.list, ideas=("A tide clock", "A bird feeder camera", "A kite"))
    new = replace(new, modified="2026-02-01T10:00:00")
    out = update_loom_note(note, new)
    before, after = person.splitlines(), out.splitlines()
    changed = [line for line in after if line not in before]
    assert changed == [
        "updatedAt: 2026-02-01T10:00:00",
        "1. A tide clock",
        "2. A bird feeder camera",
        "3. A kite",
    ]
    assert after[:7] == before[:7]  # comment, aliases, quoting, the uuid and createdAt keys
    assert "## Help\nSmall, finishable, fun.\n## Ideas\n" in out
    assert parsed(out).list == new


def test_update_adds_and_removes_help() -> None:
    without = lst(help="")
    text = render_loom_note(without)
    with_help = update_loom_note(parsed(text), lst(help="New help"))
    assert with_help == render_loom_note(lst(help="New help"))
    assert update_loom_note(parsed(with_help), without) == text


def test_file_names() -> None:
    a = lst(title='He said "hi" / C:\\ … #1?')
    assert note_path("Idea Loom", a) == "Idea Loom/2026-01-02-he-said-hi-c-1.md"
    assert (
        note_path("Idea Loom", a, suffixed=True)
        == "Idea Loom/2026-01-02-he-said-hi-c-1-0b0e6b3c.md"
    )
    assert slug("???") == "untitled"
    assert slug("Ünïcödé Ideas") == "ünïcödé-ideas"
    assert len(slug("x" * 500)) <= 60


# -- PortOS's limits and its timestamps (issue 18) --------------------------------------


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        ("title-too-long", NOTE.replace("title: Weekend projects", "title: " + "t" * 201)),
        ("category-too-long", NOTE.replace("category: personal", "category: " + "c" * 101)),
        (
            "prompt-too-long",
            NOTE.replace("# What could I build in a weekend?", "# " + "p" * 10_001),
        ),
        ("help-too-long", NOTE.replace("Small, finishable, fun.", "h" * 5_001)),
        ("idea-too-long", NOTE.replace("A tide clock", "i" * 2_001)),
        # JavaScript counts UTF-16 units: 101 emoji are 202 of them
        ("title-too-long", NOTE.replace("title: Weekend projects", "title: " + "🪁" * 101)),
    ],
)
def test_past_portos_limits_is_malformed_with_a_reason(reason: str, text: str) -> None:
    bad = parse_loom_note(text)
    assert isinstance(bad, Malformed) and bad.reason == reason, bad
    assert "IdeaLoom allows at most" in bad.message


def test_at_portos_limits_is_fine() -> None:
    text = NOTE.replace("title: Weekend projects", "title: " + "t" * 200)
    text = text.replace("category: personal", "category: " + "c" * 100)
    text = text.replace("A tide clock", "i" * 2_000)
    assert parsed(text).list.title == "t" * 200


def test_more_than_500_ideas_is_malformed() -> None:
    head = NOTE.split("## Ideas")[0] + "## Ideas\n"
    five_hundred = head + "".join(f"{n}. idea {n}\n" for n in range(1, 501))
    assert len(parsed(five_hundred).list.ideas) == 500
    bad = parse_loom_note(five_hundred + "501. one too many\n")
    assert isinstance(bad, Malformed) and bad.reason == "too-many-ideas"


@pytest.mark.parametrize(
    "stamp", ["2026-01-02T10:00:00.000Z", "2026-01-02T10:00:00Z", "2026-01-02T10:00:00+02:00"]
)
def test_zoned_stamps_round_trip_as_written(stamp: str) -> None:
    text = NOTE.replace("created: 2026-01-02T09:30:00", f"created: {stamp}")
    note = parsed(text)
    assert note.list.created == stamp
    assert f"created: {stamp}\n" in update_loom_note(note, replace(note.list, title="New"))
    rendered = render_loom_note(note.list)
    assert parsed(rendered).list.created == stamp
