"""The process's context: a vault, its store, settings, packs, clock and LLM client.

The CLI builds one per command and the daemon one for its lifetime. It sits low in the house
and imports nothing from the layers that use it (filing, capture, graph): what they keep
per process (the record index, the notes cache, the graph index, the embedded classifier)
they keep in :meth:`Brain.memo`, and drop with :meth:`Brain.forget`. Each unit of work (a command, an inbox pass, a capture, a sync of settled notes, a scan)
starts with :meth:`Brain.refresh`, which picks up what other processes and the person changed
(settings, the pack a setting or file names, the store's records). After that its attributes
are plain values: reading them has no effect, so the order of reads never matters.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vaultbrain.packs import PackError, ResolvedPack
from vaultbrain.packs.choice import ActivePack, active_or_fallback, folder_packs, folder_typer
from vaultbrain.packs.loader import home_dir
from vaultbrain.settings import Settings
from vaultbrain.store import Store
from vaultbrain.vault import Vault
from vaultbrain.vault.obsidian import TemplateFolders

if TYPE_CHECKING:
    from vaultbrain.classify.llm import LLMClient

T = TypeVar("T")


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
        self.store = Store(self.vault.state_dir)  # (first: the settings are read from it)
        self.settings = Settings(self.vault.state_dir, self.env, self.vault)
        self.vault.own.store = self.store  # (what vaultbrain last wrote, shared by processes)
        self.schema_override = schema_pack
        self._clock = clock
        self.templates = TemplateFolders(self.vault.root)  # never records, never written
        # Filing plans and writes one capture at a time in this process (other processes
        # are kept out by the store's lock): two captures naming one new person make one note.
        self.filing_lock = threading.RLock()
        self._refresh_lock = threading.Lock()
        self._stamp: tuple[object, ...] | None = None
        self.generation = 0  # counts refreshes: a unit of work's caches key on it
        self._client: LLMClient | None = None
        # What upper layers keep per process: key -> (version, value), and what each wants
        # done when the brain refreshes.
        self._memo: dict[str, tuple[object, Any]] = {}
        self._on_refresh: dict[str, Callable[[], None]] = {}
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

        keep_on_disk(self.store)  # resolved packs kept for the next command
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
                self._pack_files(),
            )
            if stamp != self._stamp or self.pack_problem:
                # (a pack this machine lacks is looked for again: it may arrive any moment)
                self._resolve_packs()
                self._stamp = stamp
            self.templates.refresh()
            self.inbox_rel = str(self.settings.get("inbox_note"))
            # Another vaultbrain process's last write of the inbox is shared with this one.
            self.vault.shared_own.add(self.inbox_rel)
            self.vault.keeps_bytes.add(self.inbox_rel)  # a stray byte stops no other line
            self.client = self._llm_client()
            followers = list(self._on_refresh.values()) if self._pack_error is None else []
        for follow in followers:
            follow()  # (the record index takes in other processes' writes)
        return self

    def _pack_files(self) -> tuple[Any, ...]:
        """The active pack's chain of manifests as they are on disk: one a schema verb
        changed (the vault's copy) or a person edited makes the next refresh resolve again."""
        active = getattr(self, "_active", None)
        if active is None:
            return ()
        from vaultbrain.packs.loader import find_pack

        home = home_dir(self.env)
        out: list[Any] = []
        for name in active.pack.chain:
            path = find_pack(name, home, active.shared)
            try:
                st = os.stat(path) if path is not None else None
            except OSError:
                st = None
            out.append((st.st_mtime_ns, st.st_size) if st is not None else None)
        return tuple(out)

    def _resolve_packs(self) -> None:
        self._pack_key = None
        try:
            # A pack this machine cannot use (another machine's, a broken one): the last one
            # it filed with, one line in the log and one item in Needs Review (packs/choice.py).
            before = self.pack_problem
            active, self.pack_problem = active_or_fallback(
                self.vault.root, self.settings, self.schema_override, self.env, self.state_dir
            )
            if self.pack_problem and self.pack_problem != before:
                # Once when it starts (or changes), not at every turn; Needs Review lists it
                # while it lasts (filing/unreadable.py reads brain.pack_problem).
                logging.getLogger("vaultbrain.packs").warning("%s", self.pack_problem)
            elif before and not self.pack_problem:
                logging.getLogger("vaultbrain.packs").info("the schema pack is usable again")
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

    # -- what upper layers keep per process ----------------------------------------------
    def memo(self, key: str, version: object, make: Callable[[], T]) -> T:
        """The value kept under ``key`` while ``version`` is unchanged; made (and kept) by
        ``make`` otherwise. Thread-safe: workers share the brain."""
        with self._refresh_lock:
            hit = self._memo.get(key)
            if hit is not None and hit[0] == version:
                return hit[1]
        value = make()
        with self._refresh_lock:
            hit = self._memo.get(key)
            if hit is not None and hit[0] == version:
                return hit[1]  # another thread made it first: one value per key
            self._memo[key] = (version, value)
        return value

    def kept(self, key: str) -> Any:
        """The value kept under ``key``, if one was made (nothing is made here)."""
        hit = self._memo.get(key)
        return hit[1] if hit is not None else None

    def on_refresh(self, key: str, follow: Callable[[], None]) -> None:
        """Have ``follow`` run at every :meth:`refresh` (until ``key`` is forgotten)."""
        with self._refresh_lock:
            self._on_refresh[key] = follow

    def forget(self, *keys: str) -> None:
        """Drop what is kept under ``keys`` (all of it without keys: the state dir was
        deleted under this process, and what was learnt from it is learnt again). A value
        with a ``close`` method is closed."""
        with self._refresh_lock:
            names = list(keys) if keys else list(self._memo)
            dropped = [self._memo.pop(k, (None, None))[1] for k in names]
            for k in names if keys else list(self._on_refresh):
                self._on_refresh.pop(k, None)
        for value in dropped:
            close = getattr(value, "close", None)
            if callable(close):
                close()

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
