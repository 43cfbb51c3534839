"""The one object a process holds: a vault, its store, settings, packs, record index and LLM client.

The CLI builds one per command and the daemon one for its lifetime; every core function takes
it. Each unit of work (a command, an inbox pass, a capture, a sync of settled notes, a scan)
starts with :meth:`Brain.refresh`, which picks up what other processes and the person changed
(settings, the pack a setting or file names, the store's records). After that its attributes
are plain values: reading them has no effect, so the order of reads never matters.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.filing.unreadable import note_pack_problem
from vaultbrain.packs import PackError, ResolvedPack
from vaultbrain.packs.choice import ActivePack, active_or_fallback, folder_packs, folder_typer
from vaultbrain.packs.loader import home_dir
from vaultbrain.settings import Settings
from vaultbrain.store import Store
from vaultbrain.vault import Vault
from vaultbrain.vault.obsidian import TemplateFolders

if TYPE_CHECKING:
    from vaultbrain.classify.embedded import Embedded
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.filing.index import RecordIndex
    from vaultbrain.filing.sync import NoteSync
    from vaultbrain.graph import GraphIndex


class Brain:
    """One vault as this process sees it. Thread-safe: the daemon's workers share it."""

    def __init__(
        self,
        vault_dir: Path | str,
        state_dir: Path | str | None = None,
        schema_pack: str | None = None,
        env: dict[str, str] | None = None,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        self.env = dict(os.environ) if env is None else env
        self.vault = Vault(vault_dir, state_dir)
        self.settings = Settings(self.vault.state_dir, self.env, self.vault)
        self.store = Store(self.vault.state_dir)
        self.schema_override = schema_pack
        self._clock = clock
        self.templates = TemplateFolders(self.vault.root)  # never records, never written
        # Filing plans and writes one capture at a time in this process (other processes
        # are kept out by the store's lock): two captures naming one new person make one note.
        self.filing_lock = threading.RLock()
        self._refresh_lock = threading.Lock()
        # capture id -> ((updated, status, rev), what its inbox line needs): see capture.lines
        self.line_views: dict[str, tuple[Any, dict[str, Any]]] = {}
        self._stamp: tuple[object, ...] | None = None
        self.generation = 0  # counts refreshes: a unit of work's caches key on it
        self._index: RecordIndex | None = None
        self._index_key = ""
        self._client: LLMClient | None = None
        self._notes: NoteSync | None = None
        self._graph: GraphIndex | None = None
        self._embedded: tuple[tuple[int, str], Embedded] | None = None
        # Whether what the embedded classifier learns is written back as it goes (a command);
        # the daemon writes it in its own time instead (classify.adapt.keep_learning).
        self.keeps_learning = True
        self._pack_error: PackError | None = None
        self.pack_problem: str | None = None  # the pack named could not be used here: why
        self._active: ActivePack
        self._folder_packs: list[ResolvedPack] = []
        self._pack_key: str | None = None
        self._typer: Callable[[str], ResolvedPack]
        self.inbox_rel: str = ""
        self.client: LLMClient | None = None
        from vaultbrain.packs.loader import keep_on_disk

        keep_on_disk(self.vault.state_dir)  # resolved packs kept for the next command
        self.refresh()

    # -- the one explicit refresh --------------------------------------------------------
    def refresh(self) -> Brain:
        """Bring this view up to date: settings, the packs they name, the LLM client, and the
        record index (if built) with other processes' writes. Cheap when nothing changed: a
        handful of ``stat`` calls."""
        with self._refresh_lock:
            self.generation += 1  # what is cached per unit of work is stale from here on
            self.settings.reload()
            stamp = (
                self.settings.version,
                _mtime(self.vault.root / "vaultbrain.yml"),
                _mtime(home_dir(self.env) / "config.json"),
                self.env.get("VAULTBRAIN_SCHEMA_PACK"),
            )
            if stamp != self._stamp:
                self._resolve_packs()
                self._stamp = stamp
            self.templates.refresh()
            self.inbox_rel = str(self.settings.get("inbox_note"))
            # Another vaultbrain process's last write of the inbox is shared with this one.
            self.vault.shared_own.add(self.inbox_rel)
            self.vault.keeps_bytes.add(self.inbox_rel)  # a stray byte stops no other line
            self.client = self._llm_client()
            if self._index is not None and self._pack_error is None:
                self._index_for_packs().refresh(force=True)
        return self

    def _resolve_packs(self) -> None:
        self._pack_key = None
        try:
            # A pack this machine cannot use (another machine's, a broken one): the last one
            # it filed with, one line in the log and one item in Needs Review (packs/choice.py).
            before = self.pack_problem
            active, self.pack_problem = active_or_fallback(
                self.vault.root, self.settings, self.schema_override, self.env, self.state_dir
            )
            note_pack_problem(self, self.pack_problem, before)
            typer, extra = folder_typer(active, folder_packs(self.settings), home_dir(self.env))
        except PackError as exc:
            # Kept, not raised: a command that repairs the setting (`schema use`) must still
            # run. Whatever needs the pack raises it when it asks for the pack.
            self._pack_error = exc
            return
        self._pack_error = None
        self._active, self._typer, self._folder_packs = active, typer, extra

    # The packs, as of the last refresh. Reading them does nothing but raise the error that
    # made the pack unusable, if there was one.
    @property
    def active(self) -> ActivePack:
        if self._pack_error is not None:
            raise self._pack_error
        return self._active

    @property
    def pack(self) -> ResolvedPack:
        return self.active.pack

    @property
    def folder_packs(self) -> list[ResolvedPack]:
        self.active  # noqa: B018 (raises the pack's error)
        return self._folder_packs

    @property
    def pack_key(self) -> str:
        """The active pack's identity and the folder packs', joined: what the record index
        and the graph index are keyed by (made once per refresh; read for every note)."""
        if self._pack_key is None:
            packs = (self.pack, *self.folder_packs)
            self._pack_key = "+".join(p.identity for p in packs)
        return self._pack_key

    @property
    def typer(self) -> Callable[[str], ResolvedPack]:
        self.active  # noqa: B018 (raises the pack's error)
        return self._typer

    def _llm_client(self) -> LLMClient | None:
        s = self.settings
        if s.get("provider") == "heuristic":
            return None
        from vaultbrain.classify.llm import LLMClient

        fresh = LLMClient.from_settings(s, self.state_dir)  # cheap: no request is made
        c = self._client
        if c is None or (c.endpoint, c.model, c.timeout, c.max_tokens) != (
            fresh.endpoint,
            fresh.model,
            fresh.timeout,
            fresh.max_tokens,
        ):
            self._client = fresh
        return self._client

    # -- the record index ----------------------------------------------------------------
    def records(self) -> RecordIndex:
        """The record index of the pack's collections, built on first use (it loads every
        record's summary, which a warm scan never needs), then kept in step by our own writes
        and by :meth:`refresh`."""
        with self._refresh_lock:
            return self._index_for_packs()

    def _index_for_packs(self) -> RecordIndex:
        from vaultbrain.filing.index import RecordIndex

        key = self.pack_key
        if self._index is None or self._index_key != key:
            self._index = RecordIndex(self.store, self.pack, self.folder_packs)
            self._index_key = key
        return self._index

    def loaded_records(self) -> RecordIndex | None:
        """The record index if it has been built."""
        return self._index

    def collections(self) -> list[str]:
        """The store collections the pack's records live in, without building the index."""
        from vaultbrain.filing.index import collections_of

        return collections_of(self.pack, self.folder_packs)

    def notes(self) -> NoteSync:
        """This process's notes ↔ store sync (it keeps the notes cache between scans)."""
        if self._notes is None:
            from vaultbrain.filing.sync import NoteSync

            self._notes = NoteSync(self)
        return self._notes

    def embedded(self) -> Embedded:
        """The embedded classifier with what the vault taught, brought up to date once per
        unit of work (:meth:`refresh`): a burst of captures is not relearnt one by one (the
        daemon refreshes every second, so what it filed counts a second later)."""
        from vaultbrain.classify.adapt import embedded_for

        key = (self.generation, self.pack_key)
        memo = self._embedded
        if memo is None or memo[0] != key:
            learnt = embedded_for(self.store, self.pack, save=self.keeps_learning)
            memo = self._embedded = (key, learnt)
        return memo[1]

    def release_notes(self) -> None:
        """Let go of the notes ↔ store sync and its notes cache (on disk already; the next
        :meth:`notes` reads it again). ``reindex`` ends with it: the sync and the brain hold
        each other, so its 10,000 cache entries would otherwise wait for the cyclic garbage
        collector, and land as a pause in whatever the process does next."""
        with self._refresh_lock:
            self._notes = None

    def forget_state(self) -> None:
        """The state dir was deleted under this process: drop what was learnt from it (the
        record index, the notes cache, the inbox lines' views) so it is learnt again."""
        with self._refresh_lock:
            self._index, self._notes, self._embedded = None, None, None
            self.line_views.clear()
            graph, self._graph = self._graph, None
        if graph is not None:
            graph.close()  # its file went with the folder; the next search builds it again

    def graph(self) -> GraphIndex:
        """The graph index (FTS5, names, typed links), opened on first use (vaultbrain.graph)."""
        from vaultbrain.graph import open_graph

        self._graph = open_graph(self, self._graph)
        return self._graph

    @property
    def graph_if_open(self) -> GraphIndex | None:
        """The graph index this process has open, if any (no file is looked at)."""
        return self._graph

    def apply_deferred(self, collection: str, record_id: str) -> int:
        """Capture updates that waited for a note caught mid-save (the note has content again)."""
        from vaultbrain.capture.write import apply_deferred

        return apply_deferred(self, collection, record_id)

    def finish_line(self, capture: dict[str, Any]) -> dict[str, Any]:
        """The capture's inbox line shows its status now (vaultbrain/capture/lines.py): for a
        step below the capture layer that changed a capture (a re-file, filing/refile.py)."""
        from vaultbrain.capture.journal import Journal
        from vaultbrain.capture.lines import finish_line
        from vaultbrain.capture.model import Capture

        return finish_line(self, Journal(self), Capture.from_record(capture)).to_record()

    def all_types(self) -> list[Any]:
        """Every page type of the active pack and the per-folder packs."""
        return [t for p in (self.pack, *self.folder_packs) for t in p.types]

    # -- time ----------------------------------------------------------------------------
    @property
    def state_dir(self) -> Path:
        return self.vault.state_dir

    def now(self) -> dt.datetime:
        """Local wall-clock time, naive, to the second (what notes show)."""
        if self._clock is not None:
            return self._clock().replace(microsecond=0)
        return dt.datetime.now().replace(microsecond=0)

    def today(self) -> dt.date:
        return self.now().date()


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def looks_like_vault(root: Path, state_dir: Path | str | None = None) -> bool:
    """Whether ``root`` is a vault vaultbrain may work in: Obsidian's config folder, an inbox
    note, the vault's shared settings or this machine's state for it. Every command but
    ``init`` refuses anything else, so no folder becomes a vault by accident."""
    if not root.is_dir():
        return False
    from vaultbrain.vault.statedir import resolve_state_dir

    state = resolve_state_dir(root, state_dir)
    return (
        (root / ".obsidian").is_dir()
        or (root / "Inbox.md").is_file()
        or (root / "vaultbrain.yml").is_file()
        or state.is_dir()
    )
