"""The person's Markdown spans in a thought are text to every reader of a line (issue 47).

One row per construct a thought can hold, and per place of an arrow around it: before the
span, inside it, after it, and the span at the line's end. Inside a span an arrow, a ``#``,
a ``~~``, a date or a Tasks emoji is the person's text: no title is cut there, no gesture,
tag, strike or field is read from it; outside it they mean what they always mean.
"""

from __future__ import annotations

import pytest

from vaultbrain.capture.gestures import Gesture, LineView, TypeNames, read_arrow, read_inbox_line
from vaultbrain.capture.grades import verdict_of
from vaultbrain.capture.model import CaptureStatus
from vaultbrain.classify.phrases import phrase, protect, unprotect
from vaultbrain.filing.inbox import split_taken
from vaultbrain.vault.inbox import scan_inbox
from vaultbrain.vault.inline import plain_words, shield, shown_words, spans, unshield
from vaultbrain.vault.typed import parse_typed, title_text, trailing_tags

NAMES = TypeNames(("person", "project", "idea", "admin", "link"))
S = CaptureStatus

# (name, a span holding an arrow, its kind, what Obsidian shows of it)
SPANS = [
    ("inline code", "`ssl → cert`", "code", "ssl → cert"),
    ("code of two backticks", "``a ` b -> c``", "code", "a b -> c"),
    ("code of three backticks", "```x → y```", "code", "x → y"),
    ("inline math", "$a \\to b → c$", "math", "a \\to b → c"),
    ("display math", "$$a -> b$$", "math", "a -> b"),
    ("wikilink", "[[Foo → Bar]]", "wikilink", "Foo → Bar"),
    ("wikilink with alias", "[[Foo → Bar|the foo]]", "wikilink", "the foo"),
    ("wikilink with heading", "[[Foo#Part → two]]", "wikilink", "Foo Part → two"),
    ("wikilink to a block", "[[Foo#^blk1]]", "wikilink", "Foo"),
    ("embed", "![[Plan → v2.png]]", "wikilink", "Plan → v2.png"),
    ("embedded note", "![[Kiln → plan]]", "wikilink", "Kiln → plan"),
    ("wikilink with an arrow in its alias", "[[Quarterly plan|plan → review]]", "wikilink", "plan → review"),
    ("wikilink with a pipe and arrow", "[[Foo → Bar|a | b]]", "wikilink", "a | b"),
    ("wikilink to a block, no hash", "[[Sam^abc → x]]", "wikilink", "Sam^abc → x"),
    ("wikilink to a heading, arrow", "[[Sam#Work → home]]", "wikilink", "Sam Work → home"),
    ("wikilink in inline code", "`[[Sam → Bob]]`", "code", "Sam → Bob"),
    ("Markdown link to a note", "[Sam → Bob](People/Sam.md)", "link", "Sam → Bob"),
    ("Markdown link, arrow in the path", "[Sam](People/Sam%20→%20Bob.md)", "link", "Sam"),
    ("Markdown link", "[the doc → here](https://x.org/a->b)", "link", "the doc → here"),
    ("Markdown image", "![a → b](pic.png)", "link", "a → b"),
    ("highlight", "==a → b==", "highlight", "a → b"),
    ("Obsidian comment", "%%later → admin%%", "comment", ""),
    ("HTML comment", "<!-- → admin -->", "comment", ""),
    ("HTML tag", '<span title="a → b">', "html", ""),
    ("footnote reference", "[^1]", "footnote", ""),
    ("escaped arrow", "\\→", "escape", "\\→"),  # (not ASCII: Obsidian shows the backslash)
    ("escaped hash", "\\#", "escape", "#"),
    ("URL with an arrow and a fragment", "https://x.org/a->b#frag", "url", "https://x.org/a->b#frag"),
    ("autolink", "<https://x.org/a-b#frag>", "autolink", "https://x.org/a-b#frag"),
]  # fmt: skip
IDS = [s[0] for s in SPANS]


@pytest.mark.parametrize(("name", "span", "kind", "shown"), SPANS, ids=IDS)
def test_each_construct_is_one_span_of_its_kind(name, span, kind, shown) -> None:
    for line in (f"see {span} later", f"{span} first", f"at the end {span}"):
        found = spans(line)
        assert [(line[s.start : s.end], s.kind) for s in found] == [(span, kind)], line
        guarded = shield(line)
        assert len(guarded) == len(line) and unshield(guarded) == line
        assert "→" not in guarded[found[0].start : found[0].end]
        assert shown in plain_words(unshield(shown_words(line)))


@pytest.mark.parametrize(("name", "span", "kind", "shown"), SPANS, ids=IDS)
def test_a_title_is_never_cut_inside_a_span_and_loses_its_marks(name, span, kind, shown) -> None:
    title = phrase(f"renew the {span} before friday")
    words = f"Renew the {shown} before friday".split()
    assert title.split() == words, title
    for mark in ("`", "==", "[[", "%%", "<!--", "$"):
        assert mark not in title


def test_the_briefs_three_titles() -> None:
    assert phrase("renew the `ssl → cert` before friday") == "Renew the ssl → cert before friday"
    assert phrase("see [[Foo → Bar]] later") == "See Foo → Bar later"
    assert phrase("x ==a → b== y") == "X a → b y"
    # and an arrow outside any span still ends a clause
    assert phrase("call Sam about the lease → ask mom") == "Call Sam about the lease"


@pytest.mark.parametrize(("name", "span", "kind", "shown"), SPANS, ids=IDS)
def test_an_arrow_around_a_span(name, span, kind, shown) -> None:
    """Inside: no gesture. Before the span, with the span as its words: no type, no
    gesture. After the span, at the line's end: the person's type."""
    assert read_arrow(f" call Sam {span}", NAMES)[0] is None
    assert read_arrow(f" call Sam → {span}", NAMES)[0] is None
    reading, rest = read_arrow(f" call Sam {span} → admin", NAMES)
    assert reading is not None and reading.gesture is Gesture.RETYPE
    assert reading.types == ("admin",) and rest == f" call Sam {span}"
    # a span that reads "→ admin" inside: the person's text, in the inbox and in review
    inner = span.replace("→", "→ admin").replace("->", "-> admin")
    assert read_arrow(f" call Sam {inner}", NAMES, strict=True)[0] is None


def _view(text: str) -> LineView:
    suffix = "→ [[Ideas/Idea|Idea]] (suggested: confirm in [[Brain/Needs Review|Needs Review]])"
    return LineView("abc123", S.SUGGESTED, text, suffix, False, (suffix, False), True, ("idea",))


@pytest.mark.parametrize(("name", "span", "kind", "shown"), SPANS, ids=IDS)
@pytest.mark.parametrize("where", ["in the thought", "after the id", "after our suffix"])
def test_a_taken_line_with_a_span_is_no_gesture(name, span, kind, shown, where) -> None:
    thought = f"document {span} for the team"
    view = _view(thought)
    suffix = view.written_suffix
    raw = {
        "in the thought": f"- [ ] {thought} {suffix} ^vb-abc123",
        "after the id": f"- [ ] {thought} {suffix} ^vb-abc123 {span.replace('→', '→ admin')}",
        "after our suffix": f"- [ ] {thought} {suffix} {span} ^vb-abc123",
    }[where]
    (line,) = scan_inbox(raw + "\n")
    reading = read_inbox_line(line, view, NAMES)
    assert reading.gesture is Gesture.NONE, (raw, reading)
    assert reading.words == thought
    # ... and an arrow the person adds after it still files it
    (line,) = scan_inbox(raw + " → project\n")
    assert read_inbox_line(line, view, NAMES).types == ("project",)


@pytest.mark.parametrize(
    "thought",
    [
        "document the `a → filed` status",
        "see [[Notes → dismissed]] again",
        "read `⏳ waiting for the classifier` aloud",
    ],
)
def test_a_span_holding_our_suffixs_words_is_the_persons_thought(thought) -> None:
    assert split_taken(thought) == (thought, None, "")


def test_a_strike_inside_a_span_strikes_nothing() -> None:
    for span in ("`~~x~~`", "https://x.org/~~a~~", "[[A ~~b~~ c]]"):
        thought = "document the syntax"
        view = _view(thought)
        raw = f"- [ ] {thought} {view.written_suffix} {span} ^vb-abc123"
        (line,) = scan_inbox(raw + "\n")
        assert read_inbox_line(line, view, NAMES).gesture is Gesture.NONE, raw
        (line,) = scan_inbox(raw.replace(f"{span}", f"~~{span}~~") + "\n")
        assert read_inbox_line(line, view, NAMES).gesture is Gesture.DISMISS, raw


def test_a_grade_inside_a_span_is_text() -> None:
    assert verdict_of("the take `→ wrong` was quoted") is None
    assert verdict_of("the take was quoted → wrong") == "wrong"


@pytest.mark.parametrize(
    ("text", "rest", "tags"),
    [
        ("read https://x.org/page#frag", "read https://x.org/page#frag", []),
        ("fix the `#header`", "fix the `#header`", []),
        ("see [[Note#Part]]", "see [[Note#Part]]", []),
        ("fix the \\#header", "fix the \\#header", []),
        ("fix the `code` #work", "fix the `code`", ["#work"]),
    ],
)
def test_a_hash_in_a_span_is_no_tag(text, rest, tags) -> None:
    assert trailing_tags(text) == (rest, tags)


def test_a_tasks_field_inside_a_span_is_text() -> None:
    typed = parse_typed("document `📅 2026-01-05` and `[due:: 2026-01-06]` syntax")
    assert typed.fields == {} and typed.inline == {}
    assert typed.words == "document `📅 2026-01-05` and `[due:: 2026-01-06]` syntax"
    typed = parse_typed("document `📅 x` syntax 📅 2026-01-07")
    assert typed.fields == {"due": "2026-01-07"}
    assert typed.words == "document `📅 x` syntax"


def test_protect_keeps_a_shielded_text_shielded_and_gives_periods_back() -> None:
    text = shield("pay Dr. Müller `v2.1 → v3` now")
    assert unprotect(protect(text)) == text


@pytest.mark.parametrize(
    ("thought", "title"),
    [
        ("renew the `ssl → cert` before friday", "renew the ssl → cert before friday"),
        ("the call moved from ~~Monday~~ to Friday", "the call moved from Monday to Friday"),
        ("use ``a ` b`` here", "use a b here"),  # (a lone backtick left would open code)
        ("see [[Foo → Bar|the foo]] later", "see the foo later"),
    ],
)
def test_titles_keep_the_words_and_lose_the_marks(thought, title) -> None:
    assert title_text(thought) == title
    assert plain_words(unshield(shown_words(thought))) == title


def test_an_id_quoted_in_a_span_is_no_anchor() -> None:
    """Our ``^vb-`` id typed inside the person's code span, comment or link is their text:
    the line is a new thought, not a taken one; our real id after it still anchors it."""
    text = (
        "- explain the `` ^vb-abc123 `` anchor\n"
        "- a %% ^vb-abc123 %% comment\n"
        "- see [the id ^vb-abc123](https://x.org) later\n"
        "- [x] code `x ^vb-abc123` thought → [[Admin/X|X]] ^vb-def456\n"
    )
    lines = scan_inbox(text)
    assert [line.block_id for line in lines] == [None, None, None, "def456"]
    assert lines[0].text == "explain the `` ^vb-abc123 `` anchor"
    assert lines[3].text == "code `x ^vb-abc123` thought → [[Admin/X|X]]"
