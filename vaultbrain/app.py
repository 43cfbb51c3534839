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
        """The pack in force. Re-resolved at once when a setting or config file that names it
        changes, and at least every second (a pack file's own edits), so a scan of 10,000
        notes does not resolve it 10,000 times."""
        from vaultbrain.packs.loader import home_dir

        now = time.monotonic()
        stamp = (
            _mtime(self.settings.path),
            _mtime(self.vault.root / "vaultbrain.yml"),
            _mtime(home_dir(self.env) / "config.json"),
            self.env.get("VAULTBRAIN_SCHEMA_PACK"),
        )
        cached = self._active
        if cached is not None and cached[1] == stamp and now - cached[0] < 1.0:
            return cached[2]
        self.settings.reload()
        active = active_pack(self.vault.root, self.settings, self.schema_override, self.env)
        self._active = (now, stamp, active)
        return active

    _active: tuple[float, tuple[object, ...], ActivePack] | None = None

    @property
    def pack(self) -> ResolvedPack:
        return self.active().pack


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
