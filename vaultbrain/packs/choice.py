"""Choosing the schema pack in force: which tier names it, and the pack for a note.

Resolution chain, first match wins: (1) ``--schema-pack``; (2) ``VAULTBRAIN_SCHEMA_PACK``;
(3) per-folder setting ``schema_pack.source.<folder>`` for notes under that folder; (4) a
``schema_pack`` an earlier version kept in this machine's settings.json (the setting itself
is now the vault's ``schema:`` line, vaultbrain/settings.py); (5) ``vaultbrain.yml``
``schema:`` at the vault root;
(6) ``~/.vaultbrain/config.json`` ``schema_pack`` (what ``schema use`` writes);
(7) ``vaultbrain-base``.

Packs are found, read and resolved by ``vaultbrain/packs/loader.py``; ``schema use`` and
``schema downgrade`` write tiers 5 and 6 (``vaultbrain/packs/config.py``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.packs.loader import RACY_NS, home_dir, load_pack, load_ref, one_line, yaml_loader
from vaultbrain.packs.resolved import PackError, ResolvedPack

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

DEFAULT_PACK = "vaultbrain-base"
FOLDER_KEY_PREFIX = "schema_pack.source."
TIERS: dict[int, str] = {
    1: "--schema-pack",
    2: "VAULTBRAIN_SCHEMA_PACK",
    3: "per-folder setting schema_pack.source.<folder>",
    4: "schema_pack in this machine's settings.json (from an earlier version)",
    5: "vaultbrain.yml schema:",
    6: "~/.vaultbrain/config.json schema_pack",
    7: "default",
}


@dataclass(frozen=True)
class ActivePack:
    pack: ResolvedPack
    tier: int
    source: str
    folder: str | None = None
    shared: Path | None = None  # the vault's packs folder (``packs_folder:``), if it has one


@dataclass(frozen=True)
class PackChoice:
    """Which pack a tier names, before it is loaded."""

    name: str
    tier: int
    source: str
    folder: str | None = None


def home_config_path(home: Path | None = None) -> Path:
    return (home or home_dir()) / "config.json"


_small_files: dict[str, tuple[tuple[int, int], Any]] = {}


def _read_small(path: Path, parse: Callable[[str], Any]) -> Any:
    """``parse`` of a small config file, cached while its stat is unchanged (not when fresh)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        _small_files.pop(str(path), None)
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _small_files.get(str(path))
    if hit is not None and hit[0] == stamp:
        return hit[1]
    value = parse(path.read_text("utf-8"))
    if time.time_ns() - st.st_mtime_ns > RACY_NS:
        _small_files[str(path)] = (stamp, value)
    return value


def read_home_config(home: Path | None = None) -> dict[str, Any]:
    path = home_config_path(home)
    try:
        data = _read_small(path, json.loads)
    except (OSError, ValueError) as exc:
        raise PackError("PARSE_ERROR", f"{path}: {one_line(str(exc))}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PackError("INVALID_SHAPE", f"{path}: expected a JSON object")
    return dict(data)


class _YAMLError(Exception):
    """yaml.YAMLError, for a module that imports PyYAML only when it has a file to read."""


def _parse_yaml(text: str) -> Any:
    from vaultbrain.vault.yml import plain_mapping

    plain = plain_mapping(text)
    if plain is not None:
        return plain
    import yaml

    try:
        return yaml.load(text, Loader=yaml_loader())
    except yaml.YAMLError as exc:
        raise _YAMLError(str(exc)) from exc


def read_vault_yml(vault_root: Path) -> str | None:
    """``schema:`` of ``vaultbrain.yml`` at the vault root (a name, or ``{pack: name}``)."""
    schema = _vault_doc(vault_root).get("schema")
    if isinstance(schema, dict):
        schema = schema.get("pack") or schema.get("name")
    return str(schema).strip() if schema else None


PACKS_FOLDER_KEY = "packs_folder"
DEFAULT_PACKS_FOLDER = "Brain/Packs"


def vault_packs_dir(vault_root: Path | None) -> Path | None:
    """The vault's packs folder (``packs_folder:`` in vaultbrain.yml, e.g. ``Brain/Packs``):
    packs kept there travel with the notes, so every machine has them. None when unset, or
    when it would lead out of the vault or into a dot-folder (never read then)."""
    if vault_root is None:
        return None
    try:
        value = _vault_doc(vault_root).get(PACKS_FOLDER_KEY)
    except PackError:
        return None
    if not isinstance(value, str) or not value.strip():
        return None
    parts = [p for p in value.replace("\\", "/").strip().strip("/").split("/") if p]
    if not parts or any(p == ".." or p.startswith(".") or ":" in p for p in parts):
        return None
    return Path(vault_root).joinpath(*parts)


def _vault_doc(vault_root: Path) -> dict[str, Any]:
    yml = Path(vault_root) / "vaultbrain.yml"
    try:
        doc = _read_small(yml, _parse_yaml) or {}
    except IsADirectoryError:
        return {}
    except _YAMLError as exc:
        # A typo on another line of the vault's settings must not lose the pack: each key
        # is read on its own (vaultbrain/vault/yml.py); only a broken `schema:` is an error.
        from vaultbrain.vault.yml import parse_lenient

        doc, broken = parse_lenient(yml.read_text("utf-8"), str(yml))
        if "schema" in broken or "" in broken:
            raise PackError("PARSE_ERROR", f"{yml}: {one_line(str(exc))}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError("PARSE_ERROR", f"{yml}: {one_line(str(exc))}") from exc
    return doc if isinstance(doc, dict) else {}


def _tier4(settings: Any) -> Any:
    """The setting schema_pack as this machine's settings.json holds it (tier 4); the
    vault's, in vaultbrain.yml's ``schema:``, is tier 5 (vaultbrain/settings.py)."""
    if hasattr(settings, "legacy"):
        return settings.legacy("schema_pack")
    return settings.get("schema_pack")


def folder_packs(settings: Any | None) -> list[tuple[str, str]]:
    """(folder, pack name) of every ``schema_pack.source.<folder>`` setting, deepest first."""
    if settings is None or not hasattr(settings, "items"):
        return []
    out = []
    for name, value, _where in settings.items():
        if name.startswith(FOLDER_KEY_PREFIX) and value:
            folder = name[len(FOLDER_KEY_PREFIX) :].replace("\\", "/").strip("/")
            if folder:
                out.append((folder, str(value).strip()))
    out.sort(key=lambda x: -x[0].count("/"))
    return out


def folder_for(rel: str, folders: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The deepest configured folder that holds ``rel`` (whole folder names, any case)."""
    low = rel.replace("\\", "/").lower()
    for folder, pack in folders:
        if low.startswith(folder.lower() + "/"):
            return folder, pack
    return None


def choose_pack(
    vault_root: Path | None,
    settings: Any | None = None,
    override: str | None = None,
    env: Mapping[str, str] | None = None,
    rel: str | None = None,
) -> PackChoice:
    """Walk the resolution chain; the first tier that names a pack wins (nothing is loaded)."""
    env = os.environ if env is None else env
    if override:
        return PackChoice(override, 1, TIERS[1])
    if env.get("VAULTBRAIN_SCHEMA_PACK"):
        return PackChoice(env["VAULTBRAIN_SCHEMA_PACK"].strip(), 2, TIERS[2])
    if rel is not None:
        hit = folder_for(rel, folder_packs(settings))
        if hit is not None:
            return PackChoice(hit[1], 3, f"setting {FOLDER_KEY_PREFIX}{hit[0]}", folder=hit[0])
    if settings is not None:
        value = _tier4(settings)
        if value:
            return PackChoice(str(value).strip(), 4, TIERS[4])
    if vault_root is not None:
        name = read_vault_yml(Path(vault_root))
        if name:
            return PackChoice(name, 5, str(Path(vault_root) / "vaultbrain.yml"))
    home = home_dir(env)
    value = read_home_config(home).get("schema_pack")
    if value:
        return PackChoice(str(value).strip(), 6, str(home_config_path(home)))
    return PackChoice(DEFAULT_PACK, 7, TIERS[7])


def active_pack(
    vault_root: Path | None,
    settings: Any | None = None,
    override: str | None = None,
    env: Mapping[str, str] | None = None,
    rel: str | None = None,
) -> ActivePack:
    """The pack in force (for the note ``rel`` when given: tier 3 may apply) and its tier."""
    choice = choose_pack(vault_root, settings, override, env, rel)
    home = home_dir(os.environ if env is None else env)
    shared = vault_packs_dir(vault_root)
    try:
        pack = (
            load_ref(choice.name, home, shared)
            if choice.tier == 1
            else load_pack(choice.name, home, shared)
        )
    except PackError as exc:
        raise PackError(
            exc.code,
            f"{exc.detail} [the pack named by {choice.source} (tier {choice.tier})]",
            field=exc.field,
        ) from exc
    return ActivePack(pack, choice.tier, choice.source, choice.folder, shared)


# In the state dir: the notes cache, which names the pack of the last scan (written by
# vaultbrain/filing/scan.py at every scan that changed something): the pack this machine
# last filed with, read only when the pack named cannot be used.
LAST_SCAN = "notes-cache.json"


def active_or_fallback(
    vault_root: Path | None,
    settings: Any | None,
    override: str | None,
    env: Mapping[str, str] | None,
    state_dir: Path | None,
) -> tuple[ActivePack, str | None]:
    """The pack in force, and None; or, when the pack a shared tier names cannot be used on
    this machine (a pack only another machine has, a broken one), the pack this machine last
    filed with (else the default) and why, in one line. A pack named for this run
    (``--schema-pack``, ``$VAULTBRAIN_SCHEMA_PACK``) is never replaced: its error is raised."""
    try:
        active = active_pack(vault_root, settings, override, env)
    except PackError as exc:
        choice = choose_pack(vault_root, settings, override, env)
        if choice.tier <= 2:
            raise
        home = home_dir(os.environ if env is None else env)
        last = _last_good(state_dir)
        shared = vault_packs_dir(vault_root)
        for name in (last, DEFAULT_PACK):
            if not name or name == choice.name:
                continue
            try:
                pack = load_pack(name, home, shared)
            except PackError:
                continue
            why = "the pack this machine last filed with" if name == last else "the default"
            problem = (
                f"the schema pack {choice.name!r} that {choice.source} names cannot be used on "
                f"this machine ({exc.detail.split(' [the pack named by')[0]}); filing with "
                f"{name} ({why}) meanwhile: install the pack here, or keep it in the vault "
                "(`vaultbrain schema use NAME --in-vault`) so every machine has it"
            )
            return ActivePack(pack, 7, f"{why}, in place of {choice.name}", None, shared), problem
        raise
    return active, None


def _last_good(state_dir: Path | None) -> str | None:
    if state_dir is None:
        return None
    try:
        doc = json.loads((Path(state_dir) / LAST_SCAN).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    identity = doc.get("pack") if isinstance(doc, dict) else None
    return str(identity).split("@", 1)[0] if identity else None


def pack_for_path(app: PackContext, rel: str) -> ResolvedPack:
    """The pack that types the note ``rel`` of ``app``'s vault (tier 3 included)."""
    app.settings.reload()
    return active_pack(app.vault.root, app.settings, app.schema_override, app.env, rel=rel).pack


def typer_for(app: PackContext) -> Callable[[str], ResolvedPack]:
    """A function rel -> pack for many notes at once (settings read once, packs cached)."""
    app.settings.reload()
    default = active_pack(app.vault.root, app.settings, app.schema_override, app.env)
    return folder_typer(default, folder_packs(app.settings), home_dir(app.env))[0]


def folder_typer(
    default: ActivePack, folders: list[tuple[str, str]], home: Path
) -> tuple[Callable[[str], ResolvedPack], list[ResolvedPack]]:
    """rel -> the pack that types it (a per-folder pack of tier 3 wins over the default,
    unless the default was named by tier 1 or 2), and the per-folder packs it loaded."""
    by_folder = {}
    for folder, name in folders:
        try:
            by_folder[folder] = load_pack(name, home, default.shared)
        except PackError as exc:
            raise PackError(
                exc.code, f"per-folder pack for {folder}/: {exc.detail}", field=exc.field
            ) from exc
    if not folders or default.tier <= 2:
        return (lambda rel: default.pack), list(by_folder.values())

    def typer(rel: str) -> ResolvedPack:
        hit = folder_for(rel, folders)
        return by_folder[hit[0]] if hit else default.pack

    return typer, list(by_folder.values())


def tier_report(
    vault_root: Path | None,
    settings: Any | None = None,
    override: str | None = None,
    env: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """What each tier of the resolution chain names (None: nothing), for ``schema active``."""
    env = os.environ if env is None else env
    home = home_dir(env)
    folders = folder_packs(settings)
    value4 = _tier4(settings) if settings is not None else None
    try:
        value5 = read_vault_yml(Path(vault_root)) if vault_root is not None else None
    except PackError as exc:
        value5 = f"(unreadable: {exc})"
    try:
        value6 = read_home_config(home).get("schema_pack")
    except PackError as exc:
        value6 = f"(unreadable: {exc})"
    return [
        {"tier": 1, "source": TIERS[1], "value": override or None},
        {"tier": 2, "source": TIERS[2], "value": env.get("VAULTBRAIN_SCHEMA_PACK") or None},
        {
            "tier": 3,
            "source": TIERS[3],
            "value": {f"{folder}/": name for folder, name in folders} or None,
        },
        {"tier": 4, "source": TIERS[4], "value": value4 or None},
        {
            "tier": 5,
            "source": str(Path(vault_root) / "vaultbrain.yml") if vault_root else TIERS[5],
            "value": value5 or None,
        },
        {"tier": 6, "source": str(home_config_path(home)), "value": value6 or None},
        {"tier": 7, "source": TIERS[7], "value": DEFAULT_PACK},
    ]
