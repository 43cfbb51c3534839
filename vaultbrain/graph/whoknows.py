"""``vaultbrain whoknows TOPIC``: the records of ``expert_routing`` types that the vault's
evidence ties to a topic, best first, each with why.

Evidence, from one FTS5 query (any word of the topic, bm25-ranked, the best
:data:`MAX_HITS` notes):
- the expert's own note matches (its fields: topics, context; its text and log): weight 2;
- a matching note links to the expert (a meeting it attended, a capture about it): weight 1;
- the expert's note links to a matching note (a project it works on): weight 0.5.
Each piece counts its bm25 relevance times a recency weight of the matching note's date
(``updated``, ``last_interaction``, ``date`` or ``created``; else its mtime): half as much
every :data:`HALF_LIFE_DAYS`, never below a quarter, so old evidence still counts.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.graph.index import ARCHIVE, GraphIndex
from vaultbrain.graph.search import WEIGHTS, fts_query, words
from vaultbrain.graph.vectors import ARCHIVE_LIKE

MAX_HITS = 400
HALF_LIFE_DAYS = 180.0
OWN, LINKED_FROM, LINKS_TO = 2.0, 1.0, 0.5


@dataclass
class _Expert:
    nid: int
    score: float = 0.0
    evidence: list[tuple[float, str, int]] = field(default_factory=list)  # (points, how, nid)


def recency(day: int | None, today: dt.date) -> float:
    if day is None:
        return 0.25
    age = max(0, today.toordinal() - day)
    return 0.25 + 0.75 * 0.5 ** (age / HALF_LIFE_DAYS)


def whoknows(
    index: GraphIndex,
    topic: str,
    expert_types: set[str],
    today: dt.date,
    limit: int = 10,
) -> list[dict[str, Any]]:
    """The experts on ``topic``, best first, each with the notes and lines that say so."""
    if not expert_types:
        return []
    match = fts_query(topic, " OR ")
    terms = [w.rstrip("*").lower() for w in words(topic)]
    experts: dict[int, _Expert] = {}
    resolved: dict[str, int | None] = {}
    with index.lock:
        db = index.db
        hits = db.execute(
            "SELECT n.id, n.type, n.day, bm25(notes_fts, ?, ?, ?) FROM notes_fts "
            "JOIN notes n ON n.id = notes_fts.rowid WHERE notes_fts MATCH ? "
            "AND n.rel NOT LIKE ? ORDER BY 4 LIMIT ?",
            (*WEIGHTS, match, ARCHIVE_LIKE, MAX_HITS),
        ).fetchall()
        types: dict[int, str | None] = {nid: t for nid, t, _, _ in hits}
        ids = json.dumps([h[0] for h in hits])
        # Every link out of a hit, and every link into one (by the keys that name it), in
        # two queries; each key resolved once.
        out_keys: dict[int, set[str]] = {}
        for src, key in db.execute(
            "SELECT DISTINCT src, key FROM links WHERE src IN (SELECT value FROM json_each(?))",
            (ids,),
        ):
            out_keys.setdefault(src, set()).add(key)
        in_links: dict[int, set[tuple[int, str]]] = {}
        for note, src, key in db.execute(
            "SELECT DISTINCT nm.note, l.src, l.key FROM names nm JOIN links l ON l.key = nm.key "
            "WHERE nm.note IN (SELECT value FROM json_each(?)) AND l.src != nm.note",
            (ids,),
        ):
            in_links.setdefault(note, set()).add((src, key))

        def resolve(key: str) -> int | None:
            if key not in resolved:
                resolved[key] = index.resolve(key)
            return resolved[key]

        wanted = {resolve(k) for keys in out_keys.values() for k in keys}
        wanted |= {src for links in in_links.values() for src, _ in links}
        wanted = {n for n in wanted if n is not None and n not in types}
        if wanted:
            for nid, t, rel in db.execute(
                "SELECT id, type, rel FROM notes WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(sorted(wanted)),),
            ):
                # (a note vaultbrain archived is no expert, and no evidence either)
                types[nid] = None if rel.startswith(ARCHIVE) else t

        def credit(nid: int, points: float, how: str, via: int) -> None:
            e = experts.setdefault(nid, _Expert(nid))
            e.score += points
            e.evidence.append((points, how, via))

        for nid, t, day, bm in hits:
            relevance = -bm * recency(day, today)
            if t in expert_types:
                credit(nid, OWN * relevance, "own note", nid)
            targets = set()
            for key in out_keys.get(nid, ()):
                target = resolve(key)
                if target is not None and target != nid and types.get(target) in expert_types:
                    targets.add(target)
            for target in targets:
                credit(target, LINKED_FROM * relevance, "links to it", nid)
            srcs = {src for src, key in in_links.get(nid, ()) if resolve(key) == nid}
            for src in srcs:
                if types.get(src) in expert_types and src not in targets:
                    credit(src, LINKS_TO * relevance, "it links to", nid)
        ranked = _one_per_person(  # an archived expert (dismissed, re-filed) is nobody to ask
            index,
            [
                e
                for e in sorted(experts.values(), key=lambda e: -e.score)
                if not index.note_row(e.nid)["rel"].lower().startswith("brain/")
            ],
        )
        return [_result(index, e, terms) for e in ranked[:limit]]


def _one_per_person(index: GraphIndex, ranked: list[_Expert]) -> list[_Expert]:
    """Two notes of one person (``People/Jane Doe.md`` and a CRM note with the alias ``Jane
    Doe``) are one expert: the better-scored note stands for both, with all their evidence."""
    from vaultbrain.vault.names import fold

    kept: list[_Expert] = []
    by_name: dict[str, _Expert] = {}
    for e in ranked:
        row = index.note_row(e.nid)
        data = index.note_data(e.nid)
        aliases = data.get("aliases")
        aliases = aliases if isinstance(aliases, list) else []
        names = {fold(row["title"])} | {fold(str(a)) for a in aliases if a}
        names.discard("")
        same = next((by_name[n] for n in names if n in by_name), None)
        if same is None:
            kept.append(e)
            same = e
        else:
            same.score += e.score
            same.evidence.extend(e.evidence)
        for n in names:
            by_name.setdefault(n, same)
    return sorted(kept, key=lambda e: -e.score)


def _result(index: GraphIndex, e: _Expert, terms: list[str]) -> dict[str, Any]:
    row = index.note_row(e.nid)
    why = []
    best: dict[int, tuple[float, str]] = {}
    for points, how, via in e.evidence:
        if via not in best or points > best[via][0]:
            best[via] = (points, how)
    for via, (points, how) in sorted(best.items(), key=lambda x: -x[1][0])[:5]:
        vrow = index.note_row(via)
        why.append(
            {
                "note": vrow["rel"],
                "how": how,
                "points": round(points, 3),
                "lines": matching_lines(index, via, terms),
            }
        )
    return {
        "path": row["rel"],
        "title": row["title"],
        "type": row["type"],
        "score": round(e.score, 3),
        "why": why,
    }


def matching_lines(index: GraphIndex, nid: int, terms: list[str], most: int = 2) -> list[str]:
    """The note's lines (properties first) that hold a word of the topic."""
    out: list[str] = []
    data = index.note_data(nid)
    for key, value in data.items():
        text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
        if any(t in text.lower() for t in terms) and key not in ("id", "type"):
            out.append(f"{key}: {text}"[:200])
            if len(out) >= most:
                return out
    for line in index.body(nid).splitlines():
        if line.strip() and any(t in line.lower() for t in terms):
            out.append(line.strip()[:200])
            if len(out) >= most:
                break
    return out
