"""The vault's copy of the active pack that a schema verb edits (:class:`Target`), found or
planned (a bundled pack is forked as ``my-<name>``, an installed one copied in), and its
declarations read back as the data a manifest holds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.choice import (
    DEFAULT_PACKS_FOLDER,
    vault_packs_dir,
)
from vaultbrain.packs.loader import (
    bundled_dir,
    find_pack,
    home_dir,
    installed_dir,
    parse_manifest_text,
)
from vaultbrain.packs.resolved import PackError, Part, ResolvedPack

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


@dataclass
class Target:
    """The manifest a verb edits: where it is (or will be), and what it holds now."""

    name: str  # the pack's name once the change is made
    path: Path  # the manifest file in the vault's packs folder
    text: str  # the manifest as read (the fork's source when it is not there yet)
    data: dict[str, Any]
    pack: ResolvedPack  # the active pack, resolved
    exists: bool  # the vault's copy is there already
    source: str | None = None  # "bundled" / "installed": what it is copied from
    source_name: str | None = None

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def _shared(brain: Brain) -> Path:
    shared = vault_packs_dir(brain.vault.root)
    return shared if shared is not None else brain.vault.root / DEFAULT_PACKS_FOLDER


def locate(brain: Brain) -> Target:
    """The vault's copy of the active pack, or what it would be made from (nothing written)."""
    brain.refresh()
    active = brain.active
    pack = active.pack
    home = home_dir(brain.env)
    shared = vault_packs_dir(brain.vault.root)
    path = find_pack(pack.name, home, shared)
    if path is None:
        raise PackError("UNKNOWN_PACK", f"the active pack {pack.name!r} has no manifest here")
    text = path.read_text("utf-8")
    data = parse_manifest_text(text, str(path), path.suffix == ".json")
    if shared is not None and shared in path.parents:
        return Target(pack.name, path, text, data, pack, True)
    base = _shared(brain)
    if bundled_dir() in path.parents:
        name = _fork_name(pack.name, home, shared)
        return Target(
            name, base / name / "pack.yaml", text, data, pack, False, "bundled", pack.name
        )
    if installed_dir(home) in path.parents:
        return Target(
            pack.name, base / pack.name / "pack.yaml", text, data, pack, False, "installed"
        )
    raise UserError(f"the active pack's manifest {path} is neither bundled nor installed")


def _fork_name(name: str, home: Path, shared: Path | None) -> str:
    base = name if name.startswith("my-") else f"my-{name}"
    candidate, n = base, 1
    while find_pack(candidate, home, shared) is not None:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def as_written(value: Any) -> Any:
    """A resolved part as the data a manifest would hold: only what its pack wrote."""
    if isinstance(value, Part):
        return {
            k: as_written(v)
            for k, v in value.__dict__.items()
            if not k.startswith("_") and (value.given(k) or k == "name") and v is not None
        }
    if isinstance(value, list | tuple):
        return [as_written(v) for v in value]
    if isinstance(value, dict):
        return {k: as_written(v) for k, v in value.items()}
    return value


def declared_types(data: dict[str, Any]) -> list[dict[str, Any]]:
    types = data.setdefault("page_types", [])
    if not isinstance(types, list):
        raise UserError("the pack's page_types is not a list")
    return types


def own_type(data: dict[str, Any], pack: ResolvedPack, name: str) -> dict[str, Any]:
    """The copy's declaration of type ``name`` (by name or alias), copied down from the
    pack it inherits it from when the copy does not declare it yet."""
    t = pack.get_type(name)
    if t is None:
        raise UserError(f"the pack {pack.name} has no type {name!r} (`vaultbrain schema show`)")
    types = declared_types(data)
    for entry in types:
        if isinstance(entry, dict) and entry.get("name") == t.name:
            return entry
    entry = as_written(t)
    types.insert(0, entry)
    return entry


def name_taken(pack: ResolvedPack, name: str) -> str | None:
    t = pack.get_type(name)
    if t is None:
        return None
    return f"type {t.name}" if t.name == name.lower() else f"an alias of type {t.name}"
