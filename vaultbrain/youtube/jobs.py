"""Ingest jobs: an id, a stage, a percent and a cancel event, visible to other processes.

Each running job keeps a small file at ``<state>/youtube/jobs/<job>.json`` (stage, percent,
the process id), so ``youtube list`` in another terminal sees what the daemon is doing.
``youtube cancel JOB`` from any process creates ``<state>/youtube/cancel/<job>``; the job's
watcher thread notices within a fraction of a second and sets the job's cancel event, which
the yt-dlp progress hooks check. Both files go when the job ends.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.ids import new_id
from vaultbrain.procs import pid_alive
from vaultbrain.vault.atomic import atomic_write_file

if TYPE_CHECKING:
    import logging

STAGES = ("metadata", "transcript", "video", "audio", "saving", "queueing")
_WEIGHTS = {"metadata": 5, "transcript": 15, "video": 45, "audio": 25, "saving": 5, "queueing": 5}


@dataclass(frozen=True)
class Progress:
    """One progress report: the stage, its percent, and the percent of the whole job."""

    job_id: str
    video_id: str
    stage: str
    percent: float
    overall: float

    def __str__(self) -> str:
        return (
            f"youtube job {self.job_id} ({self.video_id}): {self.stage} {self.percent:.0f}% "
            f"(overall {self.overall:.0f}%)"
        )


ProgressCallback = Callable[[Progress], None]


def progress_logger(logger: logging.Logger, every: float = 25.0) -> ProgressCallback:
    """A progress callback for the daemon: logs each stage as it starts, then every
    ``every`` percent of it."""
    last: dict[tuple[str, str], float] = {}

    def log_progress(p: Progress) -> None:
        key = (p.job_id, p.stage)
        seen = last.get(key)
        if seen is None or p.percent >= seen + every or (p.percent >= 100 > seen):
            last[key] = p.percent
            logger.info("%s", p)

    return log_progress


def new_job_id() -> str:
    return new_id(8)


class Job:
    """A running ingest."""

    def __init__(
        self,
        registry: JobRegistry,
        job_id: str,
        video_id: str,
        url: str,
        stages: tuple[str, ...],
        cancel: threading.Event,
        callback: ProgressCallback | None,
    ) -> None:
        self.registry = registry
        self.id = job_id
        self.video_id = video_id
        self.url = url
        self.stages = stages
        self.cancel = cancel
        self.stage = stages[0]
        self.percent = 0.0
        self.started = time.time()
        self._callback = callback
        self._written = 0.0
        self._done = threading.Event()

    @property
    def overall(self) -> float:
        total = sum(_WEIGHTS[s] for s in self.stages) or 1
        done = 0.0
        for s in self.stages:
            if s == self.stage:
                done += _WEIGHTS[s] * self.percent / 100.0
                break
            done += _WEIGHTS[s]
        return min(100.0, 100.0 * done / total)

    def report(self, stage: str, percent: float = 0.0) -> None:
        changed = stage != self.stage
        self.stage = stage
        self.percent = max(0.0, min(100.0, float(percent)))
        now = time.monotonic()
        if changed or now - self._written >= 0.5 or self.percent >= 100.0:
            self._written = now
            self.registry._write(self)  # noqa: SLF001
        if self._callback is not None:
            self._callback(Progress(self.id, self.video_id, stage, self.percent, self.overall))

    def snapshot(self) -> dict[str, Any]:
        return {
            "job": self.id,
            "video_id": self.video_id,
            "url": self.url,
            "stage": self.stage,
            "percent": round(self.percent, 1),
            "overall": round(self.overall, 1),
            "stages": list(self.stages),
            "pid": os.getpid(),
            "started": self.started,
            "cancel_requested": self.cancel.is_set(),
        }


class JobRegistry:
    """The jobs of one state dir; in-process jobs plus what the files say about others."""

    def __init__(self, state_dir: Path | str, *, poll_seconds: float = 0.2) -> None:
        self.root = Path(state_dir) / "youtube"
        self.jobs_dir = self.root / "jobs"
        self.cancel_dir = self.root / "cancel"
        self.poll_seconds = poll_seconds
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    # -- the running side ------------------------------------------------------------------
    def start(
        self,
        video_id: str,
        url: str,
        stages: tuple[str, ...],
        *,
        cancel: threading.Event | None = None,
        callback: ProgressCallback | None = None,
    ) -> Job:
        """Register a job; refuses a second concurrent ingest of the same video."""
        with self._lock:
            for other in self.running():
                if other["video_id"] == video_id:
                    raise UserError(
                        f"an ingest of {video_id} is already running (job {other['job']}); "
                        f"wait for it or run `vaultbrain youtube cancel {other['job']}`"
                    )
            job = Job(
                self, new_job_id(), video_id, url, stages, cancel or threading.Event(), callback
            )
            self._jobs[job.id] = job
            self._write(job)
        threading.Thread(
            target=self._watch, args=(job,), name=f"youtube-cancel-{job.id}", daemon=True
        ).start()
        return job

    def finish(self, job: Job) -> None:
        job._done.set()  # noqa: SLF001
        with self._lock:
            self._jobs.pop(job.id, None)
        for path in (self.jobs_dir / f"{job.id}.json", self.cancel_dir / job.id):
            try:
                path.unlink()
            except FileNotFoundError:
                pass

    def _write(self, job: Job) -> None:
        if job._done.is_set():  # noqa: SLF001
            return
        atomic_write_file(self.jobs_dir / f"{job.id}.json", json.dumps(job.snapshot()))

    def _watch(self, job: Job) -> None:
        flag = self.cancel_dir / job.id
        while not job._done.wait(self.poll_seconds):  # noqa: SLF001
            if flag.exists():
                job.cancel.set()
                return

    # -- the observing side ----------------------------------------------------------------
    def running(self) -> list[dict[str, Any]]:
        """Jobs that are running in some process of this machine (stale files are removed)."""
        out: list[dict[str, Any]] = []
        try:
            paths = sorted(self.jobs_dir.glob("*.json"))
        except OSError:
            return out
        for path in paths:
            if path.name.startswith("."):
                continue
            try:
                data = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                continue
            if not _alive(int(data.get("pid") or 0)):
                try:
                    path.unlink()
                except OSError:
                    pass
                continue
            local = self._jobs.get(str(data.get("job")))
            out.append(local.snapshot() if local else data)
        out.sort(key=lambda d: d.get("started") or 0)
        # A cancel asked just as its job ended would otherwise stay behind.
        alive = {str(job.get("job")) for job in out}
        try:
            flags = list(self.cancel_dir.iterdir())
        except OSError:
            flags = []
        for flag in flags:
            if flag.name in alive or flag.name.startswith("."):
                continue
            try:
                # Old ones only: a job that started after the listing above has a fresh flag.
                if time.time() - flag.stat().st_mtime > 10:
                    flag.unlink()
            except OSError:
                pass
        return out

    def find(self, ref: str) -> dict[str, Any] | None:
        """A running job by its id, or by the video it is ingesting."""
        for job in self.running():
            if ref in (job.get("job"), job.get("video_id")):
                return job
        return None

    def request_cancel(self, ref: str) -> dict[str, Any]:
        """Ask a running job to stop (in this process directly, elsewhere through a file)."""
        job = self.find(ref)
        if job is None:
            raise UserError(
                f"no running YouTube ingest {ref!r}; `vaultbrain youtube list` shows the "
                "running jobs"
            )
        local = self._jobs.get(job["job"])
        if local is not None:
            local.cancel.set()
        else:
            atomic_write_file(self.cancel_dir / job["job"], b"cancel\n")
        return job

    def wait(self, job_id: str, timeout: float) -> bool:
        """Wait until a job has ended; False when it is still running after ``timeout``."""
        deadline = time.monotonic() + timeout
        path = self.jobs_dir / f"{job_id}.json"
        while path.exists():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True


def _alive(pid: int) -> bool:
    return pid_alive(pid)
