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

Here: the six verbs (each a change to the manifest's data) and :func:`run`. Beside it:
``target.py`` (the vault's copy), ``planning.py``, ``applying.py``, ``rename.py`` (a note's
property renamed, and the rename job) and ``audit.py`` (``schema log``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.fields import FIELD_TYPES
from vaultbrain.packs.model import PRIMITIVES
from vaultbrain.packs.resolved import ResolvedPack, normalize_prefix
from vaultbrain.schema.applying import apply
from vaultbrain.schema.audit import record_failure
from vaultbrain.schema.planning import Change, plan
from vaultbrain.schema.rename import pending_job, refuse_other_job
from vaultbrain.schema.target import as_written, declared_types, name_taken, own_type

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


LOCK = "schema-verb.lock"  # in the state dir: one verb at a time


VERBS = ("add-type", "add-field", "add-link-type", "add-alias", "rename-field", "retire-type")


_NAME = re.compile(r"[a-z][a-z0-9_-]*")
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_ -]*")


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
        taken = name_taken(pack, name)
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
            spec = {k: as_written(v) for k, v in base.fields.items()}
            entry["primitive"] = primitive or base.primitive
            if base.title_field:
                entry["title_field"] = base.title_field
            if base.tasks is not None:
                entry["tasks"] = as_written(base.tasks)
        elif primitive:
            entry["primitive"] = primitive
        if primitive and primitive not in PRIMITIVES:
            raise UserError(f"--primitive is one of {', '.join(PRIMITIVES)}")
        entry["path_prefixes"] = [prefix]
        if aliases:
            for alias in aliases:
                if name_taken(pack, alias):
                    raise UserError(f"alias {alias!r} is already {name_taken(pack, alias)}")
            entry["aliases"] = list(aliases)
        entry["fileable"] = fileable
        entry["description"] = description or f"A note in {prefix}."
        for fname, kind in fields:
            spec[fname] = _field_spec(fname, kind)
        if not any(k in spec for k in ("title", "name")):
            spec = {"title": {"type": "text", "required": True}, **spec}
        entry["fields"] = spec
        declared_types(data).insert(0, entry)

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
        entry = own_type(data, pack, type_name)
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
            own = own_type(data, pack, a.name)
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
        taken = name_taken(pack, alias)
        if taken:
            raise UserError(f"{alias!r} is already {taken}")
        entry = own_type(data, pack, type_name)
        entry.setdefault("aliases", []).append(alias.strip())

    return change


def rename_field(type_name: str, old: str, new: str) -> Change:
    def change(data: dict[str, Any], pack: ResolvedPack) -> None:
        entry = own_type(data, pack, type_name)
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
                links.append(as_written(fl))
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
        entry = own_type(data, pack, t.name)
        entry["fileable"] = False
        enrich = data.get("enrichable_types")
        if isinstance(enrich, list):
            data["enrichable_types"] = [
                e for e in enrich if (e.get("type") if isinstance(e, dict) else e) != t.name
            ]

    return change


def run(brain: Brain, verb: str, args: dict[str, Any], change: Change, dry_run: bool) -> Any:
    """Plan ``verb``; unless ``dry_run``, apply it. A Plan (dry run) or an Applied.

    Applying holds this vault's schema-verb lock (one verb at a time; the kernel lets it go
    when the process ends, however it ends). A refused or failed change is recorded too,
    with its reason, as gbrain records its failed mutations."""
    if dry_run:
        return plan(brain, verb, args, change)
    with _verb_lock(brain):
        try:
            refuse_other_job(brain, verb, args)
            return apply(brain, plan(brain, verb, args, change))
        except UserError as exc:
            job = pending_job(brain) if verb == "rename-field" else None
            if job is not None and job.get("args") == args:
                done, total = len(job.get("done", [])), len(job.get("notes", []))
                exc = UserError(
                    f"{exc} ({done} of {total} notes renamed; the pack is changed last: run "
                    "the same command again to finish)"
                )
            record_failure(brain, verb, args, exc)
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
