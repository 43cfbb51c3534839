"""The application context both front ends share: one vault, its store, settings and pack."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from pathlib import Path

from vaultbrain.packs import ResolvedPack, active_pack
from vaultbrain.packs.loader import ActivePack
from vaultbrain.settings import Settings
from vaultbrain.store import Store
from vaultbrain.vault import Vault


class App:
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
        self.settings = Settings(self.vault.state_dir, self.env)
        self.store = Store(self.vault.state_dir)
        self.schema_override = schema_pack
        self._clock = clock

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

    def active(self) -> ActivePack:
        """The pack in force. Re-resolved at most once a second, so a changed setting or pack
        file takes effect without a restart, while a scan of 10,000 notes asks only once."""
        now = time.monotonic()
        cached = self._active
        if cached is not None and now - cached[0] < 1.0:
            return cached[1]
        self.settings.reload()
        active = active_pack(self.vault.root, self.settings, self.schema_override, self.env)
        self._active = (now, active)
        return active

    _active: tuple[float, ActivePack] | None = None

    @property
    def pack(self) -> ResolvedPack:
        return self.active().pack
