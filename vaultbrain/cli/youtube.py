"""The ``youtube`` group: ingest a video, look after past ingests, cancel a running one."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.render import echo_json, echo_table, time_left
from vaultbrain.errors import UserError


@click.group("youtube")
def youtube() -> None:
    """Pull a YouTube video's transcript (and, if asked, audio or video) into the vault.

    The transcript note goes to Consumed/YouTube/ (setting youtube.folder), a Links
    record is always saved, and with --prompt a task note waits in Brain/Agent Queue/.

    From the inbox: a line that is only a video URL does the same; options go on the
    line: #video #audio #no-transcript, other #tags, and ` -- prompt text`.
    """


def _switch(name: str, help_text: str) -> Any:
    return click.option(f"--{name}/--no-{name}", default=None, help=help_text)


@youtube.command("ingest")
@click.argument("url")
@_switch("transcript", "Save the transcript (default: setting youtube.transcript, on).")
@_switch("video", "Download the video; needs ffmpeg (default: youtube.video, off).")
@_switch("audio", "Keep an mp3 in the state dir; needs ffmpeg (default: youtube.audio, off).")
@click.option("--prompt", metavar="TEXT", help="Queue an agent task with this brief.")
@click.option("--tag", "tags", multiple=True, metavar="T", help="Add a tag (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def ingest_cmd(
    obj: Any,
    url: str,
    transcript: bool | None,
    video: bool | None,
    audio: bool | None,
    prompt: str | None,
    tags: tuple[str, ...],
    as_json: bool,
) -> None:
    """Ingest one video now.

    URL is a watch, youtu.be, shorts, live or embed URL.

    Shows progress by stage, with the time spent. Ctrl-C cancels at any step: yt-dlp's
    worker is stopped at once, nothing is written to the vault, and the ingest is listed as
    cancelled.
    """
    from vaultbrain.youtube import IngestCancelled, IngestRequest, ingest

    app = obj.app()
    request = IngestRequest.for_url(
        url, transcript=transcript, video=video, audio=audio, tags=tags, prompt=prompt
    )
    cancel = threading.Event()
    bar = _ProgressBar(enabled=not as_json)
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            outcome["result"] = ingest(app, request, progress=bar.update, cancel=cancel)
        except BaseException as exc:  # handed to the main thread, which reports it
            outcome["error"] = exc
        finally:
            done.set()

    # The main thread only sleeps and polls: Ctrl-C interrupting Thread.join() can leave
    # the thread looking finished while it still runs, so join() is never what waits.
    threading.Thread(target=work, name="youtube-ingest", daemon=True).start()
    try:
        while not done.is_set():
            time.sleep(0.1)
            bar.draw()
    except KeyboardInterrupt:
        cancel.set()  # the yt-dlp worker is killed at once, whatever step it is in
        bar.note("cancelling…")
        _wait_through_interrupts(done)
    bar.close()
    error = outcome.get("error")
    if error is not None:
        attempt = getattr(error, "result", None)
        if as_json and attempt is not None:
            echo_json(attempt.to_dict())
        if isinstance(error, IngestCancelled):
            click.echo(str(error), err=True)
            sys.exit(130)
        raise error
    result = outcome["result"]
    if as_json:
        echo_json(result.to_dict())
    else:
        _echo_result(result)


def _wait_through_interrupts(done: threading.Event) -> None:
    """Wait for a cancelled ingest to record itself. A second Ctrl-C must not end the
    process before that (the job would vanish from `youtube list`), so from here on Ctrl-C
    only says so; the wait is short, since the cancel kills yt-dlp's worker."""

    def say(signum: int, frame: Any) -> None:
        click.echo("still cancelling: recording the attempt…", err=True)

    try:
        before = signal.signal(signal.SIGINT, say)
    except ValueError:  # not the main thread: nothing to hold
        before = None
    try:
        while not done.is_set():
            done.wait(0.1)
    finally:
        if before is not None:  # (the command may run inside another process: tests)
            signal.signal(signal.SIGINT, before)


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(max(0.0, seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class _ProgressBar:
    """Stage, percent and time spent on stderr: a bar on a terminal, one line per stage
    otherwise. The time ticks even while a step reports no progress (yt-dlp fetching the
    page), so a long metadata step does not look stuck at 0%."""

    def __init__(
        self,
        enabled: bool,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = enabled
        self.tty = enabled and (sys.stderr.isatty() if tty is None else tty)
        self._clock = clock
        self._started = clock()
        self._latest: Any = None
        self._stages: list[str] = []  # stages entered since the last draw, in order
        self._lock = threading.Lock()
        self._drawn = False

    def update(self, progress: Any) -> None:
        with self._lock:
            if self._latest is None or progress.stage != self._latest.stage:
                self._stages.append(progress.stage)
            self._latest = progress

    def draw(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            p = self._latest
            entered, self._stages = self._stages, []
        if p is None:
            return
        if self.tty:
            click.echo("\r" + self.line(), err=True, nl=False)
            self._drawn = True
        else:
            for stage in entered:
                click.echo(f"{stage}…", err=True)

    def line(self) -> str:
        """The bar as drawn on a terminal."""
        p = self._latest
        overall, stage = (p.overall, p.stage) if p is not None else (0.0, "starting")
        width = 24
        filled = int(width * overall / 100)
        seconds = self._clock() - self._started
        left = time_left(seconds, overall / 100)
        bar = f"[{'#' * filled}{'-' * (width - filled)}] {overall:3.0f}% {stage:<10}"
        return f"{bar} {_elapsed(seconds)}" + (f"  {left}" if left else "")

    def note(self, text: str) -> None:
        if self._drawn:
            click.echo("", err=True)
            self._drawn = False
        click.echo(text, err=True)

    def close(self) -> None:
        self.draw()
        if self._drawn:
            click.echo("", err=True)


def _echo_result(result: Any) -> None:
    what = result.note_path or result.link_path or result.video_id
    click.echo(f"saved {what}")
    facts = []
    if result.transcript_source:
        facts.append(f"transcript from {result.transcript_source}")
    if result.link_path:
        facts.append(f"link {result.link_path}")
    if result.audio_path:
        facts.append(f"audio {result.audio_path}")
    if result.video_path:
        facts.append(f"video {result.video_path}")
    if facts:
        click.echo("  " + " · ".join(facts))
    if result.agent_task_path:
        click.echo(f"  agent task queued: {result.agent_task_path}")
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)


@youtube.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the ingests as JSON.")
@click.pass_obj
def list_cmd(obj: Any, as_json: bool) -> None:
    """Running jobs, then past ingests, newest first."""
    from vaultbrain.youtube import list_ingests

    rows = list_ingests(obj.app())
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo(hint("no YouTube ingests yet; `vaultbrain youtube ingest URL` makes one"))
        return
    echo_table(
        [
            (
                r.get("video_id"),
                _status_text(r),
                (r.get("captured") or r.get("updated") or "")[:10],
                r.get("title"),
                r.get("note_path") or r.get("link_path") or "",
            )
            for r in rows
        ],
        ["video", "status", "date", "title", "note"],
    )


def _status_text(row: dict[str, Any]) -> str:
    if row.get("status") == "running":
        pct = row.get("percent")
        spent = f", {_elapsed(time.time() - row['started'])}" if row.get("started") else ""
        return (
            f"running {row.get('stage')} {pct:.0f}% job {row.get('job')}{spent}"
            if pct is not None
            else f"running job {row.get('job')}{spent}"
        )
    last = row.get("last_attempt") or {}
    if row.get("status") == "complete" and last.get("status") not in (None, "complete"):
        return f"complete (last try {last['status']})"
    return str(row.get("status"))


@youtube.command("show")
@click.argument("video")
@click.option("--json", "as_json", is_flag=True, help="Print the entry as JSON.")
@click.pass_obj
def show_cmd(obj: Any, video: str, as_json: bool) -> None:
    """One ingest: VIDEO is its id or URL."""
    from vaultbrain.youtube import show_ingest

    entry = show_ingest(obj.app(), video)
    if as_json:
        echo_json(entry)
        return
    for key in (
        "video_id", "title", "channel", "url", "status", "error", "captured", "updated",
        "tags", "note_path", "transcript_path", "transcript_source", "audio_path",
        "video_path", "link_path", "activity_id",
    ):  # fmt: skip
        value = entry.get(key)
        if value not in (None, "", []):
            click.echo(f"{key}: {', '.join(value) if isinstance(value, list) else value}")
    for task in entry.get("agent_tasks") or []:
        click.echo(f"agent task: {task.get('path')}")
    last = entry.get("last_attempt") or {}
    if last and last.get("status") != "complete":
        click.echo(f"last attempt: {last.get('status')} at {last.get('at')}: {last.get('error')}")
    if entry.get("running_job"):
        job = entry["running_job"]
        click.echo(f"running: job {job.get('job')} {job.get('stage')} {job.get('overall')}%")


@youtube.command("transcript")
@click.argument("video")
@click.pass_obj
def transcript_cmd(obj: Any, video: str) -> None:
    """Print the stored transcript markdown of VIDEO (id or URL)."""
    from vaultbrain.youtube import read_transcript

    click.echo(read_transcript(obj.app(), video), nl=False)


@youtube.command("forget")
@click.argument("video")
@click.option("--json", "as_json", is_flag=True, help="Print what was removed as JSON.")
@click.pass_obj
def forget_cmd(obj: Any, video: str, as_json: bool) -> None:
    """Remove VIDEO's transcript, mp3 and note; keep the link.

    The note goes to the state dir's trash/.

    A downloaded video file (media library) and queued agent tasks are kept.
    """
    from vaultbrain.youtube import forget

    app = obj.app()
    report = forget(app, video)
    if as_json:
        echo_json(report)
        return
    for rel in report["removed"]:
        click.echo(f"removed {rel}")
    if report["trashed"]:
        click.echo(
            f"moved {report['trashed']['from']} to {app.state_dir / report['trashed']['to']}"
        )
    for rel in report["kept"]:
        click.echo(f"kept {rel}")
    click.echo(f"forgot {report['video_id']}")


@youtube.command("cancel")
@click.argument("job")
@click.option(
    "--wait",
    "wait_seconds",
    type=float,
    default=15.0,
    show_default=True,
    help="Seconds to wait for the job to stop.",
)
@click.pass_obj
def cancel_cmd(obj: Any, job: str, wait_seconds: float) -> None:
    """Cancel a running ingest: a daemon job or another terminal's.

    JOB is the job id that `youtube list` shows, or the video id.

    Works across processes: it creates <state>/youtube/cancel/<job>, which the running
    ingest checks several times a second; yt-dlp's worker is stopped at once, nothing is
    written to the vault and the ingest is recorded as cancelled. An ingest already saving
    finishes.
    """
    from vaultbrain.youtube import JobRegistry
    from vaultbrain.youtube.index import VideoIndex

    app = obj.app()
    registry = JobRegistry(app.state_dir)
    found = registry.request_cancel(job)
    click.echo(f"asked job {found['job']} ({found['video_id']}) to stop")
    if wait_seconds <= 0:
        return
    if not registry.wait(found["job"], wait_seconds):
        raise UserError(f"job {found['job']} is still running after {wait_seconds:g}s")
    entry = VideoIndex(app.store).get(found["video_id"]) or {}
    last = entry.get("last_attempt") or {}
    status = last.get("status") if last.get("job") == found["job"] else None
    click.echo(f"job {found['job']} ended: {status or 'stopped'}")


@youtube.command("settings")
@click.option("--folder", metavar="PATH", help="Vault folder of transcript notes.")
@_switch("transcript", "Ingest the transcript by default.")
@_switch("video", "Download the video by default.")
@_switch("audio", "Keep an mp3 by default.")
@click.option("--json", "as_json", is_flag=True, help="Print the settings as JSON.")
@click.pass_obj
def settings_cmd(
    obj: Any,
    folder: str | None,
    transcript: bool | None,
    video: bool | None,
    audio: bool | None,
    as_json: bool,
) -> None:
    """Show the ingest defaults, or change them with the options."""
    from vaultbrain.youtube.manage import set_youtube_settings, youtube_settings

    app = obj.app()
    changes: dict[str, str] = {}
    if folder is not None:
        changes["youtube.folder"] = folder
    for key, value in (("transcript", transcript), ("video", video), ("audio", audio)):
        if value is not None:
            changes[f"youtube.{key}"] = "true" if value else "false"
    current = set_youtube_settings(app, changes) if changes else youtube_settings(app)
    if as_json:
        echo_json(current)
        return
    for key, value in current.items():
        click.echo(f"{key} = {str(value).lower() if isinstance(value, bool) else value}")


@youtube.command("vtt")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--paragraph-lines",
    type=click.IntRange(1, 1000),
    default=8,
    show_default=True,
    help="Caption lines per paragraph (a sentence end may close one sooner).",
)
def vtt_cmd(file: Path, paragraph_lines: int) -> None:
    """Print the prose of a local WebVTT or SRT caption FILE."""
    from vaultbrain.youtube.captions import captions_to_prose, looks_like_captions

    try:
        text = file.read_bytes().decode("utf-8-sig", errors="replace")
    except OSError as exc:
        raise UserError(f"{file} cannot be read: {exc.strerror}") from exc
    if not looks_like_captions(text):
        raise UserError(f"{file} is not a WebVTT or SRT caption file (no cue timings found)")
    click.echo(captions_to_prose(text, paragraph_lines), nl=False)
