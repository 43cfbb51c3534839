"""The names a record is found by, keyed as they are looked up: folded (accents, case and
spaces, :func:`vaultbrain.vault.names.fold`) as the vault's name index matches a note's
title and aliases, and stripped and lower-cased as the record index does. The store keeps
them in ``record_names`` (name key -> record), written in the transaction that writes the
record, so a capture asks for the few keys one thought could name instead of loading every
record's names."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vaultbrain.vault.names import fold

if TYPE_CHECKING:
    from vaultbrain.store.store import Store

# How a key in ``record_names`` was made: folded (the name index's), lower-cased (the record
# index's), or both (most names: plain ASCII, single spaces).
FOLDED = "f"
LOWER = "l"
BOTH = "b"


def fold_fast(name: str) -> str:
    """:func:`fold` of a file name, which is almost always ASCII with single spaces."""
    if name.isascii() and "  " not in name and name[:1] != " " and name[-1:] != " ":
        return name.lower()
    return fold(name)


def name_keys(aliases: list[str], names: list[str]) -> list[str]:
    """The folded keys of a note's aliases and other names, each once."""
    out: list[str] = []
    for n in (*aliases, *names):
        key = fold_fast(n) if n else ""
        if key and key not in out:
            out.append(key)
    return out


def record_names(summary: dict[str, Any]) -> list[str]:
    """A record's names as its summary gives them, as the record index looks them up: its
    title and aliases, stripped and lower-cased, each once."""
    keys = [str(summary.get("title", "")).strip().lower()]
    keys += [str(a).strip().lower() for a in summary.get("aliases", []) or []]
    return list(dict.fromkeys(k for k in keys if k))


def folded_names(summary: dict[str, Any]) -> list[str]:
    """A record's names as the vault's name index keys them (vaultbrain/filing/names.py):
    its aliases, then its title (stripped), folded, each once."""
    aliases = [str(a) for a in summary.get("aliases") or [] if a]
    title = str(summary.get("title") or "").strip()
    return name_keys(aliases, [title] if title else [])


def key_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, how) of each row ``record_names`` keeps for a record with this summary."""
    folded = folded_names(summary)
    lower = record_names(summary)
    rows = [(k, BOTH if k in lower else FOLDED) for k in folded]
    rows += [(k, LOWER) for k in lower if k not in folded]
    return rows


# (``CROSS JOIN``: the names first, then their records; left to itself, with no statistics,
# SQLite may walk every live record instead.)
# SQLite's BINARY collation compares UTF-8 bytes: every key that starts with a prefix sorts
# between the prefix and the prefix followed by the largest code point.
_LAST = "\U0010ffff"
_IN_CHUNK = 500


def named(
    store: Store, keys: Iterable[str], collections: Iterable[str], how: str = FOLDED
) -> list[tuple[str, str, dict[str, Any]]]:
    """(key, collection, summary) of each live record one of ``keys`` names (``how``: keys
    :data:`FOLDED` as the name index folds them, or :data:`LOWER` as the record index
    lower-cases them), by one indexed query per 500 keys."""
    keys = list(dict.fromkeys(k for k in keys if k))
    cols = list(dict.fromkeys(collections))
    if not keys or not cols:
        return []
    conn = store.conn()
    hows = (how, BOTH)
    in_cols = ",".join("?" * len(cols))
    out = []
    for at in range(0, len(keys), _IN_CHUNK):
        part = keys[at : at + _IN_CHUNK]
        rows = conn.execute(
            "SELECT n.key, n.collection, r.summary FROM record_names n CROSS JOIN records r"
            " ON r.collection = n.collection AND r.id = n.id"
            f" WHERE n.key IN ({','.join('?' * len(part))}) AND n.how IN (?, ?)"
            f" AND n.collection IN ({in_cols}) AND r.deleted = 0",
            (*part, *hows, *cols),
        )
        out += [(key, col, json.loads(summary)) for key, col, summary in rows]
    return out


def named_from(
    store: Store, prefix: str, collections: Iterable[str]
) -> list[tuple[str, str, dict[str, Any]]]:
    """As :func:`named` for every folded key that starts with ``prefix``."""
    cols = list(dict.fromkeys(collections))
    if not prefix or not cols:
        return []
    rows = store.conn().execute(
        "SELECT n.key, n.collection, r.summary FROM record_names n CROSS JOIN records r"
        " ON r.collection = n.collection AND r.id = n.id"
        " WHERE n.key >= ? AND n.key < ? AND n.how IN (?, ?)"
        f" AND +n.collection IN ({','.join('?' * len(cols))}) AND r.deleted = 0",
        (prefix, prefix + _LAST, FOLDED, BOTH, *cols),
    )
    return [(key, col, json.loads(summary)) for key, col, summary in rows]
