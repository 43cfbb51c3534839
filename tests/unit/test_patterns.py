"""A LazyPattern (vaultbrain/patterns.py) compiles on first use and answers as re does."""

from __future__ import annotations

import re

from vaultbrain.patterns import LazyPattern


def test_compiled_on_first_use_only() -> None:
    pattern = LazyPattern(r"(?P<word>\w+)-(\d+)", re.I)
    assert pattern.pattern == r"(?P<word>\w+)-(\d+)"
    assert "compiled" not in vars(pattern)  # importing a module that names it costs nothing
    assert pattern.search("see Item-42 now") is not None
    assert vars(pattern)["compiled"] == re.compile(r"(?P<word>\w+)-(\d+)", re.I)
    # compiled once; later calls go straight to the compiled pattern's own methods
    assert pattern.match.__self__ is pattern.compiled is pattern.compiled


def test_used_before_the_methods_the_real_pattern_is_there() -> None:
    assert LazyPattern(r"\d+").compiled.match("12") is not None
    assert LazyPattern(r"(?P<n>\d)").groupindex == {"n": 1}
    assert "LazyPattern" in repr(LazyPattern("x"))


def test_answers_as_the_compiled_pattern_does() -> None:
    source, text = r"(\w+)@(\w+)", "ada@home, bob@work and nobody"
    lazy, real = LazyPattern(source), re.compile(source)
    assert lazy.search(text).group(2) == real.search(text).group(2)  # type: ignore[union-attr]
    assert lazy.match(text).span() == real.match(text).span()  # type: ignore[union-attr]
    assert lazy.fullmatch("a@b") is not None and lazy.fullmatch(text) is None
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub(r"\2", text) == real.sub(r"\2", text)
    assert lazy.subn(lambda m: m.group(1), text, 1) == real.subn(lambda m: m.group(1), text, 1)
    assert lazy.split(text) == real.split(text)
    assert lazy.search(text, 10) is not None and lazy.search(text, 10, 12) is None
    assert LazyPattern("x", re.I).flags == re.compile("x", re.I).flags


def test_an_unknown_attribute_is_an_attribute_error_and_compiles_nothing() -> None:
    pattern = LazyPattern("x")
    assert not hasattr(pattern, "nothing_of_the_kind")
    assert "compiled" not in vars(pattern)
