"""Regular expressions compiled the first time they are used, not when their module loads.

A cold `vaultbrain capture` imports the classifiers' and the vault's modules, which name a
few hundred patterns between them, and uses a handful: compiling them all at import was a
fifth of its start-up. A :class:`LazyPattern` reads like the compiled pattern it stands for
(``_URL.match(text)``); its first use compiles it and puts the compiled pattern's own methods
in its place. A call through it still costs a little more than one through the pattern (an
attribute read and a bound method): a loop that calls one many times binds the method once
(``match = _URL.match``). A leaf module: it imports nothing of vaultbrain's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

# What the first use of any of them compiles and binds (all at once).
_BOUND = ("search", "match", "fullmatch", "findall", "finditer", "split", "sub", "subn")


class LazyPattern:
    """``re.compile(pattern, flags)``, done on first use. ``compiled`` is the real pattern,
    for an API that needs one (``re.sub`` with a pattern object, ``isinstance`` checks)."""

    __slots__ = ("pattern", "_flags", "_compiled", *_BOUND)

    search: Callable[..., re.Match[str] | None]
    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    findall: Callable[..., list[Any]]
    finditer: Callable[..., Iterator[re.Match[str]]]
    split: Callable[..., list[Any]]
    sub: Callable[..., str]
    subn: Callable[..., tuple[str, int]]
    _compiled: re.Pattern[str]

    def __new__(cls, pattern: str, flags: int | re.RegexFlag = 0) -> LazyPattern:
        # Not used yet: an _Uncompiled, which compiles on first use and then becomes a plain
        # LazyPattern (a class without __getattr__, whose slots Python reads faster).
        return object.__new__(_Uncompiled)

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern[str]:
        return self._compiled

    @property
    def flags(self) -> int:
        return self._compiled.flags

    @property
    def groupindex(self) -> Any:
        return self._compiled.groupindex

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {int(self._flags)})"


class _Uncompiled(LazyPattern):
    """A LazyPattern before its first use."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        # Only for a slot not set yet: the pattern's first use.
        if name != "_compiled" and name not in _BOUND:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        self._compiled = compiled
        for method in _BOUND:
            setattr(self, method, getattr(compiled, method))
        self.__class__ = LazyPattern  # type: ignore[assignment]  # (its slots are set now)
        return getattr(self, name)
