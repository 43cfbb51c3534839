"""Benchmark: ``reindex`` of a 10,000-note vault against a plain Python loop.

The baseline reads every note and parses its frontmatter with ``yaml.CSafeLoader``: the least
any tool must do to know what a vault holds. ``reindex`` cold (no ``notes-cache.json``, the
store already in step) must stay within 1.5x of it; warm (the cache present, nothing changed)
under 0.1x. Each figure is median / min / max over the runs, in-process, page cache warm.

    python bench/bench_reindex.py [--notes 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vaultgen  # noqa: E402
from benchlib import emit, row  # noqa: E402


def baseline(vault: Path) -> int:
    """Read every note and parse its frontmatter: nothing more."""
    import yaml

    parsed = 0
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.endswith(".md"):
                continue
            with open(os.path.join(dirpath, name), "rb") as fh:
                text = fh.read().decode("utf-8")
            if text.startswith("---\n"):
                end = text.find("\n---", 4)
                if end > 0:
                    yaml.load(text[4:end], Loader=yaml.CSafeLoader)
                    parsed += 1
    return parsed


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    vault = vaultgen.fresh_copy(work, args.notes, "reindex")
    from vaultbrain.brain import Brain
    from vaultbrain.filing.sync import CACHE_FILE, reindex

    cache = vault / ".vaultbrain" / CACHE_FILE
    parsed = baseline(vault)  # warms the page cache for every figure alike
    assert parsed >= args.notes, parsed
    base = timed(lambda: baseline(vault), args.runs)

    def cold() -> None:
        cache.unlink(missing_ok=True)
        report = reindex(Brain(vault))
        assert report.read >= args.notes and not report.imported and not report.created, report

    def warm() -> None:
        report = reindex(Brain(vault))
        assert report.read == 0, report

    cold_t = timed(cold, args.runs)
    cold()
    warm_t = timed(warm, args.runs)
    b = sorted(base)[len(base) // 2]
    n = f"{args.notes:,}"
    rows = [
        row(f"reindex baseline: read + CSafeLoader, {n} notes", base, "s", "baseline"),
        row(f"reindex cold, {n} notes", cold_t, "s", f"< 1.5 x baseline {b:.2f} s", 1.5, b),
        row(f"reindex warm, {n} notes", warm_t, "s", f"< 0.1 x baseline {b:.2f} s", 0.1, b),
    ]
    emit(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
