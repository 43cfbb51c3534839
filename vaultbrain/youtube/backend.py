"""The seam to yt-dlp: one interface, two implementations.

``YtDlpBackend`` drives yt-dlp through its Python API (``YoutubeDL``): metadata first
(``extract_info(download=False)``), then each artifact with ``process_ie_result`` on that
same info dict, the way ``yt-dlp --load-info-json`` does, so the page is fetched once.
``RecordedBackend`` (``recorded.py``) replays recorded info dicts and caption files; the
tests, and anyone reproducing a problem offline, use it.

yt-dlp's own error texts are long and full of command-line advice; :func:`explain_error`
turns them into one line that says what happened and what to do.
"""

from __future__ import annotations

import copy
import re
import shutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from vaultbrain.errors import UserError

Kind = Literal["captions", "audio", "video"]
ProgressFn = Callable[[float], None]
CAPTION_FORMATS = ("vtt", "srt")
FFMPEG_HINT = (
    "install ffmpeg (apt install ffmpeg, brew install ffmpeg or winget install ffmpeg) "
    "or ingest the transcript only"
)


class IngestError(UserError):
    """The ingest failed; ``kind`` names the cause (rate-limited, private, …).

    Raised out of :func:`~vaultbrain.youtube.ingest` with ``result`` set: the
    ``IngestResult`` (status "failed") as recorded in the index.
    """

    def __init__(self, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind
        self.result: Any = None


class IngestCancelled(IngestError):
    """The person cancelled the ingest (Ctrl-C or ``youtube cancel``); nothing was saved.

    Out of ``ingest`` its ``result`` has status "cancelled".
    """

    exit_code = 130

    def __init__(self, message: str = "cancelled: nothing was saved") -> None:
        super().__init__(message, kind="cancelled")


@dataclass(frozen=True)
class CaptionTrack:
    """The English caption track chosen for a video."""

    language: str
    ext: str
    source: Literal["captions", "auto-captions"]


class Backend(Protocol):
    """What an ingest needs from yt-dlp."""

    def extract_info(self, url: str, *, cancel: threading.Event | None = None) -> dict[str, Any]:
        """The video's metadata (yt-dlp's info dict, JSON-safe)."""
        ...

    def download(
        self,
        info: Mapping[str, Any],
        *,
        kind: Kind,
        dest: Path,
        track: CaptionTrack | None = None,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> Path | None:
        """Fetch one artifact into ``dest``; its path, or None when yt-dlp wrote nothing."""
        ...

    def ffmpeg_available(self) -> bool: ...


# -- choosing captions -------------------------------------------------------------------


def _english(lang: str) -> bool:
    low = lang.lower()
    return low == "en" or low.startswith(("en-", "en_"))


def _language_order(langs: list[str], auto: bool) -> list[str]:
    # Human tracks: plain "en" first. Auto tracks: "en-orig" (the speech recognised as
    # spoken) before "en" (which on a foreign-language video is a machine translation).
    first = ("en-orig", "en") if auto else ("en", "en-orig")
    rank = {name: i for i, name in enumerate(first)}
    return sorted(langs, key=lambda x: (rank.get(x.lower(), len(rank)), x.lower()))


def choose_captions(info: Mapping[str, Any]) -> tuple[CaptionTrack | None, str | None]:
    """The English track to fetch (human captions before auto-captions, vtt before srt).

    Human versus auto is decided by which key of the metadata lists the track
    (``subtitles`` or ``automatic_captions``): the file yt-dlp writes is named the same for
    both. Returns ``(None, why)`` when there is nothing usable.
    """
    other_formats: set[str] = set()
    for key, source, auto in (
        ("subtitles", "captions", False),
        ("automatic_captions", "auto-captions", True),
    ):
        tracks = info.get(key) or {}
        if not isinstance(tracks, Mapping):
            continue
        langs = [lang for lang in tracks if isinstance(lang, str) and _english(lang)]
        if key == "subtitles":
            langs = [lang for lang in langs if lang.lower() != "live_chat"]
        for lang in _language_order(langs, auto):
            formats = tracks.get(lang) or []
            exts = [f.get("ext") for f in formats if isinstance(f, Mapping)]
            for ext in CAPTION_FORMATS:
                if ext in exts:
                    return CaptionTrack(lang, ext, source), None  # type: ignore[arg-type]
            other_formats.update(e for e in exts if isinstance(e, str))
    if other_formats:
        found = ", ".join(sorted(other_formats))
        return None, f"English captions exist only as {found}, not vtt or srt; no transcript"
    return None, "the video has no English captions; no transcript"


# -- errors ------------------------------------------------------------------------------

_ERROR_TABLE: list[tuple[str, re.Pattern[str], str]] = [
    (
        "rate-limited",
        re.compile(r"HTTP Error 429|Too Many Requests|rate-limited|try again later", re.I),
        "YouTube is rate-limiting this machine (HTTP 429); wait an hour or so and try again",
    ),
    (
        "bot-check",
        re.compile(r"not a bot|captcha", re.I),
        "YouTube asks this machine to sign in to prove it is not a bot; try again later or "
        "from another network",
    ),
    (
        "age-restricted",
        re.compile(r"confirm your age|age[- ]restricted|inappropriate for some users", re.I),
        "the video is age-restricted and YouTube wants a signed-in account to show it",
    ),
    (
        "members-only",
        re.compile(r"members[- ]only|Join this channel", re.I),
        "the video is for channel members only",
    ),
    (
        "private",
        re.compile(r"private video|video is private", re.I),
        "the video is private",
    ),
    (
        "not-yet-live",
        re.compile(r"Premieres in|live event will begin|has not started", re.I),
        "the video has not premiered yet; try again once it has aired",
    ),
    (
        "geo-blocked",
        re.compile(
            r"not (?:made this video )?available (?:in your country|from your location)"
            r"|geo[- ]?restrict",
            re.I,
        ),
        "the video is not available in this machine's country",
    ),
    (
        "removed",
        re.compile(
            r"Video unavailable|video has been removed|no longer available|account .* terminated"
            r"|This video is unavailable|does not exist",
            re.I,
        ),
        "the video is unavailable (removed, or the link is wrong)",
    ),
    (
        "ffmpeg",
        re.compile(r"ffmpeg|ffprobe", re.I),
        f"this needs ffmpeg, which yt-dlp could not run; {FFMPEG_HINT}",
    ),
    (
        "timeout",
        re.compile(r"timed out|timeout", re.I),
        "YouTube did not answer in time (timeout); check the network and try again",
    ),
    (
        "network",
        re.compile(
            r"Name or service not known|Temporary failure in name resolution|nodename nor "
            r"servname|Network is unreachable|Connection refused|getaddrinfo failed|"
            r"No route to host|Connection reset",
            re.I,
        ),
        "YouTube cannot be reached from this machine; check the network and try again",
    ),
    (
        "disk-full",
        re.compile(r"No space left on device", re.I),
        "the disk is full; free some space and try again",
    ),
]
_PREFIX = re.compile(r"^(?:ERROR:\s*)?(?:\[[\w:]+\]\s*)?(?:[A-Za-z0-9_-]{11}:\s*)?")


def explain_error(message: str, *, video_id: str | None = None) -> IngestError:
    """A yt-dlp error message as one clear line (and the kind of failure)."""
    text = " ".join(str(message).split())
    subject = f"YouTube video {video_id}" if video_id else "YouTube"
    for kind, pattern, explanation in _ERROR_TABLE:
        if pattern.search(text):
            return IngestError(f"{subject}: {explanation}", kind=kind)
    detail = _PREFIX.sub("", text)
    # yt-dlp appends command-line advice ("Use --cookies …", "See https://…"): not ours.
    detail = re.split(r"\s(?:Use --|See\s+https?://|Please report)", detail)[0].strip()
    if len(detail) > 200:
        detail = detail[:197] + "..."
    return IngestError(f"{subject}: yt-dlp failed: {detail or 'unknown error'}", kind="error")


def is_fatal_warning(message: str) -> bool:
    """True for a yt-dlp warning that means the video cannot be had at all."""
    kind = explain_error(message).kind
    return kind in {
        "rate-limited", "bot-check", "age-restricted", "members-only", "private",
        "not-yet-live", "geo-blocked", "removed",
    }  # fmt: skip


# -- the real thing ----------------------------------------------------------------------


class _Log:
    """yt-dlp's logger: keeps warnings and errors instead of printing them."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def debug(self, msg: str) -> None:
        pass

    def info(self, msg: str) -> None:
        pass

    def warning(self, msg: str) -> None:
        self.warnings.append(str(msg))

    def error(self, msg: str) -> None:
        self.errors.append(str(msg))


def available_js_runtimes() -> dict[str, dict[str, Any]]:
    """The JavaScript runtimes yt-dlp may use here (it solves YouTube's player challenges)."""
    return {name: {} for name in ("deno", "node", "bun") if shutil.which(name)}


class YtDlpBackend:
    """yt-dlp through its Python API."""

    def __init__(
        self,
        *,
        socket_timeout: float = 30.0,
        ffmpeg_location: str | None = None,
        extra_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.socket_timeout = socket_timeout
        self.ffmpeg_location = ffmpeg_location
        self.extra_options = dict(extra_options or {})
        self.warnings: list[str] = []

    def settings(self) -> dict[str, Any]:
        """The arguments that build this backend again (in the worker process)."""
        return {
            "socket_timeout": self.socket_timeout,
            "ffmpeg_location": self.ffmpeg_location,
            "extra_options": dict(self.extra_options),
        }

    def ffmpeg_available(self) -> bool:
        if self.ffmpeg_location:
            loc = Path(self.ffmpeg_location)
            return (loc / "ffmpeg").exists() if loc.is_dir() else loc.exists()
        return shutil.which("ffmpeg") is not None

    def _options(self, log: _Log, **extra: Any) -> dict[str, Any]:
        opts: dict[str, Any] = {
            "quiet": True,
            "no_warnings": False,
            "noprogress": True,
            "logger": log,
            "noplaylist": True,
            "socket_timeout": self.socket_timeout,
            "retries": 3,
            "extractor_retries": 2,
            "overwrites": True,
        }
        runtimes = available_js_runtimes()
        if runtimes:
            opts["js_runtimes"] = runtimes
        if self.ffmpeg_location:
            opts["ffmpeg_location"] = self.ffmpeg_location
        opts.update(self.extra_options)
        opts.update(extra)
        return opts

    def _run(
        self,
        opts: dict[str, Any],
        log: _Log,
        video_id: str | None,
        cancel: threading.Event | None,
        call: Callable[[Any], Any],
    ) -> Any:
        """``call(ydl)`` on a YoutubeDL built from ``opts``, its failures as IngestErrors."""
        import yt_dlp
        from yt_dlp.utils import DownloadCancelled, DownloadError, ExtractorError

        try:
            with yt_dlp.YoutubeDL(opts) as ydl:
                result = call(ydl)
        except DownloadCancelled as exc:
            raise IngestCancelled() from exc
        except (DownloadError, ExtractorError) as exc:
            message = str(exc) or (log.errors[-1] if log.errors else type(exc).__name__)
            raise explain_error(message, video_id=video_id) from exc
        except OSError as exc:
            raise explain_error(str(exc), video_id=video_id) from exc
        self.warnings.extend(log.warnings)
        if cancel is not None and cancel.is_set():
            raise IngestCancelled()
        return result

    def call(self, method: str, args: Mapping[str, Any], progress: ProgressFn | None) -> Any:
        """``extract_info`` or ``download`` with JSON arguments and a JSON result: what the
        worker process (``vaultbrain/youtube/worker.py``) runs for its parent."""
        if method == "extract_info":
            return self.extract_info(args["url"])
        track = CaptionTrack(*args["track"]) if args.get("track") else None
        path = self.download(
            args["info"], kind=args["kind"], dest=Path(args["dest"]), track=track, progress=progress
        )
        return None if path is None else str(path)

    def extract_info(self, url: str, *, cancel: threading.Event | None = None) -> dict[str, Any]:
        log = _Log()
        # Without formats (a JS runtime missing, say) the metadata and captions are still
        # there; a transcript-only ingest must not fail on that.
        opts = self._options(log, skip_download=True, ignore_no_formats_error=True)
        info = self._run(
            opts,
            log,
            _video_id_of(url),
            None,  # the cancel is checked after the fatal warnings, as a cancel says less
            lambda ydl: ydl.sanitize_info(ydl.extract_info(url, download=False)),
        )
        if not isinstance(info, dict):
            raise IngestError(f"yt-dlp returned no metadata for {url}", kind="error")
        if not info.get("formats"):
            for warning in log.warnings:
                if is_fatal_warning(warning):
                    raise explain_error(warning, video_id=info.get("id"))
        if cancel is not None and cancel.is_set():
            raise IngestCancelled()
        return info

    def download(
        self,
        info: Mapping[str, Any],
        *,
        kind: Kind,
        dest: Path,
        track: CaptionTrack | None = None,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> Path | None:
        dest.mkdir(parents=True, exist_ok=True)
        log = _Log()
        hooks = _Hooks(progress, cancel)
        template = str(dest / "%(id)s.%(ext)s")
        common: dict[str, Any] = {
            "outtmpl": {"default": template, "subtitle": template},
            "paths": {"home": str(dest), "temp": str(dest)},
            "progress_hooks": [hooks.progress],
            "postprocessor_hooks": [hooks.postprocessor],
        }
        if kind == "captions":
            if track is None:
                raise ValueError("a captions download needs the track to fetch")
            opts = self._options(
                log,
                **common,
                skip_download=True,
                ignore_no_formats_error=True,
                writesubtitles=track.source == "captions",
                writeautomaticsub=track.source == "auto-captions",
                subtitleslangs=[re.escape(track.language)],
                subtitlesformat=track.ext,
            )
        elif kind == "audio":
            opts = self._options(
                log,
                **common,
                format="bestaudio/best",
                postprocessors=[
                    {"key": "FFmpegExtractAudio", "preferredcodec": "mp3", "preferredquality": "4"}
                ],
            )
        else:
            opts = self._options(
                log,
                **common,
                format="bv*+ba/b",
                format_sort=["res:1080", "ext:mp4:m4a"],
                merge_output_format="mp4",
            )
        video_id = str(info.get("id") or "")
        result = self._run(
            opts,
            log,
            video_id,
            cancel,
            lambda ydl: ydl.process_ie_result(copy.deepcopy(dict(info)), download=True),
        )
        if kind == "captions":
            assert track is not None
            path = dest / f"{video_id}.{track.language}.{track.ext}"
            if path.exists():
                return path
            found = sorted(dest.glob(f"{glob_escape(video_id)}.*.{track.ext}"))
            return found[0] if found else None
        for item in (result or {}).get("requested_downloads") or []:
            fp = item.get("filepath")
            if fp and Path(fp).exists():
                return Path(fp)
        ext = "mp3" if kind == "audio" else "mp4"
        path = dest / f"{video_id}.{ext}"
        return path if path.exists() else None


def glob_escape(text: str) -> str:
    return re.sub(r"([\[\]*?])", r"[\1]", text)


class _Hooks:
    """yt-dlp's progress hooks: report percent, and stop yt-dlp when cancelled."""

    def __init__(self, progress: ProgressFn | None, cancel: threading.Event | None) -> None:
        self._progress = progress
        self._cancel = cancel

    def _check(self) -> None:
        if self._cancel is not None and self._cancel.is_set():
            from yt_dlp.utils import DownloadCancelled

            raise DownloadCancelled("cancelled")

    def progress(self, d: Mapping[str, Any]) -> None:
        self._check()
        if self._progress is None:
            return
        if d.get("status") == "finished":
            self._progress(95.0)
            return
        total = d.get("total_bytes") or d.get("total_bytes_estimate")
        done = d.get("downloaded_bytes")
        if total and done is not None:
            self._progress(min(95.0, 95.0 * float(done) / float(total)))
        elif d.get("fragment_count") and d.get("fragment_index") is not None:
            self._progress(min(95.0, 95.0 * d["fragment_index"] / d["fragment_count"]))

    def postprocessor(self, d: Mapping[str, Any]) -> None:
        self._check()
        if self._progress is not None and d.get("status") == "finished":
            self._progress(99.0)


def _video_id_of(url: str) -> str | None:
    from .urls import parse_video_url

    try:
        return parse_video_url(url).video_id
    except UserError:
        return None
