"""The vault: files, notes and atomic, compare-and-swap writes. Knows nothing of the store."""

from __future__ import annotations

from vaultbrain.vault.files import Edit, NoteFile, Vault, content_hash, is_ignored

__all__ = ["Edit", "NoteFile", "Vault", "content_hash", "is_ignored"]
