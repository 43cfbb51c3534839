"""Regular expressions compiled the first time they are used, not when their module loads.

A cold `vaultbrain capture` imports the classifiers' and the vault's modules, which name a
few hundred patterns between them, and uses a handful: compiling them all at import was a
fifth of its start-up. A :class:`LazyPattern` reads like the compiled pattern it stands for
(``_URL.match(text)``); its first use compiles it and puts the compiled pattern's own methods
in its place. A call through it still costs a little more than one through the pattern (an
attribute read and a bound method): a loop that calls one many times binds the method once
(``match = _URL.match``). A leaf module: it imports nothing of vaultbrain's.

Compiling is parsing the pattern and writing the regular-expression engine's program for it;
a cold capture compiles about a hundred patterns, some 10 ms of it. A process that opened a
vault keeps those programs in its state dir (:func:`keep_on_disk`), so the next one hands
the engine the program it is given for the pattern (:func:`compile_pattern`) instead of working it
out again: a program is kept only when the engine, given it, makes a pattern equal to the one
``re.compile`` made (the same pattern, flags and program), and only for the Python and engine
it was made by. Anything else compiles as ``re.compile`` does.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

try:  # (the engine and the steps of re.compile, to keep and give back their program)
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # another Python than CPython: patterns compile as re.compile does
    _sre = None  # type: ignore[assignment]

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
        compiled = compile_pattern(self.pattern, self._flags)
        self._compiled = compiled
        for method in _BOUND:
            setattr(self, method, getattr(compiled, method))
        self.__class__ = LazyPattern  # type: ignore[assignment]  # (its slots are set now)
        return getattr(self, name)


# -- the engine's programs, kept between processes ---------------------------------------
CACHE_FILE = "patterns-cache"
_MADE_BY = f"{sys.version.replace(chr(10), ' ')}|{getattr(_sre, 'MAGIC', '')}|{getattr(_sre, 'CODESIZE', '')}".encode()
_Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_kept: dict[tuple[str, int], _Program] = {}  # read from the state dir
_new: dict[tuple[str, int], _Program] = {}  # worked out here, not kept yet
_disk: Path | None = None
_KEEP_AT_MOST = 1000  # (the package names some 120: one made from data is not kept on)
_compiled: dict[tuple[str, int], re.Pattern[str]] = {}  # this process's


def compile_pattern(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the program kept for it when there is one; once
    per process (a call in a function body costs a dict lookup, as ``re.sub`` with a pattern
    string does)."""
    key = (pattern, int(flags))
    compiled = _compiled.get(key)
    if compiled is not None:
        return compiled
    program = _kept.get(key)
    if program is not None:
        try:
            compiled = _sre.compile(pattern, *program)
            _compiled[key] = compiled
            return compiled  # type: ignore[no-any-return]
        except Exception:  # (not this engine's after all: compiled afresh)
            del _kept[key]
    compiled = _compiled[key] = re.compile(pattern, flags)
    if _disk is not None and _sre is not None and len(_kept) + len(_new) < _KEEP_AT_MOST:
        program = _program_of(pattern, key[1], compiled)
        if program is not None:
            if not _new:
                atexit.register(_keep)
            _new[key] = program
    return compiled


def _program_of(pattern: str, flags: int, compiled: re.Pattern[str]) -> _Program | None:
    """What ``_sre.compile`` is given for ``pattern`` (as ``re._compiler.compile`` works it
    out), if it makes a pattern equal to ``compiled``; None otherwise."""
    try:
        parsed = _parser.parse(pattern, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        program = (
            flags | parsed.state.flags,
            [int(op) for op in code],  # (the opcodes are int subclasses marshal refuses)
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        if _sre.compile(pattern, *program) != compiled:
            return None
    except Exception:  # the steps of re.compile are not what this reads: nothing kept
        return None
    return program


def keep_on_disk(state_dir: Path | None) -> None:
    """Read the programs kept in ``state_dir`` (one that exists), and keep there, as the
    process ends, those it works out."""
    global _disk
    if state_dir is None or _sre is None or not os.path.isdir(state_dir):
        return
    _disk = Path(state_dir) / CACHE_FILE
    try:
        data = _disk.read_bytes()
        made_by, _, body = data.partition(b"\n")
        if made_by == _MADE_BY:
            kept = marshal.loads(body)
            if isinstance(kept, dict):
                _kept.update(kept)
    except (OSError, ValueError, EOFError, TypeError):
        pass  # none kept, or torn: compiled as re.compile does, and kept again
    for key in [key for key in _new if key in _kept]:
        del _new[key]


def _keep() -> None:
    """The programs worked out here, kept with those read (replaced whole, not synced: a
    cache; here, not with vaultbrain/vault/atomic.py, to stay a leaf)."""
    if _disk is None or not _new:
        return
    tmp = _disk.with_name(f".{_disk.name}.{os.getpid()}.tmp")
    try:
        body = marshal.dumps({**_kept, **_new})
        tmp.write_bytes(_MADE_BY + b"\n" + body)
        os.replace(tmp, _disk)  # (whole or not there: a reader never meets half of it)
        _kept.update(_new)
        _new.clear()
    except Exception:  # a cache that cannot be written: compiled again next time
        with contextlib.suppress(OSError):
            tmp.unlink()
