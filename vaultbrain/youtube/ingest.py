"""One YouTube ingest, from URL to notes: the orchestration both front ends call.

Stages: ``metadata`` → ``transcript`` → ``video`` → ``audio`` (each only when switched on)
→ ``saving`` → ``queueing`` (only with a prompt). Everything yt-dlp fetches lands in a
scratch folder of the state dir first (``youtube/tmp/<job>``); nothing reaches the vault or
the kept state until ``saving``. A cancel is honoured up to that point, so a cancelled
ingest leaves no trace in the vault and is recorded in the index as cancelled. Saving
itself is a few atomic writes (``saving.py``) and runs to the end once begun. yt-dlp runs in
a worker process (``worker.py``) that a cancel kills, so a cancel takes effect at once at
any step.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.vault.atomic import atomic_write_file

from .backend import (
    FFMPEG_HINT,
    Backend,
    IngestCancelled,
    IngestError,
    choose_captions,
)
from .captions import captions_to_prose
from .index import VideoIndex, obsidian_vault_id
from .jobs import JobRegistry, ProgressCallback
from .notes import (
    VideoMeta,
    merge_tags,
    render_transcript_markdown,
    wikilink,
)
from .recorded import REPLAY_ENV, RecordedBackend
from .request import IngestRequest
from .saving import (
    NoteBody,
    create_video_note,
    existing_note,
    link_description,
    queue_agent_task,
    record_watch,
    save_video,
    update_video_note,
)

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.youtube")


@dataclass
class IngestResult:
    """What an ingest did. ``status``: complete, or (on an IngestError's ``result``)
    cancelled or failed, with ``error`` saying why."""

    job_id: str
    video_id: str
    url: str
    status: str = "incomplete"
    title: str | None = None
    note_path: str | None = None
    note_created: bool = False
    link_path: str | None = None
    link_id: str | None = None
    transcript_path: str | None = None
    transcript_source: str | None = None
    audio_path: str | None = None
    video_path: str | None = None
    agent_task_path: str | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "complete"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Switches:
    transcript: bool
    video: bool
    audio: bool


def resolve_switches(app: Brain, request: IngestRequest) -> Switches:
    """The request's switches, defaults from settings; UserError when all are off."""

    def pick(value: bool | None, key: str) -> bool:
        return bool(app.settings.get(key)) if value is None else value

    s = Switches(
        pick(request.transcript, "youtube.transcript"),
        pick(request.video, "youtube.video"),
        pick(request.audio, "youtube.audio"),
    )
    if not (s.transcript or s.video or s.audio):
        raise UserError(
            "nothing to ingest: transcript, video and audio are all off; turn on at least one "
            "(drop --no-transcript, or add --video or --audio)"
        )
    return s


def default_backend(app: Brain) -> Backend:
    """yt-dlp, unless ``VAULTBRAIN_YTDLP_REPLAY`` points at recordings to replay."""
    replay = app.env.get(REPLAY_ENV)
    if replay:
        return RecordedBackend.from_dir(Path(replay))
    from .worker import WorkerBackend  # yt-dlp in a process a cancel can kill

    return WorkerBackend()


def ingest(
    app: Brain,
    request: IngestRequest,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    *,
    backend: Backend | None = None,
    registry: JobRegistry | None = None,
) -> IngestResult:
    """Ingest one video; returns the result of a complete ingest (``status`` "complete").

    Raises UserError before anything starts for a request that cannot (every switch off,
    ffmpeg missing for audio or video, the same video already being ingested). After the
    start, a failure raises :class:`IngestError` and a cancel :class:`IngestCancelled` (a
    kind of IngestError, so of UserError too); both carry ``.result``, the attempt as
    recorded in the index (status "failed" / "cancelled"), and a one-line message.
    """
    switches = resolve_switches(app, request)
    backend = backend or default_backend(app)
    if (switches.video or switches.audio) and not backend.ffmpeg_available():
        wanted = " and ".join(
            name for name, on in (("video", switches.video), ("audio (mp3)", switches.audio)) if on
        )
        raise UserError(f"{wanted} needs ffmpeg, which is not installed; {FFMPEG_HINT}")
    stages: tuple[str, ...] = ("metadata",)
    stages += ("transcript",) if switches.transcript else ()
    stages += ("video",) if switches.video else ()
    stages += ("audio",) if switches.audio else ()
    stages += ("saving",) + (("queueing",) if request.prompt else ())
    registry = registry or JobRegistry(app.state_dir)
    with app.store.locked():  # two processes must not both start the same video
        job = registry.start(
            request.video_id, request.url, stages, cancel=cancel, callback=progress
        )
    result = IngestResult(job_id=job.id, video_id=request.video_id, url=request.url)
    scratch_root = app.state_dir / "youtube" / "tmp"
    _sweep_scratch(scratch_root, registry, keep=job.id)
    scratch = scratch_root / job.id
    run = _Run(app, request, switches, backend, job, scratch, result)
    try:
        run.fetch()
        if job.cancel.is_set():
            raise IngestCancelled()
        run.save()
        result.status = "complete"
    except IngestCancelled as exc:
        result.status, result.error = "cancelled", str(exc)
        run.record_attempt()
        exc.result = result
        raise
    except IngestError as exc:
        result.status, result.error = "failed", str(exc)
        run.record_attempt()
        exc.result = result
        raise
    except (VaultbrainError, OSError) as exc:
        message = str(exc) if isinstance(exc, UserError) else f"{request.video_id}: {exc}"
        result.status, result.error = "failed", message
        run.record_attempt()
        err = IngestError(message, kind="error")
        err.result = result
        raise err from exc
    except BaseException as exc:
        result.status = "failed"
        result.error = f"internal error: {type(exc).__name__}: {exc}"
        run.record_attempt()
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        registry.finish(job)
    return result


class _Run:
    """The state of one ingest while it runs."""

    def __init__(
        self,
        app: Brain,
        request: IngestRequest,
        switches: Switches,
        backend: Backend,
        job: Any,
        scratch: Path,
        result: IngestResult,
    ) -> None:
        self.app = app
        self.request = request
        self.switches = switches
        self.backend = backend
        self.job = job
        self.scratch = scratch
        self.result = result
        self.index = VideoIndex(app.store)
        self.started = app.now().isoformat()
        self.meta: VideoMeta | None = None
        self.prose: str | None = None
        self.track_language: str | None = None
        self.no_transcript_reason: str | None = None
        self.audio_file: Path | None = None
        self.video_file: Path | None = None
        self.note_prompt: str | None = request.prompt

    # -- fetching (cancellable) ----------------------------------------------------------
    def _stage_progress(self, stage: str) -> Callable[[float], None]:
        def report(percent: float) -> None:
            self.job.report(stage, percent)

        return report

    def fetch(self) -> None:
        job, backend, result = self.job, self.backend, self.result
        job.report("metadata", 0)
        info = backend.extract_info(self.request.url, cancel=job.cancel)
        video_id = str(info.get("id") or self.request.video_id)
        if video_id != self.request.video_id:
            raise UserError(
                f"yt-dlp answered for video {video_id}, not {self.request.video_id}; not saved"
            )
        self.meta = VideoMeta.from_info(info, video_id)
        result.title = self.meta.title
        job.report("metadata", 100)
        if self.switches.transcript:
            self._fetch_transcript(info)
        for kind, on in (("video", self.switches.video), ("audio", self.switches.audio)):
            if not on:
                continue
            self._check_cancel()
            job.report(kind, 0)
            path = backend.download(
                info,
                kind=kind,  # type: ignore[arg-type]
                dest=self.scratch / kind,
                progress=self._stage_progress(kind),
                cancel=job.cancel,
            )
            if path is None or not path.exists():
                raise UserError(f"yt-dlp produced no {kind} file for {video_id}")
            setattr(self, f"{kind}_file", path)
            job.report(kind, 100)

    def _fetch_transcript(self, info: dict[str, Any]) -> None:
        self._check_cancel()
        self.job.report("transcript", 0)
        track, why = choose_captions(info)
        if track is None:
            self.no_transcript_reason = why
            self.result.warnings.append(f"{self.request.video_id}: {why}")
        else:
            path = self.backend.download(
                info,
                kind="captions",
                dest=self.scratch / "captions",
                track=track,
                progress=self._stage_progress("transcript"),
                cancel=self.job.cancel,
            )
            text = path.read_text("utf-8", errors="replace") if path and path.exists() else ""
            prose = captions_to_prose(text)
            if prose.strip():
                self.prose = prose
                self.track_language = track.language
                self.result.transcript_source = track.source
            else:
                why = f"the {track.source} ({track.language}) came back empty; no transcript"
                self.no_transcript_reason = why
                self.result.warnings.append(f"{self.request.video_id}: {why}")
        self.job.report("transcript", 100)

    def _check_cancel(self) -> None:
        if self.job.cancel.is_set():
            raise IngestCancelled()

    # -- saving (the commit; not cancellable once begun) ---------------------------------
    def save(self) -> None:
        app, job, result, meta = self.app, self.job, self.result, self.meta
        assert meta is not None
        job.report("saving", 0)
        prev = self.index.get(meta.video_id)
        state_yt = app.state_dir / "youtube"
        now = app.now().isoformat()
        captured = (prev or {}).get("captured") or now
        tags = merge_tags(["youtube"], (prev or {}).get("tags") or [], self.request.tags)
        # The note shows the latest prompt; a re-ingest without one keeps the earlier one.
        self.note_prompt = self.request.prompt or (prev or {}).get("prompt")

        if self.prose:
            rel = f"youtube/{meta.video_id}.md"
            atomic_write_file(
                app.state_dir / rel,
                render_transcript_markdown(
                    meta,
                    prose=self.prose,
                    source=result.transcript_source or "",
                    language=self.track_language or "en",
                    captured=captured,
                ),
            )
            result.transcript_path = rel
        elif prev and prev.get("transcript_path"):
            result.transcript_path = prev["transcript_path"]
            result.transcript_source = prev.get("transcript_source")
        if self.audio_file is not None:
            target = state_yt / f"{meta.video_id}.mp3"
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.audio_file, target)
            result.audio_path = f"youtube/{meta.video_id}.mp3"
        elif prev:
            result.audio_path = prev.get("audio_path")
        if self.video_file is not None:
            result.video_path = save_video(app, self.video_file, meta, now)
        elif prev:
            result.video_path = prev.get("video_path")
        job.report("saving", 30)

        note_hash = None
        note_rel = existing_note(app, prev, meta.video_id)
        if self.switches.transcript or note_rel:
            body = NoteBody(
                self.prose, result.transcript_source, self.note_prompt, self.no_transcript_reason
            )
            if note_rel is None:
                note_rel, note_hash = create_video_note(app, meta, body, tags, captured)
                result.note_created = True
            else:
                note_hash, tags = update_video_note(
                    app.vault,
                    note_rel,
                    prev,
                    meta,
                    body,
                    tags,
                    captured,
                    transcript=self.switches.transcript,
                    warnings=result.warnings,
                )
            result.note_path = note_rel
        job.report("saving", 60)

        # Imported here: the filing layer (the inbox) imports this package.
        from vaultbrain.filing.links import save_link

        said = f"Transcript: {wikilink(note_rel, meta.title)}" if note_rel else None
        link = save_link(
            app,
            url=meta.url,
            title=meta.title,
            fields={"site": "YouTube", "description": link_description(meta)},
            tags=tags,
            body=said,
            source=self.request.source,
        )
        result.link_path, result.link_id = link.get("path"), link.get("id")
        activity_id = (prev or {}).get("activity_id") or record_watch(
            app, meta, self.request.origin, now
        )
        job.report("saving", 100)

        tasks = list((prev or {}).get("agent_tasks") or [])
        if self.request.prompt:
            job.report("queueing", 0)
            result.agent_task_path = queue_agent_task(
                app,
                meta,
                self.request.prompt,
                tasks,
                note_rel or result.link_path,
                now,
                transcript_path=result.transcript_path,
                audio_path=result.audio_path,
                video_path=result.video_path,
            )
            job.report("queueing", 100)

        def change(entry: dict[str, Any] | None) -> dict[str, Any]:
            entry = dict(entry or {})
            entry.update(
                {
                    "video_id": meta.video_id,
                    "url": meta.url,
                    "title": meta.title,
                    "channel": meta.channel,
                    "duration": meta.duration,
                    "published": meta.published,
                    "status": "complete",
                    "captured": captured,
                    "updated": now,
                    "job": job.id,
                    "origin": self.request.origin,
                    "options": asdict(self.switches),
                    "tags": tags,
                    "prompt": self.note_prompt,
                    "transcript_path": result.transcript_path,
                    "transcript_source": result.transcript_source,
                    "audio_path": result.audio_path,
                    "video_path": result.video_path,
                    "vault": {
                        "path": str(app.vault.root),
                        "obsidian_id": obsidian_vault_id(app.vault.root, app.env),
                    },
                    "note_path": result.note_path,
                    "note_hash": note_hash or entry.get("note_hash"),
                    "link_id": result.link_id,
                    "link_path": result.link_path,
                    "activity_id": activity_id,
                    "agent_tasks": tasks,
                    "warnings": list(result.warnings),
                    "last_attempt": {"status": "complete", "at": now, "job": job.id},
                }
            )
            return entry

        self.index.update(meta.video_id, change)

    # -- after a cancel or a failure -----------------------------------------------------
    def record_attempt(self) -> None:
        """Note the unfinished attempt in the index, keeping what an earlier ingest saved."""
        result, meta = self.result, self.meta
        now = self.app.now().isoformat()
        attempt = {
            "status": result.status,
            "error": result.error,
            "at": now,
            "job": result.job_id,
        }

        def change(entry: dict[str, Any] | None) -> dict[str, Any]:
            if entry and entry.get("status") == "complete":
                return {**entry, "last_attempt": attempt}
            base = dict(entry or {})
            base.update(
                {
                    "video_id": result.video_id,
                    "url": result.url,
                    "title": meta.title if meta else base.get("title"),
                    "channel": meta.channel if meta else base.get("channel"),
                    "status": result.status,
                    "error": result.error,
                    "updated": now,
                    "job": result.job_id,
                    "origin": self.request.origin,
                    "options": asdict(self.switches),
                    "tags": merge_tags(["youtube"], base.get("tags") or [], self.request.tags),
                    "last_attempt": attempt,
                }
            )
            # A failure part-way through saving: keep what was written findable (forget).
            for key in ("transcript_path", "audio_path", "video_path", "note_path", "link_path"):
                if getattr(result, key):
                    base[key] = getattr(result, key)
            return base

        try:
            self.index.update(result.video_id, change)
        except (OSError, VaultbrainError) as exc:  # the result still tells the caller
            log.warning("could not record the ingest of %s: %s", result.video_id, exc)


def _sweep_scratch(root: Path, registry: JobRegistry, keep: str) -> None:
    """Remove scratch folders that a killed process left behind (no job runs for them)."""
    try:
        leftovers = [p for p in root.iterdir() if p.is_dir() and p.name != keep]
    except OSError:
        return
    if not leftovers:
        return
    running = {job["job"] for job in registry.running()}
    for path in leftovers:
        if path.name not in running:
            shutil.rmtree(path, ignore_errors=True)
