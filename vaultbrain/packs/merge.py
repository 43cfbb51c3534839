"""The merge contract: how a pack composes with its ``extends`` chain and ``borrow_from``.

Precedence, highest first: the child, what the child borrows, its parent, what the parent
borrows, ... the root pack (``extends: null``). A pack's borrows sit just below the pack
that names them.

- Six fields inherit, child wins by key: ``page_types`` (name), ``link_types`` (name),
  ``frontmatter_links`` (page_type + link_type), ``enrichable_types`` (type),
  ``filing_rules`` (kind) and ``takes_kinds`` (a union, see below).
- ``page_types`` order decides which prefix wins when a path matches two types, so it is
  kept deliberately: the root pack's types form the tail in their declared order; a type
  first declared above the root is prepended, nearest-first (child, then what the child
  borrows, then the parent...), so a more derived type wins however deep the chain is. An
  override takes the value of the nearest layer but keeps the position of the farthest
  layer that declared the type: overriding never reorders.
- What the root borrows comes after the root's own types (a pack's own declarations come
  before what it borrows, as in gbrain's merge).
- ``takes_kinds`` is a union (root's order first): its default makes an omitted field look
  like an explicit one, so replacing would let a child that omits it drop kinds.
- ``phases`` and ``calibration_domains`` are the child's own: they gate what runs, and a
  child must opt in explicitly. Identity fields, ``extends``, ``borrow_from`` and gbrain's
  ``migration_from``, ``mapping_rules`` and ``path_match`` are the child's too (they
  describe the pack itself, not the types it passes on).
- ``borrow_from`` contributes only the named types and link types of the target's own
  declarations (not what the target inherits or borrows): selective and non-transitive.
  Resolving the target, and refusing a missing one, is the loader's job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from vaultbrain.packs.model import LinkType, Manifest, PageType

T = TypeVar("T")


@dataclass
class Layer:
    """One pack of the extends chain, with what it borrows already picked out."""

    manifest: Manifest
    borrowed_types: list[tuple[str, PageType]] = field(default_factory=list)
    borrowed_links: list[LinkType] = field(default_factory=list)


def merge_chain(chain: list[Layer]) -> tuple[Manifest, dict[str, list[str]]]:
    """Merge ``chain`` (child first, root last) into one manifest.

    Returns the merged manifest and, per type, the packs declaring it, nearest first.
    """
    if not chain:
        raise ValueError("an empty chain has nothing to merge")
    child = chain[0].manifest
    root = chain[-1].manifest

    # Page-type layers above the root's own declarations, highest precedence first.
    upper: list[tuple[str, list[PageType]]] = []
    for i, layer in enumerate(chain):
        if i == len(chain) - 1:
            break  # the root's borrows go below the root's own types (see below)
        upper.append((layer.manifest.name, layer.manifest.page_types))
        upper.extend(_borrowed(layer))

    value: dict[str, PageType] = {}
    origins: dict[str, list[str]] = {}
    for label, types in upper:
        for t in _first_per_name(types):
            value.setdefault(t.name, t)
            origins.setdefault(t.name, []).append(label)
    root_types = _first_per_name(root.page_types)
    root_names = {t.name for t in root_types}
    for t in root_types:
        value.setdefault(t.name, t)
        origins.setdefault(t.name, []).append(root.name)

    # Where each non-root type sits: the farthest upper layer that declares it.
    intro: dict[str, int] = {}
    for index, (_, types) in enumerate(upper):
        for t in types:
            if t.name not in root_names:
                intro[t.name] = index
    prepended: list[PageType] = []
    placed: set[str] = set()
    for index, (_, types) in enumerate(upper):
        for t in types:
            if intro.get(t.name) == index and t.name not in placed:
                placed.add(t.name)
                prepended.append(value[t.name])
    # The root's borrows sit just below the root, as any pack's borrows sit below it: its own
    # types keep their declared order and win; a borrowed type the root does not declare
    # follows them (gbrain's merge puts a pack's own types first).
    tail = [value[t.name] for t in root_types]
    for label, types in _borrowed(chain[-1]):
        for t in _first_per_name(types):
            if t.name in root_names:
                origins[t.name].append(label)
            elif t.name not in value:
                value[t.name] = t
                origins.setdefault(t.name, []).append(label)
                tail.append(t)
            elif label not in origins[t.name]:
                origins[t.name].append(label)
    page_types = prepended + tail

    link_layers: list[list[LinkType]] = []
    for layer in chain:
        link_layers.append(layer.manifest.link_types)
        link_layers.append(layer.borrowed_links)
    manifests = [layer.manifest for layer in chain]
    merged = child.model_copy(
        update={
            "page_types": page_types,
            "link_types": merge_by_key(link_layers, lambda x: x.name),
            "frontmatter_links": merge_by_key(
                [m.frontmatter_links for m in manifests], lambda x: f"{x.page_type}\0{x.link_type}"
            ),
            "enrichable_types": merge_by_key(
                [m.enrichable_types for m in manifests], lambda x: x.type
            ),
            "filing_rules": merge_by_key([m.filing_rules for m in manifests], lambda x: x.kind),
            "takes_kinds": union([m.takes_kinds for m in reversed(manifests)]),
        }
    )
    return merged, origins


def _borrowed(layer: Layer) -> list[tuple[str, list[PageType]]]:
    by_target: dict[str, list[PageType]] = {}
    for target, t in layer.borrowed_types:
        by_target.setdefault(target, []).append(t)
    return [
        (f"{target} (borrowed by {layer.manifest.name})", types)
        for target, types in by_target.items()
    ]


def _first_per_name(types: Iterable[PageType]) -> list[PageType]:
    # A pack that declares a type twice keeps the first; `schema lint` reports the second.
    seen: set[str] = set()
    out = []
    for t in types:
        if t.name not in seen:
            seen.add(t.name)
            out.append(t)
    return out


def merge_by_key(layers_high_to_low: Iterable[Iterable[T]], key: Callable[[T], str]) -> list[T]:
    """Keyed records, child wins: the first occurrence of each key, highest layer first."""
    seen: set[str] = set()
    out: list[T] = []
    for layer in layers_high_to_low:
        for item in layer:
            k = key(item)
            if k not in seen:
                seen.add(k)
                out.append(item)
    return out


def union(layers: Iterable[Iterable[str]]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for layer in layers:
        for item in layer:
            if item not in seen:
                seen.add(item)
                out.append(item)
    return out


def find_alias_cycle(page_types: Iterable[PageType]) -> list[str] | None:
    """A cycle in the alias graph, as the names around it, or None when it is a forest.

    The graph is undirected (symmetric per declaration) over type names and alias names,
    any case; declaring the same edge twice (``a: [b]`` and ``b: [a]``) is one edge, and a
    type naming itself is ignored.
    """
    adjacency: dict[str, set[str]] = {}
    for t in page_types:
        for alias in t.aliases:
            a, b = t.name.lower(), alias.strip().lower()
            if a == b or b in adjacency.get(a, ()):
                continue
            path = _path(adjacency, b, a)
            if path is not None:  # the declaring type, its alias, and back round to it
                return [a, *path]
            adjacency.setdefault(a, set()).add(b)
            adjacency.setdefault(b, set()).add(a)
    return None


def _path(adjacency: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    if start not in adjacency or goal not in adjacency:
        return None
    previous: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for other in adjacency[node]:
                if other not in previous:
                    previous[other] = node
                    if other == goal:
                        out = [goal]
                        while previous[out[-1]] is not None:
                            out.append(previous[out[-1]])  # type: ignore[arg-type]
                        return out[::-1]
                    nxt.append(other)
        frontier = nxt
    return None
