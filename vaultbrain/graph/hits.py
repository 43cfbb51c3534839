"""From chunks to notes: a vector search finds chunks (slots of the vector file); a person
asks for notes, each once, with the chunk that matched best (vaultbrain/graph/vectors.py)."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vaultbrain.graph.index import GraphIndex

# Notes the graph keeps but search, related and whoknows leave out: vaultbrain's own notes
# under Brain/ (the archive of dismissed and re-filed notes, Needs Review, Trust, digests and
# reviews), copies and queues of what the person's notes say, never knowledge of their own.
ARCHIVE_LIKE = "Brain/%"


def notes_of(
    index: GraphIndex,
    top: np.ndarray,
    scores: np.ndarray,
    limit: int,
    type_name: str | None,
    exclude: str | None,
) -> list[dict[str, Any]]:
    """The notes of the chunks in ``top`` (slots, best first; ``scores`` by slot), each
    once, with its best chunk, the archive and ``exclude`` left out."""
    slots = json.dumps([int(s) for s in top])
    with index.lock:
        rows = index.db.execute(
            "SELECT c.slot, c.rel, c.heading, c.preview, n.type, n.title FROM vec_chunks c "
            "JOIN notes n ON n.rel = c.rel "
            "WHERE c.slot IN (SELECT value FROM json_each(?)) AND c.rel NOT LIKE ?",
            (slots, ARCHIVE_LIKE),
        ).fetchall()
    by_slot = {r[0]: r for r in rows}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for slot in top:
        row = by_slot.get(int(slot))
        if row is None:
            continue  # a free slot, or an archived note's
        _, rel, heading, preview, t, title = row
        score = float(scores[slot])
        if rel in seen or rel == exclude or (type_name and t != type_name):
            continue
        if not math.isfinite(score):
            continue
        seen.add(rel)
        out.append(
            {
                "path": rel,
                "type": t,
                "title": title,
                "similarity": round(score, 4),
                "heading": heading or "",
                "preview": preview or "",
            }
        )
        if len(out) >= limit:
            break
    return out
