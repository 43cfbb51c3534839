"""No module of vaultbrain/ is over 600 lines (issue 43): a module that grows past that holds
more than one job, and is split by job (short modules, one job each, named for what they
hold), not cut at a line count."""

from __future__ import annotations

from pathlib import Path

import vaultbrain

ROOT = Path(vaultbrain.__file__).parent
MOST = 600


def _lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_no_module_is_over_600_lines() -> None:
    modules = sorted(ROOT.rglob("*.py"))
    assert len(modules) > 100, "the package's modules are where the test looks"
    over = {p.relative_to(ROOT.parent).as_posix(): n for p in modules if (n := _lines(p)) > MOST}
    assert not over, f"modules over {MOST} lines (split each by job): {over}"


def test_the_count_is_the_lines_a_reader_sees(tmp_path: Path) -> None:
    # The measure itself: a last line without a newline counts, an empty file is 0 lines.
    (tmp_path / "a.py").write_text("x = 1\ny = 2")
    (tmp_path / "b.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "c.py").write_text("")
    assert [_lines(tmp_path / n) for n in ("a.py", "b.py", "c.py")] == [2, 2, 0]
