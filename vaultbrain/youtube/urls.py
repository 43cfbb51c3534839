"""Which URLs name one YouTube video, and the one-line reason when a URL does not.

Accepted: ``watch?v=`` on www / m / music / bare youtube.com (other parameters such as
``t``, ``list`` or ``si`` are allowed and dropped), ``/shorts/``, ``/live/``, ``/embed/``
(also on youtube-nocookie.com) and ``youtu.be/``. Refused with a message that says what is
accepted: playlists, channels, handles, searches, feeds and every other host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import SplitResult, parse_qs, urlsplit

from vaultbrain.errors import UserError

_VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_VIDEO_HOSTS = {"youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"}
_EMBED_HOSTS = {"youtube-nocookie.com", "www.youtube-nocookie.com"}
_SHORT_HOSTS = {"youtu.be", "www.youtu.be"}
_PATH_KINDS = {"shorts", "live", "embed", "v", "e"}
_CHANNEL_PREFIXES = ("channel", "c", "user")
ACCEPTED = (
    "a single video's URL: youtube.com/watch?v=ID, youtu.be/ID, youtube.com/shorts/ID, "
    "youtube.com/live/ID or youtube.com/embed/ID"
)


@dataclass(frozen=True)
class VideoRef:
    """One video: its 11-character id and the canonical watch URL."""

    video_id: str

    @property
    def url(self) -> str:
        return canonical_url(self.video_id)


def canonical_url(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


def _split(text: str) -> tuple[SplitResult, str] | None:
    token = text.strip()
    if token.startswith("<") and token.endswith(">"):
        token = token[1:-1].strip()
    if not token or any(ch.isspace() for ch in token):
        return None
    if "://" not in token:
        # A pasted URL without its scheme ("youtu.be/abc"): only when it starts with a host.
        if not re.match(r"^[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?:[:/?#]|$)", token):
            return None
        token = "https://" + token
    try:
        parts = urlsplit(token)
        host = (parts.hostname or "").lower().rstrip(".")
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return parts, host


def _is_youtube_host(host: str) -> bool:
    return (
        host in _SHORT_HOSTS
        or host == "youtube.com"
        or host.endswith(".youtube.com")
        or host in _EMBED_HOSTS
    )


def is_youtube_url(text: str) -> bool:
    """True when ``text`` (or its first word, for an inbox line with options) is a URL on any
    YouTube host, whether or not it names a single video."""
    words = text.split()
    if not words:
        return False
    split = _split(words[0])
    return split is not None and _is_youtube_host(split[1])


def parse_video_url(text: str) -> VideoRef:
    """The video a URL names; UserError saying what is accepted when it names none."""
    split = _split(text)
    shown = text.strip()[:120]
    if split is None:
        raise UserError(f"{shown!r} is not a URL; paste {ACCEPTED}")
    parts, host = split
    if not _is_youtube_host(host):
        raise UserError(f"{host} is not YouTube; paste {ACCEPTED}")
    segments = [s for s in parts.path.split("/") if s]
    query = parse_qs(parts.query, keep_blank_values=True)

    if host in _SHORT_HOSTS:
        candidate = segments[0] if len(segments) == 1 else None
        return _checked(candidate, shown)
    if host not in _VIDEO_HOSTS and host not in _EMBED_HOSTS:
        raise UserError(f"{host} does not host videos; paste {ACCEPTED}")
    first = segments[0].lower() if segments else ""
    if host in _EMBED_HOSTS and first != "embed":
        raise UserError(f"{shown!r} is not a video URL; paste {ACCEPTED}")
    if first == "watch" and len(segments) == 1:
        ids = query.get("v") or []
        if not ids or not ids[0]:
            if query.get("list"):
                raise _playlist(shown)
            raise UserError(f"{shown!r} has no video id (v=…); paste {ACCEPTED}")
        return _checked(ids[0], shown)
    if first in _PATH_KINDS:
        if first == "embed" and len(segments) >= 2 and segments[1] == "videoseries":
            raise _playlist(shown)
        candidate = segments[1] if len(segments) == 2 else None
        return _checked(candidate, shown)
    if first == "playlist":
        raise _playlist(shown)
    if first.startswith("@") or first in _CHANNEL_PREFIXES:
        raise UserError(
            f"{shown!r} is a channel; vaultbrain ingests one video at a time: paste {ACCEPTED}"
        )
    if first == "results":
        raise UserError(f"{shown!r} is a search; paste {ACCEPTED}")
    raise UserError(f"{shown!r} is not a video URL; paste {ACCEPTED}")


def _playlist(shown: str) -> UserError:
    return UserError(
        f"{shown!r} is a playlist; vaultbrain ingests one video at a time: paste {ACCEPTED}"
    )


def _checked(candidate: str | None, shown: str) -> VideoRef:
    if candidate is None or not _VIDEO_ID.match(candidate):
        raise UserError(
            f"{shown!r} does not carry a valid video id (11 letters, digits, - or _); "
            f"paste {ACCEPTED}"
        )
    return VideoRef(candidate)


def parse_video_id(text: str) -> str:
    """A bare video id or any accepted URL, as the id (for ``show``, ``forget``, …)."""
    token = text.strip()
    if _VIDEO_ID.match(token):
        return token
    return parse_video_url(token).video_id
