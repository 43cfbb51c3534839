from __future__ import annotations

from vaultbrain.vault.inbox import render_taken_line, replace_line, scan_inbox

INBOX = """---
cssclasses: inbox
---
# Inbox
> [!info] a callout is a block quote
> - not a thought
- first thought
* star thought ^vb-abc123
+ plus thought
1. numbered thought
2) paren thought
- [ ] open task thought
- [x] ticked by me
  - nested thought

```
code is not a thought
```
~~~python
neither is this
~~~
<!-- html comment -->
<!--
multi-line
comment
-->
%% obsidian comment %%
%%
multi
%%
---
plain line, last, no newline"""


def test_only_thoughts_are_lines() -> None:
    lines = scan_inbox(INBOX)
    assert [line.text for line in lines] == [
        "first thought",
        "star thought",
        "plus thought",
        "numbered thought",
        "paren thought",
        "open task thought",
        "nested thought",
        "plain line, last, no newline",
    ]
    star = lines[1]
    assert star.block_id == "abc123" and star.marker == "* "
    assert lines[-1].terminated is False and lines[0].terminated is True
    assert lines[6].indent == "  "


def test_rewriting_a_line_keeps_everything_else() -> None:
    lines = scan_inbox(INBOX)
    target = lines[0]
    raw = render_taken_line(target, target.text, "→ [[People/Sarah|Sarah]]", "zz9zz9", True)
    assert raw == "- [x] first thought → [[People/Sarah|Sarah]] ^vb-zz9zz9"
    new = replace_line(INBOX, target.number, raw)
    old_lines, new_lines = INBOX.splitlines(True), new.splitlines(True)
    assert len(old_lines) == len(new_lines)
    for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)):
        if i != target.number:
            assert a == b
    again = scan_inbox(new)
    assert again[0].block_id == "zz9zz9" and again[0].checked


def test_crlf_endings_survive() -> None:
    text = "- one\r\n- two\r\n"
    lines = scan_inbox(text)
    assert [line.ending for line in lines] == ["\r\n", "\r\n"]
    assert replace_line(text, 1, "- [x] two ^vb-aaaaaa") == "- one\r\n- [x] two ^vb-aaaaaa\r\n"


# -- odd input (issue 18) ---------------------------------------------------------------


def test_only_newlines_end_a_line() -> None:
    # U+2028, U+0085, form feed and vertical tab are characters of the line, as in Obsidian
    for odd in ("\u2028", "\u0085", "\x0c", "\x0b", "\u2029", "\x1c"):
        text = f"first{odd}half of one thought\nnext\n"
        lines = scan_inbox(text)
        assert [line.text for line in lines] == [f"first{odd}half of one thought", "next"]
        taken = replace_line(
            text, 0, render_taken_line(lines[0], lines[0].text, "", "abc123", True)
        )
        assert taken == f"- [x] first{odd}half of one thought ^vb-abc123\nnext\n"
    old_mac = "one\rtwo\r\nthree"
    assert [(line.text, line.ending) for line in scan_inbox(old_mac)] == [
        ("one", "\r"),
        ("two", "\r\n"),
        ("three", ""),
    ]
    assert replace_line(old_mac, 1, "2") == "one\r2\r\nthree"


def test_a_bom_on_a_first_line_without_frontmatter_stays_first() -> None:
    text = "\ufeffBuy milk\nCall mom\n"
    line = scan_inbox(text)[0]
    assert line.text == "Buy milk"
    new = replace_line(text, 0, render_taken_line(line, line.text, "→ done", "abc123", True))
    assert new == "\ufeff- [x] Buy milk → done ^vb-abc123\nCall mom\n"
    assert scan_inbox(new)[0].block_id == "abc123"


def test_an_unclosed_frontmatter_block_is_not_thoughts() -> None:
    # The person is typing properties: nothing of them is a thought yet.
    assert scan_inbox("---\ntags: inbox\ncssclasses:\n  - x\n") == []
    assert scan_inbox("\ufeff---\r\ntags: inbox\r\n") == []
    # ... up to the first empty line; a `---` rule followed by an empty line stays a rule
    assert [line.text for line in scan_inbox("---\ntags: inbox\n\nBuy milk\n")] == ["Buy milk"]
    assert [line.text for line in scan_inbox("---\n\nBuy milk\n")] == ["Buy milk"]
    # closed, it is frontmatter as before
    assert [line.text for line in scan_inbox("---\ntags: inbox\n---\nBuy milk\n")] == ["Buy milk"]


def test_a_persons_own_block_id_stays_last() -> None:
    text = "- Met Sarah about the deck ^ref\n"
    line = scan_inbox(text)[0]
    assert line.text == "Met Sarah about the deck" and line.own_id == "ref"
    new_raw = render_taken_line(line, line.text, "⏳ waiting", "abc123", False)
    assert new_raw == "- [ ] Met Sarah about the deck ⏳ waiting ^vb-abc123 ^ref"
    again = scan_inbox(new_raw + "\n")[0]
    assert (again.block_id, again.own_id, again.text) == (
        "abc123",
        "ref",
        "Met Sarah about the deck ⏳ waiting",
    )
    done = render_taken_line(
        again, "Met Sarah about the deck", "→ [[People/Sarah|Sarah]]", "abc123", True
    )
    assert done.endswith(" ^vb-abc123 ^ref")
    # not a block id: no space before the caret, or not at the end
    assert scan_inbox("x^2 grows fast\n")[0].own_id is None
    assert scan_inbox("see ^ref later\n")[0].own_id is None
