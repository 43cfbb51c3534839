"""Schema packs: what shape the brain takes (types, folders, fields, link verbs).

Lower layers consult the resolved pack through :class:`ResolvedPack`, whose parts
(:class:`PageType`, :class:`FieldSpec`) are plain objects; the manifest models that validate a
pack file are in ``model.py``. Nothing here writes to the vault.
"""

from __future__ import annotations

from vaultbrain.packs.choice import ActivePack, active_pack, pack_for_path
from vaultbrain.packs.loader import home_dir, load_pack
from vaultbrain.packs.resolved import FieldSpec, PackError, PageType, ResolvedPack

__all__ = [
    "ActivePack",
    "FieldSpec",
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


def __getattr__(name: str) -> object:
    # The survey of a vault's notes against the pack (doctor, reindex) reads notes: not
    # imported by every command that only consults the pack.
    if name in ("schema_pack_consistency", "untyped_warning"):
        from vaultbrain.packs import survey

        return getattr(survey, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
