"""What a YouTube ingest writes once it commits (the ``saving`` and ``queueing`` stages of
``vaultbrain/youtube/ingest.py``): the transcript note (created, or merged into the person's
copy), the agent task a prompt asks for, the downloaded video in the media library, and the
watch event in the activity log.

Notes are written with compare-and-swap (``Vault.create`` / ``Vault.edit``); a note the person
edited since the last ingest keeps its text, and only its properties are updated.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.vault.names import unique_name
from vaultbrain.vault.note import parse_note, update_frontmatter

from .notes import (
    VideoMeta,
    format_duration,
    merge_tags,
    note_fields,
    note_filename,
    quote_tags_block,
    render_agent_task,
    render_body,
    render_video_note,
    task_filename,
)

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.vault import NoteFile, Vault

AGENT_QUEUE = "Brain/Agent Queue"
ACTIVITY_LOG = "activity.jsonl"
MEDIA_LIBRARY = "media/library.jsonl"


@dataclass(frozen=True)
class NoteBody:
    """What a transcript note says below its properties."""

    prose: str | None
    transcript_source: str | None
    prompt: str | None
    no_transcript_reason: str | None


@dataclass
class _Merge:
    """What the last attempt of an update found (an attempt may be retried)."""

    broken: str | None = None  # the note's frontmatter does not parse: left alone
    edited: bool = False  # the person edited it since the last ingest: text left alone
    tags: list[str] = field(default_factory=list)


def existing_note(brain: Brain, prev: dict[str, Any] | None, video_id: str) -> str | None:
    """The transcript note of an earlier ingest: where the index says, else by its name."""
    if prev and prev.get("note_path") and brain.vault.exists(prev["note_path"]):
        return str(prev["note_path"])
    folder = str(brain.settings.get("youtube.folder")).strip("/")
    try:
        if not brain.vault.resolve(folder).is_dir():
            return None
        for rel, entry in brain.vault.iter_notes(folder):
            if entry.name.endswith(f"({video_id}).md"):
                return rel
    except (OSError, UserError):
        return None
    return None


def create_video_note(
    brain: Brain, meta: VideoMeta, body: NoteBody, tags: list[str], captured: str
) -> tuple[str, str]:
    """A new transcript note in the ``youtube.folder`` setting's folder: (path, hash)."""
    vault = brain.vault
    folder = str(brain.settings.get("youtube.folder")).strip("/")
    name = note_filename(brain.today(), meta.title, meta.video_id)
    text = render_video_note(
        meta,
        captured=captured,
        tags=tags,
        prose=body.prose,
        transcript_source=body.transcript_source,
        prompt=body.prompt,
        no_transcript_reason=body.no_transcript_reason,
    )
    stem = name[:-3]
    for _ in range(50):
        candidate = unique_name(stem, lambda n: vault.exists(f"{folder}/{n}"))
        try:
            digest = vault.create(f"{folder}/{candidate}", text)
        except FileExistsError:
            continue
        return f"{folder}/{candidate}", digest
    raise UserError(f"cannot find a free name for {name} in {folder}")


def update_video_note(
    vault: Vault,
    rel: str,
    prev: dict[str, Any] | None,
    meta: VideoMeta,
    body: NoteBody,
    tags: list[str],
    captured: str,
    *,
    transcript: bool,
    warnings: list[str],
) -> tuple[str | None, list[str]]:
    """Merge this ingest into the existing note ``rel``: (the hash on disk, None when the note
    was left alone; its tags). The text is regenerated only when the note is still what the
    last ingest wrote (``prev["note_hash"]``) and a transcript was asked for; otherwise only
    missing properties are added and tags merged. What was left alone goes to ``warnings``."""
    outcome = _Merge()

    def build(note: NoteFile | None) -> str | None:
        outcome.broken, outcome.edited, outcome.tags = None, False, tags
        if note is None:
            raise UserError(f"{rel} was removed while it was being updated; try again")
        parsed = parse_note(note.text)
        if parsed.error:
            outcome.broken = parsed.error
            return None
        old_tags = parsed.data.get("tags")
        old_list = old_tags if isinstance(old_tags, list) else ([old_tags] if old_tags else [])
        merged = merge_tags(old_list, tags)
        ours = prev is not None and prev.get("note_hash") == note.hash
        regenerate = (
            ours
            and transcript
            and (body.prose is not None or not (prev or {}).get("transcript_source"))
        )
        if regenerate:
            changes: dict[str, Any] = {
                k: v for k, v in note_fields(meta, captured).items() if v is not None
            }
            changes["captured"] = parsed.data.get("captured") or captured
        else:
            changes = {
                k: v
                for k, v in note_fields(meta, captured).items()
                if v is not None and k not in parsed.data
            }
        outcome.edited, outcome.tags = not ours, merged
        if merged != old_list:
            changes["tags"] = merged
        text = update_frontmatter(note.text, changes)
        if "tags" in changes:
            text = quote_tags_block(text, merged)
        if regenerate:
            new_body = render_body(
                meta,
                prose=body.prose,
                transcript_source=body.transcript_source,
                prompt=body.prompt,
                no_transcript_reason=body.no_transcript_reason,
            )
            head = parse_note(text)
            text = text[: head.body_start] + "\n" + new_body
        return text

    done = vault.edit(rel, build)
    if outcome.broken is not None:
        warnings.append(f"{rel}: {outcome.broken}; the note was left as it is")
        return None, tags
    if outcome.edited:
        warnings.append(
            f"{rel} was edited since the last ingest; only its properties were "
            "updated (tags merged), the text was left as it is"
        )
    return done.hash, outcome.tags


def queue_agent_task(
    brain: Brain,
    meta: VideoMeta,
    prompt: str,
    tasks: list[dict[str, Any]],
    material: str | None,
    now: str,
    *,
    transcript_path: str | None,
    audio_path: str | None,
    video_path: str | None,
) -> str:
    """The note in ``AGENT_QUEUE`` that asks an agent ``prompt`` about the video; the same ask
    already queued (by its hash, in ``tasks``) is not queued twice. ``tasks`` gains the new one."""
    vault, state = brain.vault, brain.state_dir
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]
    for task in tasks:
        if task.get("prompt_hash") == digest and vault.exists(task.get("path", "")):
            return str(task["path"])  # the same ask is already queued
    text = render_agent_task(
        meta,
        prompt=prompt,
        created=now,
        material_rel=material,
        transcript_state_path=str(state / transcript_path) if transcript_path else None,
        audio_path=str(state / audio_path) if audio_path else None,
        video_path=str(state / video_path) if video_path else None,
    )
    stem = task_filename(brain.today(), meta.title)
    for _ in range(50):
        name = unique_name(stem, lambda n: vault.exists(f"{AGENT_QUEUE}/{n}"))
        try:
            vault.create(f"{AGENT_QUEUE}/{name}", text)
        except FileExistsError:
            continue
        rel = f"{AGENT_QUEUE}/{name}"
        tasks.append({"path": rel, "prompt_hash": digest, "created": now})
        return rel
    raise UserError(f"cannot find a free name for {stem} in {AGENT_QUEUE}")


def save_video(brain: Brain, path: Path, meta: VideoMeta, now: str) -> str:
    """Move the downloaded video into the state dir's media library; its state-dir path."""
    rel = f"media/youtube-{meta.video_id}{path.suffix or '.mp4'}"
    target = brain.state_dir / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, target)
    brain.store.append_jsonl(
        MEDIA_LIBRARY,
        {
            "id": f"youtube-{meta.video_id}",
            "source": "download",
            "origin": "youtube",
            "url": meta.url,
            "title": meta.title,
            "channel": meta.channel,
            "path": rel,
            "bytes": target.stat().st_size,
            "added": now,
        },
    )
    return rel


def record_watch(brain: Brain, meta: VideoMeta, origin: str, now: str) -> str:
    """A ``media.watch`` event in the activity log; its id."""
    event_id = "mw-" + secrets.token_hex(5)
    brain.store.append_jsonl(
        ACTIVITY_LOG,
        {
            "id": event_id,
            "kind": "media.watch",
            "at": now,
            "source": "youtube",
            "origin": origin,
            "video_id": meta.video_id,
            "url": meta.url,
            "title": meta.title,
            "channel": meta.channel,
            "duration": meta.duration,
        },
    )
    return event_id


def link_description(meta: VideoMeta) -> str:
    """The description of the video's link record: "YouTube video by <channel> (<duration>)"."""
    bits = ["YouTube video"]
    if meta.channel:
        bits.append(f"by {meta.channel}")
    if (d := format_duration(meta.duration)) is not None:
        bits.append(f"({d})")
    return " ".join(bits)
