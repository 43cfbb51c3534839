"""What to ingest: a video and the person's options, from the CLI or from an inbox line.

An inbox line is an ingest when it is a single-video YouTube URL alone, optionally with
options on the same line::

    https://youtu.be/abcdefghijk #audio #ml -- summarise the argument and list the sources

``#video``, ``#audio`` and ``#no-transcript`` (also ``#transcript``, ``#no-video``,
``#no-audio``) switch artifacts on or off; any other ``#tag`` is added to the note's tags;
text after `` -- `` or `` — `` is the prompt for an agent. Any other word on the line makes it
an ordinary thought.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from vaultbrain.errors import UserError

from .notes import merge_tags
from .urls import is_youtube_url, parse_video_url

_PROMPT_SPLIT = re.compile(r"\s+(?:--|—)(?:\s+|$)")
_SWITCHES: dict[str, tuple[str, bool]] = {
    "video": ("video", True),
    "no-video": ("video", False),
    "audio": ("audio", True),
    "no-audio": ("audio", False),
    "transcript": ("transcript", True),
    "no-transcript": ("transcript", False),
}


@dataclass(frozen=True)
class IngestRequest:
    """One ingest. A switch left at ``None`` takes its default from ``youtube.*`` settings."""

    url: str
    video_id: str
    transcript: bool | None = None
    video: bool | None = None
    audio: bool | None = None
    tags: tuple[str, ...] = ()
    prompt: str | None = None
    origin: str = "cli"  # "cli" | "inbox"
    source: str | None = None  # the capture this came from (a link to the inbox line)

    @classmethod
    def for_url(
        cls,
        url: str,
        *,
        transcript: bool | None = None,
        video: bool | None = None,
        audio: bool | None = None,
        tags: tuple[str, ...] | list[str] = (),
        prompt: str | None = None,
        origin: str = "cli",
        source: str | None = None,
    ) -> IngestRequest:
        """A request for ``url``; UserError (saying what is accepted) for any other URL."""
        ref = parse_video_url(url)
        prompt = prompt.strip() if prompt else None
        return cls(
            url=ref.url,
            video_id=ref.video_id,
            transcript=transcript,
            video=video,
            audio=audio,
            tags=tuple(merge_tags(tags)),
            prompt=prompt or None,
            origin=origin,
            source=source,
        )

    def with_source(self, source: str | None) -> IngestRequest:
        return replace(self, source=source)


def _split_line(text: str) -> tuple[list[str], str | None]:
    text = text.strip()
    m = _PROMPT_SPLIT.search(text)
    if m is None:
        return text.split(), None
    prompt = text[m.end() :].strip()
    return text[: m.start()].split(), (prompt or None)


def parse_inbox_line(text: str) -> IngestRequest | None:
    """The ingest an inbox line asks for, or None when the line is not one.

    None also for a YouTube URL that names no single video (a playlist, a channel); use
    :func:`inbox_refusal` to get the message for such a line.
    """
    words, prompt = _split_line(text)
    if not words or not is_youtube_url(words[0]):
        return None
    switches: dict[str, bool] = {}
    tags: list[str] = []
    for word in words[1:]:
        if not word.startswith("#") or len(word) < 2:
            return None
        name = word[1:].lower()
        if name in _SWITCHES:
            key, value = _SWITCHES[name]
            switches[key] = value
        else:
            tags.append(word[1:])
    try:
        return IngestRequest.for_url(
            words[0],
            transcript=switches.get("transcript"),
            video=switches.get("video"),
            audio=switches.get("audio"),
            tags=tags,
            prompt=prompt,
            origin="inbox",
        )
    except UserError:
        return None


def inbox_refusal(text: str) -> str | None:
    """For an inbox line made of a YouTube URL (and options) that cannot be ingested, the
    one-line reason (a playlist, a channel…); None for every other line."""
    words, _ = _split_line(text)
    if not words or not is_youtube_url(words[0]):
        return None
    if any(not w.startswith("#") or len(w) < 2 for w in words[1:]):
        return None
    try:
        parse_video_url(words[0])
    except UserError as exc:
        return str(exc)
    return None
