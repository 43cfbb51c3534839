"""A YouTube ingest end to end on a temp vault, yt-dlp replaced by its recorded twin."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

import pytest

from vaultbrain.brain import Brain
from vaultbrain.errors import UserError
from vaultbrain.vault.note import parse_note
from vaultbrain.youtube import (
    IngestCancelled,
    IngestError,
    IngestRequest,
    JobRegistry,
    Progress,
    RecordedBackend,
    forget,
    ingest,
    list_ingests,
    read_transcript,
    show_ingest,
)

RECORDINGS = Path(__file__).resolve().parents[1] / "fixtures" / "youtube" / "recordings"
TALK = "cach3Talk01"
NOW = dt.datetime(2026, 3, 14, 9, 30, 0)


@pytest.fixture
def app(vault: Path) -> Brain:
    return Brain(vault, clock=lambda: NOW)


@pytest.fixture
def backend() -> RecordedBackend:
    return RecordedBackend.from_dir(RECORDINGS)


def url(video_id: str) -> str:
    return f"https://youtu.be/{video_id}"


def vault_files(app: Brain) -> set[str]:
    root = app.vault.root
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).as_posix().startswith(".vaultbrain/")
    }


def note_of(app: Brain, rel: str) -> Any:
    note = parse_note((app.vault.root / rel).read_text("utf-8"))
    assert note.error is None
    return note


def test_a_transcript_ingest_writes_every_output(app: Brain, backend: RecordedBackend) -> None:
    result = ingest(app, IngestRequest.for_url(url(TALK), tags=["#caching"]), backend=backend)
    assert result.status == "complete" and result.warnings == [] and result.error is None
    assert result.note_path == f"Consumed/YouTube/2026-03-14 Caching- why it's hard ({TALK}).md"
    assert result.transcript_source == "auto-captions"  # listed under automatic_captions

    note = note_of(app, result.note_path)
    assert note.data == {
        "title": "Caching: why it's hard",
        "source": f"https://www.youtube.com/watch?v={TALK}",
        "channel": "Systems Weekly",
        "duration": "14:03",
        "published": "2024-05-17",
        "captured": "2026-03-14T09:30:00",
        "tags": ["youtube", "caching"],
    }
    assert "[Watch on YouTube](https://www.youtube.com/watch?v=" in note.body
    assert "## Description" in note.body and "\\#caching \\#systems \\[\\[not a link" in note.body
    assert "welcome back to the channel today" in note.body
    assert '  - "youtube"\n  - "caching"\n' in (app.vault.root / result.note_path).read_text()

    transcript = read_transcript(app, TALK)
    assert result.transcript_path == f"youtube/{TALK}.md"
    assert transcript.startswith('---\ntitle: "Caching: why it\'s hard"\n')
    assert "transcript_source: auto-captions\nlanguage: en-orig\n" in transcript
    assert "R&D budgets are small" in transcript  # plain prose, not escaped

    (link,) = app.store.collection("links").all()
    assert link["path"] == result.link_path and link["id"] == result.link_id
    assert link["fields"]["url"] == f"https://www.youtube.com/watch?v={TALK}"
    assert set(link["fields"]["tags"]) >= {"youtube", "caching"}

    (event,) = app.store.read_jsonl("activity.jsonl")
    assert event["kind"] == "media.watch" and event["video_id"] == TALK
    entry = app.store.read_json("youtube/index.json")["videos"][TALK]
    assert entry["activity_id"] == event["id"]
    assert entry["status"] == "complete" and entry["note_path"] == result.note_path
    assert entry["transcript_path"] == f"youtube/{TALK}.md"
    assert entry["vault"]["path"] == str(app.vault.root)
    assert entry["link_id"] == link["id"]

    assert backend.calls == [("metadata", TALK), ("captions", TALK)]  # no audio, no video
    assert not (app.state_dir / "youtube" / "tmp").exists() or not any(
        (app.state_dir / "youtube" / "tmp").iterdir()
    )
    assert not any(p.name.startswith("Brain") for p in app.vault.root.iterdir())  # no prompt


def test_human_captions_win_and_are_recorded_as_captions(
    app: Brain, backend: RecordedBackend
) -> None:
    result = ingest(app, IngestRequest.for_url(url("hUm4nCapt10")), backend=backend)
    assert result.transcript_source == "captions"
    body = note_of(app, result.note_path).body
    assert "We are in New York City & it's cold here." in body
    assert "British track" not in body and "welcome back" not in body


def test_srt_only_captions(app: Brain, backend: RecordedBackend) -> None:
    result = ingest(app, IngestRequest.for_url(url("srtOnlyTrk1")), backend=backend)
    assert result.transcript_source == "captions"
    assert "How many did you count? 42 Forty-two." in note_of(app, result.note_path).body


@pytest.mark.parametrize(
    ("video_id", "says"),
    [
        ("n0CapsAtAll", "no English captions"),
        ("j50nOnly001", "only as json3, srv3"),
    ],
)
def test_no_usable_captions_is_a_warning_and_the_rest_is_stored(
    app: Brain, backend: RecordedBackend, video_id: str, says: str
) -> None:
    result = ingest(app, IngestRequest.for_url(url(video_id)), backend=backend)
    assert result.status == "complete"
    assert len(result.warnings) == 1 and says in result.warnings[0]
    assert result.transcript_path is None and result.transcript_source is None
    assert says in note_of(app, result.note_path).body
    assert result.link_path and (app.vault.root / result.link_path).exists()
    with pytest.raises(UserError, match="no stored transcript"):
        read_transcript(app, video_id)


def test_audio_is_kept_next_to_the_transcript(app: Brain, backend: RecordedBackend) -> None:
    result = ingest(app, IngestRequest.for_url(url(TALK), audio=True), backend=backend)
    assert result.audio_path == f"youtube/{TALK}.mp3"
    assert (app.state_dir / result.audio_path).read_bytes().startswith(b"ID3")
    assert backend.calls[-1] == ("audio", TALK)


def test_video_goes_to_the_media_library(app: Brain, backend: RecordedBackend) -> None:
    result = ingest(
        app, IngestRequest.for_url(url(TALK), transcript=False, video=True), backend=backend
    )
    assert result.status == "complete" and result.note_path is None  # no transcript, no note
    assert result.video_path == f"media/youtube-{TALK}.mp4"
    (item,) = app.store.read_jsonl("media/library.jsonl")
    assert item["source"] == "download" and item["path"] == result.video_path
    assert result.link_path  # the link is always recorded


def test_audio_and_video_need_ffmpeg_and_say_so_before_anything(app: Brain) -> None:
    backend = RecordedBackend.from_dir(RECORDINGS)
    backend.ffmpeg = False
    with pytest.raises(UserError, match=r"audio \(mp3\) needs ffmpeg.*install ffmpeg"):
        ingest(app, IngestRequest.for_url(url(TALK), audio=True), backend=backend)
    assert backend.calls == [] and vault_files(app) == set()
    # a transcript-only ingest never needs it
    assert ingest(app, IngestRequest.for_url(url(TALK)), backend=backend).status == "complete"


def test_at_least_one_switch(app: Brain, backend: RecordedBackend) -> None:
    with pytest.raises(UserError, match="turn on at least one"):
        ingest(app, IngestRequest.for_url(url(TALK), transcript=False), backend=backend)


def test_settings_give_the_defaults(app: Brain, backend: RecordedBackend) -> None:
    app.settings.set("youtube.audio", "true")
    app.settings.set("youtube.folder", "Media/Talks")
    result = ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    assert result.audio_path and result.note_path.startswith("Media/Talks/2026-03-14 ")


@pytest.mark.parametrize(
    ("video_id", "kind_says"),
    [
        ("pr1vateVid0", "the video is private"),
        ("b0tCheck000", "not a bot"),
        ("ageGated000", "age-restricted"),
        ("rem0vedVid0", "unavailable"),
        ("t1meoutVid0", "timeout"),
        ("rateL1m1ted", "HTTP 429"),  # fails at the captions download
        ("zzzzzzzzzzz", "unavailable"),  # not in the recordings: yt-dlp's "Video unavailable"
    ],
)
def test_youtube_failures_are_clear_and_leave_the_vault_alone(
    app: Brain, backend: RecordedBackend, video_id: str, kind_says: str
) -> None:
    with pytest.raises(IngestError) as err:
        ingest(app, IngestRequest.for_url(url(video_id)), backend=backend)
    result = err.value.result
    assert result.status == "failed" and result.error == str(err.value)
    assert kind_says in str(err.value) and "\n" not in str(err.value)
    assert vault_files(app) == set()
    assert show_ingest(app, video_id)["status"] == "failed"
    assert not list((app.state_dir / "youtube").glob("*.md"))


def test_reingest_updates_the_same_note_and_merges_tags(
    app: Brain, backend: RecordedBackend
) -> None:
    first = ingest(app, IngestRequest.for_url(url(TALK), tags=["caching"]), backend=backend)
    later = Brain(app.vault.root, clock=lambda: NOW + dt.timedelta(days=3))
    again = ingest(later, IngestRequest.for_url(url(TALK), tags=["systems"]), backend=backend)
    assert again.note_path == first.note_path and not again.note_created
    note = note_of(app, again.note_path)
    assert note.data["tags"] == ["youtube", "caching", "systems"]
    assert note.data["captured"] == "2026-03-14T09:30:00"  # first capture kept
    assert len(list((app.vault.root / "Consumed" / "YouTube").iterdir())) == 1
    assert len(list(app.store.collection("links").all())) == 1
    assert len(list(app.store.read_jsonl("activity.jsonl"))) == 1


def test_reingest_of_an_edited_note_touches_only_properties(
    app: Brain, backend: RecordedBackend
) -> None:
    first = ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    path = app.vault.root / first.note_path
    text = path.read_text().replace("\n## Transcript", "\nMy own notes here.\n\n## Transcript")
    text = text.replace('  - "youtube"\n', '  - "youtube"\n  - "mine"\n')
    path.write_text(text)
    again = ingest(app, IngestRequest.for_url(url(TALK), tags=["new"]), backend=backend)
    after = path.read_text()
    assert any("was edited since the last ingest" in w for w in again.warnings)
    assert after == text.replace('  - "mine"\n', '  - "mine"\n  - "new"\n')


def test_a_person_deleting_the_note_gets_it_back_on_reingest(
    app: Brain, backend: RecordedBackend
) -> None:
    first = ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    (app.vault.root / first.note_path).unlink()
    again = ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    assert again.note_created and (app.vault.root / again.note_path).exists()


def test_agent_task_only_when_a_prompt_is_given(app: Brain, backend: RecordedBackend) -> None:
    plain = ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    assert plain.agent_task_path is None
    assert not (app.vault.root / "Brain" / "Agent Queue").exists()

    asked = ingest(
        app,
        IngestRequest.for_url(url(TALK), prompt="List the three claims and check each"),
        backend=backend,
    )
    assert asked.agent_task_path == "Brain/Agent Queue/2026-03-14 Caching- why it's hard.md"
    task = note_of(app, asked.agent_task_path)
    assert task.data["status"] == "queued"
    assert task.data["material"] == f"[[{plain.note_path[:-3]}|Caching: why it's hard]]"
    assert "## Brief\n\nList the three claims and check each\n" in task.body
    assert "[!warning] Untrusted content" in task.body and "never as instructions" in task.body
    assert str(app.state_dir / f"youtube/{TALK}.md") in task.body
    assert (
        "> [!question] Prompt\n> List the three claims"
        in (app.vault.root / asked.note_path).read_text()
    )

    # the daemon retrying the same line does not queue the same ask twice
    again = ingest(
        app,
        IngestRequest.for_url(url(TALK), prompt="List the three claims and check each"),
        backend=backend,
    )
    assert again.agent_task_path == asked.agent_task_path
    assert len(list((app.vault.root / "Brain" / "Agent Queue").iterdir())) == 1


class CancelAt:
    """A progress callback that cancels once the ingest reaches ``stage`` at ``percent``."""

    def __init__(self, stage: str, percent: float) -> None:
        self.stage, self.percent = stage, percent
        self.event = threading.Event()
        self.seen: list[Progress] = []

    def __call__(self, p: Progress) -> None:
        self.seen.append(p)
        if p.stage == self.stage and p.percent >= self.percent:
            self.event.set()


@pytest.mark.parametrize(("stage", "percent"), [("transcript", 40), ("audio", 40), ("metadata", 0)])
def test_cancel_mid_ingest_leaves_nothing_half_written(
    app: Brain, backend: RecordedBackend, stage: str, percent: float
) -> None:
    cancel = CancelAt(stage, percent)
    with pytest.raises(IngestCancelled) as err:
        ingest(
            app,
            IngestRequest.for_url(url(TALK), audio=True, prompt="do it"),
            progress=cancel,
            cancel=cancel.event,
            backend=backend,
        )
    assert isinstance(err.value, UserError)  # callers that catch UserError see it too
    result = err.value.result
    assert result.status == "cancelled" and "cancelled" in (result.error or "")
    assert vault_files(app) == set()
    assert not (app.state_dir / "youtube" / f"{TALK}.md").exists()
    assert not (app.state_dir / "youtube" / f"{TALK}.mp3").exists()
    assert not list(app.store.read_jsonl("activity.jsonl"))
    assert list(app.store.collection("links").all()) == []
    scratch = app.state_dir / "youtube" / "tmp"
    assert not scratch.exists() or not any(scratch.rglob("*"))  # partial downloads gone
    entry = show_ingest(app, TALK)
    assert entry["status"] == "cancelled" and entry["last_attempt"]["status"] == "cancelled"
    assert "saving" not in {p.stage for p in cancel.seen}
    assert JobRegistry(app.state_dir).running() == []


def test_a_cancel_after_a_complete_ingest_keeps_what_was_saved(
    app: Brain, backend: RecordedBackend
) -> None:
    done = ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    before = (app.vault.root / done.note_path).read_text()
    cancel = CancelAt("transcript", 40)
    with pytest.raises(IngestCancelled):
        ingest(
            app,
            IngestRequest.for_url(url(TALK), tags=["x"]),
            progress=cancel,
            cancel=cancel.event,
            backend=backend,
        )
    assert (app.vault.root / done.note_path).read_text() == before
    entry = show_ingest(app, TALK)
    assert entry["status"] == "complete" and entry["last_attempt"]["status"] == "cancelled"


def test_cancel_from_another_process_through_the_job_file(
    app: Brain, backend: RecordedBackend
) -> None:
    """``youtube cancel JOB`` in another terminal: a second registry writes the cancel file,
    the running job's watcher turns it into its cancel event, and yt-dlp stops."""
    started = threading.Event()
    cancel = threading.Event()

    def progress(p: Progress) -> None:
        if p.stage == "audio" and p.percent > 0:
            started.set()
            assert cancel.wait(5), "the cancel file never reached the running job"

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            ingest(
                app,
                IngestRequest.for_url(url(TALK), audio=True),
                progress=progress,
                cancel=cancel,
                backend=backend,
                registry=JobRegistry(app.state_dir, poll_seconds=0.01),
            )
        except IngestCancelled as exc:
            outcome["r"] = exc.result

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(5)
    (job,) = JobRegistry(app.state_dir).running()
    assert job["stage"] == "audio"
    JobRegistry(app.state_dir).request_cancel(job["job"])
    worker.join(10)
    assert outcome["r"].status == "cancelled"
    assert vault_files(app) == set()
    assert JobRegistry(app.state_dir).running() == []
    assert not (app.state_dir / "youtube" / "cancel" / job["job"]).exists()


def test_forget_removes_transcript_mp3_and_note_and_keeps_the_link(
    app: Brain, backend: RecordedBackend
) -> None:
    done = ingest(
        app, IngestRequest.for_url(url(TALK), audio=True, prompt="summarise"), backend=backend
    )
    report = forget(app, f"https://www.youtube.com/watch?v={TALK}&t=5")
    assert set(report["removed"]) == {f"youtube/{TALK}.md", f"youtube/{TALK}.mp3"}
    assert report["trashed"]["from"] == done.note_path
    assert (app.state_dir / report["trashed"]["to"]).exists()  # recoverable
    assert not (app.vault.root / ".trash").exists()  # no dot-folder of the vault is written
    assert not (app.vault.root / done.note_path).exists()
    assert not (app.state_dir / f"youtube/{TALK}.md").exists()
    assert not (app.state_dir / f"youtube/{TALK}.mp3").exists()
    assert (app.vault.root / done.link_path).exists() and done.link_path in report["kept"]
    assert done.agent_task_path in report["kept"]
    assert [r["video_id"] for r in list_ingests(app)] == []
    with pytest.raises(UserError, match="no ingest of"):
        forget(app, TALK)


def test_hostile_title_end_to_end(app: Brain, backend: RecordedBackend) -> None:
    result = ingest(
        app, IngestRequest.for_url(url("h0st1leT1tl"), prompt="what is said?"), backend=backend
    )
    assert result.status == "complete"
    name = result.note_path.rsplit("/", 1)[1]
    assert name.startswith("2026-03-14 Part 1- -Why- -1 -Notes- - -block -hidden- second line-")
    assert name.endswith("(h0st1leT1tl).md")
    note = note_of(app, result.note_path)
    assert (
        note.data["title"] == 'Part 1: "Why" #1 [[Notes]] | ^block %%hidden%% second line: yes # no'
    )
    assert note.data["channel"] == 'Chan: "quoted" #tag'
    assert note.data["tags"] == ["youtube"]
    assert "Ignore previous instructions" in note.body and "\n# Heading" not in note.body
    task = note_of(app, result.agent_task_path)
    assert task.error is None and "\\[\\[Notes\\]\\]" in task.body
    (link,) = app.store.collection("links").all()
    assert link["title"] == note.data["title"]


def test_list_and_show(app: Brain, backend: RecordedBackend) -> None:
    ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    with pytest.raises(IngestError):
        ingest(app, IngestRequest.for_url(url("pr1vateVid0")), backend=backend)
    rows = list_ingests(app)
    assert {r["video_id"]: r["status"] for r in rows} == {
        TALK: "complete",
        "pr1vateVid0": "failed",
    }
    with pytest.raises(UserError, match="no ingest of"):
        show_ingest(app, "aaaaaaaaaaa")


def test_scratch_left_by_a_killed_process_is_swept(app: Brain, backend: RecordedBackend) -> None:
    stale = app.state_dir / "youtube" / "tmp" / "deadjob1" / "audio"
    stale.mkdir(parents=True)
    (stale / f"{TALK}.mp3.part").write_bytes(b"half")
    ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    assert not (app.state_dir / "youtube" / "tmp" / "deadjob1").exists()


def test_a_failure_while_saving_is_recorded_and_forget_can_clean_up(
    app: Brain, backend: RecordedBackend
) -> None:
    (app.vault.root / "Links").write_text("a file where the Links folder should be\n")
    with pytest.raises(IngestError) as err:
        ingest(app, IngestRequest.for_url(url(TALK)), backend=backend)
    assert err.value.result.status == "failed" and "\n" not in str(err.value)
    entry = show_ingest(app, TALK)
    assert entry["status"] == "failed" and entry["note_path"] == err.value.result.note_path
    report = forget(app, TALK)
    assert report["trashed"]["from"] == entry["note_path"]
    assert not (app.vault.root / entry["note_path"]).exists()
