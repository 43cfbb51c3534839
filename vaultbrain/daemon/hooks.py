"""Integrations the daemon drives besides filing: each is a small object with ``tick``.

``tick(once=False)`` runs on every loop turn (it must return at once when nothing is due);
``once=True`` is ``daemon --once``: do what is due now. ``note_changed(rel)`` is told about
notes the person changed; ``shutdown()`` runs when the daemon stops.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

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


class StatusHook(Hook):
    """The filer's status in Needs Review's header (capture/review_status.py): running from
    the first turn, stopped when the daemon stops, and whether its LLM answers: looked at
    every ``every`` seconds, and at once when a capture found it gone or back, on a thread
    of its own (a server that hangs never holds the loop). Kept, and the note drawn again,
    only when one of those changes. ``--once`` is not a running daemon: it only puts right
    a "running" that a killed daemon left."""

    name = "status"
    every = 30.0
    LOOK_TIMEOUT = 5.0

    def __init__(self, brain: Brain) -> None:
        import threading

        self.brain = brain
        self.started = ""  # the start's time once "running" is kept
        self.thread: threading.Thread | None = None
        self.found: tuple[str, str] | None = None  # (LLMState, model) of the last look
        self.looked_at = float("-inf")
        self.failing: bool | None = None  # what the captures' client last said

    def tick(self, once: bool = False) -> None:
        if once:
            self._once()
            return
        client = self.brain.client
        failing = bool(client.health.failing) if client is not None else None
        now = time.monotonic()
        due = failing != self.failing or now - self.looked_at >= self.every
        self.failing = failing
        if due and (self.thread is None or not self.thread.is_alive()):
            self.looked_at = now
            self._look()
        if self.found is not None:
            self._keep_running(*self.found)

    def _once(self) -> None:
        from vaultbrain.capture.review_status import FilerStatus, keep_status, read_status

        kept = read_status(self.brain)
        if kept is not None and kept.running:
            keep_status(self.brain, FilerStatus(host=kept.host, running=False, since=""))

    def _keep_running(self, llm: str, model: str) -> None:
        from vaultbrain.capture.reasons import llm_set_up
        from vaultbrain.capture.review_status import FilerStatus, LLMState, keep_status

        s = self.brain.settings
        if not self.started:
            self.started = self._when()
        status = FilerStatus(
            host=self._host(),
            running=True,
            since=self.started,
            llm=llm,
            model=model,
            endpoint=str(s.get("endpoint")) if llm != LLMState.NONE else "",
            set_up=llm_set_up(s),
            fallback=str(s.get("fallback")),
        )
        if status != self.kept:  # (each turn: the store is asked only about news)
            keep_status(self.brain, status)
            self.kept = status

    kept: Any = None
    host: str | None = None

    def _still_filer(self) -> bool:
        from vaultbrain.errors import VaultbrainError
        from vaultbrain.machine import named_filer, this_machine

        try:
            return named_filer(self.brain.vault) == this_machine(self.brain.state_dir).id
        except VaultbrainError:
            return False

    def _host(self) -> str:
        from vaultbrain.machine import this_machine

        if self.host is None:
            self.host = this_machine(self.brain.state_dir).host
        return self.host

    def _when(self) -> str:
        return self.brain.now().strftime("%Y-%m-%d %H:%M")

    def _look(self) -> None:
        """Whether the LLM answers (its model list), on a thread; what it finds is kept at
        the next turn. The first look is waited for a moment, so the start says it."""
        from vaultbrain.capture.review_status import LLMState

        if str(self.brain.settings.get("provider")) == "heuristic":
            self.found = (LLMState.NONE.value, "")
            return
        import threading

        self.thread = threading.Thread(target=self._ask, name="vaultbrain-status", daemon=True)
        self.thread.start()
        if self.found is None:
            self.thread.join(2.0)

    def _ask(self) -> None:
        from vaultbrain.capture.review_status import LLMState
        from vaultbrain.classify.llm import LLMClient
        from vaultbrain.errors import LLMError

        s = self.brain.settings
        client = LLMClient.from_settings(s, self.brain.state_dir)
        client.timeout = min(client.timeout, self.LOOK_TIMEOUT)
        client.retries = 0
        try:
            models = client.models()
            model = str(s.get("model") or "") or (models[0] if models else "")
            self.found = (LLMState.ANSWERS.value if model else LLMState.SILENT.value, model)
        except LLMError:
            self.found = (LLMState.SILENT.value, "")
        except Exception:
            log.debug("the LLM was not looked at", exc_info=True)
        finally:
            client.close()

    def shutdown(self) -> None:
        if not self.started or not self._still_filer():
            return  # (a role claimed by another machine meanwhile: its daemon says it runs)
        from vaultbrain.capture.review_queue import ReviewQueue
        from vaultbrain.capture.review_status import FilerStatus, keep_status, read_status

        kept = read_status(self.brain)
        host = kept.host if kept is not None else self._host()
        if keep_status(self.brain, FilerStatus(host=host, running=False, since=self._when())):
            ReviewQueue(self.brain).redraw_if_ours()  # the person reads that it stopped


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
            model = client.served_model()
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
    for factory in (
        StatusHook,
        ReviewHook,
        SchedulerHook,
        IdeaLoomHook,
        GraphHook,
        EmbedHook,
        ProbeHook,
    ):
        try:
            hooks.append(factory(brain))
        except ImportError as exc:
            log.debug("%s not available: %s", factory.name, exc)
    return hooks
