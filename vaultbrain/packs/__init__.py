"""Schema packs: what shape the brain takes (types, folders, fields, link verbs).

Lower layers consult the resolved pack through :class:`ResolvedPack`; nothing here writes to
the vault.
"""

from __future__ import annotations

from vaultbrain.packs.model import FieldSpec, PackError, PageType, ResolvedPack
from vaultbrain.packs.loader import active_pack, load_pack

__all__ = ["FieldSpec", "PackError", "PageType", "ResolvedPack", "active_pack", "load_pack"]
