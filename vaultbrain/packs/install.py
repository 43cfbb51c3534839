"""Installing and authoring packs in ``~/.vaultbrain/schema-packs/<name>/``.

``install`` takes a ``.vaultbrain-schema`` tarball (a gzipped tar of a pack folder) or a
folder; it validates the manifest against its parents before anything lands, refuses a
skillpack, and swaps the folder in with a rename so a half-copied pack is never visible.
Tar members that are links, devices, absolute or lead out with ``..`` are refused.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from vaultbrain.errors import UserError
from vaultbrain.packs.loader import (
    MANIFEST_NAMES,
    bundled_dir,
    find_pack,
    home_dir,
    installed_dir,
    load_pack_path,
    manifest_from_data,
    manifest_in,
    parse_manifest_text,
    read_manifest,
)
from vaultbrain.packs.model import PACK_NAME, PackError, ResolvedPack
from vaultbrain.vault.atomic import atomic_write_file

TARBALL_SUFFIXES = (".vaultbrain-schema", ".gbrain-schema", ".tar.gz", ".tgz", ".tar")
MAX_FILES = 500
MAX_BYTES = 20 * 1024 * 1024


@dataclass
class Installed:
    name: str
    path: Path
    pack: ResolvedPack
    replaced: bool
    shadows_bundled: bool


def install_pack(source: Path | str, *, force: bool = False, home: Path | None = None) -> Installed:
    """Install the pack at ``source`` (tarball or folder) as ``schema-packs/<name>/``."""
    home = home or home_dir()
    source = Path(source).expanduser()
    if not source.exists():
        raise UserError(f"{source} does not exist")
    target_root = installed_dir(home)
    target_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".install-", dir=target_root))
    try:
        if source.is_dir():
            _copy_folder(source, staging)
        elif source.name.endswith(TARBALL_SUFFIXES) or tarfile.is_tarfile(source):
            _extract(source, staging)
        else:
            raise UserError(f"{source} is neither a pack folder nor a .vaultbrain-schema tarball")
        folder = _pack_root(staging)
        manifest_path = manifest_in(folder)
        assert manifest_path is not None
        data = parse_manifest_text(
            manifest_path.read_text("utf-8"), str(source), manifest_path.suffix == ".json"
        )
        manifest = manifest_from_data(data, str(source))
        pack = load_pack_path(manifest_path, home)
        name = manifest.name
        target = target_root / name
        replaced = target.exists()
        if replaced and not force:
            raise UserError(
                f"a pack named {name!r} is already installed at {target}; add --force to replace it"
            )
        _swap_in(folder, target)
        shadows = any(
            (bundled_dir() / f"{name}{ext}").is_file() for ext in (".yaml", ".yml", ".json")
        )
        return Installed(name, target, pack, replaced, shadows)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _copy_folder(source: Path, dest: Path) -> None:
    if manifest_in(source) is None:
        raise PackError("FILE_NOT_FOUND", f"{source} holds no {', '.join(MANIFEST_NAMES)}")
    count, size = 0, 0
    for root, dirs, files in os.walk(source, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel_root = Path(root).relative_to(source)
        for name in files:
            src = Path(root) / name
            if name.startswith(".") or src.is_symlink() or not src.is_file():
                continue
            count += 1
            size += src.stat().st_size
            if count > MAX_FILES or size > MAX_BYTES:
                raise UserError(f"{source} is too big for a schema pack")
            out = dest / rel_root / name
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out)


def _extract(source: Path, dest: Path) -> None:
    try:
        tar = tarfile.open(source, "r:*")
    except (tarfile.TarError, OSError) as exc:
        raise UserError(f"{source} is not a readable tarball: {exc}") from exc
    with tar:
        members = tar.getmembers()
        if len(members) > MAX_FILES:
            raise UserError(f"{source} holds too many files for a schema pack")
        total = 0
        for member in members:
            path = PurePosixPath(member.name)
            if path.is_absolute() or ".." in path.parts or member.name.startswith(("/", "\\")):
                raise UserError(f"{source}: refusing {member.name!r} (leads outside the pack)")
            if member.isdir():
                continue
            if not member.isfile():
                raise UserError(
                    f"{source}: refusing {member.name!r} (links and devices are not allowed)"
                )
            if any(part.startswith(".") for part in path.parts if part != "."):
                continue
            total += member.size
            if total > MAX_BYTES:
                raise UserError(f"{source} is too big for a schema pack")
            fh = tar.extractfile(member)
            if fh is None:
                continue
            out = dest.joinpath(*[p for p in path.parts if p != "."])
            out.parent.mkdir(parents=True, exist_ok=True)
            with fh, open(out, "wb") as w:
                shutil.copyfileobj(fh, w)


def _pack_root(staging: Path) -> Path:
    """The folder holding the manifest: the top, or the single folder a tarball wraps."""
    if manifest_in(staging) is not None:
        return staging
    entries = [p for p in staging.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and manifest_in(entries[0]) is not None:
        return entries[0]
    raise PackError("FILE_NOT_FOUND", f"no {', '.join(MANIFEST_NAMES)} in the pack")


def _swap_in(folder: Path, target: Path) -> None:
    fresh = target.parent / f".new-{target.name}-{os.getpid()}"
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(folder, fresh)
    old = None
    if target.exists():
        old = target.parent / f".old-{target.name}-{os.getpid()}"
        shutil.rmtree(old, ignore_errors=True)
        os.replace(target, old)
    os.replace(fresh, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# -- authoring -----------------------------------------------------------------------------

_STUB = """\
api_version: vaultbrain-schema-pack-v1
name: {name}
version: 0.1.0
extends: {extends}
description: |
  {name}: my own schema pack. It inherits every type of {extends}; types declared
  here are added in front of them (or override one of the same name).
page_types:
  - name: note
    primitive: concept
    path_prefixes: [Notes/]
    aliases: []
    extractable: false
    expert_routing: false
    fileable: false
    description: A note in Notes/ (rename this type, or add your own below).
    fields:
      title: {{type: text, required: true}}
      tags: {{type: list}}
link_types: []
frontmatter_links: []
takes_kinds: [fact, take, bet, hunch]
enrichable_types: []
filing_rules: []
borrow_from: []
"""


def _check_name(name: str) -> None:
    if not PACK_NAME.fullmatch(name):
        raise UserError(f"{name!r} is not a pack name; use a lowercase slug such as my-pack")


def init_pack(name: str, *, extends: str = "vaultbrain-base", home: Path | None = None) -> Path:
    """Scaffold ``schema-packs/<name>/pack.yaml``; never overwrites."""
    home = home or home_dir()
    _check_name(name)
    if find_pack(name, home) is not None:
        raise UserError(f"a pack named {name!r} already exists; pick another name")
    folder = installed_dir(home) / name
    if folder.exists():
        raise UserError(f"{folder} already exists; pick another name")
    path = folder / "pack.yaml"
    text = _STUB.format(name=name, extends=extends)
    manifest_from_data(parse_manifest_text(text, str(path)), str(path))
    folder.mkdir(parents=True)
    atomic_write_file(path, text)
    try:
        load_pack_path(path, home)
    except PackError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return path


_NAME_LINE = re.compile(r"^name:[ \t]*\S.*$", re.MULTILINE)


def fork_pack(source: str, dest: str, *, home: Path | None = None) -> Path:
    """Copy pack ``source`` (its own manifest and files) to ``schema-packs/<dest>/``."""
    home = home or home_dir()
    _check_name(dest)
    src = find_pack(source, home)
    if src is None:
        raise PackError(
            "UNKNOWN_PACK", f"no schema pack named {source!r} (`vaultbrain schema list`)"
        )
    if find_pack(dest, home) is not None or (installed_dir(home) / dest).exists():
        raise UserError(f"a pack named {dest!r} already exists; pick another name")
    text = src.read_text("utf-8")
    if src.suffix == ".json":
        data = json.loads(text)
        data["name"] = dest
        new_text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        out_name = "pack.json"
    else:
        # Rewrite only the name line so comments and block scalars survive the copy.
        new_text, n = _NAME_LINE.subn(f"name: {dest}", text, count=1)
        if n != 1:
            raise UserError(f"{src}: no top-level `name:` line to rename")
        out_name = "pack.yaml"
    manifest = manifest_from_data(
        parse_manifest_text(new_text, str(src), src.suffix == ".json"), str(src)
    )
    if manifest.name != dest:
        raise UserError(f"{src}: could not rename the pack (its name is {manifest.name!r})")
    folder = installed_dir(home) / dest
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".fork-", dir=folder.parent))
    try:
        if src.parent.parent == installed_dir(home):  # an installed pack: bring its files
            _copy_folder(src.parent, staging)
            for name in MANIFEST_NAMES:
                (staging / name).unlink(missing_ok=True)
        atomic_write_file(staging / out_name, new_text)
        load_pack_path(staging / out_name, home)
        _swap_in(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder / out_name


@dataclass
class PackLocation:
    name: str
    path: Path
    editable: bool
    hint: str
    error: str | None = None


def locate_for_edit(name: str, home: Path | None = None) -> PackLocation:
    home = home or home_dir()
    path = find_pack(name, home)
    if path is None:
        raise PackError("UNKNOWN_PACK", f"no schema pack named {name!r} (`vaultbrain schema list`)")
    editable = path.parent.parent == installed_dir(home)
    if editable:
        hint = (
            f"edit it, then `vaultbrain schema validate {name}` and `vaultbrain schema lint {name}`"
        )
    else:
        hint = (
            f"{name} is bundled and read-only; `vaultbrain schema fork {name} my-{name}` makes "
            "an editable copy"
        )
    try:
        read_manifest(path)
        error = None
    except PackError as exc:  # a broken pack is exactly the one to open
        error = str(exc)
    return PackLocation(name, path, editable, hint, error)
