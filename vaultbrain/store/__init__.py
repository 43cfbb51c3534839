"""The store: the state dir's ``state.db``. Knows nothing of notes, the daemon or the CLI."""

from __future__ import annotations

from vaultbrain.store.collection import Collection
from vaultbrain.store.records import validate_id
from vaultbrain.store.store import Store

__all__ = ["Collection", "Store", "validate_id"]
