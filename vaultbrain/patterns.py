"""Regular expressions compiled the first time they are used, not when their module loads.

A cold `vaultbrain capture` imports the classifiers' and the vault's modules, which name a
few hundred patterns between them, and uses a handful: compiling them all at import was a
fifth of its start-up. A :class:`LazyPattern` reads like the compiled pattern it stands for
(``_URL.match(text)``); it compiles on its first call and keeps the result. A leaf module:
it imports nothing of vaultbrain's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any


class LazyPattern:
    """``re.compile(source, flags)``, done on first use. ``compiled`` is the real pattern, for
    an API that needs one (``re.sub`` with a pattern object, ``isinstance`` checks)."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        return compiled

    @property
    def pattern(self) -> str:
        return self._source

    @property
    def flags(self) -> int:
        return self.compiled.flags

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(self, string: str, *span: int) -> re.Match[str] | None:
        return self.compiled.search(string, *span)

    def match(self, string: str, *span: int) -> re.Match[str] | None:
        return self.compiled.match(string, *span)

    def fullmatch(self, string: str, *span: int) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, *span)

    def findall(self, string: str, *span: int) -> list[Any]:
        return self.compiled.findall(string, *span)

    def finditer(self, string: str, *span: int) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, *span)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {int(self._flags)})"
