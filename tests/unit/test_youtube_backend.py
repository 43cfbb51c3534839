"""Choosing the caption track, and turning yt-dlp's errors into one clear line."""

from __future__ import annotations

import pytest

from vaultbrain.youtube.backend import CaptionTrack, choose_captions, explain_error


def tracks(*pairs: tuple[str, list[str]]) -> dict[str, list[dict[str, str]]]:
    return {lang: [{"ext": e, "url": "u"} for e in exts] for lang, exts in pairs}


AUTO = ["json3", "srv1", "srv2", "srv3", "ttml", "vtt"]


@pytest.mark.parametrize(
    ("subtitles", "automatic", "expected"),
    [
        # the metadata key decides human versus auto, whatever the file is called
        ({}, tracks(("en", AUTO)), CaptionTrack("en", "vtt", "auto-captions")),
        (tracks(("en", ["vtt"])), tracks(("en", AUTO)), CaptionTrack("en", "vtt", "captions")),
        # plain en before regional variants; en-orig first among auto tracks
        (tracks(("en-GB", ["vtt"]), ("en", ["vtt"])), {}, CaptionTrack("en", "vtt", "captions")),
        (tracks(("en-US", ["srt"])), {}, CaptionTrack("en-US", "srt", "captions")),
        ({}, tracks(("en", AUTO), ("en-orig", AUTO)), CaptionTrack("en-orig", "vtt", "auto-captions")),
        # vtt before srt
        (tracks(("en", ["srt", "vtt"])), {}, CaptionTrack("en", "vtt", "captions")),
        # a human track only in formats we cannot read falls back to auto-captions
        (tracks(("en", ["srv3"])), tracks(("en", AUTO)), CaptionTrack("en", "vtt", "auto-captions")),
        # non-English tracks and live chat are not transcripts
        (tracks(("de", ["vtt"]), ("live_chat", ["json"])), tracks(("en", ["vtt"])),
         CaptionTrack("en", "vtt", "auto-captions")),
    ],
)  # fmt: skip
def test_choose_captions(subtitles: dict, automatic: dict, expected: CaptionTrack) -> None:
    track, why = choose_captions({"subtitles": subtitles, "automatic_captions": automatic})
    assert (track, why) == (expected, None)


def test_no_english_captions_is_a_reason_not_an_error() -> None:
    track, why = choose_captions({"subtitles": tracks(("fr", ["vtt"])), "automatic_captions": None})
    assert track is None and why == "the video has no English captions; no transcript"
    track, why = choose_captions({"automatic_captions": tracks(("en", ["json3", "srv3"]))})
    assert track is None and "only as json3, srv3" in (why or "")
    assert choose_captions({})[0] is None


YTDLP_ERRORS = [
    (
        "ERROR: [youtube] abcdefghijk: Sign in to confirm you\u2019re not a bot. Use "
        "--cookies-from-browser or --cookies for the authentication. See  https://github.com/"
        "yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
        "bot-check",
        "not a bot",
    ),
    ("ERROR: Unable to download webpage: HTTP Error 429: Too Many Requests (caused by "
     "<HTTPError 429: Too Many Requests>)", "rate-limited", "HTTP 429"),
    ("ERROR: [youtube] abcdefghijk: Video unavailable. This content isn't available, try again "
     "later. The current session has been rate-limited by YouTube for up to an hour.",
     "rate-limited", "HTTP 429"),
    ("ERROR: [youtube] abcdefghijk: Sign in to confirm your age. This video may be "
     "inappropriate for some users.", "age-restricted", "age-restricted"),
    ("ERROR: [youtube] abcdefghijk: Private video. Sign in if you've been granted access to "
     "this video", "private", "private"),
    ("ERROR: [youtube] abcdefghijk: Video unavailable. This video has been removed by the "
     "uploader", "removed", "unavailable"),
    ("ERROR: [youtube] abcdefghijk: Video unavailable. This video is no longer available "
     "because the YouTube account associated with this video has been terminated.",
     "removed", "unavailable"),
    ("ERROR: [youtube] abcdefghijk: Join this channel to get access to members-only content "
     "like this video, and other exclusive perks.", "members-only", "members only"),
    ("ERROR: [youtube] abcdefghijk: Premieres in 3 hours", "not-yet-live", "premiered"),
    ("ERROR: [youtube] abcdefghijk: The uploader has not made this video available in your "
     "country", "geo-blocked", "country"),
    ("ERROR: [youtube] abcdefghijk: Unable to download API page: <urlopen error timed out> "
     "(caused by TransportError('timed out'))", "timeout", "timeout"),
    ("ERROR: Unable to download webpage: <urlopen error [Errno -3] Temporary failure in name "
     "resolution>", "network", "cannot be reached"),
    ("ERROR: Postprocessing: ffprobe and ffmpeg not found. Please install or provide the path "
     "using --ffmpeg-location", "ffmpeg", "ffmpeg"),
    ("ERROR: [Errno 28] No space left on device", "disk-full", "disk is full"),
]  # fmt: skip


@pytest.mark.parametrize(("message", "kind", "says"), YTDLP_ERRORS)
def test_ytdlp_errors_become_one_clear_line(message: str, kind: str, says: str) -> None:
    err = explain_error(message, video_id="abcdefghijk")
    assert err.kind == kind
    text = str(err)
    assert says in text and text.startswith("YouTube video abcdefghijk: ")
    assert "--cookies" not in text and "\n" not in text


def test_unknown_errors_keep_the_gist_without_cli_advice() -> None:
    err = explain_error(
        "ERROR: [youtube] abcdefghijk: Something odd happened. Use --verbose to see more. "
        "Please report this issue on https://github.com/yt-dlp/yt-dlp/issues"
    )
    assert err.kind == "error"
    assert str(err) == "YouTube: yt-dlp failed: Something odd happened."
