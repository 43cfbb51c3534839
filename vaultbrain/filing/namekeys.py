"""How a note's names are keyed in the name index (vaultbrain/filing/names.py): folded as
they are matched, and a full name also by its first name."""

from __future__ import annotations

from typing import Any

from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.names import fold


def name_keys(aliases: list[str], names: list[str]) -> list[str]:
    out: list[str] = []
    for n in (*aliases, *names):
        key = fold_fast(n) if n else ""
        if key and key not in out:
            out.append(key)
    return out


_FULL_NAME = LazyPattern(
    r"[^\W\d_][^\W\d]*(?:['’.-][^\W\d]+)*(?: +[^\W\d_][^\W\d]*(?:['’.-][^\W\d]+)*){1,3} *$"
)


def first_keys(stem: str, aliases: list[str], names: list[str]) -> list[str]:
    """The first names of a note's full names: ``Jane Doe`` (two to four words, each starting
    with a capital, no digits) is found by ``jane``; ``Meeting notes`` is no full name."""
    out = []
    for name in (stem, *aliases, *names):
        if " " in name:  # (most file names: no full name, and no regular expression to run)
            first = _first_key(str(name))
            if first is not None:
                out.append(first)
    return list(dict.fromkeys(out))


def _first_key(name: str) -> str | None:
    if _FULL_NAME.match(name) is None:
        return None
    words = name.split()
    if not all(w[0].isupper() for w in words):
        return None
    return fold(words[0])


def fold_fast(name: str) -> str:
    """:func:`fold` of a file name, which is almost always ASCII with single spaces."""
    if name.isascii() and "  " not in name and name[:1] != " " and name[-1:] != " ":
        return name.lower()
    return fold(name)


def record_names(summary: dict[str, Any]) -> list[str]:
    """A record's names as its summary gives them, as the record index looks them up: its
    title and aliases, stripped and lower-cased, each once."""
    keys = [str(summary.get("title", "")).strip().lower()]
    keys += [str(a).strip().lower() for a in summary.get("aliases", []) or []]
    return list(dict.fromkeys(k for k in keys if k))
