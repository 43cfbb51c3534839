"""Figures the benchmarks share: one row per benchmark, printed and handed to ``bench/run``."""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class Row:
    benchmark: str
    unit: str
    median: float
    min: float
    max: float
    target: str  # what it is measured against, e.g. "< 30 ms" or "baseline 1.23 s"
    ratio: float | None = None  # median / target (or / baseline)
    ok: bool | None = None
    note: str = ""

    def line(self) -> str:
        ratio = "" if self.ratio is None else f"  ratio {self.ratio:.3f}"
        verdict = "" if self.ok is None else ("  ok" if self.ok else "  MISSED")
        return (
            f"{self.benchmark}: median {self.median:.4g} {self.unit}, min {self.min:.4g}, "
            f"max {self.max:.4g} ({self.target}){ratio}{verdict}"
            + (f"  [{self.note}]" if self.note else "")
        )


def row(
    name: str,
    values: list[float],
    unit: str,
    target: str,
    limit: float | None = None,
    baseline: float | None = None,
    note: str = "",
) -> Row:
    """A row from samples; ``limit`` is a target in the same unit, ``baseline`` a divisor."""
    med = statistics.median(values)
    ratio = None
    ok = None
    if baseline:
        ratio = med / baseline
    if limit is not None:
        ratio = med / limit if ratio is None else ratio
        ok = med < limit if baseline is None else ratio < limit
    return Row(name, unit, med, min(values), max(values), target, ratio, ok, note)


def p95(values: list[float]) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(0.95 * (len(s) - 1))))]


def emit(rows: list[Row]) -> None:
    """Print the rows; under ``bench/run`` also append them as JSON lines to its file."""
    for r in rows:
        print(r.line(), flush=True)
    out = os.environ.get("VB_BENCH_ROWS")
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(asdict(r)) + "\n")


def cold_captures(vault: Path, n: int, text: str) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) milliseconds of ``n`` cold ``vaultbrain capture``
    processes with the embedded classifier (``text`` formatted with the run's number). One
    run more goes first, not counted: it trains and caches the corpus model in the state dir.
    On a shared machine the CPU time is the steadier figure."""
    import resource
    import subprocess
    import sys
    import time

    env = {**os.environ, "VAULTBRAIN_PROVIDER": "heuristic"}
    wall, cpu = [], []
    for i in range(n + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "capture", text.format(i)],
            capture_output=True,
            env=env,
        )
        elapsed = (time.perf_counter() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert done.returncode == 0, done.stderr
        if i:
            wall.append(elapsed)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu.append(used * 1000)
    return wall, cpu
