"""Tags as Obsidian accepts them, normalised in one place (frontmatter ``tags``, YouTube
notes, records).

Obsidian's rules (help.obsidian.md, "Tags"): a tag holds letters (any script), digits,
``_``, ``-`` and ``/`` (for nesting), no spaces, and at least one character that is not a
digit (``#1984`` is not a tag, ``#y1984`` is). In ``tags:`` the ``#`` is not written. So: the
``#`` is stripped, a run of spaces or other characters becomes one ``-``, empty nesting
levels go, and a purely numeric tag gets Obsidian's own ``y`` prefix instead of vanishing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from vaultbrain.patterns import LazyPattern

_NOT_ALLOWED = LazyPattern(r"[^\w/-]+", re.UNICODE)
_SLASHES = LazyPattern(r"/{2,}")


def normalize_tag(tag: str) -> str | None:
    """A tag as Obsidian stores it in ``tags``; None when nothing of it is left."""
    t = tag.strip().lstrip("#").strip()
    t = _NOT_ALLOWED.sub("-", t)
    t = _SLASHES.sub("/", t).strip("-/")
    if not t:
        return None
    if not re.search(r"[^\d/_-]", t):
        t = "y" + t  # Obsidian's suggestion for a number: #1984 → #y1984
    return t


def merge_tags(*groups: Iterable[Any] | str | None) -> list[str]:
    """Tags of every group in order, normalised, each once (case-insensitively, as Obsidian
    matches them), the first spelling kept."""
    seen: set[str] = set()
    out: list[str] = []
    for group in groups:
        if isinstance(group, str):
            group = [group]
        for tag in group or []:
            if not isinstance(tag, str | int | float) or isinstance(tag, bool):
                continue
            norm = normalize_tag(str(tag))
            if norm and norm.lower() not in seen:
                seen.add(norm.lower())
                out.append(norm)
    return out


__all__ = ["merge_tags", "normalize_tag"]
