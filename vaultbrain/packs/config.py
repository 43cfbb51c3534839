"""The pack choice: a vault's in its ``vaultbrain.yml``, the person's default in
``~/.vaultbrain/config.json``, and their history.

Inside a vault, ``schema use`` writes ``schema:`` in the vault's ``vaultbrain.yml`` (tier 5 of
the resolution chain, vaultbrain/packs/choice.py), so one vault's pack never silently applies
to every other; only that line changes, every other key and comment of the file stays as the
person wrote it. Outside a vault it writes ``schema_pack`` in ``config.json`` (tier 6), other
keys kept. Either way one line is appended to ``schema-pack-history.jsonl`` (an entry for a
vault names it); ``schema downgrade`` restores a named pack or the one in force before the
last change of the same place.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.packs.choice import (
    DEFAULT_PACK,
    DEFAULT_PACKS_FOLDER,
    PACKS_FOLDER_KEY,
    home_config_path,
    read_home_config,
    read_vault_yml,
    vault_packs_dir,
)
from vaultbrain.packs.loader import (
    bundled_dir,
    find_pack,
    home_dir,
    installed_dir,
    load_pack,
    looks_like_path,
)
from vaultbrain.packs.resolved import ResolvedPack
from vaultbrain.vault.atomic import atomic_write_file

VAULT_FILE = "vaultbrain.yml"

HISTORY = "schema-pack-history.jsonl"


def history_path(home: Path | None = None) -> Path:
    return (home or home_dir()) / HISTORY


def read_history(home: Path | None = None, vault: Path | None = None) -> list[dict[str, Any]]:
    """The history's entries, oldest first: those of ``vault`` only, or (None) the per-user
    ones (entries without a vault)."""
    want = str(vault) if vault is not None else None
    return [e for e in _read_history(home) if e.get("vault") == want]


def _read_history(home: Path | None = None) -> list[dict[str, Any]]:
    try:
        lines = history_path(home).read_text("utf-8").splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line from a crash is skipped, not fatal
        if isinstance(entry, dict):
            out.append(entry)
    return out


@dataclass
class PackSwitch:
    """What ``use`` / ``downgrade`` did: the pack now set (None: unset) and the one before."""

    to: str | None
    previous: str | None
    pack: ResolvedPack
    config: Path


def set_home_pack(
    name: str | None, *, verb: str, at: dt.datetime, home: Path | None = None
) -> PackSwitch:
    """Write ``schema_pack`` (None removes it) to config.json and append to the history."""
    home = home or home_dir()
    if name is not None and looks_like_path(name):
        raise UserError(
            f"{name!r} is a path; install it first (`vaultbrain schema install {name}`), "
            "then use it by name"
        )
    pack = load_pack(name or DEFAULT_PACK, home)  # refuse a pack that does not resolve
    config = read_home_config(home)
    previous = config.get("schema_pack") or None
    if name is None:
        config.pop("schema_pack", None)
    else:
        config["schema_pack"] = name
    path = home_config_path(home)
    atomic_write_file(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    entry = {
        "at": at.isoformat(timespec="seconds"),
        "verb": verb,
        "from": previous,
        "to": name,
        "identity": pack.identity,
    }
    _append(history_path(home), entry)
    return PackSwitch(name, previous, pack, path)


def set_vault_pack(
    vault: Path, name: str | None, *, verb: str, at: dt.datetime, home: Path | None = None
) -> PackSwitch:
    """Write ``schema:`` (None removes it) in the vault's ``vaultbrain.yml``, every other line
    of the file kept; append to the history."""
    home = home or home_dir()
    if name is not None and looks_like_path(name):
        raise UserError(
            f"{name!r} is a path; install it first (`vaultbrain schema install {name}`), "
            "then use it by name"
        )
    # refuse a pack that does not resolve (one kept in the vault's packs folder counts)
    pack = load_pack(name or DEFAULT_PACK, home, vault_packs_dir(Path(vault)))
    path = Path(vault) / VAULT_FILE
    try:
        text = path.read_text("utf-8")
        previous = read_vault_yml(Path(vault))
    except FileNotFoundError:
        text, previous = "", None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path} cannot be read: {exc}") from exc
    # Only the `schema:` line changes (vaultbrain/vault/yml.py, the file's one writer).
    from vaultbrain.vault import yml

    try:
        if name is None:
            edited = yml.without_key(text, "schema")
        else:
            edited = yml.with_key(text, "schema", name)
    except UserError as exc:
        raise UserError(f"{exc}; fix it, then run this again") from exc
    if edited != text:
        atomic_write_file(path, edited)
    entry = {
        "at": at.isoformat(timespec="seconds"),
        "verb": verb,
        "from": previous,
        "to": name,
        "identity": pack.identity,
        "vault": str(vault),
    }
    _append(history_path(home), entry)
    return PackSwitch(name, previous, pack, path)


def use_pack(
    name: str, *, at: dt.datetime, home: Path | None = None, vault: Path | None = None
) -> PackSwitch:
    """Inside a vault (``vault``): that vault's pack; otherwise the per-user default."""
    if vault is not None:
        return set_vault_pack(vault, name, verb="use", at=at, home=home)
    return set_home_pack(name, verb="use", at=at, home=home)


def downgrade_pack(
    to: str | None = None,
    *,
    at: dt.datetime,
    home: Path | None = None,
    vault: Path | None = None,
) -> PackSwitch:
    """Restore ``to``, or the pack in force before the last recorded change (of ``vault``'s
    pack inside a vault, of the per-user default outside)."""
    if to is None:
        history = read_history(home, vault)
        if not history:
            raise UserError(
                "no pack history to go back to; name one: `vaultbrain schema downgrade --to "
                f"{DEFAULT_PACK}`"
            )
        to = history[-1].get("from") or None
    if vault is not None:
        return set_vault_pack(vault, to, verb="downgrade", at=at, home=home)
    return set_home_pack(to, verb="downgrade", at=at, home=home)


def _append(path: Path, entry: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")


# -- packs every machine can see -----------------------------------------------------------


def only_here(name: str, vault: Path, home: Path | None = None) -> Path | None:
    """Where pack ``name`` (or a pack it extends or borrows from) is found when only this
    machine has it (installed under ``~/.vaultbrain``, not bundled, not kept in the vault):
    another machine filing this vault would not find it. None when every machine can."""
    home = home or home_dir()
    shared = vault_packs_dir(Path(vault))
    pack = load_pack(name, home, shared)
    for part in pack.chain:
        path = find_pack(part, home, shared)
        if path is not None and installed_dir(home) in path.parents:
            return path
    return None


def keep_in_vault(vault: Any, name: str, home: Path | None = None) -> list[str]:
    """Copy pack ``name`` and the installed packs its chain needs into the vault's packs
    folder (``packs_folder:`` in vaultbrain.yml, set to ``Brain/Packs`` when unset), so every
    machine syncing the vault has them. Each file is written atomically; a pack already there
    with the same bytes is left alone. The files written, relative to the vault."""
    from vaultbrain.vault import yml

    home = home or home_dir()
    root = Path(vault.root)
    if vault_packs_dir(root) is None:
        yml.set_key(
            vault,
            PACKS_FOLDER_KEY,
            DEFAULT_PACKS_FOLDER,
            comment="Schema packs kept in the vault, so every machine that files it has them.",
        )
    shared = vault_packs_dir(root)
    assert shared is not None
    written: list[str] = []
    for part in load_pack(name, home, shared).chain:
        source = find_pack(part, home, shared)
        if source is None or bundled_dir() in source.parents or shared in source.parents:
            continue  # bundled with vaultbrain, or in the vault already
        for file in sorted(source.parent.rglob("*")):
            if not file.is_file() or any(
                p.startswith(".") for p in file.relative_to(source.parent).parts
            ):
                continue
            dest = shared / part / file.relative_to(source.parent)
            data = file.read_bytes()
            if dest.is_file() and dest.read_bytes() == data:
                continue
            vault.resolve(dest.relative_to(root).as_posix())  # stays inside the vault
            atomic_write_file(dest, data)
            written.append(dest.relative_to(root).as_posix())
    return written
