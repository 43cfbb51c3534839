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
