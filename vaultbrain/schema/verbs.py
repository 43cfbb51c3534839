"""Schema verbs: change the vault's pack one step at a time, each step recorded.

``schema add-type``, ``add-field``, ``add-link-type``, ``add-alias``, ``rename-field`` and
``retire-type`` act on the vault's own copy of the active pack: the manifest in the vault's
packs folder (``packs_folder:`` of vaultbrain.yml, ``Brain/Packs`` when unset), so every
machine that syncs the vault gets the change with the notes. When the active pack is not
there yet it is brought in first: a bundled pack (read-only) is forked as ``my-<name>`` and
made the vault's pack (``schema:`` in vaultbrain.yml); a pack installed under
``~/.vaultbrain`` is copied in under its own name (as ``schema use --in-vault`` does).

Each verb plans first (what ``--dry-run`` prints): the new manifest, its version bumped (a
breaking change, ``rename-field`` and ``retire-type``, bumps the major version; an addition
the minor one), linted (an error refuses the change, nothing written), and every note it
touches. Applying writes the manifest atomically and only if it is still the file the plan
read (compare-and-swap), then appends one line to the audit trail in the state store
(``schema log``): who, on which machine, when, the verb and its arguments, and the pack's
identity before and after.

Only ``rename-field`` writes notes: the property's key line is renamed in each note of the
type that has it, the value and every other byte as they were, through ``Vault.edit``
(compare-and-swap). A note that already has the new property, or whose frontmatter cannot
be read, is left alone and reported. The notes go first, the manifest last, and progress is
kept in the state store after each note, so an interrupted rename is finished by running it
again; until then every other verb refuses to start.

A type inherited from a pack the vault's copy extends is copied into the copy before it is
changed (a child's declaration of a type replaces the parent's whole, see packs/merge.py).
YAML comments of the vault's copy are not kept when it is rewritten.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import getpass
import hashlib
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from vaultbrain.errors import UserError
from vaultbrain.packs.choice import (
    DEFAULT_PACKS_FOLDER,
    PACKS_FOLDER_KEY,
    vault_packs_dir,
)
from vaultbrain.packs.fields import FIELD_TYPES
from vaultbrain.packs.loader import (
    bundled_dir,
    clear_cache,
    find_pack,
    home_dir,
    installed_dir,
    manifest_from_data,
    parse_manifest_text,
    resolve,
)
from vaultbrain.packs.model import PRIMITIVES
from vaultbrain.packs.resolved import PackError, Part, ResolvedPack, normalize_prefix
from vaultbrain.packs.survey import NoteTyping, generated_folders, survey_vault
from vaultbrain.vault.atomic import atomic_write_file
from vaultbrain.vault.note import parse_note, render_key

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

CHANGES = "schema-changes.jsonl"  # the audit trail of pack changes (a log of state.db)
JOB = "schema-job"  # a rename-field under way (a document of state.db)
LOCK = "schema-verb.lock"  # in the state dir: one verb at a time
BATCH = 64  # notes renamed per flush to disk (and per progress record)
VERBS = ("add-type", "add-field", "add-link-type", "add-alias", "rename-field", "retire-type")
BREAKING = frozenset({"rename-field", "retire-type"})
_NAME = re.compile(r"[a-z][a-z0-9_-]*")
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_ -]*")


# -- the vault's copy ---------------------------------------------------------------------


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


# -- reading a pack's declarations as data ------------------------------------------------


def _written(value: Any) -> Any:
    """A resolved part as the data a manifest would hold: only what its pack wrote."""
    if isinstance(value, Part):
        return {
            k: _written(v)
            for k, v in value.__dict__.items()
            if not k.startswith("_") and (value.given(k) or k == "name") and v is not None
        }
    if isinstance(value, list | tuple):
        return [_written(v) for v in value]
    if isinstance(value, dict):
        return {k: _written(v) for k, v in value.items()}
    return value


def _types(data: dict[str, Any]) -> list[dict[str, Any]]:
    types = data.setdefault("page_types", [])
    if not isinstance(types, list):
        raise UserError("the pack's page_types is not a list")
    return types


def _own_type(data: dict[str, Any], pack: ResolvedPack, name: str) -> dict[str, Any]:
    """The copy's declaration of type ``name`` (by name or alias), copied down from the
    pack it inherits it from when the copy does not declare it yet."""
    t = pack.get_type(name)
    if t is None:
        raise UserError(f"the pack {pack.name} has no type {name!r} (`vaultbrain schema show`)")
    types = _types(data)
    for entry in types:
        if isinstance(entry, dict) and entry.get("name") == t.name:
            return entry
    entry = _written(t)
    types.insert(0, entry)
    return entry


def _name_taken(pack: ResolvedPack, name: str) -> str | None:
    t = pack.get_type(name)
    if t is None:
        return None
    return f"type {t.name}" if t.name == name.lower() else f"an alias of type {t.name}"


# -- the verbs: each changes the manifest data and says which notes it concerns ------------


@dataclass
class NoteChange:
    path: str
    change: str
    after: str | None = None  # the note's new text (rename-field), None: nothing written


@dataclass
class Plan:
    verb: str
    args: dict[str, Any]
    target: Target
    text: str = ""  # the new manifest
    version: tuple[str, str] = ("", "")
    before: str = ""  # pack identities
    after: str = ""
    lint: list[dict[str, Any]] = field(default_factory=list)
    notes: list[NoteChange] = field(default_factory=list)
    skipped: list[NoteChange] = field(default_factory=list)
    pack_done: bool = False  # (a resumed rename whose manifest is written already)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        t = self.target
        return {
            "verb": self.verb,
            "args": self.args,
            "pack": t.name,
            "manifest": str(t.path),
            "forked_from": t.source_name if t.source == "bundled" and not t.exists else None,
            "copied_into_vault": t.source == "installed" and not t.exists,
            "version": {"before": self.version[0], "after": self.version[1]},
            "before": self.before,
            "after": self.after,
            "lint": self.lint,
            "notes": [
                {"path": n.path, "change": n.change, "writes": n.after is not None}
                for n in self.notes
            ],
            "skipped": [{"path": n.path, "reason": n.change} for n in self.skipped],
            "warnings": self.warnings,
        }


Change = Callable[[dict[str, Any], ResolvedPack], None]


def _survey(brain: Brain, pack: ResolvedPack, with_data: bool = True) -> list[NoteTyping]:
    skip = []
    try:
        skip.append(str(brain.settings.get("inbox_note")))
    except UserError:
        pass
    survey = survey_vault(
        brain.vault,
        pack,
        generated_folders(brain.settings),
        skip,
        with_data=with_data,
        template=brain.templates.holds,
    )
    return survey.notes


def add_type(
    name: str,
    folder: str,
    fields: list[tuple[str, str]],
    extends: str | None,
    primitive: str | None,
    aliases: list[str],
    fileable: bool,
    description: str | None,
) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        if not _NAME.fullmatch(name):
            raise UserError(f"{name!r} is not a type name; use a lowercase slug such as recipe")
        taken = _name_taken(pack, name)
        if taken:
            raise UserError(f"{name!r} is already {taken}")
        prefix = folder.replace("\\", "/").strip().strip("/")
        if not prefix:
            raise UserError("--folder names a folder of the vault, e.g. Recipes")
        prefix += "/"
        owner = next(
            (
                t
                for t in pack.types
                if normalize_prefix(prefix) in map(normalize_prefix, t.path_prefixes)
            ),
            None,
        )
        if owner is not None:  # (a folder inside another type's is fine: the new type wins)
            raise UserError(f"{prefix} is already the folder of type {owner.name}")
        entry: dict[str, Any] = {"name": name}
        base = pack.get_type(extends) if extends else None
        if extends and base is None:
            raise UserError(f"--extends: the pack has no type {extends!r}")
        spec: dict[str, Any] = {}
        if base is not None:
            spec = {k: _written(v) for k, v in base.fields.items()}
            entry["primitive"] = primitive or base.primitive
            if base.title_field:
                entry["title_field"] = base.title_field
            if base.tasks is not None:
                entry["tasks"] = _written(base.tasks)
        elif primitive:
            entry["primitive"] = primitive
        if primitive and primitive not in PRIMITIVES:
            raise UserError(f"--primitive is one of {', '.join(PRIMITIVES)}")
        entry["path_prefixes"] = [prefix]
        if aliases:
            for alias in aliases:
                if _name_taken(pack, alias):
                    raise UserError(f"alias {alias!r} is already {_name_taken(pack, alias)}")
            entry["aliases"] = list(aliases)
        entry["fileable"] = fileable
        entry["description"] = description or f"A note in {prefix}."
        for fname, kind in fields:
            spec[fname] = _field_spec(fname, kind)
        if not any(k in spec for k in ("title", "name")):
            spec = {"title": {"type": "text", "required": True}, **spec}
        entry["fields"] = spec
        _types(data).insert(0, entry)

    return change


def _field_spec(fname: str, kind: str, values: list[str] | None = None) -> dict[str, Any]:
    if not _FIELD.fullmatch(fname) or fname.strip() != fname:
        raise UserError(f"{fname!r} is not a property name")
    if fname in ("type", "id", "created"):
        raise UserError(f"{fname!r} is vaultbrain's own property; pick another name")
    if ":" in kind and values is None:
        kind, _, rest = kind.partition(":")
        values = [v.strip() for v in rest.split("|") if v.strip()]
    if kind not in FIELD_TYPES:
        raise UserError(f"{kind!r} is not a field kind; one of {', '.join(FIELD_TYPES)}")
    spec: dict[str, Any] = {"type": kind}
    if kind == "enum":
        if not values:
            raise UserError(f"an enum field needs its values (--values a,b or {fname}:enum:a|b)")
        spec["values"] = values
    elif values:
        raise UserError("values belong to enum fields only")
    return spec


def parse_fields(text: str | None) -> list[tuple[str, str]]:
    """``--fields "cuisine:text, serves:number, course:enum:main|side"`` as (name, kind)."""
    out: list[tuple[str, str]] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, _, kind = part.partition(":")
        out.append((name.strip(), kind.strip() or "text"))
    return out


def add_field(type_name: str, fname: str, kind: str, values: list[str] | None) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        entry = _own_type(data, pack, type_name)
        fields = entry.setdefault("fields", {})
        if fname in fields:
            raise UserError(f"type {entry['name']} has a field {fname!r} already")
        fields[fname] = _field_spec(fname, kind, values)

    return change


def add_link_type(
    name: str, src: str, dst: str, inverse: str | None, via: str | None, description: str | None
) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        if not _NAME.fullmatch(name):
            raise UserError(f"{name!r} is not a link type name; use a slug such as works_at")
        if any(lt.name == name for lt in pack.manifest.link_types):
            raise UserError(f"the pack has a link type {name!r} already")
        a, b = pack.get_type(src), pack.get_type(dst)
        for given, t in ((src, a), (dst, b)):
            if t is None:
                raise UserError(f"the pack has no type {given!r}")
        assert a is not None and b is not None
        entry: dict[str, Any] = {"name": name}
        if inverse:
            entry["inverse"] = inverse
        entry["description"] = description or f"From a {a.name} to a {b.name}."
        entry["inference"] = {"page_type": a.name, "target_type": b.name}
        data.setdefault("link_types", []).append(entry)
        if via:
            own = _own_type(data, pack, a.name)
            fields = own.setdefault("fields", {})
            spec = fields.get(via)
            if spec is None:
                fields[via] = {"type": "links", "collects": [b.name]}
            elif spec.get("type") not in ("link", "links"):
                raise UserError(f"{a.name}.{via} is a {spec.get('type')} field, not links")
            data.setdefault("frontmatter_links", []).append(
                {"page_type": a.name, "fields": [via], "link_type": name}
            )

    return change


def add_alias(type_name: str, alias: str) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        if not alias.strip():
            raise UserError("an alias is a non-empty name")
        taken = _name_taken(pack, alias)
        if taken:
            raise UserError(f"{alias!r} is already {taken}")
        entry = _own_type(data, pack, type_name)
        entry.setdefault("aliases", []).append(alias.strip())

    return change


def rename_field(type_name: str, old: str, new: str) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        entry = _own_type(data, pack, type_name)
        fields = entry.get("fields") or {}
        if old not in fields:
            raise UserError(f"type {entry['name']} has no field {old!r}")
        if new in fields:
            raise UserError(f"type {entry['name']} has a field {new!r} already")
        _field_spec(new, "text")  # (the name is checked)
        entry["fields"] = {(new if k == old else k): v for k, v in fields.items()}
        if entry.get("title_field") == old:
            entry["title_field"] = new
        if isinstance(entry.get("tasks"), dict):
            entry["tasks"] = {k: (new if v == old else v) for k, v in entry["tasks"].items()}
        t = pack.get_type(type_name)
        assert t is not None
        links = data.setdefault("frontmatter_links", [])
        own_keys = {(fl.get("page_type"), fl.get("link_type")) for fl in links}
        for fl in pack.manifest.frontmatter_links:  # inherited ones are copied down
            if (
                fl.page_type == t.name
                and old in fl.fields
                and ((fl.page_type, fl.link_type) not in own_keys)
            ):
                links.append(_written(fl))
        for fl in links:
            if fl.get("page_type") == t.name:
                fl["fields"] = [new if f == old else f for f in fl.get("fields", [])]

    return change


def retire_type(type_name: str) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        t = pack.get_type(type_name)
        if t is None:
            raise UserError(f"the pack has no type {type_name!r}")
        if not t.fileable:
            raise UserError(f"type {t.name} is not a filing destination already")
        entry = _own_type(data, pack, t.name)
        entry["fileable"] = False
        enrich = data.get("enrichable_types")
        if isinstance(enrich, list):
            data["enrichable_types"] = [
                e for e in enrich if (e.get("type") if isinstance(e, dict) else e) != t.name
            ]

    return change


# -- planning ------------------------------------------------------------------------------


def _bump(version: str, breaking: bool) -> str:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", str(version))
    if not m:
        return "1.0.0"
    major, minor, _patch = (int(x) for x in m.groups())
    return f"{major + 1}.0.0" if breaking else f"{major}.{minor + 1}.0"


class _Dumper(yaml.SafeDumper):
    """Safe YAML, with a multi-line text (a description) as a ``|`` block, as people write
    it in a pack."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    lines = value.splitlines()
    if len(lines) > 1 and all(line == line.rstrip() for line in lines):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)


def dump(data: dict[str, Any]) -> str:
    """A manifest as YAML, keys in their order (its comments are not kept)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _resolve_text(brain: Brain, name: str, text: str, where: str, as_json: bool) -> ResolvedPack:
    """The pack ``text`` would be, merged with its parents (those kept in the vault's packs
    folder included); nothing is written anywhere. ``where`` names it in an error."""
    manifest = manifest_from_data(parse_manifest_text(text, where, as_json), where)
    return resolve(manifest, home=home_dir(brain.env), shared=vault_packs_dir(brain.vault.root))


def _lint(brain: Brain, pack: ResolvedPack, text: str) -> list[dict[str, Any]]:
    from vaultbrain import __version__
    from vaultbrain.packs.lint import chain_layers, known_type_names, lint_pack

    own = manifest_from_data(parse_manifest_text(text, pack.name), pack.name)
    home = home_dir(brain.env)
    parents = chain_layers(pack, home)[1:] if len(pack.chain) > 1 else []
    report = lint_pack(pack, [own, *parents], known_type_names(home), __version__)
    return [{"severity": i.severity, "rule": i.rule, "message": i.message} for i in report.issues]


def plan(brain: Brain, verb: str, args: dict[str, Any], change: Change) -> Plan:
    """What ``verb`` would do: the new manifest, linted, and the notes it concerns."""
    target = locate(brain)
    p = Plan(verb, args, target)
    job = pending_job(brain)
    resuming = job is not None and job.get("verb") == verb and job.get("args") == args
    if resuming and _renamed_already(target.pack, args):
        # interrupted after its manifest was written (or the pack, synced from elsewhere,
        # no longer has the old field): the notes left, and the audit line
        assert job is not None
        p.pack_done = True
        t = target.pack.get_type(str(args.get("type")))
        if t is None or args.get("new") not in t.fields:
            p.warnings.append(
                f"the pack no longer has {args.get('type')}.{args.get('old')}; only the notes "
                "are finished"
            )
        p.version = (str(job.get("version_before", "")), str(job.get("version_after", "")))
        p.before, p.after = str(job.get("before", "")), target.pack.identity
        return _resumed(brain, p, job)
    data = copy.deepcopy(target.data)
    change(data, target.pack)
    before_version = str(data.get("version", "0.1.0"))
    data["name"] = target.name
    data["version"] = _bump(before_version, verb in BREAKING)
    if target.path.suffix == ".json":
        import json

        p.text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        p.text = dump(data)
    rel = target.path.relative_to(brain.vault.root).as_posix()
    new_pack = _resolve_text(brain, target.name, p.text, rel, target.path.suffix == ".json")
    p.version = (before_version, str(data["version"]))
    p.before, p.after = target.pack.identity, new_pack.identity
    p.lint = _lint(brain, new_pack, p.text)
    errors = [i for i in p.lint if i["severity"] == "error"]
    if errors:
        raise UserError(
            f"{verb} would leave the pack with a lint error, so nothing was changed: "
            f"{errors[0]['message']}"
        )
    if resuming:
        assert job is not None
        p.before = str(job.get("before") or p.before)
        _resumed(brain, p, job)
    else:
        _notes(brain, p, target.pack, new_pack)
    active = brain.active
    if not target.exists and target.source == "bundled" and active.tier < 5:
        p.warnings.append(
            f"the vault's pack becomes {target.name} (vaultbrain.yml), but here "
            f"{active.source} (tier {active.tier}) still chooses {active.pack.name}"
        )
    return p


def _notes(brain: Brain, p: Plan, old: ResolvedPack, new: ResolvedPack) -> None:
    notes = _survey(brain, old)
    a = p.args
    if p.verb == "rename-field":
        t = old.get_type(a["type"])
        assert t is not None
        for n in notes:
            if n.type != t.name or a["old"] not in n.data:
                continue
            if a["new"] in n.data:
                p.skipped.append(NoteChange(n.rel, f"has both {a['old']} and {a['new']}"))
                continue
            after, problem = _renamed_text(brain, n.rel, a["old"], a["new"])
            if after is None:
                p.skipped.append(NoteChange(n.rel, problem or "cannot be read"))
            else:
                p.notes.append(NoteChange(n.rel, f"property {a['old']} -> {a['new']}", after))
        return
    retyped = {n.rel: n for n in _survey(brain, new, with_data=False)}

    def canon(name: Any) -> str | None:
        t = new.get_type(str(name)) if name else None
        return t.name if t is not None else None

    for n in notes:
        now = retyped.get(n.rel)
        then_type, now_type = n.type, now.type if now is not None else None
        if then_type != now_type:
            p.notes.append(
                NoteChange(
                    n.rel, f"{then_type or 'untyped'} -> {now_type or 'untyped'} (nothing written)"
                )
            )
        elif p.verb == "add-field" and n.type == canon(a["type"]):
            if a["field"] in n.data:
                p.notes.append(
                    NoteChange(
                        n.rel, f"its {a['field']} is now a field of {n.type} (nothing written)"
                    )
                )
        elif p.verb == "add-link-type" and a.get("field") and n.type == canon(a["from"]):
            if a["field"] in n.data:
                p.notes.append(
                    NoteChange(
                        n.rel, f"its {a['field']} links are now {a['name']} links (nothing written)"
                    )
                )
        elif p.verb == "retire-type" and n.type == canon(a["type"]):
            p.notes.append(
                NoteChange(n.rel, f"stays a {n.type} record; no thought is filed to its type")
            )


def _renamed_already(pack: ResolvedPack, args: dict[str, Any]) -> bool:
    t = pack.get_type(str(args.get("type")))
    return t is None or args.get("old") not in t.fields


def _resumed(brain: Brain, p: Plan, job: dict[str, Any]) -> Plan:
    """A rename-field that was interrupted: the notes of its list it has not done yet (the
    manifest is planned afresh from the file as it is now, unless it is renamed already)."""
    a = p.args
    done = set(job.get("done", []))
    for rel, why in job.get("skipped", []):
        p.skipped.append(NoteChange(rel, why))
    for rel in job.get("notes", []):
        if rel in done:
            continue
        after, problem = _renamed_text(brain, rel, a["old"], a["new"])
        if after is None:
            if problem:
                p.skipped.append(NoteChange(rel, problem))
            continue
        p.notes.append(NoteChange(rel, f"property {a['old']} -> {a['new']}", after))
    return p


# -- renaming a property in a note ---------------------------------------------------------


def rename_key(text: str, old: str, new: str) -> tuple[str | None, str | None]:
    """``text`` with the frontmatter key ``old`` renamed ``new``, every other byte as it was;
    (None, why) when the note is left as it is (None, None: it has no such property)."""
    parsed = parse_note(text)
    if parsed.error or parsed.fence_problem:
        return None, parsed.error or parsed.fence_problem
    if not parsed.has_frontmatter or old not in parsed.data:
        return None, None
    if new in parsed.data:
        return None, f"has both {old} and {new}"
    pattern = re.compile(
        r"^(?:" + re.escape(old) + r"|\"" + re.escape(old) + r"\"|'" + re.escape(old) + r"')"
        r"(?=[ \t]*:)",
        re.M,
    )
    hits = list(pattern.finditer(parsed.raw))
    if len(hits) != 1:
        return None, f"its {old} property is not written as one plain key line"
    m = hits[0]
    raw = parsed.raw[: m.start()] + render_key(new) + parsed.raw[m.end() :]
    start = parsed.raw_start
    out = text[:start] + raw + text[start + len(parsed.raw) :]
    check = parse_note(out)
    if check.error or check.data.get(new) != parsed.data.get(old) or old in check.data:
        return None, f"its {old} property cannot be renamed in place"
    return out, None


def _renamed_text(brain: Brain, rel: str, old: str, new: str) -> tuple[str | None, str | None]:
    note = brain.vault.try_read(rel)
    if note is None:
        return None, "the note is gone"
    return rename_key(note.text, old, new)


# -- applying ------------------------------------------------------------------------------


def pending_job(brain: Brain) -> dict[str, Any] | None:
    job = brain.store.read_json(JOB)
    return job if isinstance(job, dict) else None


def unfinished_line(brain: Brain) -> str | None:
    """``doctor``'s line for a rename-field cut short, or None."""
    try:
        job = pending_job(brain)
    except (UserError, OSError, sqlite3.Error):
        return None
    if job is None:
        return None
    a = job.get("args", {})
    done, total = len(job.get("done", [])), len(job.get("notes", []))
    return (
        f"`schema rename-field {a.get('type')} {a.get('old')} {a.get('new')}` stopped after "
        f"{done} of {total} notes (started {job.get('at')}); run it again to finish it"
    )


def _refuse_other_job(brain: Brain, verb: str, args: dict[str, Any]) -> None:
    job = pending_job(brain)
    if job is None or (job.get("verb") == verb and job.get("args") == args):
        return
    ja = job.get("args", {})
    raise UserError(
        f"a schema {job.get('verb')} {ja.get('type')} {ja.get('old')} {ja.get('new')} "
        f"(started {job.get('at')}) is not finished; run it again to finish it first"
    )


@dataclass
class Applied:
    plan: Plan
    written: list[str] = field(default_factory=list)
    skipped: list[NoteChange] = field(default_factory=list)
    entry: dict[str, Any] = field(default_factory=dict)


def run(brain: Brain, verb: str, args: dict[str, Any], change: Change, dry_run: bool) -> Any:
    """Plan ``verb``; unless ``dry_run``, apply it. A Plan (dry run) or an Applied.

    Applying holds this vault's schema-verb lock (one verb at a time; the kernel lets it go
    when the process ends, however it ends). A refused or failed change is recorded too,
    with its reason, as gbrain records its failed mutations."""
    if dry_run:
        return plan(brain, verb, args, change)
    with _verb_lock(brain):
        try:
            _refuse_other_job(brain, verb, args)
            return apply(brain, plan(brain, verb, args, change))
        except UserError as exc:
            job = pending_job(brain) if verb == "rename-field" else None
            if job is not None and job.get("args") == args:
                done, total = len(job.get("done", [])), len(job.get("notes", []))
                exc = UserError(
                    f"{exc} ({done} of {total} notes renamed; the pack is changed last: run "
                    "the same command again to finish)"
                )
            _audit_failure(brain, verb, args, exc)
            raise exc from None


@contextlib.contextmanager
def _verb_lock(brain: Brain) -> Iterator[None]:
    import fcntl

    brain.state_dir.mkdir(parents=True, exist_ok=True)
    path = brain.state_dir / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise UserError("another schema verb is changing this vault's pack; try again") from exc
        yield
    finally:
        os.close(fd)  # (closing lets the lock go)


def apply(brain: Brain, p: Plan) -> Applied:
    out = Applied(p, skipped=list(p.skipped))
    t = p.target
    now = brain.now()
    if p.verb == "rename-field":
        job = pending_job(brain)
        if job is None:
            job = {
                "verb": p.verb,
                "args": p.args,
                "at": now.isoformat(timespec="seconds"),
                "notes": [n.path for n in p.notes],
                "done": [],
                "skipped": [[n.path, n.change] for n in p.skipped],
                "before": p.before,
                "version_before": p.version[0],
                "version_after": p.version[1],
            }
            brain.store.write_json(JOB, job)
        _rename_in_notes(brain, p, job, out)
        if not p.pack_done:
            _write_pack(brain, p, t.digest if t.exists else None)
    else:
        _write_pack(brain, p, t.digest if t.exists else None)
    out.entry = _audit(brain, p, out, now)
    if p.verb == "rename-field":
        brain.store.remove_json(JOB)
    clear_cache()
    brain.refresh()
    return out


def _rename_in_notes(brain: Brain, p: Plan, job: dict[str, Any], out: Applied) -> None:
    """Rename the property in the plan's notes, a batch at a time (one flush to disk for a
    batch, as ``adopt`` writes), the progress kept in the state store after each batch. A
    note renamed but not yet counted when the process stops is found renamed on the rerun
    (it has no old property left) and left as it is."""
    done = list(job.get("done", []))
    old, new = p.args["old"], p.args["new"]
    problems: dict[str, str] = {}

    def build(rel: str, note: Any) -> str | None:
        if note is None:
            problems[rel] = "the note is gone"
            return None
        text, why = rename_key(note.text, old, new)
        if why:
            problems[rel] = why
        return text

    rels = [n.path for n in p.notes]
    for i in range(0, len(rels), BATCH):
        batch = rels[i : i + BATCH]
        results = brain.vault.edit_many(batch, build)
        failed: UserError | None = None
        for rel in batch:
            result = results.get(rel)
            if isinstance(result, UserError):
                failed = failed or result
                continue
            if result is not None and result.written:
                out.written.append(rel)
            elif rel in problems:
                out.skipped.append(NoteChange(rel, problems[rel]))
            done.append(rel)
        job["done"] = done
        brain.store.write_json(JOB, job)
        if failed is not None:
            raise failed


def _write_pack(brain: Brain, p: Plan, expected: str | None) -> None:
    """Write the manifest if it is still what the plan read (compare-and-swap)."""
    from vaultbrain.vault import yml

    t = p.target
    root = brain.vault.root
    brain.vault.resolve(t.path.relative_to(root).as_posix())  # stays inside the vault
    if expected is not None:
        try:
            now = t.path.read_text("utf-8")
        except FileNotFoundError:
            now = ""
        if hashlib.sha256(now.encode("utf-8")).hexdigest() != expected:
            raise UserError(
                f"{t.path} changed while the verb ran; nothing more was written, run it again"
            )
    elif t.path.exists():
        raise UserError(f"{t.path} appeared while the verb ran; run it again")
    if vault_packs_dir(root) is None:
        yml.set_key(
            brain.vault,
            PACKS_FOLDER_KEY,
            DEFAULT_PACKS_FOLDER,
            comment="Schema packs kept in the vault, so every machine that files it has them.",
        )
    if not t.exists and t.source == "installed":
        from vaultbrain.packs.config import keep_in_vault

        keep_in_vault(brain.vault, t.pack.name, home_dir(brain.env))  # its other files too
    t.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_file(t.path, p.text)
    if not t.exists and t.source == "bundled":
        from vaultbrain.packs.config import set_vault_pack

        clear_cache()
        set_vault_pack(root, t.name, verb="fork", at=brain.now(), home=home_dir(brain.env))


def _who(brain: Brain) -> tuple[str, str]:
    """(the user, this machine: its host and id) for an audit line."""
    from vaultbrain.machine import this_machine

    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = "?"
    try:
        m = this_machine(brain.state_dir)
        machine = f"{m.host} ({m.id})"
    except UserError:
        machine = "?"
    return who, machine


def _audit_failure(brain: Brain, verb: str, args: dict[str, Any], exc: Exception) -> None:
    who, machine = _who(brain)
    entry = {
        "at": brain.now().isoformat(timespec="seconds"),
        "verb": verb,
        "args": args,
        "who": who,
        "machine": machine,
        "ok": False,
        "reason": str(exc),
    }
    try:
        brain.store.append_jsonl(CHANGES, entry)
    except (UserError, OSError, sqlite3.Error):
        pass  # (a full disk that failed the verb may fail its line too: the error is shown)


def _audit(brain: Brain, p: Plan, out: Applied, at: dt.datetime) -> dict[str, Any]:
    who, machine = _who(brain)
    t = p.target
    entry = {
        "at": at.isoformat(timespec="seconds"),
        "verb": p.verb,
        "args": p.args,
        "who": who,
        "machine": machine,
        "ok": True,
        "pack": t.name,
        "manifest": t.path.relative_to(brain.vault.root).as_posix(),
        "before": p.before,
        "after": p.after,
        "forked_from": t.source_name if t.source == "bundled" and not t.exists else None,
        "notes_written": len(out.written),
        "notes_skipped": len(out.skipped),
    }
    brain.store.append_jsonl(CHANGES, {k: v for k, v in entry.items() if v is not None})
    return entry


def log_entries(brain: Brain) -> list[dict[str, Any]]:
    return list(brain.store.read_jsonl(CHANGES))
