"""``vaultbrain search``: every note, ranked by bm25 over the FTS5 index, with snippets.

A query is words: each must appear (in the title, the properties or the body), a trailing
``*`` makes a word a prefix. FTS5's own syntax is not passed through, so no query a person
types can be a syntax error. Title matches weigh most, then properties, then the body.
"""

from __future__ import annotations

import re
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.graph.index import LIVE, GraphIndex

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
) -> list[dict[str, Any]]:
    """Notes matching every word of ``query``, best first, each with a snippet."""
    match = fts_query(query)
    sql = (
        "SELECT n.rel, n.type, n.title, bm25(notes_fts, ?, ?, ?) AS score, "
        "snippet(notes_fts, 2, '**', '**', '…', 12), snippet(notes_fts, 1, '**', '**', '…', 8) "
        "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid "
        f"WHERE notes_fts MATCH ? AND {LIVE}"  # (never what vaultbrain archived)
    )
    args: list[Any] = [*WEIGHTS, match]
    if type_name:
        sql += " AND n.type = ?"
        args.append(type_name)
    sql += " ORDER BY score LIMIT ?"
    args.append(limit)
    with index.lock:
        rows = index.db.execute(sql, args).fetchall()
    out = []
    for rel, t, title, score, body_snip, fields_snip in rows:
        snippet = body_snip if "**" in body_snip else (fields_snip if "**" in fields_snip else "")
        out.append(
            {
                "path": rel,
                "type": t,
                "title": title,
                "score": round(-score, 4),
                "snippet": " ".join(snippet.split()),
            }
        )
    return out
