"""``schema review-candidates``: rename or ignore proposals, and turn accepted ones into a
pack *delta*: a child pack of the active pack in ``<state>/schema-deltas/<name>/pack.yaml``
that the person reviews, installs and uses explicitly (nothing uses it before). The proposals
come from ``vaultbrain/packs/detect.py`` (or ``suggest.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from vaultbrain.errors import UserError
from vaultbrain.packs.candidates import Candidate, Detection, load_candidates, save_candidates
from vaultbrain.packs.detect import detect
from vaultbrain.packs.lint import LintReport, chain_layers, lint_pack
from vaultbrain.packs.loader import find_pack, installed_dir, load_pack_path
from vaultbrain.packs.model import is_type_name
from vaultbrain.packs.resolved import PackError, ResolvedPack, as_data, normalize_prefix
from vaultbrain.vault.atomic import atomic_write_file

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

DELTAS = "schema-deltas"


@dataclass
class Delta:
    path: Path
    name: str
    extends: str
    added: list[str]
    extended: list[str]
    lint: LintReport
    replaces_installed: bool

    @property
    def install_hint(self) -> str:
        force = " --force" if self.replaces_installed else ""
        return (
            f"review {self.path}, then `vaultbrain schema install {self.path.parent}{force}` and "
            f"`vaultbrain schema use {self.name}`"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "name": self.name,
            "extends": self.extends,
            "added": self.added,
            "extended": self.extended,
            "lint": self.lint.as_dict(),
            "next": self.install_hint,
        }


@dataclass
class Review:
    detection: Detection
    delta: Delta | None = None
    changed: list[str] = field(default_factory=list)
    # folder -> type name of the proposals accepted into ``delta`` this time
    accepted: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        doc = self.detection.as_dict() | {"changed": self.changed}
        if self.delta:
            doc["delta"] = self.delta.as_dict()
        return doc


def _find(detection: Detection, folder: str) -> Candidate:
    want = folder.replace("\\", "/").strip().strip("/").lower()
    for c in detection.candidates:
        if c.folder.lower() == want:
            return c
    known = ", ".join(c.prefix for c in detection.candidates) or "none"
    raise UserError(
        f"no candidate for {folder!r} (candidates: {known}); run `vaultbrain schema detect`"
    )


def review_candidates(
    app: PackContext,
    apply: Iterable[str] = (),
    rename: Iterable[tuple[str, str]] = (),
    ignore: Iterable[str] = (),
) -> Review:
    """List the proposals; rename / ignore some; turn ``apply`` ones into a pack delta."""
    detection = load_candidates(app) or detect(app)
    review = Review(detection)
    pack = app.pack
    names = {t.name for t in pack.types} | {a.lower() for t in pack.types for a in t.aliases}
    for folder, new_name in rename:
        c = _find(detection, folder)
        new_name = new_name.strip().lower()
        if not is_type_name(new_name):
            raise UserError(f"{new_name!r} is not a type name; use a lowercase slug")
        if new_name in names:
            raise UserError(f"{new_name!r} is already a type or alias of {pack.name}")
        c.name, c.action, c.extends_type = new_name, "new", None
        c.reason = f"renamed to {new_name}"
        review.changed.append(f"{c.prefix} renamed to {new_name}")
    for folder in ignore:
        c = _find(detection, folder)
        c.status = "ignored"
        review.changed.append(f"{c.prefix} ignored")
    accepted = []
    for folder in apply:
        c = _find(detection, folder)
        if c.status == "ignored":
            raise UserError(f"{c.prefix} is ignored; rename or re-detect it before applying")
        accepted.append(c)
    if accepted:
        review.delta = write_delta(app, pack, accepted)
        for c in accepted:
            c.status = "applied"
            for prefix in c.path_prefixes:  # (a kind no folder holds types no path)
                review.accepted[prefix.strip("/")] = c.name
            review.changed.append(f"{c.prefix} applied to {review.delta.name}")
    save_candidates(app, detection)
    return review


def _holds(entry: dict[str, Any], prefixes: list[str]) -> bool:
    """Whether one of ``entry``'s folders holds one of ``prefixes`` (strictly inside)."""
    theirs = [normalize_prefix(str(p)) for p in entry.get("path_prefixes") or []]
    mine = [normalize_prefix(p) for p in prefixes]
    return any(m != t and m.startswith(t) for m in mine for t in theirs)


def delta_name(pack: ResolvedPack) -> str:
    return pack.name if pack.name.endswith("-local") else f"{pack.name[:56]}-local"


def write_delta(app: PackContext, pack: ResolvedPack, accepted: list[Candidate]) -> Delta:
    """A child pack of ``pack`` declaring ``accepted``, written to the state dir."""
    name = delta_name(pack)
    installed = find_pack(name)
    replaces = installed is not None and installed.parent.parent == installed_dir()
    folder = app.state_dir / DELTAS / name
    path = folder / "pack.yaml"
    pending = _pending(path, pack.name)
    if name == pack.name and pack.source:
        # The active pack is an earlier delta: build on its own declarations.
        data = yaml.safe_load(Path(pack.source).read_text("utf-8"))
        data["version"] = _bump(str(data.get("version", "0.1.0")))
    elif pending is not None:
        # A delta written before and not installed yet: the types accepted then stay.
        data = pending
        data["version"] = _bump(str(data.get("version", "0.1.0")))
    else:
        data = {
            "api_version": "vaultbrain-schema-pack-v1",
            "name": name,
            "version": "0.1.0",
            "extends": pack.name,
            "description": f"Types accepted with `vaultbrain schema review-candidates` on top of {pack.name}.\n",
            "page_types": [],
        }
    types: list[dict[str, Any]] = list(data.get("page_types") or [])
    index = {t.get("name"): i for i, t in enumerate(types)}
    added, extended = [], []
    for c in accepted:
        if c.action == "extend" and c.extends_type:
            if c.extends_type in index:
                entry = types[index[c.extends_type]]
            else:
                current = pack.get_type(c.extends_type)
                assert current is not None
                entry = as_data(current, drop_none=True)
                types.append(entry)
                index[c.extends_type] = len(types) - 1
            prefixes = entry.setdefault("path_prefixes", [])
            for prefix in c.path_prefixes:
                if prefix.lower() not in [p.lower() for p in prefixes]:
                    prefixes.append(prefix)
            aliases = entry.setdefault("aliases", [])
            for alias in c.aliases:
                if alias.lower() not in [a.lower() for a in aliases]:
                    aliases.append(alias)
            extended.append(c.extends_type)
            continue
        entry = {
            "name": c.name,
            "primitive": c.primitive,
            "path_prefixes": c.path_prefixes,
            "aliases": list(c.aliases),
            "fileable": False,
            "title_field": "title",
            "description": c.description,
            "fields": c.fields,
        }
        if c.name in index:
            types[index[c.name]] = entry
        else:
            # before a type accepted earlier whose folder holds one of its folders (a skill's
            # references/ inside the skill's folder): the first prefix that matches wins
            at = next((i for i, t in enumerate(types) if _holds(t, c.path_prefixes)), len(types))
            types.insert(at, entry)
            index = {t.get("name"): i for i, t in enumerate(types)}
        added.append(c.name)
    data["page_types"] = types
    text = (
        f"# A pack delta written by `vaultbrain schema review-candidates` on "
        f"{app.now().isoformat(timespec='seconds')}.\n"
        f"# Nothing uses it until you install it and `vaultbrain schema use {name}`.\n"
        + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    )
    previous = path.read_text("utf-8") if path.is_file() else None
    atomic_write_file(path, text)
    try:
        resolved = load_pack_path(path)
    except PackError:
        if previous is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write_file(path, previous)
        raise
    report = lint_pack(resolved, chain_layers(resolved))
    extends = str(data.get("extends") or "")
    return Delta(path, name, extends, added, extended, report, replaces)


def _pending(path: Path, parent: str) -> dict[str, Any] | None:
    """The delta written earlier at ``path`` on top of ``parent``, when it is still there
    and reads; None otherwise (then a new delta is written)."""
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(data, dict) or str(data.get("extends") or "") != parent:
        return None
    return data


def _bump(version: str) -> str:
    core = version.split("+", 1)[0].split("-", 1)[0]
    parts = core.split(".")
    try:
        parts[-1] = str(int(parts[-1]) + 1)
    except (ValueError, IndexError):
        return "0.1.1"
    return ".".join(parts)
