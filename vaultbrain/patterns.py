"""Regular expressions compiled the first time they are used, not when their module loads.

The classifiers' and the vault's modules name a few hundred patterns between them and a
command uses a handful, so each is a :class:`LazyPattern`: it reads like the compiled pattern
it stands for (``_URL.match(text)``), and its first use compiles it with ``re.compile`` and
keeps the compiled pattern's methods in its place. A leaf module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

# What the first use of any of them compiles and keeps (all at once).
_BOUND = ("search", "match", "fullmatch", "findall", "finditer", "split", "sub", "subn")


class LazyPattern:
    """``re.compile(pattern, flags)``, done on first use. ``compiled`` is the real pattern,
    for an API that needs one (``re.sub`` with a pattern object, ``isinstance`` checks)."""

    search: Callable[..., re.Match[str] | None]
    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    findall: Callable[..., list[Any]]
    finditer: Callable[..., Iterator[re.Match[str]]]
    split: Callable[..., list[Any]]
    sub: Callable[..., str]
    subn: Callable[..., tuple[str, int]]
    compiled: re.Pattern[str]

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # Called only for an attribute not set yet: the pattern's first use.
        if name != "compiled" and name not in _BOUND:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        self.compiled = compiled
        for method in _BOUND:
            setattr(self, method, getattr(compiled, method))
        return getattr(self, name)

    @property
    def flags(self) -> int:
        return self.compiled.flags

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {int(self._flags)})"
