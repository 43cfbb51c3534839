"""Every gesture a person makes in Obsidian on a line vaultbrain wrote, as a table
(vaultbrain/capture/gestures.py ``decide_lines``): the inbox line and the Needs Review item
read against what vaultbrain wrote there, and what happens. None of them dismisses unless the
person struck, cancelled or deleted the line."""

from __future__ import annotations

import pytest

from vaultbrain.capture.gestures import (
    Gesture,
    LineView,
    ReviewItem,
    Source,
    TypeNames,
    decide_lines,
    read_inbox_line,
)
from vaultbrain.capture.model import CaptureStatus
from vaultbrain.capture.review import parse_items
from vaultbrain.vault.inbox import scan_inbox

S = CaptureStatus
NAMES = TypeNames(("person", "project", "idea", "admin", "link"))
REVIEW = "(suggested: confirm in [[Brain/Needs Review|Needs Review]])"
SARAH = "→ [[People/Sarah|Sarah]] · [[Projects/Kiln|Kiln]]"
SUGGESTED = f"{SARAH} {REVIEW}"
NEEDS = "→ needs review in [[Brain/Needs Review|Needs Review]]"
WAITING = "⏳ waiting for the classifier"
FORMS = {
    S.SUGGESTED: (SUGGESTED, False),
    S.FILED: (SARAH, True),
    S.NEEDS_REVIEW: (NEEDS, False),
    S.PENDING: (WAITING, False),
    S.DISMISSED: ("→ dismissed", True),
}


def view(status: CaptureStatus, text: str = "Met Sarah about the kiln", **kw: object) -> LineView:
    form = FORMS[status]
    types = ("person", "project") if status in (S.SUGGESTED, S.FILED) else ()
    values = dict(
        id="abc123",
        status=status,
        text=text,
        written_suffix=form[0],
        written_done=form[1],
        form=form,
        can_accept=False,
        types=types,
    )
    values.update(kw)
    return LineView(**values)  # type: ignore[arg-type]


def line_of(raw: str):
    (line,) = scan_inbox(raw + "\n")
    return line


# (name, status, the line as the person left it, what it means, the types)
INBOX_ROWS = [
    (
        "tick a suggestion",
        S.SUGGESTED,
        f"- [x] Met Sarah about the kiln {SUGGESTED} ^vb-abc123",
        Gesture.CONFIRM,
        (),
    ),
    (
        "tick with a capital X",
        S.SUGGESTED,
        f"- [X] Met Sarah about the kiln {SUGGESTED} ^vb-abc123",
        Gesture.CONFIRM,
        (),
    ),
    (
        "tick a waiting line: waits for what it becomes",
        S.PENDING,
        f"- [x] Met Sarah about the kiln {WAITING} ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "untick a filed line",
        S.FILED,
        f"- [ ] Met Sarah about the kiln {SARAH} ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "a filed line as written",
        S.FILED,
        f"- [x] Met Sarah about the kiln {SARAH} ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "a dismissed line as written",
        S.DISMISSED,
        "- [x] Met Sarah about the kiln → dismissed ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "cancel [-] a suggestion",
        S.SUGGESTED,
        f"- [-] Met Sarah about the kiln {SUGGESTED} ^vb-abc123",
        Gesture.DISMISS,
        (),
    ),
    (
        "cancel [-] a filed line",
        S.FILED,
        f"- [-] Met Sarah about the kiln {SARAH} ^vb-abc123",
        Gesture.DISMISS,
        (),
    ),
    (
        "strike the words",
        S.SUGGESTED,
        f"- [ ] ~~Met Sarah about the kiln~~ {SUGGESTED} ^vb-abc123",
        Gesture.DISMISS,
        (),
    ),
    (
        "strike the whole line",
        S.FILED,
        f"- [x] ~~Met Sarah about the kiln {SARAH}~~ ^vb-abc123",
        Gesture.DISMISS,
        (),
    ),
    (
        "strike across the id",
        S.SUGGESTED,
        f"- [ ] ~~Met Sarah about the kiln {SUGGESTED} ^vb-abc123~~",
        Gesture.DISMISS,
        (),
    ),
    (
        "→ type after our suffix",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln {SUGGESTED} → project ^vb-abc123",
        Gesture.RETYPE,
        ("project",),
    ),
    (
        "→ type after the block id",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln {SUGGESTED} ^vb-abc123 → project",
        Gesture.RETYPE,
        ("project",),
    ),
    (
        "→type after the id, no space",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln {SUGGESTED} ^vb-abc123 →project",
        Gesture.RETYPE,
        ("project",),
    ),
    (
        "→ type before our suffix",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln → project {SUGGESTED} ^vb-abc123",
        Gesture.RETYPE,
        ("project",),
    ),
    (
        "-> several types",
        S.NEEDS_REVIEW,
        f"- [ ] Met Sarah about the kiln {NEEDS} -> person, admin ^vb-abc123",
        Gesture.RETYPE,
        ("person", "admin"),
    ),
    (
        "→ a plural, capitalised",
        S.NEEDS_REVIEW,
        f"- [ ] Met Sarah about the kiln {NEEDS} → Projects ^vb-abc123",
        Gesture.RETYPE,
        ("project",),
    ),
    (
        "→ type on a waiting line",
        S.PENDING,
        f"- [ ] Met Sarah about the kiln {WAITING} → idea ^vb-abc123",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "→ type on a filed line, other types",
        S.FILED,
        f"- [x] Met Sarah about the kiln {SARAH} ^vb-abc123 → idea",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "→ the types it is filed as already",
        S.FILED,
        f"- [x] Met Sarah about the kiln {SARAH} ^vb-abc123 → person, project",
        Gesture.NONE,
        (),
    ),
    (
        "→ a dismissed line",
        S.DISMISSED,
        "- [x] Met Sarah about the kiln → dismissed ^vb-abc123 → idea",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "→ a misspelt type",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln {SUGGESTED} ^vb-abc123 → projcet",
        Gesture.UNCLEAR,
        (),
    ),
    (
        "→ words that are no type: a remark",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln {SUGGESTED} → ask mom later ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "text typed before our suffix",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln, and Bo {SUGGESTED} ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "text typed after our suffix",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln {SUGGESTED} -- ask Tom first ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "text typed after the id",
        S.FILED,
        f"- [x] Met Sarah about the kiln {SARAH} ^vb-abc123 and bring cake",
        Gesture.NONE,
        (),
    ),
    (
        "text typed inside our suffix",
        S.SUGGESTED,
        f"- [ ] Met Sarah about the kiln → [[People/Sarah|Sarah]] and mom · [[Projects/Kiln|Kiln]] {REVIEW} ^vb-abc123",
        Gesture.NONE,
        (),
    ),
    (
        "the block id moved to the front",
        S.SUGGESTED,
        f"- [ ] ^vb-abc123 Met Sarah about the kiln {SUGGESTED}",
        Gesture.NONE,
        (),
    ),
    (
        "the block id moved into the words",
        S.FILED,
        f"- [x] Met Sarah ^vb-abc123 about the kiln {SARAH}",
        Gesture.NONE,
        (),
    ),
    (
        "struck and typed at once",
        S.SUGGESTED,
        f"- [ ] ~~Met Sarah about the kiln~~ {SUGGESTED} → project ^vb-abc123",
        Gesture.UNCLEAR,
        (),
    ),
    (
        "ticked and typed: the type says more",
        S.SUGGESTED,
        f"- [x] Met Sarah about the kiln {SUGGESTED} → idea ^vb-abc123",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "an odd box mark on a filed line",
        S.FILED,
        f"- [/] Met Sarah about the kiln {SARAH} ^vb-abc123",
        Gesture.NONE,
        (),
    ),
]


@pytest.mark.parametrize(
    ("status", "raw", "gesture", "types"),
    [row[1:] for row in INBOX_ROWS],
    ids=[row[0] for row in INBOX_ROWS],
)
def test_an_inbox_gesture(status, raw, gesture, types) -> None:
    v = view(status)
    decision = decide_lines([(line_of(raw), v)], {v.id: v}, None, None, NAMES)
    got = [(a.gesture, a.types) for a in decision.acts]
    assert got == ([] if gesture is Gesture.NONE else [(gesture, types)])
    assert all(a.sources == (Source.INBOX,) for a in decision.acts)


def test_the_thoughts_own_arrow_and_strike_are_words() -> None:
    for text in ("Read → chapter two", "~~old~~ new plan for the kiln", "swap -> project b"):
        v = view(S.SUGGESTED, text=text)
        raw = f"- [ ] {text} {SUGGESTED} ^vb-abc123"
        assert decide_lines([(line_of(raw), v)], {v.id: v}, None, None, NAMES).acts == ()


def test_a_ticked_thought_in_review_takes_its_suggestion_or_is_told() -> None:
    raw = f"- [x] Met Sarah about the kiln {NEEDS} ^vb-abc123"
    with_guess = view(S.NEEDS_REVIEW, can_accept=True)
    (act,) = decide_lines(
        [(line_of(raw), with_guess)], {"abc123": with_guess}, None, None, NAMES
    ).acts
    assert act.gesture is Gesture.CONFIRM
    bare = view(S.NEEDS_REVIEW)
    (act,) = decide_lines([(line_of(raw), bare)], {"abc123": bare}, None, None, NAMES).acts
    assert act.gesture is Gesture.UNCLEAR and "no suggestion" in act.why


def test_a_consumed_arrow_leaves_the_line() -> None:
    raw = f"- [ ] Met Sarah about the kiln {SUGGESTED} ^vb-abc123 → project"
    line = line_of(raw)
    v = view(S.SUGGESTED)
    decision = decide_lines([(line, v)], {v.id: v}, None, None, NAMES)
    reading = decision.consumed[line.number]
    assert (reading.words, reading.after, reading.remark) == ("Met Sarah about the kiln", "", "")
    before = line_of(f"- [ ] Met Sarah about the kiln → project {SUGGESTED} ^vb-abc123")
    assert read_inbox_line(before, v, NAMES).words == "Met Sarah about the kiln"


def test_text_inside_our_suffix_is_kept_as_theirs() -> None:
    raw = f"- [ ] Met Sarah about the kiln → [[People/Sarah|Sarah]] and mom · [[Projects/Kiln|Kiln]] {REVIEW} ^vb-abc123"
    reading = read_inbox_line(line_of(raw), view(S.SUGGESTED), NAMES)
    assert not reading.intact and reading.shown == SUGGESTED
    assert reading.remark == " and mom"


# -- Needs Review ------------------------------------------------------------------------------
NOTE = f"""---
type: vaultbrain-review
updated: 2026-12-03T10:00:00
---
# Needs Review

## Thoughts that need a decision
- [ ] **the sky is blue** — no suggestion ^vbr-aaa111
- [ ] **kite festival** — suggests idea “Kite festival” ^vbr-bbb222

## Suggestions to confirm
- [ ] **Met Sarah about the kiln** — filed to person {SARAH.removeprefix("→ ")} ^vbr-abc123

## Sync conflicts
- [ ] [[People/Ann|Ann]]: both sides changed ^vbc-ann01-both
"""
BASE = ("vbr-aaa111", "vbr-bbb222", "vbr-abc123", "vbc-ann01-both")
THOUGHTS = {
    "aaa111": "the sky is blue",
    "bbb222": "kite festival",
    "abc123": "Met Sarah about the kiln",
}
VIEWS = {
    "aaa111": view(S.NEEDS_REVIEW, text="the sky is blue", id="aaa111"),
    "bbb222": view(S.NEEDS_REVIEW, text="kite festival", id="bbb222", can_accept=True),
    "abc123": view(S.SUGGESTED),
}


def _edit(old: str, new: str) -> list[ReviewItem]:
    assert old in NOTE
    return parse_items(NOTE.replace(old, new), THOUGHTS)


REVIEW_ROWS = [
    ("as written", "", "", None, Gesture.NONE, ()),
    (
        "→ **type**. after the id",
        "no suggestion ^vbr-aaa111",
        "no suggestion ^vbr-aaa111 → **project**.",
        "aaa111",
        Gesture.RETYPE,
        ("project",),
    ),
    (
        "→ #type before the id",
        "no suggestion ^vbr-aaa111",
        "no suggestion → #idea ^vbr-aaa111",
        "aaa111",
        Gesture.RETYPE,
        ("idea",),
    ),
    ("tick", "- [ ] **Met Sarah", "- [x] **Met Sarah", "abc123", Gesture.CONFIRM, ()),
    ("tick a thought with a guess", "- [ ] **kite", "- [x] **kite", "bbb222", Gesture.CONFIRM, ()),
    ("cancel [-]", "- [ ] **kite", "- [-] **kite", "bbb222", Gesture.DISMISS, ()),
    (
        "strike",
        "**the sky is blue** — no suggestion",
        "~~**the sky is blue** — no suggestion~~",
        "aaa111",
        Gesture.DISMISS,
        (),
    ),
    (
        "delete the line",
        "- [ ] **the sky is blue** — no suggestion ^vbr-aaa111\n",
        "",
        "aaa111",
        Gesture.DISMISS,
        (),
    ),
    (
        "→ type before the id",
        "no suggestion ^vbr-aaa111",
        "no suggestion → idea ^vbr-aaa111",
        "aaa111",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "→ type after the id",
        "no suggestion ^vbr-aaa111",
        "no suggestion ^vbr-aaa111 → idea",
        "aaa111",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "→type, no space, after the id",
        "no suggestion ^vbr-aaa111",
        "no suggestion ^vbr-aaa111 →idea",
        "aaa111",
        Gesture.RETYPE,
        ("idea",),
    ),
    (
        "-> several after the id",
        "no suggestion ^vbr-aaa111",
        "no suggestion ^vbr-aaa111 -> person, admin",
        "aaa111",
        Gesture.RETYPE,
        ("person", "admin"),
    ),
    (
        "→ a word that is no type",
        "no suggestion ^vbr-aaa111",
        "no suggestion ^vbr-aaa111 → recipe",
        "aaa111",
        Gesture.UNCLEAR,
        (),
    ),
    ("the id removed, the line kept", " ^vbr-aaa111", "", None, Gesture.NONE, ()),
    (
        "the id removed and ticked",
        "- [ ] **the sky is blue** — no suggestion ^vbr-aaa111",
        "- [x] **the sky is blue** — no suggestion",
        "aaa111",
        Gesture.UNCLEAR,
        (),
    ),
    (
        "text typed on the line",
        "no suggestion ^vbr-aaa111",
        "no suggestion, ask Bo ^vbr-aaa111",
        None,
        Gesture.NONE,
        (),
    ),
    ("an odd box mark", "- [ ] **kite", "- [/] **kite", "bbb222", Gesture.UNCLEAR, ()),
    (
        "moved to another section",
        "## Thoughts that need a decision\n",
        "## Thoughts that need a decision\n- [ ] **Met Sarah about the kiln** — x ^vbr-abc123\n",
        None,
        Gesture.NONE,
        (),
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "cid", "gesture", "types"),
    [row[1:] for row in REVIEW_ROWS],
    ids=[row[0] for row in REVIEW_ROWS],
)
def test_a_needs_review_gesture(old, new, cid, gesture, types) -> None:
    items = _edit(old, new) if old else parse_items(NOTE, THOUGHTS)
    decision = decide_lines(None, VIEWS, items, BASE, NAMES)
    got = [(a.id, a.gesture, a.types) for a in decision.acts if a.kind == "vbr"]
    assert got == ([] if gesture is Gesture.NONE else [(cid, gesture, types)])


def test_a_line_deleted_from_an_older_copy_dismisses_nothing() -> None:
    """A device's copy of an older render never showed the newest item: it is not deleted."""
    older = parse_items(
        NOTE.replace("- [ ] **kite festival** — suggests idea “Kite festival” ^vbr-bbb222\n", ""),
        THOUGHTS,
    )
    assert decide_lines(None, VIEWS, older, ("vbr-aaa111", "vbr-abc123"), NAMES).acts == ()
    assert decide_lines(None, VIEWS, older, None, NAMES).acts == ()  # render unknown


def test_a_conflict_is_settled_by_a_tick_or_by_deleting_it() -> None:
    for old, new in (
        ("- [ ] [[People/Ann", "- [x] [[People/Ann"),
        ("- [ ] [[People/Ann|Ann]]: both sides changed ^vbc-ann01-both\n", ""),
    ):
        (act,) = decide_lines(None, VIEWS, _edit(old, new), BASE, NAMES).acts
        assert (act.kind, act.id, act.gesture) == ("vbc", "ann01-both", Gesture.CONFIRM)


def test_the_inbox_and_needs_review_disagreeing_do_nothing_and_say_so() -> None:
    v = VIEWS["abc123"]
    ticked = line_of(f"- [x] Met Sarah about the kiln {SUGGESTED} ^vb-abc123")
    struck = _edit("**Met Sarah about the kiln**", "~~**Met Sarah about the kiln**~~")
    (act,) = decide_lines([(ticked, v)], VIEWS, struck, BASE, NAMES).acts
    assert act.gesture is Gesture.UNCLEAR and "say different things" in act.why
    assert set(act.sources) == {Source.INBOX, Source.REVIEW}
    agreed = _edit("- [ ] **Met Sarah", "- [x] **Met Sarah")
    (act,) = decide_lines([(ticked, v)], VIEWS, agreed, BASE, NAMES).acts
    assert act.gesture is Gesture.CONFIRM


def test_only_striking_cancelling_or_deleting_dismisses() -> None:
    dismissing = {row[0] for row in INBOX_ROWS if row[3] is Gesture.DISMISS}
    dismissing |= {row[0] for row in REVIEW_ROWS if row[4] is Gesture.DISMISS}
    assert all(any(w in name for w in ("strike", "cancel", "delete")) for name in dismissing)


# -- a section's "confirm all N below" ----------------------------------------------------------
SECTIONS = NOTE.replace(
    "## Thoughts that need a decision\n",
    "## Thoughts that need a decision\n- [ ] confirm all 1 below ^vbs-decide\n",
).replace(
    "## Suggestions to confirm\n",
    "## Suggestions to confirm\n- [ ] confirm all 2 below ^vbs-suggest\n"
    "- [ ] **kite day** — filed to idea [[Ideas/Kite day|Kite day]] ^vbr-ccc333\n"
    "- [ ] **pots** — filed to idea [[Ideas/Pots|Pots]] ^vbr-ddd444\n",
)
SECTION_VIEWS = {
    **VIEWS,
    "ccc333": view(S.SUGGESTED, text="kite day", id="ccc333"),
    "ddd444": view(S.SUGGESTED, text="pots", id="ddd444"),
}


def _acts(text: str) -> dict[str, tuple[Gesture, tuple[Source, ...]]]:
    items = parse_items(text, THOUGHTS)
    decision = decide_lines(None, SECTION_VIEWS, items, BASE, NAMES)
    return {a.id: (a.gesture, a.sources) for a in decision.acts}


def test_a_ticked_section_line_confirms_each_item_under_it_and_no_other() -> None:
    acts = _acts(SECTIONS.replace("- [ ] confirm all 2", "- [x] confirm all 2"))
    confirm = (Gesture.CONFIRM, (Source.SECTION,))
    assert acts == {"abc123": confirm, "ccc333": confirm, "ddd444": confirm}


def test_an_items_own_gesture_beats_its_sections_tick() -> None:
    text = SECTIONS.replace("- [ ] confirm all 2", "- [x] confirm all 2")
    text = text.replace("- [ ] **pots**", "- [-] **pots**")
    text = text.replace(
        "- [ ] **kite day** — filed to idea [[Ideas/Kite day|Kite day]] ^vbr-ccc333\n", ""
    )
    acts = _acts(text)
    assert acts["ddd444"] == (Gesture.DISMISS, (Source.REVIEW,))
    assert "ccc333" not in acts  # deleted (from a render that never showed it): not confirmed
    assert acts["abc123"] == (Gesture.CONFIRM, (Source.SECTION,))


def test_a_thought_in_review_with_nothing_to_accept_is_left_for_the_person() -> None:
    acts = _acts(SECTIONS.replace("- [ ] confirm all 1", "- [x] confirm all 1"))
    assert acts == {"bbb222": (Gesture.CONFIRM, (Source.SECTION,))}  # aaa111 has no guess


def test_a_section_line_unticked_or_deleted_does_nothing() -> None:
    assert _acts(SECTIONS) == {}
    assert _acts(SECTIONS.replace("- [ ] confirm all 2 below ^vbs-suggest\n", "")) == {}


# -- the person's Markdown in a thought ------------------------------------------------------
# A thought may hold any Markdown a person types in Obsidian. It is their words: never read as
# a gesture, whatever our suffix shows of it (the title a note got, in the worst case with the
# thought's syntax still in it, as earlier versions wrote), and the gestures around it still
# mean what they mean. (name, the thought)
MARKDOWN = [
    ("strike-through", "the call moved from ~~Monday~~ to Friday"),
    ("two strikes", "~~Tuesday~~ ~~Wednesday~~ the kiln opens Friday"),
    ("wikilink", "Lunch with [[Sarah Connor]] next week"),
    ("wikilink with alias", "Lunch with [[People/Sarah Connor|Sarah]] next week"),
    ("wikilink with heading", "Read [[Books/Dune#Chapter 3]] tonight"),
    ("wikilink with heading and alias", "Read [[Books/Dune#Chapter 3|the third chapter]] tonight"),
    ("link to a block", "See [[Meeting notes#^ab12cd]] again"),
    ("embed of an image", "Sketch ![[kiln-plan.png]] for the shed"),
    ("embed of a note", "Recap ![[Weekly review]] with Tom"),
    ("tags", "Buy #groceries for the #party/kids tonight"),
    ("inline code", "Rotate the `api_key` in `~/.ssh/config`"),
    ("code holding a strike", "Document the `~~x~~` syntax for the team"),
    ("math", "Poster for $E=mc^2$ and $\\sum_i x_i$"),
    ("footnote reference", "Pottery course next spring[^1]"),
    ("inline footnote", "Pottery course ^[ask Dana] next spring"),
    ("emphasis", "Call **the plumber** _today_ about *the leak*"),
    ("highlight", "Pay ==rent== early"),
    ("Markdown link", "Read [the guide](https://example.com/guide) tonight"),
    ("HTML", "Fix <kbd>Ctrl</kbd>+<kbd>S</kbd> saving"),
    ("comment", "Plan the garden %%not this year%% layout"),
    ("arrow and words", "meeting moved → Friday"),
    ("arrow and a type word", "swap -> project b"),
    ("arrow and a link", "ping Bob → [[Projects/Kiln]]"),
    ("arrow, a link and words", "call Dana → [[Projects/Kiln|Kiln]] budget"),
    ("arrow inside a link to no note", "talk to [[Foo → Bar]] about the launch"),
    ("arrow and pipe inside a link", "see [[Quarterly plan|plan → review]] today"),
    ("arrow and a type inside a link", "file [[Notes → project]] soon"),
    ("link to a heading, no alias", "lunch with [[Sam#Work]] on Friday"),
    ("link to a block without #", "ping [[Sam^abc]] re: invoices"),
    ("link in inline code", "document the `[[Sam]] → idea` syntax"),
    ("escaped brackets", "escaped \\[\\[Nope\\]\\] brackets → admin for Ann"),
    ("Markdown link to a note", "call [Sam → Bob](People/Sam.md) about rent"),
    ("only a link", "[[Sam → Bob]]"),
    ("only a tag and words", "#idea a garden shed with a green roof"),
    ("bold around an arrow", "call **Sam → Tom** today"),
]


def _suffixes(thought: str) -> dict[str, str]:
    """Our filed suffix for ``thought``: with the title as vaultbrain makes it now, and with
    the thought's own text as the title (what a classifier may name, or an older version
    wrote)."""
    from vaultbrain.filing.records import link_to
    from vaultbrain.vault.names import sanitize_filename
    from vaultbrain.vault.typed import title_text

    out = {}
    for kind, title in (("now", title_text(thought)), ("raw", thought)):
        out[kind] = f"→ {link_to(f'Ideas/{sanitize_filename(title)}.md', title)}"
    return out


def _markdown_rows() -> list[tuple[str, CaptureStatus, str, str, str, Gesture, tuple[str, ...]]]:
    rows = []
    for name, thought in MARKDOWN:
        for kind, filed in _suffixes(thought).items():
            suggested = f"{filed} {REVIEW}"
            for label, status, suffix, raw, gesture, types in (
                ("filed, as written", S.FILED, filed, "- [x] {t} {s} ^vb-abc123", Gesture.NONE, ()),
                ("suggested, as written", S.SUGGESTED, suggested, "- [ ] {t} {s} ^vb-abc123", Gesture.NONE, ()),
                ("ticked", S.SUGGESTED, suggested, "- [x] {t} {s} ^vb-abc123", Gesture.CONFIRM, ()),
                ("struck words", S.SUGGESTED, suggested, "- [ ] ~~{t}~~ {s} ^vb-abc123", Gesture.DISMISS, ()),
                ("struck line", S.FILED, filed, "- [x] ~~{t} {s}~~ ^vb-abc123", Gesture.DISMISS, ()),
                ("struck across the id", S.SUGGESTED, suggested, "- [ ] ~~{t} {s} ^vb-abc123~~", Gesture.DISMISS, ()),
                ("cancelled", S.FILED, filed, "- [-] {t} {s} ^vb-abc123", Gesture.DISMISS, ()),
                ("→ type after the id", S.SUGGESTED, suggested, "- [ ] {t} {s} ^vb-abc123 → admin", Gesture.RETYPE, ("admin",)),
                ("→ type after our suffix", S.FILED, filed, "- [x] {t} {s} → project ^vb-abc123", Gesture.RETYPE, ("project",)),
                ("a remark after the id", S.FILED, filed, "- [x] {t} {s} ^vb-abc123 → later", Gesture.NONE, ()),
            ):  # fmt: skip
                line = raw.format(t=thought, s=suffix)
                rows.append(
                    (f"{name} | {kind} title | {label}", status, thought, line, gesture, types)
                )
    return rows


MARKDOWN_ROWS = _markdown_rows()


@pytest.mark.parametrize(
    ("status", "thought", "raw", "gesture", "types"),
    [row[1:] for row in MARKDOWN_ROWS],
    ids=[row[0] for row in MARKDOWN_ROWS],
)
def test_markdown_in_a_thought_is_words_not_a_gesture(status, thought, raw, gesture, types) -> None:
    v = view(status, text=thought, types=("idea",) if status is S.FILED else ())
    line = line_of(raw)
    decision = decide_lines([(line, v)], {v.id: v}, None, None, NAMES)
    got = [(a.gesture, a.types) for a in decision.acts]
    assert got == ([] if gesture is Gesture.NONE else [(gesture, types)])
    reading = read_inbox_line(line, v, NAMES)
    if gesture is not Gesture.DISMISS:
        assert reading.words == thought  # the thought's own syntax stays, byte for byte


@pytest.mark.parametrize(("name", "thought"), MARKDOWN, ids=[m[0] for m in MARKDOWN])
def test_a_thought_with_markdown_in_needs_review_is_read_as_words(name, thought) -> None:
    """The item shows the thought as written (its syntax defused): as written it is no
    gesture, ticked it confirms, struck it dismisses."""
    from vaultbrain.capture.review import thought_of

    shown = thought_of(thought)
    note = NOTE.replace("**Met Sarah about the kiln**", f"**{shown}**")
    thoughts = {**THOUGHTS, "abc123": shown}
    views = {**VIEWS, "abc123": view(S.SUGGESTED, text=thought)}
    for old, new, expected in (
        ("", "", []),
        (f"- [ ] **{shown}", f"- [x] **{shown}", [Gesture.CONFIRM]),
        (f"- [ ] **{shown}**", f"- [ ] ~~**{shown}**~~", [Gesture.DISMISS]),
    ):
        items = parse_items(note.replace(old, new) if old else note, thoughts)
        acts = decide_lines(None, views, items, BASE, NAMES).acts
        assert [a.gesture for a in acts if a.kind == "vbr"] == expected, (old, new)


@pytest.mark.parametrize(
    ("typed", "gesture", "types"),
    [
        ("→ **idea**", Gesture.RETYPE, ("idea",)),
        ("→ *idea*", Gesture.RETYPE, ("idea",)),
        ("→ __idea__", Gesture.RETYPE, ("idea",)),
        ("→ #idea", Gesture.RETYPE, ("idea",)),
        ("→ idea.", Gesture.RETYPE, ("idea",)),
        ("→ Idea!", Gesture.RETYPE, ("idea",)),
        ("→ **person**, idea", Gesture.RETYPE, ("person", "idea")),
        ("→ `idea`", Gesture.NONE, ()),  # code: the person quoting the word
        ("→ [[idea]]", Gesture.NONE, ()),
        ("→ [[Projects/Kiln]]", Gesture.NONE, ()),
        ("→ ask mom later.", Gesture.NONE, ()),
        ("→ #todo", Gesture.NONE, ()),
    ],
)
def test_a_type_after_an_arrow_reads_as_obsidian_shows_it(typed, gesture, types) -> None:
    """Emphasis, a tag's ``#`` or a full stop around the type after an arrow: the type,
    as the person sees it; a code span or a link there is their text, never a gesture."""
    thought = "call Sam about the fence"
    v = view(S.SUGGESTED, text=thought)
    for raw in (
        f"- [ ] {thought} {v.written_suffix} ^vb-abc123 {typed}",
        f"- [ ] {thought} {v.written_suffix} {typed} ^vb-abc123",
    ):
        reading = read_inbox_line(line_of(raw), v, NAMES)
        assert (reading.gesture, reading.types) == (gesture, types), raw


def test_a_link_we_drew_in_needs_review_is_never_a_strike() -> None:
    """A note whose name holds tildes (made before titles lost the syntax, or by the
    person) is linked on a conflict and on a filed item: as written, nothing happens."""
    odd = "[[Admin/moved from ~~Monday~~ to Friday|moved from Monday to Friday]]"
    note = NOTE.replace("[[People/Ann|Ann]]", odd).replace(
        "filed to person", f"filed to admin {odd}, person"
    )
    items = parse_items(note, THOUGHTS)
    assert decide_lines(None, VIEWS, items, BASE, NAMES).acts == ()
    ticked = parse_items(note.replace("- [ ] [[Admin/moved", "- [x] [[Admin/moved"), THOUGHTS)
    (act,) = decide_lines(None, VIEWS, ticked, BASE, NAMES).acts
    assert (act.kind, act.gesture) == ("vbc", Gesture.CONFIRM)
