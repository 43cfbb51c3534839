"""The vault: files, notes and atomic, compare-and-swap writes. Knows nothing of the store.

The package's names come from ``files`` when first asked for: a command that only needs a
leaf (``statedir``, ``yml``: where the state dir is, as ``vaultbrain capture`` asks before it
hands a thought to the daemon) does not load the whole vault.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultbrain.vault.files import Edit, NoteFile, Vault, content_hash, is_ignored

__all__ = ["Edit", "NoteFile", "Vault", "content_hash", "is_ignored"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vaultbrain.vault import files

        return getattr(files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
