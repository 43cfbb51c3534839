"""A LazyPattern (vaultbrain/patterns.py) compiles on first use and answers as re does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from vaultbrain import patterns
from vaultbrain.patterns import LazyPattern

ROOT = Path(__file__).resolve().parents[2]


def compiled_yet(pattern: LazyPattern) -> bool:
    try:
        LazyPattern._compiled.__get__(pattern)  # the slot itself: reading it compiles nothing
    except AttributeError:
        return False
    return True


def test_compiled_on_first_use_only() -> None:
    pattern = LazyPattern(r"(?P<word>\w+)-(\d+)", re.I)
    assert pattern.pattern == r"(?P<word>\w+)-(\d+)"
    assert not compiled_yet(pattern)  # importing a module that names it costs nothing
    assert pattern.search("see Item-42 now") is not None
    assert compiled_yet(pattern)
    # compiled once; later calls go straight to the compiled pattern's own methods
    assert pattern.match.__self__ is pattern.compiled is pattern.compiled
    # and through a class without __getattr__ (Python reads its slots the fast way)
    assert isinstance(pattern, LazyPattern) and not hasattr(type(pattern), "__getattr__")


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
    assert LazyPattern("(?P<a>x)").groupindex == {"a": 1}
    assert LazyPattern("x", re.I).flags == re.compile("x", re.I).flags


# -- the engine's programs kept in the state dir ---------------------------------------------


def every_pattern_of_vaultbrain() -> list[tuple[str, int]]:
    """(pattern, flags) of each LazyPattern the package's modules name (all imported)."""
    import importlib
    import pkgutil

    import vaultbrain

    found: dict[tuple[str, int], None] = {}
    for info in pkgutil.walk_packages(vaultbrain.__path__, "vaultbrain."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # (an optional dependency's module: not installed here)
            continue
        for value in vars(module).values():
            if isinstance(value, LazyPattern):
                found[(value.pattern, int(value._flags))] = None
    return list(found)


def test_each_kept_program_makes_the_pattern_re_compile_makes() -> None:
    import _sre
    import marshal

    every = every_pattern_of_vaultbrain()
    assert len(every) > 100
    for source, flags in every:
        real = re.compile(source, flags)
        program = patterns._program_of(source, flags, real)
        assert program is not None, source
        # kept as marshal keeps it, given back to the engine: the same pattern, flags, groups
        again = _sre.compile(source, *marshal.loads(marshal.dumps(program)))
        assert again == real and again.groupindex == real.groupindex, source
        assert again.groups == real.groups and again.flags == real.flags


# A fresh interpreter, as each command is: compiles, keeps, and reports where each came from.
KEEPING = """
import re, sys
from pathlib import Path
from vaultbrain import patterns
from vaultbrain.patterns import LazyPattern
patterns.keep_on_disk(Path(sys.argv[1]))
lazy = LazyPattern(r"(?P<who>[A-Z]\\w+) (?:met|called) (\\w+)", re.I)
inline = patterns.compile_pattern(r"\\d{4}-\\d{2}-\\d{2}")
m = lazy.search("so Ada met Bob")
print(m.group("who"), m.group(2), inline.findall("on 2026-12-04 and 2026-12-05"))
print("kept:", (lazy.pattern, int(re.I)) in patterns._kept, "re compiled it:",
      any(k[1] == lazy.pattern for k in re._cache))
"""


def run_keeping(state: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", KEEPING, str(state)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_next_process_is_given_the_programs_the_last_one_worked_out(tmp_path: Path) -> None:
    answer = "Ada Bob ['2026-12-04', '2026-12-05']"
    assert run_keeping(tmp_path) == [answer, "kept: False re compiled it: True"]
    cache = tmp_path / patterns.CACHE_FILE
    assert cache.is_file()
    written = cache.read_bytes()
    # The next one: the same answers, from the kept program (re never compiled the pattern)
    assert run_keeping(tmp_path) == [answer, "kept: True re compiled it: False"]
    assert cache.read_bytes() == written  # nothing new to keep: not written again


def test_a_cache_from_another_python_or_torn_is_not_used(tmp_path: Path) -> None:
    answer = "Ada Bob ['2026-12-04', '2026-12-05']"
    run_keeping(tmp_path)
    cache = tmp_path / patterns.CACHE_FILE
    made_by, _, body = cache.read_bytes().partition(b"\n")
    for bad in (b"3.99.0 (other)|0|4\n" + body, made_by + b"\n" + body[: len(body) // 2], b""):
        cache.write_bytes(bad)
        assert run_keeping(tmp_path) == [answer, "kept: False re compiled it: True"]
        assert cache.read_bytes().startswith(made_by + b"\n")  # kept again, whole


def test_no_state_dir_keeps_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "not-made"
    assert run_keeping(missing)[1] == "kept: False re compiled it: True"
    assert not missing.exists()  # nothing is made for a cache
