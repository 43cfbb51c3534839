"""Which inbox lines are thoughts, by CommonMark's block rules (markdown-it-py with GFM
tables, ``$$`` math and footnotes): a block that is not text is never a thought, wherever it
starts; the fast path that parses a run of plain list items as three lines finds exactly
what the full parse finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultbrain.vault.inbox import _text_lines, scan_inbox, split_lines

# (what, the block) — every line of each block is not a thought, before or after a list item.
BLOCKS = {
    "table": "| Item | Cost |\n|------|-----:|\n| Milk | 1.20 |\n| Eggs | 3.10 |\n",
    "table without outer pipes": "Item | Cost\n--- | ---\nMilk | 1.20\n",
    "math": "$$\n\\int_0^1 x^2 \\, dx = \\frac{1}{3}\n$$\n",
    "one-line math": "$$ e^{i\\pi} + 1 = 0 $$\n",
    "nested fence": "````markdown\n```python\nprint('hello')\n```\nmore code\n````\n",
    "tilde fence": "~~~\nnot a thought\n~~~\n",
    "long fence": "`````\n````\ncode\n`````\n",
    "html": "<div>\nan HTML block\n</div>\n",
    "html comment": "<!--\na comment\nover lines\n-->\n",
    "details": "<details>\n<summary>More</summary>\nhidden text\n</details>\n",
    "footnote": "[^1]: A footnote definition\n    that goes on here.\n",
    "quote": "> a quotation\ncontinued lazily\n",
    "callout": "> [!note] A callout\n> with its body\n",
    "heading": "# A heading\n",
    "setext heading": "A setext heading\n================\n",
    "indented code": "\n    indented code\n    more\n",
    "obsidian comment": "%%\nhidden\n%%\n",
}


def thoughts(text: str) -> list[str]:
    return [line.text for line in scan_inbox(text)]


@pytest.mark.parametrize("kind", list(BLOCKS))
@pytest.mark.parametrize("where", ["alone", "after a list item", "after a blank line"])
def test_a_block_is_never_a_thought(kind: str, where: str) -> None:
    if kind in ("setext heading", "indented code") and where == "after a list item":
        # CommonMark: a lazy continuation of the item, or a paragraph inside it: text.
        pytest.skip("text after a list item")
    block = BLOCKS[kind]
    before = {"alone": "", "after a list item": "- buy milk\n", "after a blank line": "x\n\n"}
    text = before[where] + block + "\n- call mom\n"
    found = thoughts(text)
    assert "call mom" in found
    block_lines = {line.strip() for line in block.splitlines() if line.strip()}
    assert not block_lines & {t.strip() for t in found}, found


def test_a_nested_fence_keeps_its_code_and_the_line_after_it_is_a_thought() -> None:
    text = "- before\n````\n```python\nx = 1\n```\n- not a thought\n````\n- after\n"
    assert thoughts(text) == ["before", "after"]


def test_front_matter_is_not_a_thought_and_a_rule_in_the_body_is_not_either() -> None:
    text = "---\ntags: [inbox]\ntitle: x\n---\n- a thought\n\n---\n\n- another\n"
    assert thoughts(text) == ["a thought", "another"]


@pytest.mark.parametrize("line", ["🎉🎉🎉", "- 🎉", "- [ ] ⏫", "📅 2026-12-05", "...", "- → ←"])
def test_a_line_of_only_emoji_or_punctuation_is_not_a_thought(line: str) -> None:
    assert thoughts(f"- a thought\n{line}\n") == ["a thought"]


def test_a_taken_line_stays_a_taken_line_whatever_its_words() -> None:
    found = scan_inbox("- [x] 🎉 → [[Memories/Party|Party]] ^vb-abc1234\n")
    assert [(line.text, line.block_id) for line in found] == [
        ("🎉 → [[Memories/Party|Party]]", "abc1234")
    ]


def test_typed_tasks_syntax_is_a_thought() -> None:
    assert thoughts("- water plants 🔁 every week 📅 2026-12-05\n") == [
        "water plants 🔁 every week 📅 2026-12-05"
    ]


def test_one_line_is_one_thought_even_where_markdown_joins_lines() -> None:
    assert thoughts("buy milk\ncall mom\n  book the dentist\n") == [
        "buy milk",
        "call mom",
        "book the dentist",
    ]


# -- the fast path and the full parse agree ------------------------------------------------

_LINES = st.sampled_from(
    [
        "- plain item",
        "- [x] taken → [[People/Sarah|Sarah]] ^vb-abc1234",
        "- [ ] waiting (suggested: confirm) ^vb-def5678",
        "* star item",
        "plain line",
        "",
        "```",
        "````",
        "~~~",
        "$$",
        "$$ x $$",
        "<div>",
        "</div>",
        "<!--",
        "-->",
        "- has > arrow",
        "| a | b |",
        "|---|---|",
        "a | b",
        "--- | ---",
        "> quote",
        "[^1]: note",
        "    indented",
        "# heading",
        "---",
        "===",
        "  - nested item",
        "1. ordered",
        "- item with `code`",
        "- item <b>bold</b>",
        "%%",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINES, min_size=1, max_size=40))
def test_the_fast_path_finds_what_the_full_parse_finds(lines: list[str]) -> None:
    text = "".join(f"{line}\n" for line in lines)
    split = split_lines(text)
    assert _text_lines(split, 0, compress=True) == _text_lines(split, 0, compress=False)


_SIMPLE_LINES = st.sampled_from(
    [
        "- [ ] a thought",
        "- [x] taken → [[People/Ann|Ann]] ^vb-abc123",
        "* item",
        "+ [X] Item",
        "",
        "   ",
        ">",
        "> [!info] vaultbrain inbox",
        "> a quote",
        "> ```",
        "> <div>",
        "> <!--",
        "> $$",
        "> - quoted item",
        ">    indented code",
        "> | a | b |",
        "> |---|---|",
        "> # heading",
        "> ---",
        "> [^1]: note",
        ">> nested",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_SIMPLE_LINES, min_size=1, max_size=30))
def test_items_quotes_and_blank_lines_are_read_without_the_parser(lines: list[str]) -> None:
    """An inbox of plain items, quotes and blank lines is read without markdown-it (a cold
    capture's start): exactly as the full parse reads it."""
    text = "".join(f"{line}\n" for line in lines)
    split = split_lines(text)
    assert _text_lines(split, 0, compress=True) == _text_lines(split, 0, compress=False)
