"""Looking after past ingests: list, show, transcript, forget, and the ingest settings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError

from .index import VideoIndex
from .jobs import JobRegistry
from .urls import parse_video_id

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

SETTING_KEYS = ("youtube.folder", "youtube.transcript", "youtube.video", "youtube.audio")


def list_ingests(app: Brain) -> list[dict[str, Any]]:
    """Running jobs first (status ``running``), then every ingest, newest first."""
    running = JobRegistry(app.state_dir).running()
    busy = {job["video_id"] for job in running}
    rows: list[dict[str, Any]] = []
    entries = {e["video_id"]: e for e in VideoIndex(app.store).entries() if "video_id" in e}
    for job in running:
        entry = entries.get(job["video_id"], {})
        rows.append(
            {
                **{k: entry.get(k) for k in ("title", "captured", "note_path")},
                "video_id": job["video_id"],
                "status": "running",
                "job": job["job"],
                "stage": job.get("stage"),
                "percent": job.get("overall"),
                "started": job.get("started"),
            }
        )
    for vid, entry in entries.items():
        if vid not in busy:
            rows.append(entry)
    return rows


def _entry(app: Brain, ref: str) -> dict[str, Any]:
    video_id = parse_video_id(ref)
    entry = VideoIndex(app.store).get(video_id)
    if entry is None:
        raise UserError(f"no ingest of {video_id}; `vaultbrain youtube list` shows them")
    return entry


def show_ingest(app: Brain, ref: str) -> dict[str, Any]:
    """One ingest's index entry (plus its running job, if one is running)."""
    video_id = parse_video_id(ref)
    job = JobRegistry(app.state_dir).find(video_id)
    entry = VideoIndex(app.store).get(video_id)
    if entry is None and job is None:
        raise UserError(f"no ingest of {video_id}; `vaultbrain youtube list` shows them")
    out = dict(entry or {"video_id": video_id, "status": "running"})
    if job is not None:
        out["running_job"] = job
    return out


def read_transcript(app: Brain, ref: str) -> str:
    """The stored transcript markdown (``youtube/<id>.md`` in the state dir)."""
    entry = _entry(app, ref)
    rel = entry.get("transcript_path")
    path = _state_path(app, rel) if rel else None
    if path is None or not path.is_file():
        raise UserError(
            f"{entry['video_id']} has no stored transcript; "
            f"`vaultbrain youtube ingest {entry.get('url') or entry['video_id']}` fetches it"
        )
    return path.read_text("utf-8")


def _state_path(app: Brain, rel: str | None) -> Path | None:
    """A path the index names, only when it really lies inside the state dir."""
    if not rel:
        return None
    root = Path(os.path.realpath(app.state_dir))
    path = Path(os.path.realpath(app.state_dir / rel))
    return path if root in path.parents else None


def forget(app: Brain, ref: str) -> dict[str, Any]:
    """Remove an ingest's transcript, mp3 and vault note; the Links record stays.

    The note goes to the state dir's ``trash/`` (recoverable; the vault's own ``.trash`` is
    Obsidian's, and vaultbrain writes no dot-folder of the vault).
    A downloaded video belongs to the media library and is kept; agent task notes are the
    person's queue and are kept too.
    """
    video_id = parse_video_id(ref)
    job = JobRegistry(app.state_dir).find(video_id)
    if job is not None:
        raise UserError(
            f"an ingest of {video_id} is running (job {job['job']}); "
            f"`vaultbrain youtube cancel {job['job']}` first"
        )
    index = VideoIndex(app.store)
    report: dict[str, Any] = {"video_id": video_id, "removed": [], "trashed": None, "kept": []}
    with app.store.locked():
        entry = index.get(video_id)
        if entry is None:
            raise UserError(f"no ingest of {video_id}; `vaultbrain youtube list` shows them")
        for key in ("transcript_path", "audio_path"):
            path = _state_path(app, entry.get(key))
            if path is not None and path.exists():
                path.unlink()
                report["removed"].append(entry[key])
        note = entry.get("note_path")
        if note and app.vault.exists(note):
            dest = app.vault.trash(note, app.today().isoformat())
            report["trashed"] = {"from": note, "to": dest}
        if entry.get("link_path"):
            report["kept"].append(entry["link_path"])
        if entry.get("video_path"):
            report["kept"].append(entry["video_path"])
        report["kept"].extend(t["path"] for t in entry.get("agent_tasks") or [] if t.get("path"))
        index.update(video_id, lambda _e: None)
        app.store.audit(
            {
                "at": app.now().isoformat(),
                "kind": "youtube.forget",
                "video_id": video_id,
                "removed": report["removed"],
                "trashed": report["trashed"],
            }
        )
    return report


def youtube_settings(app: Brain) -> dict[str, Any]:
    return {key: app.settings.get(key) for key in SETTING_KEYS}


def set_youtube_settings(app: Brain, changes: dict[str, str]) -> dict[str, Any]:
    """Set some of the ``youtube.*`` keys (values as text, parsed by the settings layer)."""
    for key, value in changes.items():
        if key not in SETTING_KEYS:
            raise UserError(f"{key} is not a YouTube setting; one of {', '.join(SETTING_KEYS)}")
        app.settings.set(key, value)
    return youtube_settings(app)
