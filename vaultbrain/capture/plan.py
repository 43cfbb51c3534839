"""Step 3 of filing: the exact notes a capture writes, decided once and stored on it.

Each destination becomes an update of the existing record with that name (or alias, any
case), or a note to create at a free path in its type's folder. The plan is stored before the
first note is written, so a rerun after a crash writes the same notes, never new ones.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from vaultbrain.capture.model import PlannedOp
from vaultbrain.classify.result import Destination
from vaultbrain.filing.records import new_id
from vaultbrain.packs import PageType
from vaultbrain.vault.names import sanitize_filename, unique_name

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


def plan(brain: Brain, dests: list[Destination]) -> list[PlannedOp]:
    """Exact targets for each destination: an existing record to update, or a new path.

    Call under the store's lock: the index is refreshed first, so a record another process
    just created is updated rather than created twice.
    """
    index = brain.records()
    index.refresh(force=True)
    ops: list[PlannedOp] = []
    seen: set[tuple[str, str]] = set()
    planned: set[str] = set()
    for d in dests:
        ptype = brain.pack.get_type(d.type)
        if ptype is None:
            continue
        key = (ptype.name, d.title.lower())
        if key in seen:
            continue
        seen.add(key)
        existing = index.find(ptype.name, d.title)
        if existing and existing.get("path"):
            ops.append(
                PlannedOp(
                    "update",
                    ptype.name,
                    existing["title"],
                    existing["path"],
                    existing["id"],
                    ptype.store_collection,
                    d.fields,
                )
            )
            continue
        path = free_path(brain, ptype, d.title, planned)
        planned.add(path.lower())
        ops.append(
            PlannedOp(
                "create", ptype.name, d.title, path, new_id(), ptype.store_collection, d.fields
            )
        )
    return ops


def free_path(brain: Brain, ptype: PageType, title: str, planned: set[str] | None = None) -> str:
    """A path for a new note of ``ptype`` named after ``title`` that nothing occupies (and no
    other op of the same plan takes)."""
    folder = ptype.folder
    stem = sanitize_filename(title)
    taken_by_plan = planned or set()

    def taken(name: str) -> bool:
        rel = f"{folder}/{name}"
        return rel.lower() in taken_by_plan or os.path.lexists(brain.vault.resolve(rel))

    return f"{folder}/{unique_name(stem, taken)}"
