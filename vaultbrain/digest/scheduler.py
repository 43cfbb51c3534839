"""The daily digest and weekly review on their cron schedules, inside the daemon, and the
graph's ``enrich`` when ``enrich_schedule`` is set (off while it is empty).

What is due is decided from state kept in the state dir's ``meta.json`` (key ``scheduler``),
not from APScheduler's memory, so a run missed while the machine was off or asleep is found
on the next start or tick and run once (coalesced: only the latest missed time counts, and
the digest it writes is that time's day). Per job the state holds the cron expression it was
last seen with, ``since`` (when that expression was first seen: earlier fire times do not
count, so a new install or a changed schedule does not fire at once), the fire time of the
last successful run, and after a failure a ``retry_at`` cooldown that doubles with each
failure.

APScheduler 3's ``BackgroundScheduler`` wakes the jobs at their cron times, and a short
interval tick re-reads the settings (``settings set digest_schedule …`` takes effect without
a restart), reschedules what changed and catches up after a sleep. Every wake-up goes
through :meth:`Scheduler.run_due` under the run lock, which re-checks the state, so a cron
wake-up and a tick, or the daemon and ``daemon --once``, never run the same job twice.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from vaultbrain.cron import CronExpr
from vaultbrain.errors import UserError, VaultbrainError

from .lock import BusyError, run_lock
from .runs import run_digest, run_review

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger(__name__)

META = "meta.json"
META_KEY = "scheduler"
TICK_SECONDS = 30.0
RETRY_COOLDOWN = dt.timedelta(minutes=15)
MAX_COOLDOWN = dt.timedelta(hours=6)


@dataclass(frozen=True)
class JobSpec:
    name: str
    setting: str
    run: Callable[..., dict[str, Any]]
    # An optional job is off while its setting is empty: not scheduled, not listed, no warning.
    optional: bool = False


def _run_enrich(brain: Brain, day: dt.date, **kw: Any) -> dict[str, Any]:
    from vaultbrain.filing.index import made_by_vaultbrain
    from vaultbrain.filing.sync import notes_sync
    from vaultbrain.graph.enrich import run_enrich  # the graph index: only when scheduled

    done = run_enrich(brain, day, ours=made_by_vaultbrain(brain), **kw)
    for rel in done["notes"]:
        notes_sync(brain).sync_path(rel)  # the record follows its note
    return done


def _run_tend(brain: Brain, day: dt.date, **kw: Any) -> dict[str, Any]:
    from vaultbrain.tend.cycle import run_tend  # (the tending cycle: only when scheduled)

    # (run_due holds the run lock: the cycle needs no wait of its own)
    return run_tend(brain, day, now=kw.get("now"), trigger=kw.get("trigger", "schedule"))


JOBS: tuple[JobSpec, ...] = (
    JobSpec("digest", "digest_schedule", run_digest),
    JobSpec("review", "review_schedule", run_review),
    JobSpec("enrich", "enrich_schedule", _run_enrich, optional=True),
    JobSpec("tend", "tend_schedule", _run_tend, optional=True),
)


def _local_zone() -> dt.tzinfo:
    import tzlocal

    return tzlocal.get_localzone()


class Scheduler:
    """The digest and review jobs of one app (one vault and state dir)."""

    def __init__(
        self,
        app: Brain,
        clock: Callable[[], dt.datetime] | None = None,
        *,
        tz: dt.tzinfo | None = None,
        tick_seconds: float = TICK_SECONDS,
        cooldown: dt.timedelta = RETRY_COOLDOWN,
    ) -> None:
        self.app = app
        self.clock = clock or app.now
        self.tz = tz or _local_zone()
        self.tick_seconds = tick_seconds
        self.cooldown = cooldown
        self._aps: BackgroundScheduler | None = None
        self._scheduled: dict[str, str | None] = {}
        self._warned: dict[str, str | None] = {}
        self._guard = threading.Lock()

    # -- time ---------------------------------------------------------------------------------
    def _aware(self, when: dt.datetime) -> dt.datetime:
        if when.tzinfo is None:
            return when.replace(tzinfo=self.tz)
        return when.astimezone(self.tz)

    def _now(self) -> dt.datetime:
        return self._aware(self.clock())

    def _iso(self, when: dt.datetime | None) -> str | None:
        return None if when is None else self._aware(when).isoformat()

    def _parse(self, value: Any) -> dt.datetime | None:
        if not isinstance(value, str) or not value:
            return None
        try:
            return self._aware(dt.datetime.fromisoformat(value))
        except ValueError:
            return None

    # -- state --------------------------------------------------------------------------------
    def _states(self) -> dict[str, dict[str, Any]]:
        meta = self.app.store.read_json(META, {})
        states = meta.get(META_KEY) if isinstance(meta, dict) else None
        return {k: v for k, v in (states or {}).items() if isinstance(v, dict)}

    def _save(self, name: str, state: dict[str, Any]) -> None:
        store = self.app.store
        with store.locked():  # meta.json is shared: read-modify-write under the store lock
            meta = store.read_json(META, {})
            if not isinstance(meta, dict):
                meta = {}
            states = meta.get(META_KEY)
            if not isinstance(states, dict):
                states = meta[META_KEY] = {}
            states[name] = state
            store.write_json(META, meta)

    def _cron_text(self, spec: JobSpec) -> str:
        return str(self.app.settings.get(spec.setting) or "")

    def _off(self, spec: JobSpec) -> bool:
        return spec.optional and not self._cron_text(spec).strip()

    def _observe(
        self, spec: JobSpec, now: dt.datetime, *, record: bool
    ) -> tuple[dict[str, Any], CronExpr | None, str | None]:
        """The job's state, its parsed schedule (or the error), noting a new schedule."""
        state = dict(self._states().get(spec.name, {}))
        text = self._cron_text(spec)
        try:
            expr = CronExpr.parse(text)
        except UserError as exc:
            return state, None, f"{spec.setting}: {exc}"
        if state.get("cron") != expr.text:
            # A schedule seen for the first time counts from now: neither a fresh install
            # nor `settings set` fires for times that passed under another schedule.
            state["cron"] = expr.text
            state["since"] = self._iso(now)
            if record:
                self._save(spec.name, state)
        return state, expr, None

    def _due_fire(
        self, state: dict[str, Any], expr: CronExpr, now: dt.datetime
    ) -> dt.datetime | None:
        """The latest fire time that has not been run yet, or None when nothing is due."""
        anchors = [self._parse(state.get(k)) for k in ("since", "last_fire")]
        known = [a for a in anchors if a is not None]
        if not known:
            return None
        fire = expr.last_between(max(known), now, self.tz)
        if fire is None:
            return None
        retry_at = self._parse(state.get("retry_at"))
        failed_fire = self._parse(state.get("attempt_fire"))
        if retry_at is not None and now < retry_at and failed_fire is not None:
            if fire <= failed_fire:
                return None  # cooling down after a failure of this very occurrence
        return fire

    # -- running ------------------------------------------------------------------------------
    def run_due(self, now: dt.datetime | None = None) -> list[str]:
        """Run every job that is due or was missed, once each; the names of those that ran.

        A job that fails is not in the list: its error and ``retry_at`` are in :meth:`jobs`.
        Returns at once with nothing when another run holds the lock.
        """
        fixed = self._aware(now) if now is not None else None
        ran: list[str] = []
        try:
            with run_lock(self.app.state_dir, 0):
                self.app.settings.reload()
                for spec in JOBS:
                    if self._off(spec):
                        continue
                    # Each job reads the clock when it starts: the one before may have waited
                    # a minute on the LLM.
                    if self._run_one(spec, fixed or self._now()):
                        ran.append(spec.name)
        except BusyError:
            log.debug("a digest or review is already being written; checking again later")
        return ran

    def _run_one(self, spec: JobSpec, now: dt.datetime) -> bool:
        state, expr, error = self._observe(spec, now, record=True)
        if expr is None:
            if self._warned.get(spec.name) != error:  # once per bad value, not every tick
                self._warned[spec.name] = error
                log.warning("%s is not scheduled: %s", spec.name, error)
            return False
        self._warned.pop(spec.name, None)
        fire = self._due_fire(state, expr, now)
        if fire is None:
            return False
        local_now = now.astimezone(self.tz).replace(tzinfo=None, microsecond=0)
        day = fire.astimezone(self.tz).date()
        log.info("running %s for %s (scheduled %s)", spec.name, day, fire.isoformat())
        try:
            spec.run(self.app, day, now=local_now, trigger="schedule", wait=0)
        except Exception as exc:  # one failed run must never stop the daemon's scheduler
            failures = int(state.get("failures") or 0) + 1
            delay = min(self.cooldown * (2 ** (failures - 1)), MAX_COOLDOWN)
            state.update(
                last_status="failed",
                last_error=str(exc) or type(exc).__name__,
                last_attempt=self._iso(now),
                attempt_fire=self._iso(fire),
                failures=failures,
                retry_at=self._iso(now + delay),
            )
            self._save(spec.name, state)
            log.warning(
                "%s failed (%s); retrying after %s",
                spec.name,
                exc,
                delay,
                exc_info=not isinstance(exc, UserError),
            )
            return False
        state.update(
            last_status="ok",
            last_error=None,
            last_attempt=self._iso(now),
            last_run=self._iso(now),
            last_fire=self._iso(fire),
            attempt_fire=None,
            failures=0,
            retry_at=None,
        )
        self._save(spec.name, state)
        return True

    # -- listing ------------------------------------------------------------------------------
    def jobs(self) -> list[dict[str, Any]]:
        """Each job: name, cron, last_run, next_run (ISO 8601, local time) and its status."""
        now = self._now()
        self.app.settings.reload()
        out = []
        for spec in JOBS:
            if self._off(spec):
                continue
            state, expr, error = self._observe(spec, now, record=False)
            next_run = expr.next_after(now, self.tz) if expr is not None else None
            due = expr is not None and self._due_fire(state, expr, now) is not None
            out.append(
                {
                    "name": spec.name,
                    "cron": expr.text if expr is not None else self._cron_text(spec),
                    "description": expr.describe() if expr is not None else None,
                    "setting": spec.setting,
                    "last_run": self._iso(self._parse(state.get("last_run"))),
                    "next_run": self._iso(next_run),
                    "due": due,
                    "last_status": state.get("last_status"),
                    "last_error": state.get("last_error") if expr is not None else error,
                    "retry_at": self._iso(self._parse(state.get("retry_at"))),
                }
            )
        return out

    # -- inside the daemon --------------------------------------------------------------------
    def start(self) -> None:
        """Start APScheduler's background thread; missed runs are caught up at once."""
        with self._guard:
            if self._aps is not None:
                return
            aps = BackgroundScheduler(
                timezone=self.tz,
                executors={"default": ThreadPoolExecutor(2)},
                job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
            )
            self._aps = aps
            self._reschedule()
            aps.add_job(
                self._wake,
                IntervalTrigger(seconds=self.tick_seconds, timezone=self.tz),
                id="tick",
                name="settings and catch-up",
                # A second tick during a long run finds the lock taken and returns at once,
                # instead of APScheduler warning every tick that an instance is still running.
                max_instances=2,
                next_run_time=dt.datetime.now(self.tz),
            )
            aps.start()

    def shutdown(self, wait: bool = True) -> None:
        """Stop the background thread; ``wait`` lets a run in progress finish its note."""
        with self._guard:
            aps, self._aps = self._aps, None
            self._scheduled.clear()
        if aps is not None:
            aps.shutdown(wait=wait)

    @property
    def running(self) -> bool:
        return self._aps is not None

    def scheduled(self) -> dict[str, dict[str, str | None]]:
        """What APScheduler holds now: each job's cron expression and next wake-up."""
        with self._guard:
            out: dict[str, dict[str, str | None]] = {}
            for name, text in self._scheduled.items():
                job = self._aps.get_job(name) if self._aps is not None else None
                wake = job.next_run_time if job is not None else None
                out[name] = {"cron": text, "next_run": self._iso(wake)}
            return out

    def _reschedule(self) -> None:
        """Give APScheduler the schedules in the settings (the caller holds ``_guard``)."""
        aps = self._aps
        if aps is None:
            return
        for spec in JOBS:
            text = self._cron_text(spec)
            if spec.name in self._scheduled and self._scheduled[spec.name] == text:
                continue
            if aps.get_job(spec.name) is not None:
                aps.remove_job(spec.name)
            if self._off(spec):
                self._scheduled[spec.name] = text
                continue
            try:
                expr = CronExpr.parse(text)
            except UserError as exc:
                log.warning("%s is not scheduled: %s: %s", spec.name, spec.setting, exc)
                self._scheduled[spec.name] = text
                continue
            aps.add_job(self._wake, expr.trigger(self.tz), id=spec.name, name=spec.name)
            self._scheduled[spec.name] = text
            log.info("%s scheduled: %s (%s)", spec.name, expr.text, expr.describe())

    def refresh(self) -> None:
        """Re-read the settings and reschedule what changed (cheap; the tick also does it).

        Never raises for a settings file caught mid-edit: the old schedules stay until the
        next refresh reads a good one.
        """
        try:
            self.app.settings.reload()
        except VaultbrainError as exc:
            log.warning("settings not reloaded: %s", exc)
            return
        with self._guard:
            self._reschedule()

    def _wake(self) -> None:
        try:
            self.refresh()
            self.run_due()
        except VaultbrainError as exc:  # a full disk, a read-only vault: one line, try later
            log.warning("the digest scheduler's check failed: %s", exc)
        except Exception:  # keep the background thread alive whatever happens
            log.exception("the digest scheduler's check failed")
