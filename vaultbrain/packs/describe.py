"""Read-only views of a resolved pack: active, show, filing rules, diff, graph, explain."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.resolved import PageType, ResolvedPack, as_data

if TYPE_CHECKING:
    from vaultbrain.packs.choice import ActivePack


def active_document(
    active: ActivePack,
    tiers: list[dict[str, Any]],
    rel: str | None = None,
    frontmatter: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The pack in force, the tier that chose it and what every tier says (``schema active``);
    with ``rel``, the type and subtype that note gets (``frontmatter``: the note's own, when
    it exists: its ``type:`` and a subtype's frontmatter rule count)."""
    doc: dict[str, Any] = {
        "identity": active.pack.identity,
        "tier": active.tier,
        "source": active.source,
        "folder": active.folder,
        "chain": active.pack.chain,
        "warnings": active.pack.warnings,
        "tiers": tiers,
    }
    if rel:
        ptype = active.pack.infer_type(rel, frontmatter)
        doc["path"] = rel
        doc["type"] = ptype.name if ptype else None
        doc["subtype"] = ptype.subtype_for(rel, frontmatter) if ptype else None
    return doc


def pack_document(pack: ResolvedPack) -> dict[str, Any]:
    """The merged manifest as JSON, with identity, chain and where each type comes from."""
    return {
        "identity": pack.identity,
        "chain": pack.chain,
        "source": pack.source,
        "warnings": pack.warnings,
        "origins": pack.origins,
        "manifest": as_data(pack.manifest, drop_none=True),
    }


def type_row(t: PageType) -> dict[str, Any]:
    return {
        "name": t.name,
        "primitive": t.primitive,
        "folders": [p.strip("/") + "/" for p in t.path_prefixes],
        "fileable": t.fileable,
        "aliases": t.aliases,
        "fields": {k: v.type for k, v in t.fields.items()},
        "collection": t.store_collection,
        "title_field": t.title_key,
    }


def filing_rules(pack: ResolvedPack) -> list[dict[str, Any]]:
    """The pack as filing rules: per type, where its notes go and what the classifier sees.

    Declared ``filing_rules`` of the same kind add their examples and description; declared
    rules whose kind is not a type follow.
    """
    declared = {r.kind: r for r in pack.manifest.filing_rules}
    out = []
    for t in pack.types:
        rule = declared.pop(t.name, None)
        out.append(
            {
                "kind": t.name,
                "directory": t.folder + "/",
                "fileable": t.fileable,
                "description": (rule.description if rule and rule.description else t.description)
                or "",
                "examples": list(rule.examples) if rule else [],
                "fields": {
                    k: ({"type": v.type, "values": v.values} if v.values else {"type": v.type})
                    | ({"required": True} if v.required else {})
                    for k, v in t.fields.items()
                },
                "title_field": t.title_key,
            }
        )
    for rule in declared.values():
        out.append(
            {
                "kind": rule.kind,
                "directory": rule.directory.strip("/") + "/",
                "fileable": False,
                "description": rule.description or "",
                "examples": list(rule.examples),
                "fields": {},
            }
        )
    return out


_TYPE_KEYS = (
    "primitive",
    "path_prefixes",
    "aliases",
    "extractable",
    "expert_routing",
    "fileable",
    "description",
    "template",
    "collection",
    "title_field",
    "subtypes",
)


def diff_packs(a: ResolvedPack, b: ResolvedPack) -> dict[str, Any]:
    """Set differences of two resolved packs: types, their keys and fields, links, kinds."""
    ta = {t.name: t for t in a.types}
    tb = {t.name: t for t in b.types}
    changed: dict[str, dict[str, Any]] = {}
    for name in sorted(ta.keys() & tb.keys()):
        x, y = ta[name], tb[name]
        change: dict[str, Any] = {}
        for key in _TYPE_KEYS:
            vx, vy = getattr(x, key), getattr(y, key)
            if vx != vy:
                change[key] = {"a": vx, "b": vy}
        fa, fb = set(x.fields), set(y.fields)
        if fa - fb:
            change["fields_only_in_a"] = sorted(fa - fb)
        if fb - fa:
            change["fields_only_in_b"] = sorted(fb - fa)
        differing = sorted(f for f in fa & fb if as_data(x.fields[f]) != as_data(y.fields[f]))
        if differing:
            change["fields_changed"] = {
                f: {
                    "a": as_data(x.fields[f], drop_none=True),
                    "b": as_data(y.fields[f], drop_none=True),
                }
                for f in differing
            }
        if change:
            changed[name] = change
    la = {lt.name for lt in a.manifest.link_types}
    lb = {lt.name for lt in b.manifest.link_types}
    ka, kb = set(a.manifest.takes_kinds), set(b.manifest.takes_kinds)
    order_a = [n for n in (t.name for t in a.types) if n in tb]
    order_b = [n for n in (t.name for t in b.types) if n in ta]
    return {
        "a": a.identity,
        "b": b.identity,
        "types_only_in_a": [n for n in ta if n not in tb],
        "types_only_in_b": [n for n in tb if n not in ta],
        "types_changed": changed,
        "type_order_differs": order_a != order_b,
        "link_types_only_in_a": sorted(la - lb),
        "link_types_only_in_b": sorted(lb - la),
        "takes_kinds_only_in_a": sorted(ka - kb),
        "takes_kinds_only_in_b": sorted(kb - ka),
        "same": a.sha8 == b.sha8,
    }


def graph_lines(pack: ResolvedPack) -> list[str]:
    """An ASCII listing: the chain, each type with its folders, and the link verbs between."""
    lines = [f"{pack.identity}", "  chain: " + " -> ".join(pack.chain)]
    links_from: dict[str, list[str]] = {}
    for lt in pack.manifest.link_types:
        inf = lt.inference
        if inf and inf.page_type:
            links_from.setdefault(inf.page_type, []).append(
                f"--{lt.name}--> {inf.target_type or '*'}"
            )
    for fl in pack.manifest.frontmatter_links:
        links_from.setdefault(fl.page_type, []).append(
            f"--{fl.link_type}--> (frontmatter {', '.join(fl.fields)})"
        )
    types = pack.types
    for i, t in enumerate(types):
        last = i == len(types) - 1
        branch, stem = ("└── ", "    ") if last else ("├── ", "│   ")
        flags: list[str] = [t.primitive]
        if t.fileable:
            flags.append("fileable")
        if t.extractable:
            flags.append("extractable")
        if t.expert_routing:
            flags.append("experts")
        folders = ", ".join(p.strip("/") + "/" for p in t.path_prefixes) or "(no folder)"
        origin = pack.origins.get(t.name, [pack.name])
        lines.append(f"{branch}{t.name} [{', '.join(flags)}]  {folders}  <{origin[0]}>")
        if t.aliases:
            lines.append(f"{stem}    aka {', '.join(t.aliases)}")
        for edge in links_from.get(t.name, []):
            lines.append(f"{stem}    {edge}")
    return lines


def _subtype_words(sub: Any) -> str:
    w = sub.when
    if w.path_pattern:
        return f"{sub.name} (path matches {w.path_pattern!r})"
    if w.frontmatter_field:
        return f"{sub.name} ({w.frontmatter_field}: {w.frontmatter_value!r})"
    return sub.name


_PRIMITIVE_WORDS = {
    "entity": "a thing with an identity (someone or something you keep notes about)",
    "media": "something made to be read, watched or listened to",
    "temporal": "something tied to a time or date",
    "annotation": "a note about something else",
    "concept": "an idea or a topic",
}


def explain_type(pack: ResolvedPack, name: str) -> str:
    """A plain-English description of one type of the pack (name or alias)."""
    t = pack.get_type(name)
    if t is None:
        known = ", ".join(x.name for x in pack.types)
        raise UserError(f"{pack.name} has no type {name!r}; its types: {known}")
    parts = []
    head = f"{t.name}: {t.description.strip()}" if t.description else t.name
    parts.append(head)
    parts.append(f"It is {_PRIMITIVE_WORDS[t.primitive]} ({t.primitive}).")
    if t.path_prefixes:
        folders = ", ".join(p.strip("/") + "/" for p in t.path_prefixes)
        parts.append(
            f"Any note under {folders} is a {t.name} unless its frontmatter `type:` says "
            f"otherwise; new {t.name} notes are filed in {t.folder}/."
        )
    else:
        parts.append(f"No folder implies it: only a frontmatter `type: {t.name}` does.")
    if t.aliases:
        parts.append("Also called: " + ", ".join(t.aliases) + ".")
    if t.subtypes:
        parts.append("Subtypes: " + ", ".join(_subtype_words(s) for s in t.subtypes) + ".")
    parts.append(
        "The classifier may file thoughts here."
        if t.fileable
        else "The classifier never files thoughts here."
    )
    if t.fields:
        fields = []
        for key, spec in t.fields.items():
            desc: str = spec.type
            if spec.values:
                desc += " of " + " | ".join(spec.values)
            if spec.required:
                desc += ", required"
            if spec.default is not None:
                desc += f", default {spec.default}"
            fields.append(f"  - {key} ({desc})")
        parts.append("Fields:\n" + "\n".join(fields))
    parts.append(
        f"Records live in the {t.store_collection!r} collection, named by {t.title_key!r}."
    )
    origin = pack.origins.get(t.name, [pack.name])
    if len(origin) > 1:
        parts.append(f"Declared by {origin[-1]}; overridden by {', '.join(origin[:-1])}.")
    else:
        parts.append(f"Declared by {origin[0]}.")
    return "\n".join(parts)
