"""How a note's names are keyed in the name index (vaultbrain/filing/names.py): folded as
they are matched, and a full name also by its first name."""

from __future__ import annotations

from vaultbrain.patterns import LazyPattern
from vaultbrain.store.namekeys import fold_fast, name_keys, record_names
from vaultbrain.vault.names import fold

__all__ = ["first_keys", "fold_fast", "name_keys", "record_names"]


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
