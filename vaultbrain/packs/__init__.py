"""Schema packs: what shape the brain takes (types, folders, fields, link verbs).

Lower layers consult the resolved pack through :class:`ResolvedPack`; nothing here writes to
the vault.
"""

from __future__ import annotations

from vaultbrain.packs.choice import ActivePack, active_pack, pack_for_path
from vaultbrain.packs.loader import home_dir, load_pack
from vaultbrain.packs.model import FieldSpec, Manifest, PackError, PageType, ResolvedPack
from vaultbrain.packs.survey import schema_pack_consistency, untyped_warning

__all__ = [
    "ActivePack",
    "FieldSpec",
    "Manifest",
    "PackError",
    "PageType",
    "ResolvedPack",
    "active_pack",
    "home_dir",
    "load_pack",
    "pack_for_path",
    "schema_pack_consistency",
    "untyped_warning",
]
