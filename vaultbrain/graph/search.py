"""``vaultbrain search``: keyword (bm25 over the FTS5 index), semantic (nearest chunks by
meaning, :mod:`vaultbrain.graph.embed`) or hybrid (the two rankings fused by reciprocal
rank), with snippets.

A keyword query is words: each must appear (in the title, the properties or the body), a
trailing ``*`` makes a word a prefix. FTS5's own syntax is not passed through, so no query a
person (or an agent) types can be a syntax error: quotes, ``NEAR(``, ``AND``/``OR``, column
filters and a lone ``*`` are words or nothing. Title matches weigh most, then properties,
then the body. Notes in ``Brain/Archive/`` (dismissed or re-filed) are never results.

Hybrid is the default once notes have vectors of the model the server embeds with; with no
embedding server it is keyword search as before, and :func:`find` says why in ``note``.
Reciprocal rank fusion (score = sum of 1 / (60 + rank) over the two lists, Cormack et al.)
needs no calibration between bm25 and cosine, which live on unrelated scales.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, UserError
from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.vectors import ARCHIVE_LIKE
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from vaultbrain.classify.embeddings import EmbeddingClient

MODES = ("keyword", "semantic", "hybrid")
RRF_K = 60
DEPTH = 50  # how far down each list the fusion looks
MEANING_FLOOR = 0.5  # of the best similarity: a meaning-only hit below it is not a result

_WORD = re.compile(r"[\w][\w'’-]*\*?", re.UNICODE)
# bm25 weights of the columns (title, fields, body)
WEIGHTS = (10.0, 4.0, 1.0)


def words(query: str) -> list[str]:
    return [w for w in _WORD.findall(query) if w.strip("*")]


def fts_query(query: str, joiner: str = " ") -> str:
    """The FTS5 MATCH expression for a person's words (``" OR "``: any word)."""
    parts = []
    for w in words(query):
        star = w.endswith("*")
        core = w.rstrip("*").replace('"', '""')
        parts.append(f'"{core}"' + ("*" if star else ""))
    if not parts:
        raise UserError("the query has no words to look for")
    return joiner.join(parts)


def search(
    index: GraphIndex,
    query: str,
    type_name: str | None = None,
    limit: int = 20,
    joiner: str = " ",
    snippets: bool = True,
) -> list[dict[str, Any]]:
    """Notes matching every word of ``query`` (``joiner`` " OR ": any word), best first,
    each with a snippet (``snippets`` False: none, for a ranking that is fused first)."""
    match = fts_query(query, joiner)
    index.for_search()
    # The ranking first, the snippets of its rows after: in one query SQLite would make a
    # snippet for every matching note before sorting, thousands for a common word.
    sql = (
        "SELECT n.id, n.rel, n.type, n.title, bm25(notes_fts, ?, ?, ?) AS score "
        "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
        "WHERE notes_fts MATCH ? AND n.rel NOT LIKE ?"
    )
    args: list[Any] = [*WEIGHTS, match, ARCHIVE_LIKE]
    if type_name:
        sql += " AND n.type = ?"
        args.append(type_name)
    sql += " ORDER BY score LIMIT ?"
    args.append(limit)
    with index.lock:
        rows = index.db.execute(sql, args).fetchall()
    shown = snippets_of(index, match, [r[0] for r in rows]) if snippets and rows else {}
    return [
        {
            "path": rel,
            "type": t,
            "title": title,
            "score": round(-score, 4),
            "snippet": shown.get(nid, ""),
        }
        for nid, rel, t, title, score in rows
    ]


def snippets_of(index: GraphIndex, match: str, ids: list[int]) -> dict[int, str]:
    """The snippet of each note (by id) for an FTS5 ``match``: the body's words around a
    hit, else the properties'; empty when the hit is only in the title. FTS5's
    ``snippet()`` weighs each hit in a note against the others: in a note past
    :data:`SNIPPET_MAX` characters (a 5 MB line of one word holds a million hits) the
    snippet is the words around the first hit, found here, in time."""
    with index.lock:
        rows = index.db.execute(
            "SELECT rowid, CASE WHEN length(body) <= :max "
            "THEN snippet(notes_fts, 2, '**', '**', '…', 12) END, "
            "CASE WHEN length(fields) <= :max THEN snippet(notes_fts, 1, '**', '**', '…', 8) END "
            "FROM notes_fts "
            "WHERE notes_fts MATCH :match AND rowid IN (SELECT value FROM json_each(:ids))",
            {"max": SNIPPET_MAX, "match": match, "ids": json.dumps(ids)},
        ).fetchall()
        long_ones = [nid for nid, b, f in rows if b is None or f is None]
        texts = (
            index.db.execute(
                "SELECT rowid, body, fields FROM notes_fts "
                "WHERE rowid IN (SELECT value FROM json_each(?))",
                (json.dumps(long_ones),),
            ).fetchall()
            if long_ones
            else []
        )
    long_text = {nid: (body, fields) for nid, body, fields in texts}
    out = {}
    for nid, body_snip, fields_snip in rows:
        if body_snip is None:
            body_snip = _first_hit(long_text.get(nid, ("", ""))[0], match)
        if fields_snip is None:
            fields_snip = _first_hit(long_text.get(nid, ("", ""))[1], match)
        snippet = body_snip if "**" in body_snip else (fields_snip if "**" in fields_snip else "")
        out[nid] = " ".join(snippet.split())
    return out


SNIPPET_MAX = 100_000
_HIT_WORD = LazyPattern(r"\w+")
_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})


def _first_hit(text: str | None, match: str, around: int = 60) -> str:
    """The words around the first of ``match``'s words in ``text``, marked as FTS5 marks a
    hit (``**word**``, ``…`` where cut); "" when none is there."""
    if not text:
        return ""
    words = [w for w in _HIT_WORD.findall(match) if w not in _OPERATORS]
    if not words:
        return ""
    found = re.search(r"\b(?:" + "|".join(map(re.escape, words)) + r")\w*", text, re.IGNORECASE)
    if found is None:
        return ""
    start, end = max(0, found.start() - around), min(len(text), found.end() + around)
    head = ("…" if start else "") + text[start : found.start()]
    tail = text[found.end() : end] + ("…" if end < len(text) else "")
    return f"{head}**{found.group(0)}**{tail}"


def find(
    index: GraphIndex,
    client: EmbeddingClient | None,
    query: str,
    mode: str | None = None,
    type_name: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """``vaultbrain search`` and the MCP ``search`` tool: the results of ``mode`` (None:
    hybrid when notes have vectors, else keyword), and ``note``: why a search by meaning
    fell back to keywords, when it did. Every number in it is finite (valid JSON)."""
    return finite(_find(index, client, query, mode, type_name, limit))


def _find(
    index: GraphIndex,
    client: EmbeddingClient | None,
    query: str,
    mode: str | None,
    type_name: str | None,
    limit: int,
) -> dict[str, Any]:
    from vaultbrain.graph.embed import query_vector, usable
    from vaultbrain.graph.vectors import VectorStore

    if mode is not None and mode not in MODES:
        raise UserError(f"--mode {mode!r}: one of {', '.join(MODES)}")
    index.for_search()
    why = usable(index, client)
    doc: dict[str, Any] = {"query": query, "mode": "keyword", "note": None}
    if mode == "keyword" or (mode is None and why is not None):
        if mode is None and why is not None and not VectorStore(index).empty():
            doc["note"] = f"keyword results only: {why}"  # (vectors there, not usable now)
        doc["results"] = search(index, query, type_name, limit)
        return doc
    if why is None:
        assert client is not None
        try:
            qvec = query_vector(client, query, VectorStore(index).dim)
        except LLMError as exc:
            why = f"the query could not be embedded ({exc.cause or exc})"
    if why is not None:
        if mode == "semantic":
            raise UserError(f"no search by meaning: {why}")
        doc["note"] = f"keyword results only: {why}"
        doc["results"] = search(index, query, type_name, limit)
        return doc
    store = VectorStore(index)
    near = store.nearest(qvec, max(limit, DEPTH) if mode != "semantic" else limit, type_name)
    if mode == "semantic":
        doc["mode"] = "semantic"
        doc["results"] = [_meaning_row(r) for r in near[:limit]]
        return doc
    doc["mode"] = "hybrid"
    rows = fuse(_keywords(index, query, type_name), near, limit)
    by_path = {r["path"]: r for r in rows if "keyword" in r["matched"]}
    if by_path:
        with index.lock:
            ids = dict(
                index.db.execute(
                    "SELECT id, rel FROM notes WHERE rel IN (SELECT value FROM json_each(?))",
                    (json.dumps(list(by_path)),),
                ).fetchall()
            )
        for nid, snippet in snippets_of(index, fts_query(query, " OR "), list(ids)).items():
            if snippet:
                by_path[ids[nid]]["snippet"] = snippet
    doc["results"] = rows
    return doc


def finite(doc: Any) -> Any:
    """``doc`` with every number that is not finite (NaN, infinity) as None: what JSON can
    say (``json.dumps(..., allow_nan=False)`` then never refuses it)."""
    if isinstance(doc, float):
        return doc if math.isfinite(doc) else None
    if isinstance(doc, dict):
        return {k: finite(v) for k, v in doc.items()}
    if isinstance(doc, list | tuple):
        return [finite(v) for v in doc]
    return doc


def _keywords(index: GraphIndex, query: str, type_name: str | None) -> list[dict[str, Any]]:
    """The keyword side of a hybrid search: notes with every word first, then notes with
    some (a long question rarely has all its words in one note)."""
    try:
        rows = search(index, query, type_name, DEPTH, snippets=False)
    except UserError:
        return []  # no words at all (only punctuation): the meaning side still answers
    if len(rows) < DEPTH and len(words(query)) > 1:
        seen = {r["path"] for r in rows}
        more = search(index, query, type_name, DEPTH, " OR ", snippets=False)
        rows += [r for r in more if r["path"] not in seen][: DEPTH - len(rows)]
    return rows


def fuse(
    keyword: list[dict[str, Any]], meaning: list[dict[str, Any]], limit: int
) -> list[dict[str, Any]]:
    """Reciprocal rank fusion of a keyword and a meaning ranking (see the module doc)."""
    scores: dict[str, float] = {}
    rows: dict[str, dict[str, Any]] = {}
    for rank, r in enumerate(keyword[:DEPTH]):
        scores[r["path"]] = scores.get(r["path"], 0.0) + 1.0 / (RRF_K + rank + 1)
        rows[r["path"]] = {**r, "matched": ["keyword"]}
    # A note found by meaning alone must be near the query, not merely the least far: below
    # half the best similarity (or at or below 0) it is left out.
    floor = max(0.0, meaning[0]["similarity"] * MEANING_FLOOR) if meaning else 0.0
    for rank, r in enumerate(meaning[:DEPTH]):
        path = r["path"]
        if path not in rows and r["similarity"] <= floor:
            continue
        scores[path] = scores.get(path, 0.0) + 1.0 / (RRF_K + rank + 1)
        if path in rows:
            rows[path]["matched"].append("meaning")
            rows[path]["similarity"] = r["similarity"]
            if not rows[path]["snippet"]:
                rows[path]["snippet"] = r["preview"]
        else:
            rows[path] = {**_meaning_row(r), "matched": ["meaning"]}
    ranked = sorted(scores, key=lambda p: -scores[p])[:limit]
    out = []
    for path in ranked:
        row = rows[path]
        row["score"] = round(scores[path], 5)
        out.append(row)
    return out


def _meaning_row(r: dict[str, Any]) -> dict[str, Any]:
    heading = f"{r['heading']}: " if r.get("heading") else ""
    return {
        "path": r["path"],
        "type": r["type"],
        "title": r["title"],
        "score": r["similarity"],
        "similarity": r["similarity"],
        "snippet": f"{heading}{r['preview']}",
    }
