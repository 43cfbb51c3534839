"""Integrations the daemon drives besides filing: each is a small object with ``tick``.

``tick(once=False)`` runs on every loop turn (it must return at once when nothing is due);
``once=True`` is ``daemon --once``: do what is due now. ``note_changed(rel)`` is told about
notes the person changed; ``shutdown()`` runs when the daemon stops.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.daemon")


class Hook:
    name = "hook"

    def tick(self, once: bool = False) -> None:
        return None

    def shutdown(self) -> None:
        return None


class Throttled(Hook):
    """Runs ``step`` at most every ``every`` seconds (always on ``once``)."""

    every = 1.0

    def __init__(self) -> None:
        self._last = 0.0

    def tick(self, once: bool = False) -> None:
        now = time.monotonic()
        if once or now - self._last >= self.every:
            self._last = now
            self.step(once)

    def step(self, once: bool) -> None:
        return None


class SchedulerHook(Throttled):
    name = "scheduler"
    every = 20.0

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        from vaultbrain.digest.scheduler import Scheduler

        self.scheduler = Scheduler(brain)
        self.started = False

    def step(self, once: bool) -> None:
        if once:
            ran = self.scheduler.run_due()
            if ran:
                log.info("scheduled jobs run: %s", ", ".join(ran))
            return
        if not self.started:
            self.scheduler.start()
            self.started = True
        refresh = getattr(self.scheduler, "refresh", None)
        if refresh is not None:
            refresh()

    def shutdown(self) -> None:
        if self.started:
            self.scheduler.shutdown()


class IdeaLoomHook(Throttled):
    name = "idealoom"
    every = 1.0

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        from vaultbrain.idealoom import AutoExporter

        self.exporter = AutoExporter(brain)

    def step(self, once: bool) -> None:
        self.exporter.tick()


class ReviewHook(Throttled):
    name = "review"
    every = 1.0

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        from vaultbrain.capture.review_queue import ReviewQueue

        self.queue = ReviewQueue(brain)

    def step(self, once: bool) -> None:
        # (--once: Trust looked at whether or not the queue changed; it writes only news)
        if self.queue.refresh(force=once) or once:
            from vaultbrain.capture.trust import write_trust_note

            now = time.monotonic()
            if once or now - self._trust_at > 60:
                self._trust_at = now
                write_trust_note(self.queue.app)

    _trust_at = 0.0

    def note_changed(self, rel: str) -> None:
        if rel == self.queue.note_rel:
            self._last = 0.0  # looked at on the next turn (once the note is quiet)
            self.queue.changed()


class EmbedHook(Throttled):
    """Search by meaning: changed notes embedded in the background (daemon/embedder.py)."""

    name = "embed"
    every = 2.0

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        from vaultbrain.daemon.embedder import Embedder

        self.embedder = Embedder(brain)

    def step(self, once: bool) -> None:
        if once:
            self.embedder.run_once()
        else:
            self.embedder.step()

    def note_changed(self, rel: str) -> None:
        self.embedder.note_changed(rel)

    def shutdown(self) -> None:
        self.embedder.shutdown()


class GraphHook(Hook):
    """The search index (vaultbrain.graph) built once the daemon is ready, when it is missing
    (a first start on a vault, a lost state dir, another pack): on a thread of its own
    (``graph.fill.Builder``), so filing goes on and a first ``search`` finds it built; with
    ``--once``, here and now. Its progress goes to the log."""

    name = "graph"

    def __init__(self, brain: Brain) -> None:
        from vaultbrain.graph.fill import Builder

        self.builder = Builder(brain)
        self.checked_key: str | None = None

    every = 30.0  # after a failure (a full disk), the next try

    def tick(self, once: bool = False) -> None:
        import sqlite3

        key = self.builder.brain.pack_key  # another pack: another index, maybe missing
        if self.builder.thread is not None and not self.builder.done():
            return
        if key == self.checked_key or time.monotonic() < self.retry_at:
            return
        try:
            if not self.builder.needed():
                self.checked_key = key
                return
            if once:
                self.builder.run()
                self.checked_key = key
                return
        except (sqlite3.Error, OSError) as exc:
            # (a full disk, a read-only state dir: said once a try, tried again later)
            log.warning("the search index was not built (%s); trying again later", exc)
            self.retry_at = time.monotonic() + self.every
            return
        self.checked_key = key
        log.info("building the search index in the background")
        self.builder.start()

    retry_at = 0.0

    def shutdown(self) -> None:
        self.builder.stop()


class ProbeHook(Throttled):
    """The LLM measured the first time the daemon meets it (an endpoint and a model id): the
    probe's thoughts (classify/probe.py) asked on a thread of its own, with a client of its
    own, so captures go on meanwhile; the record is kept in the store and is the pair's
    prior from then on. A model met before is not asked again; a probe cut short (the
    server went away, the daemon stopped) is tried again later."""

    name = "probe"
    every = 60.0

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        import threading

        self.brain = brain
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.done: set[str] = set()

    def step(self, once: bool) -> None:
        s = self.brain.settings
        if once or s.get("provider") == "heuristic" or not s.get("second_opinion"):
            return  # (--once never waits for a probe; no pair, nothing to measure for)
        if self.thread is not None and self.thread.is_alive():
            return
        wanted = f"{s.get('endpoint')}|{s.get('model') or ''}"
        if wanted in self.done:
            return
        import threading

        self.thread = threading.Thread(
            target=self._run, args=(wanted,), name="vaultbrain-probe", daemon=True
        )
        self.thread.start()

    def _run(self, wanted: str) -> None:
        from vaultbrain.classify.llm import LLMClient
        from vaultbrain.classify.probe import measure_once
        from vaultbrain.errors import LLMError

        client = LLMClient.from_settings(self.brain.settings, self.brain.state_dir)
        try:
            model = client.pick_model()
            log.debug("probe: %s at %s", model, client.endpoint)
            from vaultbrain.classify.probe import kept

            if kept(self.brain.store, client.endpoint, model) is None:
                log.info("measuring the model %s on the probe, in the background", model)
            found, now = measure_once(
                self.brain.store, client, self.brain.pack, self.brain.today(), self.stop
            )
            if found is not None:
                self.done.add(wanted)
                if now:
                    acc = found.accuracy
                    log.info(
                        "model %s measured: %s of %d probe thoughts right",
                        model,
                        "–" if acc is None else f"{acc:.0%}",
                        found.asked,
                    )
        except LLMError as exc:
            log.debug("probe: not now (%s)", exc)
        except Exception:
            log.exception("the probe failed")
        finally:
            client.close()

    def shutdown(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(10)


def load_hooks(brain: Brain) -> list[Hook]:
    hooks: list[Hook] = []
    for factory in (ReviewHook, SchedulerHook, IdeaLoomHook, GraphHook, EmbedHook, ProbeHook):
        try:
            hooks.append(factory(brain))
        except ImportError as exc:
            log.debug("%s not available: %s", factory.name, exc)
    return hooks
