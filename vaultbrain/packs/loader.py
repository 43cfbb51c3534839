"""Finding, reading and resolving schema packs (which pack is in force is
``vaultbrain/packs/choice.py``).

Packs live in two places: the bundled ``packs/`` folder and ``~/.vaultbrain/schema-packs/
<name>/pack.yaml`` (``$VAULTBRAIN_HOME`` moves ``~/.vaultbrain``); an installed pack shadows a
bundled one of the same name. Manifests are YAML (PyYAML, so block scalars and anchors work)
or JSON.

Resolved packs are cached by name; a hit is checked against the stat of every file that fed
it (the chain and the borrow targets) and against where each name is found now, so editing,
installing or removing a pack file is seen on the next call without a restart. A process
that opened a vault also keeps the cache in its state dir (:func:`keep_on_disk`), so the next
`vaultbrain` command starts without validating the manifests again: the cache holds the
resolved pack's plain parts (resolved.py), so such a command does not even import pydantic
(whose import and model classes were most of what a cold command spent on packs).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import pickle
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.packs.resolved import PackError, ResolvedPack
from vaultbrain.resources import data_dir

if TYPE_CHECKING:
    from vaultbrain.packs.merge import Layer
    from vaultbrain.packs.model import Manifest
    from vaultbrain.store import Store

log = logging.getLogger(__name__)

MAX_DEPTH = 8
WARN_DEPTH = 4
MANIFEST_NAMES = ("pack.yaml", "pack.yml", "pack.json")
# gbrain packs name gbrain's bundled packs as parents; ours play the same part.
_GBRAIN_PARENTS = {"gbrain-base": "vaultbrain-base", "gbrain-recommended": "vaultbrain-recommended"}


@functools.cache
def yaml_loader() -> type:
    """PyYAML's fastest safe loader, imported when a manifest or a config is read (a pack
    found in the state dir's cache needs none)."""
    import yaml

    try:
        return yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML without libyaml
        return yaml.SafeLoader


@functools.cache
def manifest_loader() -> type:
    """The loader of a pack manifest: :func:`yaml_loader` with a date read as the text it
    is (``frontmatter_value: 2026-01-05``), as gbrain's loader and JSON read it, never a
    date object that no manifest field takes. (Booleans stay YAML's, ``yes`` included, as
    vaultbrain reads the notes a subtype's value is compared with.)"""
    base: Any = yaml_loader()
    dropped = "tag:yaml.org,2002:timestamp"
    resolvers = {
        first: [(tag, rx) for tag, rx in pairs if tag != dropped]
        for first, pairs in base.yaml_implicit_resolvers.items()
    }
    return type("ManifestLoader", (base,), {"yaml_implicit_resolvers": resolvers})


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$VAULTBRAIN_HOME``, else ``~/.vaultbrain``: installed packs, config, history."""
    env = os.environ if env is None else env
    value = env.get("VAULTBRAIN_HOME")
    return Path(value).expanduser() if value else Path.home() / ".vaultbrain"


def installed_dir(home: Path | None = None) -> Path:
    return (home or home_dir()) / "schema-packs"


@functools.lru_cache(maxsize=1)
def bundled_dir() -> Path:
    return data_dir("packs")


def manifest_in(folder: Path) -> Path | None:
    for candidate in MANIFEST_NAMES:
        if (folder / candidate).is_file():
            return folder / candidate
    return None


def find_pack(name: str, home: Path | None = None, shared: Path | None = None) -> Path | None:
    """Where pack ``name`` lives, or None: a pack kept in the vault (``shared``, the folder
    ``packs_folder:`` of vaultbrain.yml names: every machine has it) shadows an installed
    one, and installed packs shadow bundled ones."""
    # Plain os.path: this runs on every cache check, and pathlib costs more than the stats.
    for base in (shared, installed_dir(home)) if shared is not None else (installed_dir(home),):
        folder = os.path.join(base, name)
        for candidate in MANIFEST_NAMES:
            path = os.path.join(folder, candidate)
            if os.path.isfile(path):
                return Path(path)
    bundled = str(bundled_dir())
    for ext in (".yaml", ".yml", ".json"):
        path = os.path.join(bundled, name + ext)
        if os.path.isfile(path):
            return Path(path)
    return None


def pack_file(name: str, home: Path | None = None, shared: Path | None = None) -> Path:
    path = find_pack(name, home, shared)
    if path is None:
        raise PackError("UNKNOWN_PACK", f"no schema pack named {name!r} (`vaultbrain schema list`)")
    return path


def parse_manifest_text(text: str, where: str, json_only: bool = False) -> dict[str, Any]:
    import yaml

    try:
        data = json.loads(text) if json_only else yaml.load(text, Loader=manifest_loader())
    except (yaml.YAMLError, ValueError) as exc:
        raise PackError("PARSE_ERROR", f"{where}: {one_line(str(exc))}") from exc
    if not isinstance(data, dict):
        raise PackError("INVALID_SHAPE", f"{where}: a pack manifest is a mapping of keys")
    return data


def manifest_from_data(data: dict[str, Any], where: str) -> Manifest:
    # Validation is the only use of pydantic: a pack read from the cache never imports it.
    from pydantic import ValidationError

    from vaultbrain.packs.model import API_VERSIONS, SKILLPACK_API_VERSIONS, Manifest

    api = data.get("api_version")
    if api in SKILLPACK_API_VERSIONS:
        raise PackError(
            "INVALID_API_VERSION",
            f"{where}: this is a skillpack ({api}), not a schema pack",
            field="api_version",
        )
    if api not in API_VERSIONS:
        raise PackError(
            "INVALID_API_VERSION",
            f"{where}: api_version must be vaultbrain-schema-pack-v1 (got {api!r})",
            field="api_version",
        )
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        err = errors[0]
        field = _field_path(err["loc"], data)
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise PackError(
            "INVALID_SHAPE", f"{where}: {field}: {_message(err)}{more}", field=field
        ) from exc


def read_manifest(path: Path) -> Manifest:
    """Read and validate one manifest file (or the manifest inside a pack folder)."""
    path = Path(path)
    if path.is_dir():
        inside = manifest_in(path)
        if inside is None:
            raise PackError("FILE_NOT_FOUND", f"{path} holds no pack.yaml, pack.yml or pack.json")
        path = inside
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError as exc:
        raise PackError("FILE_NOT_FOUND", f"{path} does not exist") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError("PARSE_ERROR", f"{path} cannot be read: {exc}") from exc
    data = parse_manifest_text(text, str(path), json_only=path.suffix == ".json")
    return manifest_from_data(data, str(path))


def _field_path(loc: tuple[Any, ...], data: Any) -> str:
    out = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            try:
                node = node[part]
            except (TypeError, IndexError, KeyError):
                node = None
            if isinstance(node, dict) and isinstance(node.get("name"), str) and out.endswith("]"):
                out += f"({node['name']})"
        else:
            out += ("." if out else "") + str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return out or "(top level)"


def _message(err: Mapping[str, Any]) -> str:
    if err.get("type") == "extra_forbidden":
        return "unknown key"
    if err.get("type") == "missing":
        return "required key is missing"
    msg = str(err.get("msg", "invalid"))
    return msg.removeprefix("Value error, ")


def one_line(text: str) -> str:
    return " ".join(text.split())


# -- resolving -----------------------------------------------------------------------------


@dataclass
class _Fed:
    """A file that fed a resolved pack, as it was when it was read.

    A file modified within the clock's granularity of being read could change again without
    its stat changing (the "racy git" problem), so for such a file the content hash is kept
    and compared too.
    """

    name: str
    path: str
    mtime_ns: int
    size: int
    digest: str | None = None

    @classmethod
    def of(cls, name: str, path: Path | str) -> _Fed:
        mtime, size = _stat(path)
        digest = _digest(path) if time.time_ns() - mtime < RACY_NS else None
        return cls(name, str(path), mtime, size, digest)

    def unchanged(self) -> bool:
        if _stat(self.path) != (self.mtime_ns, self.size):
            return False
        return self.digest is None or _digest(self.path) == self.digest


# A file changed this recently may change again within the same mtime tick: check its bytes.
RACY_NS = 3_000_000_000
_cache: dict[tuple[str, ...], tuple[list[_Fed], ResolvedPack]] = {}


def clear_cache() -> None:
    _cache.clear()


def _stat(path: Path | str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return -1, -1
    return st.st_mtime_ns, st.st_size


def _digest(path: Path | str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def resolve(
    manifest: Manifest,
    source: Path | None = None,
    *,
    home: Path | None = None,
    fed: list[_Fed] | None = None,
    shared: Path | None = None,
) -> ResolvedPack:
    """Merge ``manifest`` with its extends chain and borrow targets into a ResolvedPack.

    Refuses an extends cycle or a chain deeper than 8 (EXTENDS_TOO_DEEP, naming the chain),
    a missing parent or borrow target (UNKNOWN_PACK), a borrowed type or link type the
    target does not declare itself (UNKNOWN_TYPE) and an alias cycle (ALIAS_CYCLE).
    """
    from vaultbrain.packs.merge import find_alias_cycle, merge_chain

    fed = [] if fed is None else fed
    chain_names: list[str] = [manifest.name]
    manifests: list[Manifest] = [manifest]
    current = manifest
    while current.extends:
        parent_name = current.extends
        path = find_pack(parent_name, home, shared)
        if (
            path is None
            and current.api_version.startswith("gbrain")
            and parent_name in _GBRAIN_PARENTS
        ):
            parent_name = _GBRAIN_PARENTS[parent_name]
            path = find_pack(parent_name, home, shared)
        if parent_name in chain_names:
            raise PackError(
                "EXTENDS_TOO_DEEP",
                "extends cycle: " + " -> ".join([*chain_names, parent_name]),
                field="extends",
            )
        if len(chain_names) + 1 > MAX_DEPTH:
            raise PackError(
                "EXTENDS_TOO_DEEP",
                f"extends chain deeper than {MAX_DEPTH}: "
                + " -> ".join([*chain_names, parent_name]),
                field="extends",
            )
        if path is None:
            raise PackError(
                "UNKNOWN_PACK",
                f"{current.name} extends {parent_name!r}, and no pack has that name "
                "(`vaultbrain schema list`)",
                field="extends",
            )
        fed.append(_Fed.of(parent_name, path))
        current = read_manifest(path)
        if current.name != parent_name:
            raise PackError(
                "INVALID_SHAPE",
                f"{path}: name is {current.name!r} but the pack is found as {parent_name!r}",
                field="name",
            )
        chain_names.append(parent_name)
        manifests.append(current)

    layers = [_layer(m, home, fed, shared) for m in manifests]
    merged, origins = merge_chain(layers)
    cycle = find_alias_cycle(merged.page_types)
    if cycle:
        raise PackError(
            "ALIAS_CYCLE",
            f"{manifest.name}: aliases form a cycle: " + " -> ".join(cycle),
            field="page_types.aliases",
        )
    warnings = []
    if len(chain_names) > WARN_DEPTH:
        warnings.append(
            f"extends chain is {len(chain_names)} packs deep (more than {WARN_DEPTH}): "
            + " -> ".join(chain_names)
        )
        log.warning("schema pack %s: %s", manifest.name, warnings[-1])
    return ResolvedPack(
        merged,
        chain=chain_names,
        warnings=warnings,
        origins=origins,
        source=str(source) if source else None,
    )


def _layer(
    manifest: Manifest, home: Path | None, fed: list[_Fed], shared: Path | None = None
) -> Layer:
    from vaultbrain.packs.merge import Layer

    layer = Layer(manifest)
    for i, spec in enumerate(manifest.borrow_from):
        where = f"borrow_from[{i}]"
        if spec.pack == manifest.name:
            raise PackError(
                "INVALID_SHAPE",
                f"{manifest.name}: {where}.pack names the pack itself",
                field=f"{where}.pack",
            )
        path = find_pack(spec.pack, home, shared)
        if path is None:
            raise PackError(
                "UNKNOWN_PACK",
                f"{manifest.name} borrows from {spec.pack!r}, and no pack has that name",
                field=f"{where}.pack",
            )
        fed.append(_Fed.of(spec.pack, path))
        target = read_manifest(path)
        own_types = {t.name: t for t in target.page_types}
        for j, name in enumerate(spec.types or []):
            if name not in own_types:
                raise PackError(
                    "UNKNOWN_TYPE",
                    f"{manifest.name} borrows type {name!r} from {spec.pack}, which does not "
                    "declare it itself (borrow_from takes a pack's own declarations only)",
                    field=f"{where}.types[{j}]",
                )
            layer.borrowed_types.append((spec.pack, own_types[name]))
        own_links = {lt.name: lt for lt in target.link_types}
        for j, name in enumerate(spec.link_types or []):
            if name not in own_links:
                raise PackError(
                    "UNKNOWN_TYPE",
                    f"{manifest.name} borrows link type {name!r} from {spec.pack}, which does "
                    "not declare it itself",
                    field=f"{where}.link_types[{j}]",
                )
            layer.borrowed_links.append(own_links[name])
    return layer


def _fresh(fed: list[_Fed], home: Path | None, shared: Path | None = None) -> bool:
    for f in fed:
        found = find_pack(f.name, home, shared)
        if found is None or f.path != str(found):
            return False
        if not f.unchanged():
            return False
    return True


# Where resolved packs are kept between processes: the blobs of the store of the vault this
# process opened last (weakly: the cache goes with the store).
_disk: weakref.ref[Store] | None = None


def keep_on_disk(store: Store | None) -> None:
    """Keep resolved packs in ``store``'s database (one that exists: nothing is made for a
    cache)."""
    global _disk
    exists = store is not None and store.path is not None and store.path.exists()
    _disk = weakref.ref(store) if store is not None and exists else None


def _kept_in() -> Store | None:
    return _disk() if _disk is not None else None


@functools.cache
def _code_stamp() -> tuple[Any, ...]:
    """What the pickled objects' classes are made of: a cache from other code is not used."""
    here = Path(__file__).parent
    made_of = ("resolved.py", "model.py", "fields.py", "merge.py", "loader.py")
    return tuple(_stat(here / f) for f in made_of)


def _blob_name(key: tuple[str, ...]) -> str:
    digest = hashlib.sha256(repr((key, _code_stamp())).encode()).hexdigest()[:16]
    return f"packs-cache/{digest}"


def _from_disk(
    key: tuple[str, ...], home: Path, shared: Path | None = None
) -> tuple[list[_Fed], ResolvedPack] | None:
    store = _kept_in()
    if store is None:
        return None
    name = _blob_name(key)
    try:
        data = store.read_blob(name)
        if data is None:
            return None
        hit = pickle.loads(data)  # our own cache in this machine's state.db
    except Exception as exc:  # torn or from another version: resolved again, never fatal
        log.debug("ignoring the pack cache %s: %s", name, exc)
        return None
    if not (isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[1], ResolvedPack)):
        return None
    return hit if _fresh(hit[0], home, shared) else None


def _to_disk(key: tuple[str, ...], fed: list[_Fed], resolved: ResolvedPack) -> None:
    store = _kept_in()
    if store is None:
        return
    try:
        resolved.identity  # noqa: B018 (computed now, kept with it: a load needs no dump)
        data = pickle.dumps((fed, resolved), protocol=pickle.HIGHEST_PROTOCOL)
        store.write_blob(_blob_name(key), data)
    except Exception as exc:  # a cache that cannot be written is resolved again next time
        log.debug("could not keep the pack cache %s: %s", _blob_name(key), exc)


def load_pack(name: str, home: Path | None = None, shared: Path | None = None) -> ResolvedPack:
    """Pack ``name``, resolved (cached until a file that fed it changes); ``shared``: the
    vault's packs folder, searched first (see :func:`find_pack`)."""
    home = home or home_dir()
    key: tuple[str, ...] = (name, str(home), str(bundled_dir()))
    if shared is not None:
        key = (*key, str(shared))
    hit = _cache.get(key)
    if hit is not None and _fresh(hit[0], home, shared):
        return hit[1]
    hit = _from_disk(key, home, shared)
    if hit is not None:
        _cache[key] = hit
        return hit[1]
    path = pack_file(name, home, shared)
    fed = [_Fed.of(name, path)]
    manifest = read_manifest(path)
    if manifest.name != name:
        raise PackError(
            "INVALID_SHAPE",
            f"{path}: name is {manifest.name!r} but the pack is found as {name!r}",
            field="name",
        )
    resolved = resolve(manifest, path, home=home, fed=fed, shared=shared)
    _cache[key] = (fed, resolved)
    _to_disk(key, fed, resolved)
    return resolved


def load_pack_path(path: Path | str, home: Path | None = None) -> ResolvedPack:
    """A pack file (or pack folder) that need not be installed, resolved against its parents."""
    path = Path(path)
    return resolve(read_manifest(path), path, home=home or home_dir())


def looks_like_path(ref: str) -> bool:
    return (
        "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml", ".json")) or ref in (".", "..")
    )


def load_ref(ref: str, home: Path | None = None, shared: Path | None = None) -> ResolvedPack:
    """A pack by name, or by the path of a manifest or pack folder."""
    if looks_like_path(ref) or (Path(ref).exists() and find_pack(ref, home, shared) is None):
        return load_pack_path(ref, home)
    return load_pack(ref, home, shared)


# -- listing -------------------------------------------------------------------------------


@dataclass
class PackListing:
    name: str
    path: str
    where: str  # bundled | installed
    version: str | None = None
    extends: str | None = None
    description: str = ""
    shadows_bundled: bool = False
    error: str | None = None


def list_packs(home: Path | None = None) -> list[PackListing]:
    """Every bundled and installed pack, by name; a broken one is listed with its error."""
    home = home or home_dir()
    found: dict[str, PackListing] = {}
    bundled = bundled_dir()
    if bundled.is_dir():
        for path in sorted(bundled.iterdir()):
            if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
                found.setdefault(path.stem, PackListing(path.stem, str(path), "bundled"))
    inst = installed_dir(home)
    if inst.is_dir():
        for folder in sorted(inst.iterdir()):
            manifest = manifest_in(folder) if folder.is_dir() else None
            if manifest is None or folder.name.startswith("."):
                continue
            shadows = folder.name in found
            found[folder.name] = PackListing(
                folder.name, str(manifest), "installed", shadows_bundled=shadows
            )
    for listing in found.values():
        try:
            m = read_manifest(Path(listing.path))
        except PackError as exc:
            listing.error = str(exc)
            continue
        listing.version = m.version
        listing.extends = m.extends
        listing.description = (m.description or "").strip().splitlines()[0] if m.description else ""
    return sorted(found.values(), key=lambda x: x.name)
