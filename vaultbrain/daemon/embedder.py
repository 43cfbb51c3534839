"""The daemon's background embedding: notes whose text changed get their vectors (search by
meaning, :mod:`vaultbrain.graph.embed`) from a worker thread at the lowest CPU priority,
fed through a bounded queue.

The main thread (the hook's ``step``, every few seconds, and ``note_changed``) only puts
note paths on the queue: at most :data:`QUEUE` of them, the stale notes the graph index
names, so a vault of 10,000 new notes costs a queue of 256 paths, not 10,000. The worker
takes up to :data:`ROUND` at a time, asks the server for the chunks whose text changed,
and writes the vectors; the filing of thoughts never waits for it (its own connection to
the server, its own thread, ``nice 19`` on Linux).

With no embedding server (nothing listens, or the server will not embed) the worker says so
once in the log, keeps search by keywords, and asks again later (:data:`RETRY_UNREACHABLE`;
a refusal is remembered for ``RETRY_AFTER`` by the client); when it works again it says so.
A note the server refuses alone (a 500 for its text, a vector with NaN in it, of another
size) is marked in the index and tried again later, with backoff (``vec_failed``): the
worker goes on with the others, and says once in the log how many wait and why.
"""

from __future__ import annotations

import logging
import os
import queue
import sqlite3
import threading
import time
from typing import TYPE_CHECKING

from vaultbrain.errors import LLMError
from vaultbrain.graph import graph_if_open, graph_of

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.classify.embeddings import EmbeddingClient
    from vaultbrain.graph import GraphIndex

log = logging.getLogger("vaultbrain.daemon")
QUEUE = 256  # note paths waiting at most
ROUND = 32  # notes per round of the worker (one write)
RETRY_UNREACHABLE = 60.0  # seconds before an unreachable server is tried again
ONCE_BUDGET = 60.0  # seconds `daemon --once` spends embedding; the rest next time


class Embedder:
    """The queue and its worker. ``step`` and ``note_changed`` run on the daemon's main
    thread; everything that talks to the server runs on the worker."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.queue: queue.Queue[str] = queue.Queue(maxsize=QUEUE)
        self.queued: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._client: EmbeddingClient | None = None
        self._client_key: tuple[str, str] | None = None
        self._graph: GraphIndex | None = None
        self._pause_until = 0.0
        self._said: str | None = None  # the last state logged: "ok", or why not
        self._drop_due = False
        self._idle_stamp: tuple[int, int] | None = None
        self._idle_until: float | None = None  # time.time() a refused note is due again

    # -- main thread ---------------------------------------------------------------------
    def client(self) -> EmbeddingClient | None:
        from vaultbrain.classify.embeddings import EmbeddingClient

        s = self.brain.settings
        key = (str(s.get("endpoint")), str(s.get("embedding_model") or ""))
        if s.get("provider") == "heuristic":
            key = ("", "off")
        if key != self._client_key:
            if self._client is not None:
                self._client.cancel()
            self._client = EmbeddingClient.from_settings(self.brain.settings, self.brain.state_dir)
            self._client_key = key
            self._pause_until = 0.0
            self._idle_stamp = None
            if self._client is None:
                self._say("off", "search by meaning is off (embedding_model: off)")
        return self._client

    def graph(self) -> GraphIndex | None:
        """The graph index, if one has been built (a first search or reindex builds it)."""
        from vaultbrain.graph import index_path

        brain = self.brain
        graph = graph_if_open(brain)
        if graph is None or graph.identity != brain.pack_key:
            if not index_path(brain.state_dir, brain.pack_key).exists():
                return None
            graph = graph_of(brain)
        return graph if graph.built else None

    def step(self) -> None:
        """Fill the queue with stale notes when the worker has room and the server may
        answer."""
        if self.client() is None or time.monotonic() < self._pause_until:
            return
        graph = self.graph()
        if graph is None:
            return
        self._graph = graph
        from vaultbrain.graph.vectors import VectorStore

        room = QUEUE - self.queue.qsize()
        if room <= QUEUE // 2:
            return  # the worker is still busy with what it has
        try:
            with graph.lock:
                # Nothing written to the index since a look found nothing to do (by this
                # connection or another): an idle daemon does not look at 10,000 rows again.
                stamp = (
                    graph.db.total_changes,
                    graph.db.execute("PRAGMA data_version").fetchone()[0],
                )
            due = self._idle_until is not None and time.time() >= self._idle_until
            if stamp == self._idle_stamp and self.queue.empty() and not due:
                return
            store = VectorStore(graph)
            with self._lock:
                skip = set(self.queued)
            stale = store.stale(room, skip)
            for rel, _, _ in stale:
                self._put(rel)
            if store.gone():
                self._drop_due = True
                self._wake.set()
            elif not stale and not skip:
                self._idle_stamp = stamp
                self._idle_until = store.next_retry()  # (a refused note's next try)
        except sqlite3.Error as exc:
            log.debug("embedding: the index could not be read (%s)", exc)
        self._start()

    def note_changed(self, rel: str) -> None:
        if self._client is not None and self._graph is not None:
            self._put(rel)
            self._start()

    def _put(self, rel: str) -> None:
        with self._lock:
            if rel in self.queued:
                return
            try:
                self.queue.put_nowait(rel)
            except queue.Full:
                return  # the next look at the index finds it again
            self.queued.add(rel)
        self._wake.set()

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="vb-embed", daemon=True)
            self._thread.start()

    def run_once(self) -> None:
        """``daemon --once``: embed what is stale, for at most :data:`ONCE_BUDGET` seconds."""
        from vaultbrain.graph.embed import embed_all

        client, graph = self.client(), self.graph()
        if client is None or graph is None:
            return
        deadline = time.monotonic() + ONCE_BUDGET
        try:
            report = embed_all(graph, client, stop=lambda: time.monotonic() > deadline)
        except LLMError as exc:
            self._say(exc.kind, f"search by meaning unavailable, keyword search only: {exc}")
            return
        self._say("ok", f"search by meaning: embedding with {report.model}")
        if report.notes or report.dropped:
            log.info("embedded %d notes (%d left)", report.notes, report.pending)

    def shutdown(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._client is not None:
            self._client.cancel()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- the worker ----------------------------------------------------------------------
    def _run(self) -> None:
        _lowest_priority()
        while not self._stop.is_set():
            rels = self._take()
            if not rels and not self._drop_due:
                self._wake.wait(5.0)
                self._wake.clear()
                if self.queue.empty() and not self._drop_due:
                    return  # idle: the next step starts a worker again
                continue
            self._drop_due = False
            self._round(rels)

    def _take(self) -> list[str]:
        rels: list[str] = []
        while len(rels) < ROUND:
            try:
                rels.append(self.queue.get_nowait())
            except queue.Empty:
                break
        return rels

    def _round(self, rels: list[str]) -> None:
        from vaultbrain.graph.embed import embed_pending

        client, graph = self._client, self._graph
        try:
            if client is None or graph is None:
                return
            report = embed_pending(graph, client, ROUND, rels=rels, stop=self._stop.is_set)
            self._say("ok", f"search by meaning: embedding with {report.model}")
            if report.model_changed:
                log.warning(
                    "embedding: the server now embeds with %s; every note is embedded again",
                    report.model_changed,
                )
                self._idle_stamp = None
            for f in report.failed:
                # (each refusal once a round, at the lowest level but the first of a kind)
                log.info("embedding: %s waits, tried again later: %s", f["path"], f["why"])
            if report.notes or report.dropped:
                log.debug(
                    "embedded %d notes (%d chunks, %d kept), %d dropped, %d waiting",
                    report.notes,
                    report.embedded,
                    report.reused,
                    report.dropped,
                    report.pending,
                )
        except LLMError as exc:
            if exc.kind == "cancelled":
                return
            self._pause_until = time.monotonic() + RETRY_UNREACHABLE
            self._say(exc.kind, f"search by meaning unavailable, keyword search only: {exc}")
            self._clear()
        except (sqlite3.Error, OSError) as exc:
            log.warning("embedding: vectors not written (%s); tried again later", exc)
            self._clear()
        finally:
            with self._lock:
                self.queued.difference_update(rels)

    def _clear(self) -> None:
        """Forget what is queued: the next step looks at the index again."""
        while True:
            try:
                rel = self.queue.get_nowait()
            except queue.Empty:
                break
            with self._lock:
                self.queued.discard(rel)

    def _say(self, state: str, message: str) -> None:
        """Log a change of state once, not every round."""
        if state != self._said:
            self._said = state
            # No server running, or one with a chat model alone (as most start), is how
            # things are, not a fault: said once, as information, unless a model was named
            # for embeddings (then it is expected, and its absence a warning).
            named = bool(self.brain.settings.get("embedding_model"))
            usual = state in ("no_embeddings", "unreachable") and not named
            quiet = state in ("ok", "off") or usual
            (log.info if quiet else log.warning)("%s", message)


def _lowest_priority() -> None:
    """This thread at nice 19 (Linux gives each thread its own nice value)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError, PermissionError):
        pass
