"""Which URLs and inbox lines start a YouTube ingest, and what the refusals say."""

from __future__ import annotations

import pytest

from vaultbrain.errors import UserError
from vaultbrain.youtube import (
    inbox_refusal,
    is_youtube_url,
    parse_inbox_line,
    parse_video_id,
    parse_video_url,
)

VID = "dQw4w9WgXcQ"

ACCEPTED = [
    f"https://www.youtube.com/watch?v={VID}",
    f"https://youtube.com/watch?v={VID}",
    f"http://www.youtube.com/watch?v={VID}",
    f"https://m.youtube.com/watch?v={VID}",
    f"https://music.youtube.com/watch?v={VID}&feature=share",
    f"https://WWW.YouTube.COM/watch?v={VID}",
    f"https://www.youtube.com/watch?v={VID}&t=42s",
    f"https://www.youtube.com/watch?v={VID}&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG&index=3",
    f"https://www.youtube.com/watch?feature=youtu.be&v={VID}",
    f"https://www.youtube.com/watch?v={VID}#t=1m2s",
    f"https://www.youtube.com:443/watch?v={VID}",
    f"https://www.youtube.com/shorts/{VID}",
    f"https://youtube.com/shorts/{VID}?si=abcdef",
    f"https://www.youtube.com/live/{VID}?feature=shared",
    f"https://www.youtube.com/embed/{VID}?start=10",
    f"https://www.youtube-nocookie.com/embed/{VID}",
    f"https://youtu.be/{VID}",
    f"https://youtu.be/{VID}?t=30&si=x1y2",
    f"youtu.be/{VID}",
    f"www.youtube.com/watch?v={VID}",
    f"<https://youtu.be/{VID}>",
    "https://youtu.be/a-b_c-d_e-f",
]


@pytest.mark.parametrize("url", ACCEPTED)
def test_single_video_urls_are_accepted(url: str) -> None:
    ref = parse_video_url(url)
    expected = "a-b_c-d_e-f" if "a-b_c" in url else VID
    assert ref.video_id == expected
    assert ref.url == f"https://www.youtube.com/watch?v={expected}"
    assert is_youtube_url(url)


REFUSED = [
    ("https://www.youtube.com/playlist?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", "playlist"),
    ("https://www.youtube.com/watch?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", "playlist"),
    ("https://www.youtube.com/embed/videoseries?list=PLx0sYbCqOb8", "playlist"),
    ("https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv", "channel"),
    ("https://www.youtube.com/@veritasium", "channel"),
    ("https://www.youtube.com/@veritasium/videos", "channel"),
    ("https://www.youtube.com/c/Veritasium", "channel"),
    ("https://www.youtube.com/user/Vsauce", "channel"),
    ("https://www.youtube.com/results?search_query=cats", "search"),
    ("https://www.youtube.com/feed/subscriptions", "not a video URL"),
    ("https://www.youtube.com/", "not a video URL"),
    ("https://www.youtube.com/watch", "no video id"),
    ("https://www.youtube.com/watch?v=", "no video id"),
    ("https://www.youtube.com/watch?v=short", "valid video id"),
    (f"https://www.youtube.com/watch?v={VID}x", "valid video id"),
    ("https://www.youtube.com/shorts/", "valid video id"),
    (f"https://www.youtube.com/shorts/{VID}/extra", "valid video id"),
    ("https://youtu.be/", "valid video id"),
    (f"https://youtu.be/{VID}/more", "valid video id"),
    (f"https://www.youtube-nocookie.com/watch?v={VID}", "not a video URL"),
    (f"https://studio.youtube.com/video/{VID}/edit", "does not host videos"),
    (f"https://vimeo.com/{VID}", "is not YouTube"),
    (f"https://notyoutube.com/watch?v={VID}", "is not YouTube"),
    (f"https://www.youtube.com.evil.example/watch?v={VID}", "is not YouTube"),
    (f"https://www.youtube.com@evil.example/watch?v={VID}", "is not YouTube"),
    (f"ftp://www.youtube.com/watch?v={VID}", "not a URL"),
    ("just some words", "not a URL"),
    ("", "not a URL"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_everything_else_is_refused_with_what_is_accepted(url: str, reason: str) -> None:
    with pytest.raises(UserError) as err:
        parse_video_url(url)
    message = str(err.value)
    assert reason in message
    assert "youtu.be/ID" in message and "watch?v=ID" in message  # says what is accepted
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://www.youtube.com/playlist?list=PL1", True),
        ("https://www.youtube.com/@handle", True),
        ("https://music.youtube.com/", True),
        ("https://youtu.be/x #audio", True),
        ("https://vimeo.com/1234", False),
        ("https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ", False),
        ("watch https://youtu.be/dQw4w9WgXcQ later", False),
        ("", False),
    ],
)
def test_is_youtube_url_knows_any_youtube_host(text: str, expected: bool) -> None:
    assert is_youtube_url(text) is expected


def test_parse_video_id_takes_ids_and_urls() -> None:
    assert parse_video_id(VID) == VID
    assert parse_video_id(f"https://youtu.be/{VID}") == VID
    with pytest.raises(UserError):
        parse_video_id("youtube.com")


# -- inbox lines -------------------------------------------------------------------------


def test_a_bare_url_line_is_an_ingest_with_defaults() -> None:
    req = parse_inbox_line(f"https://youtu.be/{VID}")
    assert req is not None
    assert (req.video_id, req.url) == (VID, f"https://www.youtube.com/watch?v={VID}")
    assert (req.transcript, req.video, req.audio) == (None, None, None)  # settings decide
    assert req.tags == () and req.prompt is None and req.origin == "inbox"


def test_options_tags_and_prompt_on_the_line() -> None:
    req = parse_inbox_line(
        f"https://www.youtube.com/watch?v={VID}&t=3 #audio #no-transcript #ML #deep-dive"
        " -- summarise the argument -- and list the sources"
    )
    assert req is not None
    assert (req.transcript, req.video, req.audio) == (False, None, True)
    assert req.tags == ("ML", "deep-dive")
    assert req.prompt == "summarise the argument -- and list the sources"


def test_em_dash_separates_the_prompt_too() -> None:
    req = parse_inbox_line(f"https://youtu.be/{VID} #video — what is the main claim?")
    assert req is not None and req.video is True
    assert req.prompt == "what is the main claim?"


def test_an_empty_prompt_is_no_prompt() -> None:
    req = parse_inbox_line(f"https://youtu.be/{VID} --")
    assert req is not None and req.prompt is None


@pytest.mark.parametrize(
    "line",
    [
        f"watch this https://youtu.be/{VID}",
        f"https://youtu.be/{VID} great talk",
        f"https://youtu.be/{VID} #audio later",
        f"https://youtu.be/{VID}--not a prompt",
        "https://vimeo.com/1234",
        "https://example.com/a",
        "Met with Sarah about the project",
        "",
        "   ",
        "https://www.youtube.com/playlist?list=PL1",
        "https://www.youtube.com/@handle #music",
    ],
)
def test_other_lines_are_not_ingests(line: str) -> None:
    assert parse_inbox_line(line) is None


def test_a_refused_youtube_line_gets_the_clear_message() -> None:
    assert "playlist" in (inbox_refusal("https://www.youtube.com/playlist?list=PL1") or "")
    assert "channel" in (inbox_refusal("https://www.youtube.com/@handle #music") or "")
    assert inbox_refusal(f"https://youtu.be/{VID}") is None  # fine: no refusal
    assert inbox_refusal("https://example.com/x") is None  # not YouTube: a plain link
    assert inbox_refusal("https://www.youtube.com/@handle is great") is None  # a thought
