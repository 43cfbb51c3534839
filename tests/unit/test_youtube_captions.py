"""Captions → prose: the recorded caption fixtures and the rules one at a time."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from vaultbrain.youtube.captions import captions_to_prose, clean_line, looks_like_captions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "youtube" / "captions"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_bytes().decode("utf-8-sig")


def _ts(seconds: float) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h):02d}:{int(m):02d}:{s:06.3f}"


def rolling_vtt(lines: list[list[str]]) -> str:
    """YouTube's auto-caption layout: each line first appears word-timed under the previous
    line, then sits alone for 10 ms before the next cue repeats it on top."""
    out = ["WEBVTT", "Kind: captions", "Language: en", ""]
    t, prev = 0.0, " "
    for words in lines:
        timed = words[0] + "".join(
            f"<{_ts(t + 0.3 * (i + 1))}><c> {w}</c>" for i, w in enumerate(words[1:])
        )
        out += [f"{_ts(t)} --> {_ts(t + 2.5)} align:start position:0%", prev, timed, ""]
        t += 2.5
        line = " ".join(words)
        out += [f"{_ts(t)} --> {_ts(t + 0.01)} align:start position:0%", line, " ", ""]
        t += 0.01
        prev = line
    return "\n".join(out) + "\n"


WORDS = (
    "the cache is a small fast store that keeps recent answers so we do not ask the slow "
    "database again and that works until the data changes under it which is the hard part"
).split()


def random_lines(rng: random.Random, n: int) -> list[list[str]]:
    return [[rng.choice(WORDS) for _ in range(rng.randint(5, 9))] for _ in range(n)]


# -- the fixtures ------------------------------------------------------------------------


def test_rolling_auto_captions_collapse_to_each_line_once() -> None:
    prose = captions_to_prose(fixture("rolling_auto.en.vtt"))
    assert prose == (
        "hi everyone and welcome back to the channel today we're going to talk about caching "
        "and why it's hard [Music] so the first thing is R&D budgets are small\n\n"
        "can I ask a question\n\n"
        "sure go ahead\n"
    )


def test_human_vtt_drops_header_style_note_region_ids_and_cue_settings() -> None:
    prose = captions_to_prose(fixture("human_entities.en.vtt"))
    assert prose == (
        "We are in New York City & it's cold here. Tom <Tom> said: “really?” 1999 That was "
        "the year everything changed. It was — strange. 漢 and voilà.\n"
    )
    for leftover in ("WEBVTT", "STYLE", "NOTE", "color", "id:fred", "intro", "-->", "align"):
        assert leftover not in prose


def test_srt_keeps_a_spoken_line_that_is_only_a_number() -> None:
    prose = captions_to_prose(fixture("numbers.en.srt"))  # BOM, CRLF, {\an8}, <font>
    assert prose == (
        "Previously... How many did you count? 42 Forty-two. Fish & chips for everyone. 7 Done.\n"
    )


# -- the rules ---------------------------------------------------------------------------


def test_a_line_that_extends_the_previous_one_replaces_it() -> None:
    vtt = (
        "WEBVTT\n\n00:01.000 --> 00:02.000\nthis is\n\n"
        "00:02.000 --> 00:03.000\nthis is a test\n\n"
        "00:03.000 --> 00:04.000\nthis is a test\nof the rolling display\n"
    )
    assert captions_to_prose(vtt) == "this is a test of the rolling display\n"


def test_extension_needs_a_word_boundary() -> None:
    vtt = "WEBVTT\n\n00:01.000 --> 00:02.000\nI\n\n00:02.000 --> 00:03.000\nInto the woods\n"
    assert captions_to_prose(vtt) == "I Into the woods\n"


def test_a_number_cue_text_is_kept_in_vtt_too() -> None:
    vtt = "WEBVTT\n\n7\n00:00:01.000 --> 00:00:02.000\n7\n\n8\n00:00:02.000 --> 00:00:03.000\n8\n"
    assert captions_to_prose(vtt) == "7 8\n"


def test_srt_without_blank_lines_between_cues_still_reads() -> None:
    srt = "1\n00:00:01,000 --> 00:00:02,000\nfirst\n2\n00:00:02,000 --> 00:00:03,000\nsecond\n"
    assert captions_to_prose(srt) == "first second\n"


def test_inline_tags_and_entities() -> None:
    assert clean_line("<00:00:01.319><c> word</c>") == "word"
    assert clean_line("<c.colorE5E5E5>grey</c> &amp; <b>bold</b>") == "grey & bold"
    assert clean_line("&lt;script&gt;alert(1)&lt;/script&gt;") == "<script>alert(1)</script>"
    assert clean_line("a&nbsp;b\u200bc &#8217; &#x27;") == "a bc ’ '"
    assert clean_line("{\\an8}{\\i1}top") == "top"


def test_paragraphs_every_so_many_lines_preferring_sentence_ends() -> None:
    lines = [f"line number {i} goes here" for i in range(20)]
    vtt = "WEBVTT\n\n" + "".join(
        f"00:00:{i:02d}.000 --> 00:00:{i:02d}.500\n{line}\n\n" for i, line in enumerate(lines)
    )
    paragraphs = captions_to_prose(vtt, paragraph_lines=8).strip().split("\n\n")
    assert [p.count("goes here") for p in paragraphs] == [12, 8]  # no full stops: hard limit
    punctuated = "WEBVTT\n\n" + "".join(
        f"00:00:{i:02d}.000 --> 00:00:{i:02d}.500\nline {i}{'.' if i == 9 else ''}\n\n"
        for i in range(20)
    )
    first = captions_to_prose(punctuated, paragraph_lines=8).split("\n\n")[0]
    assert first.endswith("line 9.")  # the first sentence end after 8 lines closes it


def test_empty_and_headerless_inputs() -> None:
    assert captions_to_prose("") == ""
    assert captions_to_prose("WEBVTT\n\nNOTE nothing here\n") == ""
    assert captions_to_prose("WEBVTT\n\n00:01.000 --> 00:02.000\n \n\n") == ""
    assert looks_like_captions("WEBVTT\n")
    assert looks_like_captions("1\n00:00:01,000 --> 00:00:02,000\nx\n")
    assert not looks_like_captions("# just markdown\n")


def test_a_14_minute_talk_shrinks_to_about_a_tenth() -> None:
    rng = random.Random(14)
    lines: list[list[str]] = []
    vtt = ""
    while len(vtt.encode()) < 128 * 1024:
        lines += random_lines(rng, 50)
        vtt = rolling_vtt(lines)
    prose = captions_to_prose(vtt)
    ratio = len(prose.encode()) / len(vtt.encode())
    assert 0.06 < ratio < 0.16, ratio  # the seed: 128 KB of VTT → ~14 KB of prose
    assert prose.split() == [w for line in lines for w in line]  # every word, once, in order


@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=9), min_size=1, max_size=40))
def test_rolling_captions_give_back_exactly_the_spoken_words(raw: list[list[str]]) -> None:
    # Each line gets a distinct first word, so no line repeats or extends another and the
    # rolling layout is the only source of repetition: every word must come back once.
    lines = [[f"w{i}", *words] for i, words in enumerate(raw)]
    assert captions_to_prose(rolling_vtt(lines)).split() == [w for line in lines for w in line]


def test_a_line_holding_only_a_space_does_not_end_the_cue() -> None:
    # PortOS's converter keeps `second line`: only an empty line ends a cue.
    vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nfirst line\n \nsecond line\n\n"
    assert captions_to_prose(vtt) == "first line second line\n"
    srt = "1\r\n00:00:01,000 --> 00:00:02,000\r\nfirst line\r\n\t\r\nsecond line\r\n"
    assert captions_to_prose(srt) == "first line second line\n"
