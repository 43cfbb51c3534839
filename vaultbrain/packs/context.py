"""What the schema-pack tools need of the process they run in: the vault, its settings and
store, the active pack. A protocol, so ``packs/`` never imports the brain that provides it
(the brain sits above the packs it resolves)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from vaultbrain.packs.choice import ActivePack
    from vaultbrain.packs.resolved import ResolvedPack
    from vaultbrain.settings import Settings
    from vaultbrain.store import Store
    from vaultbrain.vault import Vault
    from vaultbrain.vault.obsidian import TemplateFolders


class PackContext(Protocol):
    vault: Vault
    settings: Settings
    store: Store
    schema_override: str | None
    client: Any
    templates: TemplateFolders  # (the vault's template folders: never a type of their own)

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def active(self) -> ActivePack: ...

    @property
    def pack(self) -> ResolvedPack: ...

    @property
    def state_dir(self) -> Path: ...

    def now(self) -> dt.datetime: ...
