from __future__ import annotations

import pytest

from vaultbrain.vault.note import (
    NoteFormatError,
    append_to_section,
    parse_note,
    render_frontmatter,
    update_frontmatter,
)

PERSON_WROTE = """---
# my own comment
type: person
tags: [friend,   work]   # flow list, odd spacing
name:   'Sarah'
nickname: "S."
follow_ups:
- call about the offsite
weird: >-
  folded
  text

created: 2026-11-01
---
Body line one
  indented body **bold**
"""


def test_parse_reads_values_and_normalises_dates() -> None:
    note = parse_note(PERSON_WROTE)
    assert note.error is None
    assert note.data["name"] == "Sarah"
    assert note.data["tags"] == ["friend", "work"]
    assert note.data["created"] == "2026-11-01"
    assert note.data["weird"] == "folded text"
    assert note.body.startswith("Body line one")


def test_update_changes_only_the_lines_that_change() -> None:
    new = update_frontmatter(
        PERSON_WROTE,
        {
            "follow_ups": ["call about the offsite", "send the deck"],
            "updated": "2026-12-01T10:00:00",
            "name": "Sarah",
        },
    )
    old_lines = PERSON_WROTE.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    # everything but the follow_ups span and the appended key is byte-identical
    assert new_lines[:7] == old_lines[:7]
    assert "  - send the deck\n" in new_lines
    assert "weird: >-\n" in new_lines and "  folded\n" in new_lines
    assert new.endswith(
        "created: 2026-11-01\nupdated: 2026-12-01T10:00:00\n---\nBody line one\n  indented body **bold**\n"
    )
    assert parse_note(new).data["follow_ups"] == ["call about the offsite", "send the deck"]


def test_update_with_same_values_is_a_no_op() -> None:
    assert (
        update_frontmatter(PERSON_WROTE, {"name": "Sarah", "tags": ["friend", "work"]})
        == PERSON_WROTE
    )


def test_update_keeps_crlf_line_endings() -> None:
    text = "---\r\ntype: idea\r\ntitle: X\r\n---\r\nbody\r\n"
    new = update_frontmatter(text, {"maturity": "raw"})
    assert new == "---\r\ntype: idea\r\ntitle: X\r\nmaturity: raw\r\n---\r\nbody\r\n"


def test_update_adds_frontmatter_to_a_plain_note() -> None:
    assert update_frontmatter("just text\n", {"id": "abc"}) == "---\nid: abc\n---\njust text\n"


def test_remove_deletes_only_that_span() -> None:
    new = update_frontmatter(PERSON_WROTE, {}, remove=["follow_ups"])
    assert "follow_ups" not in new and "call about the offsite" not in new
    assert "# my own comment\n" in new and 'nickname: "S."\n' in new


def test_rendering_is_obsidian_properties() -> None:
    text = render_frontmatter(
        {
            "type": "project",
            "people": ["[[People/Sarah|Sarah]]"],
            "deadline": "2026-12-08",
            "updated": "2026-12-01T10:00:00",
            "tags": [],
            "note": "yes",
            "count": 3,
            "colon": "a: b",
            "hash": "x #y",
            "empty": None,
            "flag": True,
        }
    )
    assert text == (
        '---\ntype: project\npeople:\n  - "[[People/Sarah|Sarah]]"\ndeadline: 2026-12-08\n'
        'updated: 2026-12-01T10:00:00\ntags: []\nnote: "yes"\ncount: 3\ncolon: "a: b"\n'
        'hash: "x #y"\nempty:\nflag: true\n---\n'
    )
    data = parse_note(text + "body").data
    assert data["note"] == "yes" and data["people"] == ["[[People/Sarah|Sarah]]"]
    assert data["updated"] == "2026-12-01T10:00:00"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("---\nname: a\nname: b\n---\n", "duplicate property 'name'"),
        ("---\nname: [unclosed\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "not a list of properties"),
    ],
)
def test_bad_frontmatter_is_reported_and_never_rewritten(text: str, needle: str) -> None:
    note = parse_note(text)
    assert note.error is not None and needle in note.error
    with pytest.raises(NoteFormatError):
        update_frontmatter(text, {"x": 1})


def test_unclosed_fence_is_body() -> None:
    note = parse_note("---\nname: a\nno closing fence\n")
    assert not note.has_frontmatter and note.data == {}


def test_append_to_section_adds_only_the_line() -> None:
    text = "# Sarah\n\n## Log\n- one\n\n## Notes\nkeep me\n"
    assert (
        append_to_section(text, "## Log", "- two")
        == "# Sarah\n\n## Log\n- one\n- two\n\n## Notes\nkeep me\n"
    )
    assert append_to_section("# T\n", "## Log", "- x") == "# T\n\n## Log\n- x\n"
    assert append_to_section("no newline", "## Log", "- x") == "no newline\n\n## Log\n- x\n"


def test_parse_note_reads_plain_frontmatter_exactly_as_yaml_does() -> None:
    """parse_note reads the plain forms without PyYAML (vault/note.py simple_frontmatter):
    on random notes its data and errors are what YAML's reading gives, dates normalised."""
    import random

    import yaml

    from vaultbrain.vault.note import normalize

    pieces = [
        "x", "Ada", "yes", "null", "07", "12", "1.5", "2025-01-30", "2025-01-30T20:56:00",
        "2025-02-30", "'q'", '"q"', "a: b", "a #c", "[a]", "Zoë", "true", "on", "- x", "",
    ]  # fmt: skip
    rng = random.Random(7)
    fast = 0
    for _ in range(3000):
        lines = []
        for _ in range(rng.randint(1, 4)):
            key = rng.choice(["type", "name", "tags", "k_1", "a-b"])
            if rng.random() < 0.3:
                lines.append(f"{key}:")
                lines += [f"  - {rng.choice(pieces)}" for _ in range(rng.randint(0, 2))]
            else:
                lines.append(f"{key}: {rng.choice(pieces)}")
        newline = "\r\n" if rng.random() < 0.1 else "\n"
        block = newline.join(lines) + newline
        text = f"---{newline}{block}---{newline}body{newline}"
        got = parse_note(text)
        try:
            want = yaml.load(block, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            assert got.error is not None, text
            continue
        except ValueError:  # 2025-02-30
            assert got.error is not None, text
            continue
        if got.error is not None:  # a duplicate key, which YAML would let pass
            assert "duplicate" in got.error, (text, got.error)
            continue
        assert isinstance(want, dict)
        assert repr(got.data) == repr({str(k): normalize(v) for k, v in want.items()}), text
        fast += newline == "\n"
    assert fast > 300


@pytest.mark.parametrize(
    ("block", "want"),
    [
        (
            "day: 2025-01-30\nat: 2025-01-30 20:56:00",
            {"day": "2025-01-30", "at": "2025-01-30T20:56:00"},
        ),
        ("list:\n  - 2025-01-02\n  - x", {"list": ["2025-01-02", "x"]}),
        ("a: 1\na: 2", None),  # twice: parse_note reports it, so it is not read here
        ("old: 0999-01-01T00:00:00", None),  # strftime would not pad the year: left to YAML
        ("bad: 2025-02-30", None),
    ],
)
def test_simple_frontmatter_as_stored(block: str, want: object) -> None:
    """What parse_note keeps: dates as ISO strings, exactly what normalize makes of YAML's."""
    from vaultbrain.vault.note import simple_frontmatter

    assert simple_frontmatter(block, as_stored=True) == want
    if want is not None:
        import yaml

        from vaultbrain.vault.note import normalize

        assert want == {k: normalize(v) for k, v in yaml.safe_load(block).items()}


def test_words_are_known_to_read_back_without_yaml_only_where_yaml_agrees() -> None:
    """A title (words one space apart) is written plain without asking PyYAML; PyYAML reads it
    back as the same string."""
    import yaml
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from vaultbrain.vault import note

    pieces = st.sampled_from([*"aZé9_'’.,()/- ßŁ", "yes", "No", "null", "0x1", "1.5"])
    text = st.lists(pieces, min_size=1, max_size=12).map("".join)

    @settings(max_examples=500, deadline=None)
    @given(text)
    def same(value: str) -> None:
        if note._WORDS.fullmatch(value) and note._PLAIN_SAFE.match(value):
            # (never plain where YAML would read something else; quoted where unsure: `Y`)
            if note._reads_back(value):
                assert yaml.safe_load(f"k: {value}") == {"k": value}, value

    same()
    assert note._reads_back("Met with Sarah about the shed")
    assert not note._reads_back("Yes")


def test_new_properties_are_appended_with_every_line_before_them_as_it_was() -> None:
    from vaultbrain.vault.note import update_frontmatter

    text = "---\n# mine\nname:   'Ann'  \ntags: [a, b]\nnote: |\n  id: not a key\n---\nBody\n"
    out = update_frontmatter(text, {"id": "x1", "type": "person"})
    assert out == text.replace("\n---\nBody", "\nid: x1\ntype: person\n---\nBody")
    crlf = "---\r\nname: Bo\r\n---\r\nBody\r\n"
    assert update_frontmatter(crlf, {"id": "x1"}) == "---\r\nname: Bo\r\nid: x1\r\n---\r\nBody\r\n"
    assert update_frontmatter("---\n---\n", {"id": "x1"}) == "---\nid: x1\n---\n"


def test_a_key_yaml_reads_as_another_is_replaced_not_added_twice() -> None:
    from vaultbrain.vault.note import update_frontmatter

    # (YAML reads the key ``yes`` as True: the line the person wrote is still the key)
    assert update_frontmatter("---\nyes: 1\n---\n", {"yes": 2}) == "---\nyes: 2\n---\n"
    assert update_frontmatter('---\n"id": 1\n---\n', {"id": 2}).count("id") == 1
