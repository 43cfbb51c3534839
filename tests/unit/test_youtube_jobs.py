"""Ingest jobs: progress by stage, and cancel from this process or another."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from vaultbrain.errors import UserError
from vaultbrain.youtube.jobs import JobRegistry, Progress

STAGES = ("metadata", "transcript", "audio", "saving")


def test_progress_by_stage_adds_up_to_the_whole_job(tmp_path: Path) -> None:
    seen: list[Progress] = []
    registry = JobRegistry(tmp_path)
    job = registry.start("abcdefghijk", "u", STAGES, callback=seen.append)
    for stage in STAGES:
        job.report(stage, 0)
        job.report(stage, 50)
        job.report(stage, 100)
    overall = [p.overall for p in seen]
    assert overall == sorted(overall) and overall[0] == 0 and overall[-1] == 100
    assert {p.stage for p in seen} == set(STAGES)
    assert str(seen[1]).startswith(f"youtube job {job.id} (abcdefghijk): metadata 50%")
    registry.finish(job)


def test_a_running_job_is_visible_to_another_registry_until_it_ends(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path)
    job = registry.start("abcdefghijk", "u", STAGES)
    job.report("transcript", 40)
    other = JobRegistry(tmp_path)  # as another process sees it: through the files
    (seen,) = other.running()
    assert (seen["job"], seen["video_id"], seen["stage"]) == (job.id, "abcdefghijk", "transcript")
    assert other.find("abcdefghijk")["job"] == job.id
    registry.finish(job)
    assert other.running() == [] and other.wait(job.id, 0.1)


def test_cancel_through_the_file_sets_the_jobs_event(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path, poll_seconds=0.01)
    job = registry.start("abcdefghijk", "u", STAGES)
    other = JobRegistry(tmp_path)
    found = other.request_cancel(job.id)
    assert found["job"] == job.id
    assert (tmp_path / "youtube" / "cancel" / job.id).exists()
    assert job.cancel.wait(5), "the watcher never saw the cancel file"
    registry.finish(job)
    assert not (tmp_path / "youtube" / "cancel" / job.id).exists()


def test_cancel_in_process_sets_the_event_directly(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path)
    event = threading.Event()
    job = registry.start("abcdefghijk", "u", STAGES, cancel=event)
    registry.request_cancel("abcdefghijk")  # by video id
    assert event.is_set() and job.cancel is event
    registry.finish(job)


def test_one_ingest_per_video_at_a_time(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path)
    job = registry.start("abcdefghijk", "u", STAGES)
    with pytest.raises(UserError, match="already running"):
        JobRegistry(tmp_path).start("abcdefghijk", "u", STAGES)
    registry.finish(job)
    registry.finish(registry.start("abcdefghijk", "u", STAGES))


def test_unknown_and_stale_jobs(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path)
    with pytest.raises(UserError, match="no running YouTube ingest 'nope'"):
        registry.request_cancel("nope")
    stale = tmp_path / "youtube" / "jobs" / "deadbeef.json"
    stale.parent.mkdir(parents=True)
    stale.write_text(json.dumps({"job": "deadbeef", "video_id": "x", "pid": 2**22 + 12345}))
    assert registry.running() == []
    assert not stale.exists()  # a job whose process is gone is cleaned away


def test_progress_logger_logs_stages_and_quarters(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from vaultbrain.youtube import progress_logger

    log = progress_logger(logging.getLogger("test.youtube"))
    with caplog.at_level(logging.INFO, logger="test.youtube"):
        for pct in (0, 5, 30, 40, 60, 100):
            log(Progress("j1", "abcdefghijk", "audio", pct, pct / 2))
        log(Progress("j1", "abcdefghijk", "saving", 0, 90))
    assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [
        "audio 0% (overall 0%)",
        "audio 30% (overall 15%)",
        "audio 60% (overall 30%)",
        "audio 100% (overall 50%)",
        "saving 0% (overall 90%)",
    ]


def test_a_cancel_left_after_its_job_ended_is_cleaned(tmp_path: Path) -> None:
    registry = JobRegistry(tmp_path)
    flag = tmp_path / "youtube" / "cancel" / "gonejob1"
    flag.parent.mkdir(parents=True)
    flag.write_text("cancel\n")
    registry.running()
    assert flag.exists()  # fresh: its job may have started after the listing
    os.utime(flag, (time.time() - 60, time.time() - 60))
    registry.running()
    assert not flag.exists()
