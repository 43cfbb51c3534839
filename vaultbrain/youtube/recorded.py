"""A backend that replays recorded yt-dlp results: the offline twin of ``YtDlpBackend``.

It implements the same interface, so an ingest runs exactly as it does in production up to
the point where yt-dlp would touch the network. A recording is a folder per video::

    <root>/<name>/info.json                     the info dict (``yt-dlp -J``; ``id`` inside)
    <root>/<name>/subtitles/<lang>.<ext>        human captions
    <root>/<name>/automatic_captions/<lang>.<ext>  auto-captions
    <root>/<name>/error.txt                     a yt-dlp error message raised for metadata
    <root>/<name>/<kind>-error.txt              … or for one download (captions/audio/video)
    <root>/replay.json                          optional: {"ffmpeg": false, "steps": 4,
                                                "step_seconds": 0.0}  (a slow download)

Point ``VAULTBRAIN_YTDLP_REPLAY`` at such a folder and every ingest uses it instead of
yt-dlp (how the system tests drive the CLI and the daemon without a network).
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .backend import CaptionTrack, IngestCancelled, Kind, ProgressFn, explain_error
from .urls import parse_video_url

REPLAY_ENV = "VAULTBRAIN_YTDLP_REPLAY"
_CAPTION_KEYS = ("subtitles", "automatic_captions")


@dataclass
class RecordedVideo:
    info: dict[str, Any]
    captions: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (key, lang, ext)
    error: str | None = None
    download_errors: dict[str, str] = field(default_factory=dict)
    audio: bytes = b"ID3\x04\x00recorded audio"
    video: bytes = b"\x00\x00\x00\x18ftypmp42recorded video"


class RecordedBackend:
    """Replays recordings; ``calls`` lists what an ingest asked for, in order."""

    def __init__(
        self,
        videos: Mapping[str, RecordedVideo] | None = None,
        *,
        ffmpeg: bool = True,
        steps: int = 4,
        step_seconds: float = 0.0,
    ) -> None:
        self.videos: dict[str, RecordedVideo] = dict(videos or {})
        self.ffmpeg = ffmpeg
        self.steps = max(1, steps)
        self.step_seconds = max(0.0, step_seconds)
        self.calls: list[tuple[str, str]] = []

    # -- building recordings ---------------------------------------------------------------
    def add(
        self,
        info: Mapping[str, Any],
        *,
        subtitles: Mapping[str, str] | None = None,
        automatic_captions: Mapping[str, str] | None = None,
        error: str | None = None,
        download_errors: Mapping[str, str] | None = None,
    ) -> RecordedVideo:
        """Record a video; caption maps are ``{"en.vtt": text}``."""
        data = copy.deepcopy(dict(info))
        captions: dict[tuple[str, str, str], str] = {}
        for key, files in (("subtitles", subtitles), ("automatic_captions", automatic_captions)):
            for name, text in (files or {}).items():
                lang, _, ext = name.rpartition(".")
                captions[(key, lang, ext)] = text
                _list_track(data, key, lang, ext)
        video = RecordedVideo(data, captions, error, dict(download_errors or {}))
        self.videos[str(data["id"])] = video
        return video

    @classmethod
    def from_dir(cls, root: Path | str) -> RecordedBackend:
        root = Path(root)
        settings: dict[str, Any] = {}
        if (root / "replay.json").is_file():
            settings = json.loads((root / "replay.json").read_text("utf-8"))
        backend = cls(
            ffmpeg=bool(settings.get("ffmpeg", True)),
            steps=int(settings.get("steps", 4)),
            step_seconds=float(settings.get("step_seconds", 0.0)),
        )
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            info_path = folder / "info.json"
            if not info_path.is_file():
                continue
            info = json.loads(info_path.read_text("utf-8"))
            files: dict[str, dict[str, str]] = {}
            for key in _CAPTION_KEYS:
                sub = folder / key
                if sub.is_dir():
                    files[key] = {p.name: p.read_text("utf-8") for p in sorted(sub.iterdir())}
            errors = {
                p.name[: -len("-error.txt")]: p.read_text("utf-8").strip()
                for p in folder.glob("*-error.txt")
            }
            error_file = folder / "error.txt"
            video = backend.add(
                info,
                subtitles=files.get("subtitles"),
                automatic_captions=files.get("automatic_captions"),
                error=error_file.read_text("utf-8").strip() if error_file.is_file() else None,
                download_errors=errors,
            )
            for kind in ("audio", "video"):
                blob = folder / f"{kind}.bin"
                if blob.is_file():
                    setattr(video, kind, blob.read_bytes())
        return backend

    # -- the Backend interface -------------------------------------------------------------
    def ffmpeg_available(self) -> bool:
        return self.ffmpeg

    def extract_info(self, url: str, *, cancel: threading.Event | None = None) -> dict[str, Any]:
        video_id = parse_video_url(url).video_id
        self.calls.append(("metadata", video_id))
        video = self.videos.get(video_id)
        if video is None:
            raise explain_error(
                f"ERROR: [youtube] {video_id}: Video unavailable", video_id=video_id
            )
        if video.error:
            raise explain_error(video.error, video_id=video_id)
        if cancel is not None and cancel.is_set():
            raise IngestCancelled()
        return copy.deepcopy(video.info)

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
        video_id = str(info["id"])
        self.calls.append((kind, video_id))
        video = self.videos[video_id]
        if kind in video.download_errors:
            raise explain_error(video.download_errors[kind], video_id=video_id)
        if kind == "captions":
            if track is None:
                raise ValueError("a captions download needs the track to fetch")
            key = "subtitles" if track.source == "captions" else "automatic_captions"
            text = video.captions.get((key, track.language, track.ext))
            if text is None:
                return None
            data = text.encode("utf-8")
            final = dest / f"{video_id}.{track.language}.{track.ext}"
        elif kind == "audio":
            data, final = video.audio, dest / f"{video_id}.mp3"
        else:
            data, final = video.video, dest / f"{video_id}.mp4"
        dest.mkdir(parents=True, exist_ok=True)
        part = final.with_name(final.name + ".part")
        chunk = max(1, len(data) // self.steps + 1)
        with open(part, "wb") as fh:
            for step in range(self.steps):
                if self.step_seconds:
                    if cancel is not None:
                        cancel.wait(self.step_seconds)
                    else:
                        time.sleep(self.step_seconds)
                if cancel is not None and cancel.is_set():
                    raise IngestCancelled()
                fh.write(data[step * chunk : (step + 1) * chunk])
                if progress is not None:
                    progress(95.0 * (step + 1) / self.steps)
        if cancel is not None and cancel.is_set():
            raise IngestCancelled()
        part.replace(final)
        return final


def _list_track(info: dict[str, Any], key: str, lang: str, ext: str) -> None:
    tracks = info.setdefault(key, {}) or {}
    info[key] = tracks
    formats = tracks.setdefault(lang, [])
    if not any(f.get("ext") == ext for f in formats):
        formats.append({"ext": ext, "url": f"recorded://{info['id']}/{key}/{lang}.{ext}"})
