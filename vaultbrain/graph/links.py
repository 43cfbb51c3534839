"""Typed links as read from the graph index: a note's links both ways, and counts per verb.

A stored typed link becomes a link when it is read: its key is resolved (see
:mod:`vaultbrain.graph.index`), and a rule's ``target_type`` is checked against the note it
resolves to. A link found by a ``regex`` or a declared frontmatter field is kept even while
its target does not exist (unresolved: the person named something not yet written); a
"every link of this page type" candidate counts only when it reaches a note of the type.
"""

from __future__ import annotations

from typing import Any

from vaultbrain.graph.index import GraphIndex
from vaultbrain.packs.model import ResolvedPack


def inverses(pack: ResolvedPack) -> dict[str, str]:
    out: dict[str, str] = {}
    for lt in pack.manifest.link_types:
        if lt.inverse:
            out[lt.name] = lt.inverse
    return out


def _keep(origin: str, need: str | None, target: int | None, target_type: str | None) -> bool:
    if need is None:
        return True
    if target is None:
        return origin != "body"
    return target_type == need


def outgoing(index: GraphIndex, nid: int, link_type: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT link_type, key, line, origin, need_type, display FROM links WHERE src=? AND "
    args: list[Any] = [nid]
    if link_type:
        sql += "link_type=?"
        args.append(link_type)
    else:
        sql += "link_type != ''"
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, Any]] = set()
    with index.lock:
        for verb, key, line, origin, need, display in index.db.execute(sql, args).fetchall():
            target = index.resolve(key)
            trow = index.note_row(target) if target is not None else None
            if not _keep(origin, need, target, trow["type"] if trow else None):
                continue
            ident = (verb, target if target is not None else key)
            if ident in seen:
                continue
            seen.add(ident)
            out.append(
                {
                    "type": verb,
                    "to": trow["rel"] if trow else None,
                    "name": key if trow is None else trow["title"],
                    "resolved": trow is not None,
                    "display": display,
                    "line": line,
                    "origin": origin,
                }
            )
    return out


def incoming(
    index: GraphIndex, nid: int, pack: ResolvedPack, link_type: str | None = None
) -> list[dict[str, Any]]:
    inv = inverses(pack)
    with index.lock:
        me = index.note_row(nid)
        keys = index.keys_of(nid)
        if not keys:
            return []
        marks = ",".join("?" * len(keys))
        rows = index.db.execute(
            "SELECT src, link_type, key, line, origin, need_type FROM links "  # noqa: S608
            f"WHERE key IN ({marks}) AND link_type != '' AND src != ?",
            [*keys, nid],
        ).fetchall()
        out: list[dict[str, Any]] = []
        seen: set[tuple[str, int]] = set()
        for src, verb, key, line, origin, need in rows:
            if index.resolve(key) != nid or not _keep(origin, need, nid, me["type"]):
                continue
            shown = inv.get(verb, verb)
            if link_type and link_type not in (verb, shown):
                continue
            if (verb, src) in seen:
                continue
            seen.add((verb, src))
            srow = index.note_row(src)
            out.append(
                {
                    "type": shown,
                    "verb": verb,
                    "from": srow["rel"],
                    "name": srow["title"],
                    "line": line,
                    "origin": origin,
                }
            )
    return out


def links_of(
    index: GraphIndex, ref: str, pack: ResolvedPack, link_type: str | None = None
) -> dict[str, Any]:
    """A note's typed links both ways (``ref``: its path, name or alias)."""

    nid = find_note(index, ref)
    me = index.note_row(nid)
    return {
        "note": me["rel"],
        "type": me["type"],
        "out": outgoing(index, nid, link_type),
        "in": incoming(index, nid, pack, link_type),
    }


def find_note(index: GraphIndex, ref: str) -> int:
    """The one note ``ref`` names (its path, name or alias). A UserError names what is wrong:
    no such note, or the notes it could be (their paths tell them apart)."""
    from vaultbrain.errors import UserError
    from vaultbrain.graph.extract import link_key

    nid = index.note_id(ref)
    if nid is not None:
        return nid
    found = index.named(link_key(ref))
    if len(found) > 1:
        shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
        raise UserError(f"{ref!r} names {len(found)} notes: {shown}; give the path of one")
    raise UserError(f"no note named {ref!r}")


def counts(index: GraphIndex) -> dict[str, int]:
    """Typed links per verb (resolved or kept unresolved), for ``schema graph``."""
    out: dict[str, int] = {}
    with index.lock:
        srcs = [
            s for (s,) in index.db.execute("SELECT DISTINCT src FROM links WHERE link_type != ''")
        ]
    for src in srcs:
        for link in outgoing(index, src):
            out[link["type"]] = out.get(link["type"], 0) + 1
    return dict(sorted(out.items()))
