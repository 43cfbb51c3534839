"""``schema stats``, ``schema graph --mermaid`` and ``schema explain NOTE``: the active pack
measured against this vault's notes.

- :func:`vault_stats`: notes per type (by frontmatter ``type:`` or folder), how many of
  them fill each declared field, typed links per link type (the graph index), the notes no
  type reaches, and the declared folders that hold no note (gbrain's "dead prefixes").
- :func:`mermaid`: the link-type graph as a Mermaid ``graph LR`` block, which Obsidian
  renders in a note: one node per type, one edge per link type (a link type's
  ``inference`` page and target types, a frontmatter link's field and the types it
  ``collects``).
- :func:`explain_note`: why one note is of the type it is: its ``type:`` (a name or an
  alias), else the folder prefix that matched and the pack that declared it, or why it is
  of none; its subtype; which declared fields it fills.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.resolved import ResolvedPack, normalize_prefix
from vaultbrain.schema.notes import survey_notes
from vaultbrain.vault.counted import index_note
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | dict) and not value)


@dataclass
class TypeStats:
    name: str
    notes: int
    by_frontmatter: int  # of them, typed by their own `type:` (name or alias)
    fields: dict[str, int] = field(default_factory=dict)  # declared field -> notes filling it


@dataclass
class Stats:
    pack: str
    total: int
    typed: int
    types: list[TypeStats]
    links: dict[str, int]
    undeclared: dict[str, int]  # `type:` values the pack does not declare -> notes
    dead_prefixes: list[tuple[str, str]]  # (type, folder) with no note

    @property
    def coverage(self) -> float:
        return self.typed / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "total_notes": self.total,
            "typed_notes": self.typed,
            "untyped_notes": self.total - self.typed,
            "coverage": round(self.coverage, 4),
            "types": [
                {
                    "type": t.name,
                    "notes": t.notes,
                    "by_frontmatter": t.by_frontmatter,
                    "fields": t.fields,
                }
                for t in self.types
            ],
            "links": self.links,
            "undeclared_types": self.undeclared,
            "dead_prefixes": [{"type": t, "folder": f} for t, f in self.dead_prefixes],
        }


def vault_stats(brain: Brain, links: dict[str, int] | None = None) -> Stats:
    """The active pack's types, fields and link types counted on this vault's notes
    (``links``: typed links per link type, when the caller has the graph)."""
    pack = brain.refresh().pack
    notes = [n for n in survey_notes(brain, pack) if not index_note(n.rel)]
    per_type: dict[str, TypeStats] = {
        t.name: TypeStats(t.name, 0, 0, {k: 0 for k in t.fields}) for t in pack.types
    }
    undeclared: Counter[str] = Counter()
    used_prefixes: set[str] = set()
    for n in notes:
        if n.type is None:
            if n.declared:
                undeclared[n.declared] += 1
            continue
        ts = per_type[n.type]
        ts.notes += 1
        if n.declared and pack.get_type(n.declared) is not None:
            ts.by_frontmatter += 1
        for key in ts.fields:
            if not _blank(n.data.get(key)):
                ts.fields[key] += 1
        low = n.rel.lower()
        for prefix in pack.prefixes():
            if low.startswith(prefix):
                used_prefixes.add(prefix)
    dead = [
        (t.name, x.strip("/") + "/")
        for t in pack.types
        for x in t.path_prefixes
        if normalize_prefix(x) not in used_prefixes
    ]
    declared_links = [lt.name for lt in pack.manifest.link_types]
    found = links or {}
    link_counts = {name: found.get(name, 0) for name in declared_links}
    link_counts.update({k: v for k, v in found.items() if k not in link_counts})
    typed = sum(t.notes for t in per_type.values())
    return Stats(
        pack.identity,
        len(notes),
        typed,
        list(per_type.values()),
        link_counts,
        dict(undeclared.most_common()),
        dead,
    )


# -- the link-type graph as Mermaid --------------------------------------------------------

_ID = re.compile(r"[^A-Za-z0-9_]")


def _node(name: str) -> str:
    return "t_" + _ID.sub("_", name)


def _label(text: str) -> str:
    return text.replace('"', "'").replace("|", "/")


def edges(pack: ResolvedPack) -> list[tuple[str, str, str]]:
    """(from type, link type, to type) of every typed link the pack declares; ``*``: any
    type."""
    out: list[tuple[str, str, str]] = []
    for lt in pack.manifest.link_types:
        inf = lt.inference
        if inf is not None and inf.page_type:
            out.append((inf.page_type, lt.name, inf.target_type or "*"))
    for fl in pack.manifest.frontmatter_links:
        src = pack.get_type(fl.page_type)
        targets: list[str] = []
        for key in fl.fields:
            spec = src.fields.get(key) if src is not None else None
            collects = getattr(spec, "collects", None) if spec is not None else None
            targets.extend(collects or ["*"])
        for target in dict.fromkeys(targets):
            edge = (fl.page_type, fl.link_type, "*" if target == "any" else target)
            if edge not in out:
                out.append(edge)
    return out


def mermaid(pack: ResolvedPack) -> str:
    """A fenced Mermaid block of the pack's types and the link types between them."""
    lines = ["```mermaid", "graph LR"]
    all_edges = edges(pack)
    linked = {e[0] for e in all_edges} | {e[2] for e in all_edges}
    for t in pack.types:
        folders = ", ".join(p.strip("/") + "/" for p in t.path_prefixes)
        label = f"{t.name}<br/>{folders}" if folders else t.name
        lines.append(f'  {_node(t.name)}["{_label(label)}"]')
    if "*" in linked:
        lines.append('  t__any(["any type"])')
    for src, verb, dst in all_edges:
        dst_id = "t__any" if dst == "*" else _node(dst)
        lines.append(f"  {_node(src)} -->|{_label(verb)}| {dst_id}")
    lines.append("```")
    return "\n".join(lines)


# -- why a note is of its type -------------------------------------------------------------


def explain_note(brain: Brain, rel: str) -> dict[str, Any]:
    """Why the note ``rel`` is of the type it is (or of none), under the pack in force."""
    brain.refresh()
    note = brain.vault.try_read(rel)
    if note is None:
        raise UserError(f"no note {rel} in the vault")
    pack = brain.typer(rel)
    parsed = parse_note(note.text)
    data = parsed.data if isinstance(parsed.data, dict) and not parsed.error else {}
    doc: dict[str, Any] = {"path": rel, "pack": pack.identity, "type": None, "reasons": []}
    reasons: list[str] = doc["reasons"]
    if parsed.error or parsed.fence_problem:
        reasons.append(f"its frontmatter cannot be read ({parsed.error or parsed.fence_problem})")
    if brain.templates.holds(rel):
        reasons.append("it is a template, never a record")
        return doc
    if index_note(rel):
        reasons.append("it is a README, index or folder note, never a record")
        return doc
    declared = data.get("type")
    t = None
    if isinstance(declared, str) and declared.strip():
        t = pack.get_type(declared)
        if t is None:
            reasons.append(
                f"its frontmatter says type: {declared}, which {pack.name} does not declare "
                "(its folder does not count then)"
            )
        elif t.name == declared.strip().lower():
            reasons.append(f"its frontmatter says type: {declared}")
        else:
            reasons.append(f"its frontmatter says type: {declared}, an alias of {t.name}")
    else:
        t = pack.type_for_path(rel)
        if t is None:
            reasons.append("it has no type: property and no folder of the pack holds it")
        else:
            low = rel.lower()
            prefix = next(
                (
                    x.strip("/") + "/"
                    for x in t.path_prefixes
                    if f"/{low}".find("/" + normalize_prefix(x)) >= 0
                ),
                t.folder + "/",
            )
            origin = pack.origins.get(t.name, [pack.name])[0]
            reasons.append(
                f"it has no type: property and is under {prefix}, the folder of {t.name} "
                f"(declared by {origin})"
            )
    if t is None:
        return doc
    doc["type"] = t.name
    sub = t.subtype_for(rel, data)
    doc["subtype"] = sub
    if sub:
        reasons.append(f"subtype {sub}: its rule matches")
    doc["fields_filled"] = [k for k in t.fields if not _blank(data.get(k))]
    doc["fields_missing"] = [k for k in t.fields if _blank(data.get(k))]
    own = {"type", "id", "created", "subtype", "tags", "aliases", "cssclasses"}
    doc["other_properties"] = [k for k in data if k not in t.fields and k not in own]
    return doc
