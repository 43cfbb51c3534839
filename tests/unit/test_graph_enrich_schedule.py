"""enrich on a schedule: the setting ``enrich_schedule`` (empty = off, else a cron string checked
like the digest's), run by the digest scheduler (vaultbrain/digest/scheduler.py) with an
injected clock on a temp vault."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from support.cli import frontmatter, run

from vaultbrain.brain import Brain
from vaultbrain.digest.scheduler import Scheduler
from vaultbrain.errors import UserError


class Clock:
    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime(2026, 11, 30, 10, 0))


@pytest.fixture
def brain(vault: Path, clock: Clock) -> Brain:
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    run(vault, "db", "add", "person", "--set", "name=Sarah")  # a note vaultbrain made
    (vault / "People/Hand Made.md").write_text("---\nname: Hand Made\n---\nhand@example.com\n")
    (vault / "Meetings").mkdir(exist_ok=True)
    (vault / "Meetings/Seed swap.md").write_text(
        "---\ntype: meeting\ntitle: Seed swap\ndate: 2026-11-20\n"
        'attendees:\n  - "[[People/Sarah|Sarah]]"\n---\n'
        "Write to Sarah at sarah@example.com about the seeds.\n"
    )
    run(vault, "reindex")
    b = Brain(vault, clock=clock)
    b.settings.set("provider", "heuristic")  # the digest that runs beside it asks no LLM
    return b


def test_enrich_is_off_by_default(brain: Brain, clock: Clock) -> None:
    """The enrich job alone is off; the nightly tend cycle (on by default) enriches as one of
    its phases, so it is turned off here to see the job by itself."""
    assert brain.settings.get("enrich_schedule") == ""
    brain.settings.set("tend_schedule", "")
    sched = Scheduler(brain, clock)
    assert "enrich" not in {j["name"] for j in sched.jobs()}
    sched.run_due()
    clock.now = dt.datetime(2026, 12, 5, 3, 0)
    assert "enrich" not in sched.run_due()
    assert "contact" not in frontmatter(brain.vault.root / "People/Sarah.md")


@pytest.mark.parametrize(
    ("value", "stored"),
    [("0 3 * * *", "0 3 * * *"), ("", ""), ("   ", ""), ("60 3 * * *", None), ("daily", None)],
)
def test_the_setting_is_checked_like_the_digest_schedule(
    brain: Brain, value: str, stored: str | None
) -> None:
    if stored is None:
        with pytest.raises(UserError, match="enrich_schedule"):
            brain.settings.set("enrich_schedule", value)
    else:
        assert brain.settings.set("enrich_schedule", value) == stored


def test_a_scheduled_enrich_fills_empty_fields_once_per_fire(brain: Brain, clock: Clock) -> None:
    brain.settings.set("enrich_schedule", "0 3 * * *")
    sched = Scheduler(brain, clock)
    job = {j["name"]: j for j in sched.jobs()}["enrich"]
    assert job["cron"] == "0 3 * * *" and job["setting"] == "enrich_schedule"
    assert "enrich" not in sched.run_due()  # a new schedule counts from now
    clock.now = dt.datetime(2026, 12, 1, 3, 0)
    assert "enrich" in sched.run_due()
    fm = frontmatter(brain.vault.root / "People/Sarah.md")
    assert fm["contact"] == "sarah@example.com"
    assert "contact" not in frontmatter(brain.vault.root / "People/Hand Made.md")  # the person's
    assert "enrich" not in sched.run_due()  # once per fire time
    state = {j["name"]: j for j in sched.jobs()}["enrich"]
    assert state["last_status"] == "ok" and state["last_run"] is not None
    brain.settings.set("enrich_schedule", "")  # off again: no longer listed nor run
    clock.now = dt.datetime(2026, 12, 2, 3, 0)
    assert "enrich" not in sched.run_due()
    assert "enrich" not in {j["name"] for j in sched.jobs()}
