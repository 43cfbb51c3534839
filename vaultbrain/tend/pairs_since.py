"""Consolidate after a day that met new people, in proportion to the notes that changed.

A person's pairs are decided only by the person notes it shares a *block* with (an e-mail
address, a name, a first name and surname, a first name: consolidate.py ``person_keys``),
and a group of merged notes is joined only through blocks. So the notes that share a block
with a note that changed (as it was, or as it is), and those that share one with them, and so
on (:func:`closure`), hold every pair a change can make or undo, and each of their blocks
whole: :func:`~vaultbrain.tend.consolidate.person_pairs` of them alone finds what it finds
of every person note. A project's pairs read the people its links reach: a person who came
or went changes them only where a project links by that person's path or file name.

What this needs of the unchanged notes is kept between cycles (``tend-blocks.json``): each
person note's blocks, and per other consolidated type how many of its notes link by each
link key. The kept pairs name the version of it they were found with (its ``gen``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.tend.card import Card

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

BLOCKS_SEEN = "tend-blocks.json"
Blocks = dict[str, dict[str, list[str]]]  # person type -> note path -> its blocks
Linked = dict[str, dict[str, int]]  # other type -> link key -> how many of its notes link by it


def blocks_of(
    cards: list[Card], person_types: set[str], keys: Callable[[Card], list[str]]
) -> Blocks:
    """Each person note's blocks (``keys``: consolidate.py ``person_keys``)."""
    out: Blocks = {t: {} for t in person_types}
    for c in cards:
        if c.type in person_types:
            out[c.type][c.rel] = keys(c)
    return out


def linked_of(cards: list[Card], types: set[str]) -> Linked:
    out: Linked = {t: {} for t in types}
    for c in cards:
        if c.type in types:
            counts = out[c.type]
            for k in c.links:
                counts[k] = counts.get(k, 0) + 1
    return out


def closure(kept: dict[str, list[str]], start: set[str], now: dict[str, list[str]]) -> set[str]:
    """``start`` and every person note that shares a block with one of them, and so on:
    ``kept`` the notes' blocks as the last cycle kept them, ``now`` the changed ones' now
    (a changed note counts by both)."""
    holders: dict[str, list[str]] = {}
    for source in (kept, now):
        for rel, keys in source.items():
            for k in keys:
                holders.setdefault(k, []).append(rel)
    seen = set(start)
    todo = list(start)
    while todo:
        rel = todo.pop()
        for k in (*kept.get(rel, ()), *now.get(rel, ())):
            for other in holders.get(k, ()):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
    return seen


def read_blocks(brain: Brain, gen: Any) -> tuple[Blocks, Linked] | None:
    """The blocks kept at ``gen`` (None: none, or another version than the pairs')."""
    doc = brain.store.read_json(BLOCKS_SEEN, None)
    if not isinstance(doc, dict) or gen is None or doc.get("gen") != gen:
        return None
    blocks, linked = doc.get("blocks"), doc.get("linked")
    if not isinstance(blocks, dict) or not isinstance(linked, dict):
        return None
    return blocks, linked


def write_blocks(brain: Brain, gen: str, blocks: Blocks, linked: Linked) -> None:
    brain.store.write_json(
        BLOCKS_SEEN, {"gen": gen, "blocks": blocks, "linked": linked}, durable=False
    )
