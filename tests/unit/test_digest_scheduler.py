"""The scheduler's decisions with an injected clock: catch-up, coalescing, retry, no overlap.

The provider is set to ``heuristic`` so runs do not wait on an LLM; what runs is the real
digest and review code writing real notes into a temp vault.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from vaultbrain.brain import Brain
from vaultbrain.digest.lock import BusyError, run_lock
from vaultbrain.digest.runs import run_digest
from vaultbrain.digest.scheduler import Scheduler


class Clock:
    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def set(self, *args: int) -> None:
        self.now = dt.datetime(*args)


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime(2026, 11, 30, 10, 0))  # Monday morning


@pytest.fixture
def app(vault: Path, clock: Clock) -> Brain:
    app = Brain(vault, clock=clock)
    app.settings.set("provider", "heuristic")
    return app


def history(app: Brain, name: str = "digests.jsonl") -> list[dict]:
    return list(app.store.read_jsonl(name))


def test_first_start_runs_nothing_then_each_time_once(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    assert sched.run_due() == []  # a fresh install does not fire for times already past
    clock.set(2026, 11, 30, 17, 59)
    assert sched.run_due() == []
    clock.set(2026, 11, 30, 18, 0)
    assert sched.run_due() == ["digest"]
    assert (app.vault.root / "Brain/Digests/2026-11-30.md").is_file()
    clock.set(2026, 11, 30, 18, 5)
    assert sched.run_due() == []
    assert len(history(app)) == 1


def test_missed_runs_are_caught_up_once_on_start(app: Brain, clock: Clock) -> None:
    Scheduler(app, clock).run_due()  # the daemon ran on Monday morning, then the laptop slept
    clock.set(2026, 12, 3, 8, 0)  # Thursday morning: 18:00 on Mon, Tue and Wed were missed
    sched = Scheduler(app, clock)  # a new process: everything it knows is in meta.json
    assert sched.run_due() == ["digest", "tend"]  # tend's 03:00 was missed too: once
    runs = history(app)
    assert [r["date"] for r in runs] == ["2026-12-02"]  # coalesced: the latest missed day
    assert runs[0]["trigger"] == "schedule"
    assert runs[0]["generated"] == "2026-12-03T08:00:00"
    assert sched.run_due() == []
    clock.set(2026, 12, 3, 18, 0)
    assert sched.run_due() == ["digest"]
    assert [r["date"] for r in history(app)] == ["2026-12-02", "2026-12-03"]


def test_weekly_review_fires_on_sunday_and_names_the_iso_week(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    sched.run_due()
    clock.set(2026, 12, 6, 9, 0)  # Sunday 09:00 (the Saturday and Sunday digests are due too)
    assert sched.run_due() == ["digest", "review", "tend"]
    reviews = history(app, "reviews.jsonl")
    assert [(r["week"], r["date"]) for r in reviews] == [("2026-W49", "2026-12-06")]
    assert (app.vault.root / "Brain/Reviews/2026-W49.md").is_file()


def test_jobs_lists_name_cron_last_and_next_run_in_local_time(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    jobs = {j["name"]: j for j in sched.jobs()}
    assert set(jobs) == {"digest", "review", "tend"}
    assert jobs["digest"]["cron"] == "0 18 * * *" and jobs["digest"]["last_run"] is None
    nxt = dt.datetime.fromisoformat(jobs["review"]["next_run"])
    assert nxt.tzinfo is not None  # ISO 8601 with the local offset
    assert nxt.replace(tzinfo=None) == dt.datetime(2026, 12, 6, 9, 0)
    assert nxt.weekday() == 6
    sched.run_due()
    assert jobs["digest"]["due"] is False
    clock.set(2026, 11, 30, 18, 30)
    assert {j["name"]: j["due"] for j in sched.jobs()}["digest"] is True
    sched.run_due()
    digest = {j["name"]: j for j in sched.jobs()}["digest"]
    assert dt.datetime.fromisoformat(digest["last_run"]).replace(tzinfo=None) == clock.now
    assert digest["last_status"] == "ok" and digest["due"] is False
    assert dt.datetime.fromisoformat(digest["next_run"]).replace(tzinfo=None) == dt.datetime(
        2026, 12, 1, 18, 0
    )


def test_a_changed_schedule_takes_effect_without_a_restart(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    sched.run_due()
    clock.set(2026, 11, 30, 12, 0)
    # Another process (`vaultbrain settings set`) changes the schedule: a new Settings object.
    Brain(app.vault.root).settings.set("digest_schedule", "30 12 * * mon")
    job = {j["name"]: j for j in sched.jobs()}["digest"]
    assert job["cron"] == "30 12 * * mon"
    assert dt.datetime.fromisoformat(job["next_run"]).replace(tzinfo=None) == dt.datetime(
        2026, 11, 30, 12, 30
    )
    assert sched.run_due() == []  # nothing under the new schedule has passed since it was set
    clock.set(2026, 11, 30, 12, 30)
    assert sched.run_due() == ["digest"]
    clock.set(2026, 11, 30, 18, 0)
    assert sched.run_due() == []  # the old 18:00 is gone


def test_a_failed_run_retries_after_a_cooldown(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock, cooldown=dt.timedelta(minutes=15))
    sched.run_due()
    # A file where the digest folder should be: the run fails for real.
    (app.vault.root / "Brain").mkdir()
    blocker = app.vault.root / "Brain/Digests"
    blocker.write_text("not a folder")
    clock.set(2026, 11, 30, 18, 0)
    assert sched.run_due() == []
    job = {j["name"]: j for j in sched.jobs()}["digest"]
    assert job["last_status"] == "failed" and job["last_error"]
    assert dt.datetime.fromisoformat(job["retry_at"]).replace(tzinfo=None) == dt.datetime(
        2026, 11, 30, 18, 15
    )
    assert job["due"] is False  # cooling down
    clock.set(2026, 11, 30, 18, 10)
    assert sched.run_due() == []
    meta = app.store.read_json("meta.json")
    assert meta["scheduler"]["digest"]["last_attempt"].startswith("2026-11-30T18:00:00")
    blocker.unlink()
    clock.set(2026, 11, 30, 18, 16)
    assert sched.run_due() == ["digest"]
    job = {j["name"]: j for j in sched.jobs()}["digest"]
    assert job["last_status"] == "ok" and job["retry_at"] is None and job["last_error"] is None
    assert [r["date"] for r in history(app)] == ["2026-11-30"]


def test_repeated_failures_back_off(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock, cooldown=dt.timedelta(minutes=10))
    sched.run_due()
    (app.vault.root / "Brain").mkdir()
    (app.vault.root / "Brain/Digests").write_text("not a folder")
    clock.set(2026, 11, 30, 18, 0)
    sched.run_due()
    clock.set(2026, 11, 30, 18, 10)
    sched.run_due()  # second failure: the next wait doubles
    retry = app.store.read_json("meta.json")["scheduler"]["digest"]["retry_at"]
    assert dt.datetime.fromisoformat(retry).replace(tzinfo=None) == dt.datetime(
        2026, 11, 30, 18, 30
    )


def test_meta_json_keeps_other_keys(app: Brain, clock: Clock) -> None:
    app.store.write_json("meta.json", {"daemon": {"pid": 1}})
    Scheduler(app, clock).run_due()
    meta = app.store.read_json("meta.json")
    assert meta["daemon"] == {"pid": 1} and set(meta["scheduler"]) == {
        "digest",
        "review",
        "tend",
    }


def test_no_run_while_another_thread_holds_the_lock(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    sched.run_due()
    clock.set(2026, 11, 30, 18, 0)
    got: list[list[str]] = []
    with run_lock(app.state_dir):
        t = threading.Thread(target=lambda: got.append(sched.run_due()))
        t.start()
        t.join(10)
    assert got == [[]] and history(app) == []
    assert sched.run_due() == ["digest"]  # once the lock is free, the run is still due


def test_no_run_while_another_process_holds_the_lock(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    sched.run_due()
    clock.set(2026, 11, 30, 18, 0)
    lock_path = app.state_dir / "digest.lock"
    code = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(lock_path)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        assert sched.run_due() == []
        with pytest.raises(BusyError):
            run_digest(app, wait=0.2)
    finally:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(10)
    assert sched.run_due() == ["digest"]
    assert len(history(app)) == 1


def test_concurrent_checks_run_a_due_job_once(app: Brain, clock: Clock) -> None:
    Scheduler(app, clock).run_due()
    clock.set(2026, 11, 30, 18, 0)
    scheds = [Scheduler(app, clock) for _ in range(4)]
    results: list[list[str]] = []
    barrier = threading.Barrier(len(scheds))

    def check(s: Scheduler) -> None:
        barrier.wait()
        results.append(s.run_due())

    threads = [threading.Thread(target=check, args=(s,)) for s in scheds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    # Whoever lost the race either found the lock taken or found the job already done.
    assert sorted(map(tuple, results)) == [(), (), (), ("digest",)]
    assert len(history(app)) == 1


def test_the_lock_file_is_released_after_a_run(app: Brain, clock: Clock) -> None:
    run_digest(app)
    fd = os.open(app.state_dir / "digest.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # would raise if still held
    finally:
        os.close(fd)


def test_background_scheduler_catches_up_and_follows_settings(app: Brain, clock: Clock) -> None:
    Scheduler(app, clock).run_due()
    clock.set(2026, 12, 1, 8, 0)  # Monday's 18:00 was missed
    sched = Scheduler(app, clock, tick_seconds=0.2)
    sched.start()
    try:
        deadline = time.monotonic() + 10
        while not history(app) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [r["date"] for r in history(app)] == ["2026-11-30"]
        assert sched.scheduled()["digest"]["cron"] == "0 18 * * *"
        Brain(app.vault.root).settings.set("digest_schedule", "15 7 * * 1-5")
        deadline = time.monotonic() + 10
        while sched.scheduled()["digest"]["cron"] != "15 7 * * 1-5":
            assert time.monotonic() < deadline, "the new schedule was not picked up"
            time.sleep(0.05)
        # The APScheduler job itself was rescheduled: it wakes at 07:15 on a weekday.
        wake = sched.scheduled()["digest"]["next_run"]
        assert wake is not None
        wake_at = dt.datetime.fromisoformat(wake)
        assert (wake_at.hour, wake_at.minute) == (7, 15) and wake_at.weekday() < 5
        time.sleep(0.5)
        assert len(history(app)) == 1  # ticks keep checking but nothing else is due
    finally:
        sched.shutdown()
    assert not sched.running


def test_a_missed_night_runs_tend_once_for_its_day(app: Brain, clock: Clock) -> None:
    sched = Scheduler(app, clock)
    sched.run_due()
    clock.set(2026, 12, 3, 8, 0)  # three nights at 03:00 missed while the laptop slept
    assert "tend" in sched.run_due()
    runs = history(app, "tend.jsonl")
    assert [(r["date"], r["trigger"]) for r in runs] == [("2026-12-03", "schedule")]
    assert (app.vault.root / "Brain/Tending/2026-12-03.md").is_file()
    clock.set(2026, 12, 3, 18, 0)
    assert "tend" not in sched.run_due()
    clock.set(2026, 12, 4, 3, 0)
    assert sched.run_due() == ["tend"]
    assert [r["date"] for r in history(app, "tend.jsonl")] == ["2026-12-03", "2026-12-04"]
