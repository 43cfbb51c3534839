"""A wikilink the person typed in a thought names the note it links.

``Lunch with [[People/Sarah Connor|Sarah]]`` is about the person note Sarah Connor, and
``Talk about [[Projects/Kiln]] budget`` about the project Kiln: never a second person named
"Sarah Connor Sarah", never a person called Kiln. The classifiers read the thought's words
(what Obsidian shows: ``Lunch with Sarah``) and may name the linked note by its alias, its
name, or words around it; :func:`follow_links` turns each destination that stands for a
linked note into that note, of the type the vault gives it, and adds the note when no
destination named it. A link to a note that does not exist yet names the note a
destination creates, so the person's link resolves to it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.errors import VaultbrainError
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inline import WikiLink, wikilinks
from vaultbrain.vault.names import fold

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.index import RecordIndex
    from vaultbrain.filing.names import NameIndex
    from vaultbrain.packs import ResolvedPack


_ARROW = LazyPattern(r"\s*(?:→|->|=>|⇒)\s*")


@dataclass(frozen=True)
class Linked:
    """A typed link, and the note it resolves to."""

    link: WikiLink
    rel: str | None  # the note (vault-relative, ``.md``), None: no such note yet
    type: str = ""  # the note's type, when it is a record of a fileable type
    title: str = ""  # the note's title (a record's, or its file name)

    @property
    def names(self) -> set[str]:
        """Every name the thought may give the note, folded."""
        found = {self.link.name, self.link.alias, self.link.target, self.title}
        if self.link.alias:
            found.add(f"{self.link.name} {self.link.alias}")
        return {fold(n) for n in found if n and n.strip()}


def typed_links(brain: Brain, text: str) -> list[Linked]:
    """The notes the wikilinks typed in ``text`` link (embeds of files that are no note,
    such as images, are left out)."""
    links = [link for link in wikilinks(text) if _is_note(link.target)]
    if not links:
        return []
    from vaultbrain.filing.index import records
    from vaultbrain.filing.names import note_names

    index = records(brain)
    names = note_names(brain)
    return [_resolve(brain, index, names, link) for link in links]


def _is_note(target: str) -> bool:
    stem = target.rsplit("/", 1)[-1]
    return bool(stem) and ("." not in stem or stem.lower().endswith(".md"))


def _resolve(brain: Brain, index: RecordIndex, names: NameIndex, link: WikiLink) -> Linked:
    rel = _note_of(brain, names, link.target)
    if rel is None:
        return Linked(link, None)
    hit = index.by_path(rel)
    pack = brain.pack
    if hit is not None:
        summary = hit[1]
        ptype = pack.get_type(str(summary.get("type") or ""))
        if ptype is not None and ptype.fileable:
            return Linked(link, rel, ptype.name, str(summary.get("title") or _stem(rel)))
    ptype = pack.type_for_path(rel)
    if ptype is not None and ptype.fileable:
        return Linked(link, rel, ptype.name, _stem(rel))
    return Linked(link, rel, "", _stem(rel))


def _note_of(brain: Brain, names: NameIndex, target: str) -> str | None:
    """The note a link's target resolves to, as Obsidian resolves it: a path from the
    vault's root, else the note of that name (the shortest path first)."""
    if "/" in target:
        if any(part.startswith(".") for part in target.split("/")):
            return None  # a dot-folder (.obsidian, .trash) holds no note
        rel = f"{target}.md"
        try:
            if brain.vault.resolve(rel).is_file():
                return rel
        except (VaultbrainError, OSError):  # a target out of the vault: no note
            return None
    hits = names.lookup(target.rsplit("/", 1)[-1])
    if "/" in target:
        wanted = fold(f"{target}.md")
        hits = [h for h in hits if fold(h).endswith(wanted)] or hits
    return hits[0] if hits else None


def _stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1][:-3]


def follow_links(
    result: Classification, linked: list[Linked], pack: ResolvedPack
) -> Classification:
    """The classification with every destination that stands for a typed link turned into
    the linked note: named by the note's title (and of its type, when it is a record), or,
    for a note not made yet, by the link's name. A linked record no destination named is
    added: the thought is about it."""
    if not linked:
        return result
    dests = list(result.destinations)
    for lk in linked:
        names = lk.names
        named = False
        for i, d in enumerate(dests):
            if d.type == UNKNOWN:
                continue
            if not _stands_for(d, lk, names):
                continue
            named = True
            if lk.type:
                fields = d.fields if d.type == lk.type else {}
                dests[i] = Destination(lk.type, lk.title, dict(fields))
            else:
                dests[i] = replace(d, title=lk.title or lk.link.name)
        if not named and lk.type and pack.get_type(lk.type) is not None:
            dests.append(Destination(lk.type, lk.title, {}))
    return replace(result, destinations=_unique(dests))


def _stands_for(d: Destination, lk: Linked, names: set[str]) -> bool:
    """Whether destination ``d`` is the linked note: it has one of the link's names, or,
    being of the linked record's type, its title holds one (``Kiln budget`` for a link to
    the project Kiln) or is part of one (``Connor`` for a link to Sarah Connor)."""
    key = fold(d.title)
    if key in names:
        return True
    if any(key in [*_ARROW.split(n), _ARROW.sub(" ", n)] for n in names):
        return True  # the name read at its arrow (``Foo`` of ``[[Foo → Bar]]``)
    if lk.type and d.type == lk.type and key:
        words = f" {key} "
        if any(f" {n} " in words for n in names):
            return True
        return any(set(key.split()) <= set(n.split()) for n in names)
    return False


def _unique(dests: list[Destination]) -> list[Destination]:
    seen: dict[tuple[str, str], int] = {}
    out: list[Destination] = []
    for d in dests:
        key = (d.type, fold(d.title))
        if key in seen:
            kept = out[seen[key]]
            out[seen[key]] = replace(kept, fields={**d.fields, **kept.fields})
            continue
        seen[key] = len(out)
        out.append(d)
    return out


def known_of(linked: list[Linked]) -> list[dict[str, Any]]:
    """The linked records as the LLM's prompt lists the notes a thought mentions."""
    return [
        {"type": lk.type, "title": lk.title, "aliases": [lk.link.alias] if lk.link.alias else []}
        for lk in linked
        if lk.type
    ]


__all__ = ["Linked", "follow_links", "known_of", "typed_links"]
