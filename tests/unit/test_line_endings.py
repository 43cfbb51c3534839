"""Line endings as Obsidian's editor reads them (``\\r\\n``, ``\\r``, ``\\n``; never U+2028,
form feed or the other breaks ``str.splitlines`` knows) in the note and inbox helpers."""

from __future__ import annotations

import pytest

from vaultbrain.vault.inbox import append_line, scan_inbox
from vaultbrain.vault.note import append_to_section, newline_of, parse_note, update_frontmatter

OLD_MAC = "---\rtags: [a]\r---\r- one\r- two\r"


def test_an_old_mac_note_has_properties_and_its_thoughts_are_read() -> None:
    note = parse_note(OLD_MAC)
    assert note.has_frontmatter and note.data == {"tags": ["a"]} and note.newline == "\r"
    assert note.body == "- one\r- two\r"
    assert [(x.number, x.text) for x in scan_inbox(OLD_MAC)] == [(3, "one"), (4, "two")]


def test_an_old_mac_note_is_edited_with_its_own_endings() -> None:
    assert update_frontmatter(OLD_MAC, {"id": "x"}) == "---\rtags: [a]\rid: x\r---\r- one\r- two\r"
    assert update_frontmatter(OLD_MAC, {"tags": ["b"]}).startswith("---\rtags:\r  - b\r---\r")
    assert update_frontmatter("- a\r- b\r", {"id": "x"}) == "---\rid: x\r---\r- a\r- b\r"
    assert append_to_section("x\r## Log\r- a\r", "## Log", "- b") == "x\r## Log\r- a\r- b\r"


@pytest.mark.parametrize(
    ("text", "nl"),
    [
        ("", "\n"),
        ("a\nb\n", "\n"),
        ("a\r\nb\r\n", "\r\n"),
        ("a\rb\r", "\r"),
        ("a\r\nb\r\nc\n", "\r\n"),
        ("a\nb\nc\r\n", "\n"),
        ("a\u2028b\x0cc\x85", "\n"),
    ],
)
def test_the_ending_a_note_uses_most(text: str, nl: str) -> None:
    assert newline_of(text) == nl


def test_an_added_line_takes_the_note_s_ending_and_goes_above_an_unfinished_last_line() -> None:
    assert append_line("- a\r- b\r", "- [ ] n") == "- a\r- b\r- [ ] n\r"
    assert append_line("- a\r- b", "- [ ] n") == "- a\r- [ ] n\r- b"
    assert append_line("- a\r\n- b", "- [ ] n") == "- a\r\n- [ ] n\r\n- b"
    assert append_line("- a ^vb-abcdef\r- b ^vb-bcdefa", "N") == (
        "- a ^vb-abcdef\r- b ^vb-bcdefa\rN\r"
    )


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_what_obsidian_shows_inside_one_line_is_one_thought(sep: str) -> None:
    text = f"- one{sep}still one\r\n- two\n"
    assert [(x.number, x.text) for x in scan_inbox(text)] == [(0, f"one{sep}still one"), (1, "two")]


def test_a_comment_opened_mid_line_hides_the_lines_until_it_closes() -> None:
    text = (
        "- buy paint %% a note to self\n"
        "still in the comment\n"
        "- and this %% closes it\n"
        "- a `%%` in code opens nothing\n"
        "- next thought\n"
    )
    assert [x.text for x in scan_inbox(text)] == [
        "buy paint %% a note to self",
        "a `%%` in code opens nothing",
        "next thought",
    ]


@pytest.mark.parametrize("line", ["#todo", "#todo #later/soon", "[^1]", "<br>", "%% x %%"])
def test_a_line_of_only_syntax_is_no_thought(line: str) -> None:
    assert scan_inbox(f"- {line}\n- a real one\n")[0].text == "a real one"


def test_a_merge_relinks_no_taken_line_split_at_a_u2028() -> None:
    """A merge points the inbox's links at the kept note, except on lines vaultbrain took
    (they are redrawn from their captures): a taken thought holding U+2028 is one line."""
    from vaultbrain.capture.merge import _inbox_relink

    text = "- [x] see [[Old]]\u2028again → [[People/Old|Old]] ^vb-abc123\r\n- ask [[Old]]\r\n"
    out = _inbox_relink(text, {"old"}, "People/New", "New")
    assert out == text.replace("- ask [[Old]]", "- ask [[People/New|Old]]")


def test_a_late_copys_new_lines_keep_the_notes_endings_and_u2028() -> None:
    """A sync tool's late save of the inbox: the lines it alone holds are added back, whole
    (a thought holding U+2028 is one line) and with the note's own endings."""
    from vaultbrain.vault.late import Seen, joined, new_lines

    seen = Seen.of(b"- a\r\n")
    late = "- a\r\n- b\u2028still b\r\n- c\r\n"
    added = new_lines(late, seen, "- a\r\n- c\r\n")
    assert added == "- b\u2028still b\r\n"
    assert joined("- a\r\n- c", added) == "- a\r\n- c\r\n- b\u2028still b\r\n"
    assert new_lines("- x\r- y\r", Seen.of(b""), "- x\r") == "- y\r"


def test_an_html_comment_opened_mid_line_hides_its_paragraphs_lines() -> None:
    text = (
        "- call Sam <!-- a note\n"
        "still hidden\n"
        "and this -->\n"
        "- next one\n"
        "- open <!-- again\n"
        "- a new item ends the paragraph, and the comment\n"
        "- a `<!--` in code\n"
        "- after it\n"
    )
    assert [x.number for x in scan_inbox(text)] == [0, 3, 4, 5, 6, 7]
