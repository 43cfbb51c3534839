"""A static check for regexes prone to catastrophic backtracking.

Python's ``re`` backtracks, so a link-inference regex with a nested quantifier whose inner
repeat can absorb a whole iteration (``(a+)+``, ``(\\w+\\s?)*``) or a repeated alternation
whose branches match the same character (``(a|a)*``, ``(\\w|\\d)+``) takes exponential time on
a line that almost matches. Two unbounded repeats over overlapping characters with nothing
mandatory between them (``.*.*=``) is polynomial: slow on long notes. The check walks the
parsed pattern (``re._parser``) with a small character-set abstraction; it is conservative in
the sense that a flagged pattern really can be made to backtrack, and it misses exotic cases
(backreferences, lookarounds) rather than guessing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+
    import re._constants as _c
    import re._parser as _p
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
_POSSESSIVE = {getattr(_c, "POSSESSIVE_REPEAT", None)} - {None}
_DIGITS = frozenset(range(48, 58))
_WORD = frozenset([*range(48, 58), *range(65, 91), *range(97, 123), 95])
_SPACE = frozenset([9, 10, 11, 12, 13, 32])
_CATEGORIES = {
    _c.CATEGORY_DIGIT: (_DIGITS, False),
    _c.CATEGORY_NOT_DIGIT: (_DIGITS, True),
    _c.CATEGORY_WORD: (_WORD, False),
    _c.CATEGORY_NOT_WORD: (_WORD, True),
    _c.CATEGORY_SPACE: (_SPACE, False),
    _c.CATEGORY_NOT_SPACE: (_SPACE, True),
}
# A bounded repeat this large is as bad as an unbounded one.
_LARGE = 10


@dataclass(frozen=True)
class CharSet:
    """Characters a piece can start with or consume: ``chars``, or all but ``chars``."""

    chars: frozenset[int]
    negated: bool = False

    def overlaps(self, other: CharSet) -> bool:
        if self.negated and other.negated:
            return True
        if self.negated:
            return bool(other.chars - self.chars)
        if other.negated:
            return bool(self.chars - other.chars)
        return bool(self.chars & other.chars)

    def union(self, other: CharSet) -> CharSet:
        if self.negated and other.negated:
            return CharSet(self.chars & other.chars, True)
        if self.negated:
            return CharSet(self.chars - other.chars, True)
        if other.negated:
            return CharSet(other.chars - self.chars, True)
        return CharSet(self.chars | other.chars)


_EMPTY = CharSet(frozenset())
_ANY = CharSet(frozenset(), True)


@dataclass(frozen=True)
class _Info:
    chars: CharSet
    min: float
    max: float


@dataclass(frozen=True)
class Finding:
    severity: str  # error (exponential) | warning (polynomial)
    message: str


def check_regex(pattern: str) -> list[Finding]:
    """Why ``pattern`` may backtrack catastrophically; empty when it looks safe."""
    try:
        parsed = _p.parse(pattern)
    except (re.error, RecursionError) as exc:
        return [Finding("error", f"does not compile: {exc}")]
    findings: list[Finding] = []
    _walk(list(parsed), findings)
    out, seen = [], set()
    for f in findings:
        if f.message not in seen:
            seen.add(f.message)
            out.append(f)
    return out


def _in_set(items: list[tuple[Any, Any]]) -> CharSet:
    chars: set[int] = set()
    negated = False
    neg_parts: list[CharSet] = []
    for op, av in items:
        if op is _c.NEGATE:
            negated = True
        elif op is _c.LITERAL:
            chars.add(av)
        elif op is _c.RANGE:
            lo, hi = av
            chars.update(range(lo, min(hi, lo + 4096) + 1))
        elif op is _c.CATEGORY:
            cs, neg = _CATEGORIES.get(av, (frozenset(), True))
            if neg:
                neg_parts.append(CharSet(cs, True))
            else:
                chars.update(cs)
    result = CharSet(frozenset(chars))
    for part in neg_parts:
        result = result.union(part)
    if negated:
        if result.negated:  # [^\D] and friends: rare; treat as the complement's complement
            return CharSet(result.chars)
        return CharSet(result.chars, True)
    return result


def _info(seq: list[tuple[Any, Any]]) -> _Info:
    chars, lo, hi = _EMPTY, 0.0, 0.0
    for op, av in seq:
        item = _item_info(op, av)
        chars = chars.union(item.chars)
        lo += item.min
        hi += item.max
    return _Info(chars, lo, hi)


def _item_info(op: Any, av: Any) -> _Info:
    if op is _c.LITERAL:
        return _Info(CharSet(frozenset([av])), 1, 1)
    if op is _c.NOT_LITERAL:
        return _Info(CharSet(frozenset([av]), True), 1, 1)
    if op is _c.ANY:
        return _Info(_ANY, 1, 1)
    if op is _c.IN:
        return _Info(_in_set(list(av)), 1, 1)
    if op is _c.SUBPATTERN:
        return _info(list(av[-1]))
    if op in _REPEATS or op in _POSSESSIVE:
        lo, hi, body = av
        inner = _info(list(body))
        top = math.inf if hi == _c.MAXREPEAT else hi * inner.max
        return _Info(inner.chars, lo * inner.min, top)
    if op is _c.BRANCH:
        infos = [_info(list(b)) for b in av[1]]
        chars = _EMPTY
        for i in infos:
            chars = chars.union(i.chars)
        return _Info(chars, min(i.min for i in infos), max(i.max for i in infos))
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return _Info(_EMPTY, 0, 0)
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _info(list(av))
    return _Info(_ANY, 0, math.inf)  # backreferences, conditionals


def _unbounded(op: Any, av: Any) -> bool:
    return op in _REPEATS and (av[1] == _c.MAXREPEAT or av[1] > _LARGE)


def _absorbing_inner(seq: list[tuple[Any, Any]]) -> CharSet | None:
    """The chars of an unbounded inner repeat that can match a whole iteration of ``seq``."""
    infos = [_item_info(op, av) for op, av in seq]
    for i, (op, av) in enumerate(seq):
        candidate: CharSet | None = None
        if op in _REPEATS and av[1] == _c.MAXREPEAT and _info(list(av[2])).max > 0:
            candidate = infos[i].chars
        elif op is _c.SUBPATTERN:
            candidate = _absorbing_inner(list(av[-1]))
        elif op is _c.BRANCH:
            for branch in av[1]:
                candidate = _absorbing_inner(list(branch))
                if candidate is not None:
                    break
        if candidate is None:
            continue
        if all(
            j == i or infos[j].min == 0 or infos[j].chars.overlaps(candidate)
            for j in range(len(seq))
        ):
            return candidate
    return None


def _first(seq: list[tuple[Any, Any]]) -> CharSet:
    """The chars a match of ``seq`` can start with."""
    chars = _EMPTY
    for op, av in seq:
        item = _item_info(op, av)
        if op is _c.SUBPATTERN:
            chars = chars.union(_first(list(av[-1])))
        elif op is _c.BRANCH:
            for branch in av[1]:
                chars = chars.union(_first(list(branch)))
        elif op in _REPEATS or op in _POSSESSIVE:
            chars = chars.union(_first(list(av[2])))
        else:
            chars = chars.union(item.chars)
        if item.min > 0:
            break
    return chars


def _ambiguous_tail(seq: list[tuple[Any, Any]]) -> bool:
    """True when an optional end of ``seq`` could as well start the next iteration.

    ``(a|aa)+`` (parsed as ``a(?:|a)``) can split ``aa`` two ways; ``(ab?)+`` cannot.
    """
    while len(seq) == 1 and seq[0][0] is _c.SUBPATTERN:
        seq = list(seq[0][1][-1])
    infos = [_item_info(op, av) for op, av in seq]
    last = max((i for i, info in enumerate(infos) if info.min > 0), default=-1)
    if last < 0:
        return False
    first = _first(seq)
    return any(info.max > 0 and info.chars.overlaps(first) for info in infos[last + 1 :])


def _branches(seq: list[tuple[Any, Any]]) -> list[list[tuple[Any, Any]]] | None:
    if len(seq) == 1:
        op, av = seq[0]
        if op is _c.BRANCH:
            return [list(b) for b in av[1]]
        if op is _c.SUBPATTERN:
            return _branches(list(av[-1]))
    return None


def _walk(seq: list[tuple[Any, Any]], findings: list[Finding]) -> None:
    unbounded_at: list[tuple[int, CharSet]] = []
    for index, (op, av) in enumerate(seq):
        if _unbounded(op, av):
            body = list(av[2])
            if _absorbing_inner(body) is not None:
                findings.append(
                    Finding(
                        "error",
                        "nested quantifier: an inner repeat can match a whole iteration of the "
                        "outer one (exponential backtracking)",
                    )
                )
            if _ambiguous_tail(body):
                findings.append(
                    Finding(
                        "error",
                        "a repeated group whose optional end can also start the next repetition "
                        "(exponential backtracking)",
                    )
                )
            branches = _branches(body)
            if branches:
                infos = [_info(b) for b in branches]
                for a in range(len(infos)):
                    for b in range(a + 1, len(infos)):
                        same = branches[a] == branches[b]
                        single = infos[a].max == 1 and infos[b].max == 1
                        if same or (single and infos[a].chars.overlaps(infos[b].chars)):
                            findings.append(
                                Finding(
                                    "error",
                                    "repeated alternation whose branches match the same text "
                                    "(exponential backtracking)",
                                )
                            )
            unbounded_at.append((index, _item_info(op, av).chars))
        if op in _REPEATS or op in _POSSESSIVE:
            _walk(list(av[2]), findings)
        elif op is _c.SUBPATTERN:
            _walk(list(av[-1]), findings)
        elif op is _c.BRANCH:
            for branch in av[1]:
                _walk(list(branch), findings)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            _walk(list(av[1]), findings)
    infos = [_item_info(op, av) for op, av in seq]
    for n, (i, chars_i) in enumerate(unbounded_at):
        for j, chars_j in unbounded_at[n + 1 :]:
            between_nullable = all(infos[k].min == 0 for k in range(i + 1, j))
            if between_nullable and chars_i.overlaps(chars_j):
                findings.append(
                    Finding(
                        "warning",
                        "two unbounded repeats over the same characters in a row (polynomial "
                        "backtracking on long lines)",
                    )
                )
                break
