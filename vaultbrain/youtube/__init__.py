"""YouTube ingest: a video's transcript (and, if asked, its audio or video) into the vault.

Front ends call :func:`ingest` with an :class:`IngestRequest` built by
:meth:`IngestRequest.for_url` (the CLI) or :func:`parse_inbox_line` (the daemon). yt-dlp is
reached only through a :class:`Backend` (``YtDlpBackend`` in production, ``RecordedBackend``
for tests and offline replays). Modules:

- ``urls``: which URLs name one video; ``request``: the options, from the CLI or an inbox line
- ``captions``: WebVTT/SRT to prose; ``notes``: the transcript and agent task notes
- ``backend`` / ``recorded``: the yt-dlp seam; ``jobs``: progress and cancel across processes
- ``ingest``: the orchestration; ``index``: ``youtube/index.json``; ``manage``: list/forget/…
"""

from __future__ import annotations

from .backend import (
    Backend,
    CaptionTrack,
    IngestCancelled,
    IngestError,
    YtDlpBackend,
    choose_captions,
    explain_error,
)
from .captions import captions_to_prose
from .doctor import doctor_checks
from .ingest import IngestResult, default_backend, ingest
from .jobs import STAGES, Job, JobRegistry, Progress, progress_logger
from .manage import forget, list_ingests, read_transcript, show_ingest
from .recorded import REPLAY_ENV, RecordedBackend
from .request import IngestRequest, inbox_refusal, parse_inbox_line
from .saving import AGENT_QUEUE
from .urls import canonical_url, is_youtube_url, parse_video_id, parse_video_url

__all__ = [
    "AGENT_QUEUE",
    "REPLAY_ENV",
    "STAGES",
    "Backend",
    "CaptionTrack",
    "IngestCancelled",
    "IngestError",
    "IngestRequest",
    "IngestResult",
    "Job",
    "JobRegistry",
    "Progress",
    "RecordedBackend",
    "YtDlpBackend",
    "canonical_url",
    "captions_to_prose",
    "choose_captions",
    "default_backend",
    "doctor_checks",
    "explain_error",
    "forget",
    "inbox_refusal",
    "ingest",
    "is_youtube_url",
    "list_ingests",
    "parse_inbox_line",
    "parse_video_id",
    "parse_video_url",
    "progress_logger",
    "read_transcript",
    "show_ingest",
]
