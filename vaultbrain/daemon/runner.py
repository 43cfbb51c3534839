"""The daemon's loop: events in, debounced; inbox passes when the note is quiet; workers for
the LLM; note sync for everything else; a periodic rescan; scheduled jobs.

The main thread owns every decision about *when*; worker threads only classify and file
(``capture.pipeline.process`` without touching the inbox note), and the main thread brings
the inbox lines up to date in one compare-and-swap rewrite once the note is quiet. The main
thread refreshes the brain (settings, pack, records) once a second and before each scan.
"""

from __future__ import annotations

import gc
import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.daily import watched_daily_notes
from vaultbrain.capture.daily_pass import reconcile_daily
from vaultbrain.capture.follow import follow
from vaultbrain.capture.guard import state_lost, trust_state
from vaultbrain.capture.inbox_pass import inbox_known, reconcile_inbox
from vaultbrain.capture.journal import Journal
from vaultbrain.daemon.door import Door
from vaultbrain.daemon.due import DueCaptures
from vaultbrain.daemon.lock import DaemonLock
from vaultbrain.daemon.watcher import RESCAN, VaultWatcher
from vaultbrain.daemon.workers import Workers
from vaultbrain.errors import VaultbrainError
from vaultbrain.filing import names
from vaultbrain.filing.sync import SyncReport, notes_sync
from vaultbrain.machine import FilerWatch

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.daemon")
NOTE_DEBOUNCE = 0.5
TICK = 0.1
# With nothing under way (no note waiting out its debounce, no inbox pass or capture due, no
# worker running) a turn waits this long for an event instead: an event still ends the wait
# at once, so no thought waits longer, and an idle daemon wakes 2 times a second, not 10.
IDLE_TICK = 0.5
# While captures are being filed and the person has not touched the inbox, its lines are
# brought up to date at most this often (or four times the last pass's cost, if more): a
# burst of 1,000 lines is not 1,000 rewrites of a 1,000-line note.
FORMS_PACE = 0.5
REFRESH_EVERY = 1.0  # seconds between refreshes of settings, pack and records when idle
# Seconds between looks at the files our swaps displaced (vaultbrain/vault/late.py): a burst
# turns the loop hundreds of times a second, and 64 watched files need no look at each.
LATE_LOOK_EVERY = TICK


@dataclass
class DaemonStats:
    passes: int = 0
    taken: int = 0
    processed: int = 0
    synced: int = 0
    rescans: int = 0
    errors: list[str] = field(default_factory=list)


class Daemon:
    def __init__(self, app: Brain, *, once: bool = False, watch: bool = True) -> None:
        self.app = app
        self.once = once
        self.watch = watch and not once
        self.journal = Journal(app)
        self.sync = notes_sync(app)
        app.keeps_learning = False  # written at the periodic save below, never mid-capture
        self._refreshed = time.monotonic()
        self._late_looked = 0.0
        self._full_turn_at = 0.0
        self.stop_event = threading.Event()
        self.stats = DaemonStats()
        self._pending_paths: dict[str, float] = {}
        # Whether this machine filed at the last look (None: not looked yet), and whether
        # the inbox lines were read since the role came to it by a claim: its captures left
        # pending may have been filed by the other machine meanwhile (their lines say so).
        self._was_filer: bool | None = None
        self._lines_read = True
        self._inbox_changed_at = time.monotonic() - self._inbox_quiet_seconds()
        self._inbox_dirty = True
        self.workers = Workers(app)
        self._last_rescan = time.monotonic()
        self._rescan_requested = False
        self._inbox_retry_at = 0.0
        self._last_pass: tuple[float, float, float] = (0.0, 0.0, 0.0)  # start, end, seconds
        self._due = DueCaptures(app.store, lambda: float(self._setting("retry_seconds")))
        # The last pass left a line without a newline: the idle pass is still to come.
        self._unfinished_line = False
        self._hooks: list[Any] = []
        self.door: Door | None = None  # captures handed over by `vaultbrain capture`

    # -- settings read live, so `settings set` takes effect without a restart ------------
    def _setting(self, key: str) -> Any:
        return self.app.settings.get(key)

    # -- lifecycle -----------------------------------------------------------------------
    def install_signal_handlers(self) -> Callable[[], None]:
        """SIGTERM and SIGINT stop the daemon cleanly; returns what puts back the handlers
        they had (a daemon run inside another process, as in tests)."""

        def stop(signum: int, _frame: Any) -> None:
            log.info(
                "received %s: finishing the current write, then stopping",
                signal.Signals(signum).name,
            )
            self.stop_event.set()
            # Requests in flight return at once; their captures stay pending, journaled.
            client = self.app.client
            if client is not None:
                client.cancel()

        before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for sig, handler in before.items():
                signal.signal(sig, handler)

        return restore

    def run(self) -> DaemonStats:
        lock = DaemonLock(self.app.state_dir)
        lock.acquire()
        watcher = VaultWatcher(self.app.vault.root) if self.watch else None
        self.workers.start(int(self._setting("llm_concurrency")))
        try:
            self.filer = FilerWatch(self.app.vault, self.app.state_dir)  # one filer per vault
            log.info("%s", self.filer.role.describe())
            if watcher is not None:
                watcher.start()
                names.follow(self.app)  # the name index kept by events, not walked per pass
            started = time.perf_counter()
            self._pack_changed()  # (the pack the startup scan reads the notes under)
            report = self.sync.scan()
            trust_state(self.app.store)  # its loss from here on is noticed (_check_state)
            inbox_known(self.app)  # and the inbox's
            self._log_report("startup scan", report)
            if not self.once:
                self._open_door()  # `vaultbrain capture` hands its thoughts over from now on
            # Ready: watching, and the vault and the store in step. What can wait a moment
            # does: the temp files a killed write left (ignored by everything meanwhile), and
            # the hooks (digests, IdeaLoom, the review note), loaded after the first pass.
            log.info(
                "watching %s (%d notes; ready in %.2fs)",
                self.app.vault.root,
                report.scanned,
                time.perf_counter() - started,
            )
            swept = self.app.vault.sweep_temp_files()
            if swept:
                log.info("removed %d temp file(s) left by an interrupted write", swept)
            if self.once:
                self._load_hooks()
                self._run_once()
            else:
                # What the start built (the record index, the notes cache, the modules)
                # lives as long as the daemon: out of the collector's way, so that a full
                # collection walks only what came since. (Not with --once: that run ends
                # soon, maybe inside a longer process whose objects must stay collectable.)
                gc.freeze()
                self._loop(watcher)
        finally:
            try:
                if self.door is not None:
                    self.door.close()  # (the captures it took are finished first)
                if watcher is not None:
                    watcher.stop()
                self.workers.shutdown()
                if not self.once:
                    self._final_lines()
                self.app.vault.catch_late_writes(final=True)
                try:
                    self.sync.save_cache()  # only a cache: a full disk may refuse it
                except VaultbrainError as exc:
                    log.warning("the notes cache was not saved: %s", exc)
                self._keep_learning()
                self._shutdown_hooks()
            finally:
                lock.release()
            log.info("stopped")
        return self.stats

    def _open_door(self) -> None:
        """``vaultbrain capture`` may hand its thoughts over from now on (door.py)."""
        door = Door(self)
        try:
            if door.open():
                self.door = door
            else:
                log.info("captures are made by each command: the state dir's path is too long")
        except OSError as exc:
            log.warning("captures are made by each command: no socket in the state dir: %s", exc)

    def _final_lines(self) -> None:
        """Before stopping, every waiting inbox line shows its true state (unless the person
        is typing in the inbox: then the next start does it)."""
        try:
            if self._inbox_settled():
                self._inbox_pass(idle=False, take_new=False)
        except Exception:
            log.exception("the inbox was not brought up to date before stopping")

    def _inbox_quiet_seconds(self) -> float:
        """How long the inbox note has been left alone, by its modification time."""
        try:
            mtime = self.app.vault.resolve(self.app.inbox_rel).stat().st_mtime
        except (OSError, VaultbrainError):
            return float("inf")
        quiet = time.time() - mtime
        # An mtime in the future (a clock stepped back, a copy from a device ahead) says
        # nothing about typing now: it must not hold the note back for ever.
        return quiet if quiet >= 0 else float("inf")

    def _inbox_settled(self) -> bool:
        """Nobody is typing in the inbox: quiet for the settle time, or just as vaultbrain
        (this process or another) last wrote it."""
        if self._inbox_quiet_seconds() >= float(self._setting("inbox_settle_seconds")):
            return True
        try:
            return self.app.vault.last_written_by_vaultbrain(self.app.inbox_rel)
        except VaultbrainError:
            return False

    def _run_once(self) -> None:
        """Everything due, then exit: a pass, every capture to finish, a final pass (each
        only if nobody is typing in the inbox: a cron run never rewrites a line being typed)."""
        if self._inbox_settled():
            idle = self._inbox_quiet_seconds() >= float(self._setting("inbox_idle_seconds"))
            self._inbox_pass(idle=idle)
        self._submit_due(force=True)
        self._wait_workers()
        if self._inbox_settled():
            self._inbox_pass(idle=False, take_new=False)
        self._tick_hooks(once=True)

    def _loop(self, watcher: VaultWatcher | None) -> None:
        self._maybe_inbox_pass(time.monotonic())  # lines written while it was off, at once
        self._submit_due(force=True)
        self._load_hooks()
        last_save = time.monotonic()
        while not self.stop_event.is_set():
            try:
                last_save = self._turn(watcher, last_save)
            except Exception:
                # One bad turn (a full disk, an unreadable folder) must not end the daemon:
                # it is logged, and the next turn tries again after a pause.
                log.exception("the daemon's loop failed; retrying in 5 s")
                self.stop_event.wait(5.0)

    def _turn(self, watcher: VaultWatcher | None, last_save: float) -> float:
        """One turn of the loop: events, settled notes, the inbox, retries, rescans, hooks."""
        tick = TICK if self._busy() else IDLE_TICK
        if watcher is not None:
            self._drain(watcher, timeout=tick)
        else:
            self.stop_event.wait(tick)
        now = time.monotonic()
        if not self._work_soon() and now - self._full_turn_at < IDLE_TICK:
            # Only the displaced files keep the loop at TICK (for GRACE seconds after every
            # swap): a look at them is all this turn does, the rest waits for an idle turn's
            # time, as it would with nothing watched.
            self._look_late(now)
            return last_save
        self._full_turn_at = now
        if now - self._refreshed >= REFRESH_EVERY:
            self.app.refresh()  # `settings set`, a pack switch, another process's records
            self._refreshed = now
            self._pack_changed()
        self._check_state()
        self._look_late(now)
        self._reap_workers()
        self._sync_settled(now)
        self._maybe_inbox_pass(now)
        self._submit_due()
        rescan_every = float(self._setting("rescan_seconds"))
        if self._rescan_requested or now - self._last_rescan >= rescan_every:
            self._rescan()
        self._tick_hooks()
        if now - last_save > 30:
            self.sync.save_cache()
            self._keep_learning()
            last_save = now
        return last_save

    def _pack_changed(self) -> None:
        """A pack switch or a schema verb changed the pack: every note is read again under
        it (a note synced just before was typed by the old one), at this turn's rescan."""
        try:
            key = self.app.pack_key
        except VaultbrainError:
            return
        seen, self._seen_pack_key = getattr(self, "_seen_pack_key", None), key
        if seen is not None and seen != key:
            self._rescan_requested = True

    def _keep_learning(self) -> None:
        """The embedded classifier's learning written back (only a cache: relearnt if lost)."""
        from vaultbrain.classify.adapt import keep_learning

        try:
            keep_learning(self.app.store, self.app.pack)
        except (VaultbrainError, OSError) as exc:
            log.warning("the classifier's learning was not saved: %s", exc)

    def _look_late(self, now: float) -> None:
        if now - self._late_looked >= LATE_LOOK_EVERY:
            self._late_looked = now
            for rel in self.app.vault.catch_late_writes():
                log.info("%s: carried in what was written into it as vaultbrain replaced it", rel)

    def _busy(self) -> bool:
        """Whether something is under way that the next turns must look at soon."""
        return self._work_soon() or bool(self.app.vault.late)  # displaced files watched

    def _work_soon(self) -> bool:
        """Whether a whole turn has something to do soon: a note or the inbox to take, a
        worker running, a capture due."""
        if (
            self._pending_paths
            or self.workers
            or self._inbox_dirty
            or self._unfinished_line
            or self._rescan_requested
        ):
            return True
        soon = time.monotonic() + IDLE_TICK
        return self._due.soon(soon)

    def _check_state(self) -> None:
        """A state dir deleted while running: filing stops (workers wait on the filing lock,
        and a plan refuses a store it does not trust), the store is rebuilt from the notes,
        then filing goes on; the inbox pass rebuilds the captures from their lines."""
        if not state_lost(self.app.store):
            return
        log.warning(
            "the state dir %s was deleted while running: filing waits while the store is "
            "rebuilt from the vault",
            self.app.state_dir,
        )
        with self.app.filing_lock:
            self.app.forget()
            self.sync = notes_sync(self.app)
            report = self.sync.scan()
            self.filer.is_filer()  # the machine id written back before filing goes on
            trust_state(self.app.store)
        self._log_report("rebuilt from the vault", report)
        self._inbox_dirty = True  # every waiting line is journaled again, and filed
        self._due.forget()

    # -- events --------------------------------------------------------------------------
    def _drain(self, watcher: VaultWatcher, timeout: float) -> None:
        try:
            when, rel = watcher.events.get(timeout=timeout)
        except Exception:
            return
        batch = [(when, rel)]
        while True:
            try:
                batch.append(watcher.events.get_nowait())
            except Exception:
                break
        inbox = self.app.inbox_rel
        daily: set[str] | None = None  # the daily notes read as inboxes, looked up once
        for when, rel in batch:
            if rel == RESCAN:
                self._rescan_requested = True
                names.walk_again(self.app)
                continue
            names.touched(self.app, rel)
            an_inbox = rel == inbox
            if not an_inbox and rel.lower().endswith(".md"):
                if daily is None:
                    daily = set(watched_daily_notes(self.app))
                # A daily note's capture section is an inbox: the inbox pass reads it (its
                # other lines are the person's note, never read as thoughts).
                an_inbox = rel in daily
            if an_inbox:
                self._inbox_touched(rel, when)
                continue
            self._pending_paths[rel] = when

    def _inbox_touched(self, rel: str, when: float) -> None:
        """An inbox note changed: unless it was our own write, the inbox pass is due once
        the note is quiet."""
        try:
            digest = self.app.vault.current_hash(rel)
        except VaultbrainError:
            digest = None  # a folder or a link out: the inbox pass says so, once
        if not self.app.vault.is_own_write(rel, digest):
            self._inbox_changed_at = when
            self._inbox_dirty = True

    def _sync_settled(self, now: float) -> None:
        due = [rel for rel, when in self._pending_paths.items() if now - when >= NOTE_DEBOUNCE]
        if not due:
            return
        report = SyncReport()
        for rel in due:
            del self._pending_paths[rel]
        # Notes that exist first, so a move is seen as a move before its old path goes; of
        # those, new paths first (a renamed note before a new one in its place).
        present = self.sync.new_paths_first([rel for rel in due if self._exists(rel)])
        chosen = set(present)
        due = present + [rel for rel in due if rel not in chosen]
        for rel in due:
            digest = self.app.vault.current_hash(rel) if self._exists(rel) else None
            if digest is not None and self.app.vault.is_own_write(rel, digest):
                continue
            try:
                self.sync.sync_path(rel, report)
                self.stats.synced += 1
            except VaultbrainError as exc:
                log.warning("%s: %s", rel, exc)
            self._dispatch_note_change(rel)
        self._log_report("sync", report, quiet=True)

    def _exists(self, rel: str) -> bool:
        try:
            return self.app.vault.resolve(rel).is_file()
        except VaultbrainError:
            return False

    def _rescan(self) -> None:
        names.walk_again(self.app)  # what a rescan would catch, events may have missed
        self.app.refresh()
        self._rescan_requested = False
        self._last_rescan = time.monotonic()
        self.stats.rescans += 1
        report = self.sync.scan()
        self._log_report("rescan", report, quiet=True)
        self._inbox_dirty = True

    def _is_filer(self) -> bool:
        """This machine's role now. When a claim has just brought the filer role here, the
        store first catches up with the notes the old filer wrote (a rescan: a note it made
        a moment ago is a record to update, not a stranger's note to link), and the inbox
        lines are read before any pending capture is retried (_submit_due)."""
        filer = self.filer.is_filer()
        gained = filer and self._was_filer is False
        self._was_filer = filer
        if gained:
            self._rescan()
            self._lines_read = False
        return filer

    # -- the inbox -----------------------------------------------------------------------
    def _maybe_inbox_pass(self, now: float) -> None:
        quiet = now - self._inbox_changed_at
        if not self._inbox_dirty:
            if not self._unfinished_line or quiet < float(self._setting("inbox_idle_seconds")):
                return
            self._inbox_dirty = True  # quiet long enough: the line without a newline is ready
        if quiet < float(self._setting("inbox_settle_seconds")):
            return
        started, ended, cost = self._last_pass
        if (
            self.workers
            and self._inbox_changed_at < started
            and now - ended < max(FORMS_PACE, 4 * cost)
        ):
            return  # only finished captures to show, and more are coming: soon
        self._inbox_pass(idle=quiet >= float(self._setting("inbox_idle_seconds")))

    def _inbox_pass(self, idle: bool, force: bool = False, take_new: bool = True) -> None:
        if time.monotonic() < self._inbox_retry_at or not self._is_filer():
            return  # an observer never takes nor rewrites a line
        started = time.monotonic()
        try:
            result = reconcile_inbox(self.app, self.journal, idle=idle, take_new=take_new)
            daily = reconcile_daily(self.app, self.journal, idle=idle, take_new=take_new)
            result.new += daily.new
            result.conflict |= daily.conflict
            result.unfinished |= daily.unfinished
        except VaultbrainError as exc:
            # A full disk or a read-only vault: say so once per pause, not ten times a second.
            log.warning("inbox: %s", exc)
            self._inbox_retry_at = time.monotonic() + float(self._setting("retry_seconds"))
            return
        ended = time.monotonic()
        self._last_pass = (started, ended, ended - started)
        self.stats.passes += 1
        for where, problems in (("inbox", result.skipped), ("daily note", daily.skipped)):
            for problem in problems:
                log.warning("%s: %s", where, problem)
        if result.conflict:
            self._inbox_changed_at = time.monotonic()  # the person is typing: wait again
            return
        self._lines_read = True
        self._unfinished_line = result.unfinished
        self._inbox_dirty = bool(self.workers) and not idle
        if result.new:
            self.stats.taken += len(result.new)
            log.info("took %d new line(s) from %s", len(result.new), self.app.inbox_rel)
            for cid in result.new:
                self._submit(cid)
        if not idle and not result.new and not self.workers:
            self._inbox_dirty = False

    # -- workers -------------------------------------------------------------------------
    def _submit(self, cid: str) -> None:
        if self.door is not None and cid in self.door.busy:
            return  # being made for a `vaultbrain capture` that handed it over
        self.workers.submit(cid)

    def _reap_workers(self) -> None:
        done = self.workers.reap()
        for cid in done:
            self.stats.processed += 1
            self._due.worked(cid)
        if done:
            self._inbox_dirty = True

    def _wait_workers(self) -> None:
        self.stats.processed += self.workers.wait()

    def _submit_due(self, force: bool = False) -> None:
        """Captures left pending (offline LLM, a crash): retry those whose time has come
        (vaultbrain/daemon/due.py keeps them and their times)."""
        if not self._is_filer():
            return  # the filer files; an observer's store only follows the notes
        if not self._lines_read:
            # A capture this machine left pending when it lost the role may have been filed
            # by the filer since: the pass reads its line (the line wins) before any retry.
            if self._inbox_settled():
                self._inbox_pass(idle=False, take_new=False)
            if not self._lines_read:
                return
        for cid in self._due.ready(force):
            if cid not in self.workers:
                self._submit(cid)

    # -- hooks: scheduled jobs and other integrations -----------------------------------
    def _load_hooks(self) -> None:
        from vaultbrain.daemon.hooks import load_hooks

        self._hooks = load_hooks(self.app)

    def _tick_hooks(self, once: bool = False) -> None:
        if not self._is_filer():
            return  # the review note, digests, exports: the filer's (its store knows)
        for hook in self._hooks:
            try:
                hook.tick(once=once)
            except VaultbrainError as exc:
                log.warning("%s: %s", hook.name, exc)
            except Exception:
                log.exception("%s failed", hook.name)

    def _dispatch_note_change(self, rel: str) -> None:
        if not self._is_filer():
            return
        for hook in self._hooks:
            fn = getattr(hook, "note_changed", None)
            if fn is not None:
                try:
                    fn(rel)
                except Exception:
                    log.exception("%s failed on %s", hook.name, rel)

    def _shutdown_hooks(self) -> None:
        for hook in self._hooks:
            try:
                hook.shutdown()
            except Exception:
                log.exception("%s failed to stop", hook.name)

    def _log_report(self, what: str, report: SyncReport, quiet: bool = False) -> None:
        """What a sync did, followed by the captures filed into the records it touched
        (their lines are redrawn by the next inbox pass), then logged."""
        if report.to_follow and self._is_filer():
            try:
                if follow(self.app, report):
                    self._inbox_dirty = True  # inbox lines link to where their notes are now
            except VaultbrainError as exc:
                log.warning("%s: captures not brought up to date: %s", what, exc)
        for problem in report.problems:
            log.warning("%s: %s", what, problem)
        busy = report.imported + report.created + report.tombstoned + report.conflicts
        if not quiet or busy:
            log.info("%s: %s", what, report.summary())
