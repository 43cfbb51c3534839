"""Finding, loading, merging and choosing schema packs.

Resolution chain, first match wins: (1) ``--schema-pack``; (2) ``VAULTBRAIN_SCHEMA_PACK``;
(3) per-folder setting ``schema_pack.source.<folder>``; (4) the vault setting ``schema_pack``;
(5) ``vaultbrain.yml`` ``schema:``; (6) ``~/.vaultbrain/config.json`` ``schema_pack``;
(7) ``vaultbrain-base``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from vaultbrain.packs.model import Manifest, PackError, PageType, ResolvedPack
from vaultbrain.resources import data_dir

DEFAULT_PACK = "vaultbrain-base"
MAX_DEPTH = 8
_cache: dict[tuple[str, ...], tuple[tuple[Any, ...], ResolvedPack]] = {}


def home_dir() -> Path:
    return Path(os.environ.get("VAULTBRAIN_HOME") or Path.home() / ".vaultbrain")


def pack_file(name: str) -> Path:
    """Where pack ``name`` lives: installed packs shadow bundled ones."""
    installed = home_dir() / "schema-packs" / name
    for candidate in ("pack.yaml", "pack.yml", "pack.json"):
        if (installed / candidate).is_file():
            return installed / candidate
    for ext in (".yaml", ".yml", ".json"):
        bundled = data_dir("packs") / f"{name}{ext}"
        if bundled.is_file():
            return bundled
    raise PackError("UNKNOWN_PACK", f"no schema pack named {name!r} (`vaultbrain schema list`)")


def read_manifest(path: Path) -> Manifest:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError as exc:
        raise PackError("FILE_NOT_FOUND", f"{path} does not exist") from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (yaml.YAMLError, ValueError) as exc:
        raise PackError("PARSE_ERROR", f"{path}: {exc}") from exc
    if not isinstance(data, dict):
        raise PackError("INVALID_SHAPE", f"{path}: a pack manifest is a mapping")
    if data.get("api_version") not in ("vaultbrain-schema-pack-v1", "gbrain-schema-pack-v1"):
        raise PackError(
            "INVALID_API_VERSION",
            f"{path}: api_version must be vaultbrain-schema-pack-v1 (got {data.get('api_version')!r})",
        )
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise PackError("INVALID_SHAPE", f"{path}: {where}: {err['msg']}") from exc


def load_pack(name: str) -> ResolvedPack:
    """Pack ``name`` with its extends chain merged (cached until a pack file changes)."""
    chain: list[tuple[Path, Manifest]] = []
    seen: list[str] = []
    current: str | None = name
    while current:
        if current in seen:
            raise PackError("EXTENDS_TOO_DEEP", "extends cycle: " + " -> ".join([*seen, current]))
        seen.append(current)
        if len(seen) > MAX_DEPTH:
            raise PackError("EXTENDS_TOO_DEEP", "extends chain deeper than 8: " + " -> ".join(seen))
        path = pack_file(current)
        manifest = read_manifest(path)
        chain.append((path, manifest))
        current = manifest.extends
    stamp = tuple((str(p), _mtime(p)) for p, _ in chain)
    key = tuple(seen)
    hit = _cache.get(key)
    if hit and hit[0] == stamp:
        return hit[1]
    merged = _merge([m for _, m in chain])
    resolved = ResolvedPack(merged, chain=seen)
    _cache[key] = (stamp, resolved)
    return resolved


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _merge(chain: list[Manifest]) -> Manifest:
    """Merge nearest-first ``chain`` (child first): child wins; new types are prepended."""
    root = chain[-1]
    types: list[PageType] = list(root.page_types)
    for manifest in reversed(chain[:-1]):
        by_name = {t.name: i for i, t in enumerate(types)}
        new: list[PageType] = []
        for t in manifest.page_types:
            if t.name in by_name:
                types[by_name[t.name]] = t
            else:
                new.append(t)
        types = new + types
    child = chain[0]
    kinds: list[str] = []
    for m in reversed(chain):
        for k in m.takes_kinds:
            if k not in kinds:
                kinds.append(k)
    return child.model_copy(update={"page_types": types, "takes_kinds": kinds})


@dataclass(frozen=True)
class ActivePack:
    pack: ResolvedPack
    tier: int
    source: str


def active_pack(
    vault_root: Path | None,
    settings: Any | None = None,
    override: str | None = None,
    env: dict[str, str] | None = None,
) -> ActivePack:
    """Walk the resolution chain; the first tier that names a pack wins."""
    env = os.environ if env is None else env
    if override:
        return ActivePack(load_pack(override), 1, "--schema-pack")
    if env.get("VAULTBRAIN_SCHEMA_PACK"):
        return ActivePack(load_pack(env["VAULTBRAIN_SCHEMA_PACK"]), 2, "VAULTBRAIN_SCHEMA_PACK")
    if settings is not None:
        value = settings.get("schema_pack")
        if value:
            return ActivePack(load_pack(value), 4, "vault setting schema_pack")
    if vault_root is not None:
        yml = Path(vault_root) / "vaultbrain.yml"
        if yml.is_file():
            try:
                doc = yaml.safe_load(yml.read_text("utf-8")) or {}
            except yaml.YAMLError as exc:
                raise PackError("PARSE_ERROR", f"{yml}: {exc}") from exc
            if isinstance(doc, dict) and doc.get("schema"):
                return ActivePack(load_pack(str(doc["schema"])), 5, "vaultbrain.yml")
    cfg = home_dir() / "config.json"
    if cfg.is_file():
        try:
            data = json.loads(cfg.read_text("utf-8"))
        except ValueError as exc:
            raise PackError("PARSE_ERROR", f"{cfg}: {exc}") from exc
        if isinstance(data, dict) and data.get("schema_pack"):
            return ActivePack(load_pack(str(data["schema_pack"])), 6, str(cfg))
    return ActivePack(load_pack(DEFAULT_PACK), 7, "default")
