"""Every bench under bench/ still runs against the code it measures, small and quick.

Benches are not run by the rest of the suite, so a change of an API they call (a class
method gone, a setting whose default moved) used to be found only at the next measurement,
with the figures it should have given missing. Figures are not checked here: tests never
assert times. What is checked: the bench exits 0 and prints its rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(
    p.stem for p in (ROOT / "bench").glob("bench_*.py") if p.stem != "bench_classifier"
)

pytestmark = pytest.mark.timeout(900)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.parametrize("bench", BENCHES)
def test_the_bench_runs_and_prints_its_rows(bench: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run"),
            "--quick",
            "--notes",
            "100",
            "--idle",
            "2",
            "--only",
            bench,
        ],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=840,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [
        line
        for line in done.stdout.splitlines()
        if line.startswith("| ") and not line.startswith(("| benchmark", "|---"))
    ]
    assert rows, done.stdout[-3000:]


def test_the_classifier_bench_runs_without_a_model(tmp_path: Path) -> None:
    """(bench_classifier.py with the real model takes minutes: contract tests cover the
    model; here the embedded classifier's rows.)"""
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_classifier.py"),
            "--no-llm",
            "--notes",
            "100",
            "--processes",
            "2",
        ],
        cwd=tmp_path,
        env={**_env(tmp_path), "VB_BENCH_DIR": str(tmp_path / "work")},
        capture_output=True,
        text=True,
        timeout=840,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "median" in done.stdout, done.stdout[-3000:]
