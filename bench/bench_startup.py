"""Benchmark: start-up, as ratios to ``python -c "import click"`` in the same run.

`vaultbrain --help`, and a cold `vaultbrain capture` (a new interpreter each time, as a phone
shortcut over ssh or a script runs it) on an empty vault and on a vault of 10,000 notes, each
run interleaved with the baseline so that all share the machine's state. The figure is the
CPU time (user + system) of the child process: on a shared machine it is steadier than the
wall clock, which is printed beside it.

A capture runs as a new user's does: the default provider with no LLM server listening (the
embedded classifier files the thought, and says so). A row with ``provider heuristic`` (no
server asked at all) follows. Targets (issue 33): --help <= 1.3x, capture on an empty vault
<= 2x, on 10,000 notes <= 2.5x.

    python bench/bench_startup.py [--notes 10000] [--runs 15] [--breakdown]

``--breakdown`` adds what a cold capture imports, by package (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vaultgen  # noqa: E402
from benchlib import emit, row  # noqa: E402

# What the `vaultbrain` script does (pip's entry point): import the CLI, call it.
VAULTBRAIN = "import sys; from vaultbrain.cli import main; sys.argv[0] = 'vaultbrain'; main()"


def free_port() -> int:
    """A port nothing listens on: the LLM server a new user has not started."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, env=env)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall


def breakdown(vault: Path, env: dict[str, str]) -> list[str]:
    """Self time of each package a cold capture imports (importtime's own figures, which
    run slower than a plain start), largest first."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", VAULTBRAIN]
        + ["--vault", str(vault), "capture", "Met with Quinn about the breakdown"],
        capture_output=True,
        text=True,
        env=env,
    )
    own: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if not m:
            continue
        parts = m.group(2).split(".")
        key = ".".join(parts[:2]) if parts[0] == "vaultbrain" else parts[0]
        own[key] += int(m.group(1))
        count[key] += 1
    total = sum(own.values())
    lines = [f"imports of a cold capture: {sum(count.values())} modules, {total / 1000:.0f} ms"]
    for key, us in own.most_common(20):
        lines.append(f"  {us / 1000:6.1f} ms  {count[key]:3d} modules  {key}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--breakdown", action="store_true")
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)  # also compiles vaultbrain, as pip does at install
    empty = vaultgen.fresh_copy(work, 0, "startup-empty")
    big = vaultgen.fresh_copy(work, args.notes, "startup-big")
    base = {**os.environ}
    base.pop("VAULTBRAIN_STATE_DIR", None)
    # The generated vaults say `provider heuristic`; a new user has the default, and no server.
    default = {
        **base,
        "VAULTBRAIN_PROVIDER": "lmstudio",
        "VAULTBRAIN_ENDPOINT": f"http://127.0.0.1:{free_port()}/v1",
    }
    heuristic = {**base, "VAULTBRAIN_PROVIDER": "heuristic"}
    py = [sys.executable]
    capture = [*py, "-c", VAULTBRAIN, "--vault"]
    runs: dict[str, tuple[list[str], dict[str, str]]] = {
        "click": ([*py, "-c", "import click"], base),
        "help": ([*py, "-c", VAULTBRAIN, "--help"], base),
        "empty": ([*capture, str(empty), "capture"], default),
        "big": ([*capture, str(big), "capture"], default),
        "empty-heuristic": ([*capture, str(empty), "capture"], heuristic),
    }
    for name in ("empty", "big"):  # the first capture trains and caches the corpus model
        cmd, env = runs[name]
        timed([*cmd, "Warm the state dir up"], env)
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    wall: dict[str, list[float]] = {name: [] for name in runs}
    for i in range(args.runs):
        for name, (cmd, env) in runs.items():
            extra = [f"Met with Quinn about the shed number {i}"] if "capture" in cmd else []
            c, w = timed([*cmd, *extra], env)
            cpu[name].append(c)
            wall[name].append(w)
    click = statistics.median(cpu["click"])
    n = f"{args.notes:,}"

    def ratio(name: str, label: str, limit: float) -> object:
        return row(
            f"{label} / `python -c 'import click'` (CPU)",
            cpu[name],
            "ms",
            f"<= {limit:g}x {click:.0f} ms",
            limit,
            baseline=click,
            note=f"wall median {statistics.median(wall[name]):.0f} ms",
        )

    rows = [
        row(
            "`python -c 'import click'` (CPU)",
            cpu["click"],
            "ms",
            "baseline",
            note=f"wall median {statistics.median(wall['click']):.0f} ms",
        ),
        ratio("help", "`vaultbrain --help`", 1.3),
        ratio("empty", "cold `vaultbrain capture`, no LLM server, empty vault", 2.0),
        ratio("big", f"cold `vaultbrain capture`, no LLM server, {n} notes", 2.5),
        ratio("empty-heuristic", "cold `vaultbrain capture`, provider heuristic, empty vault", 2.0),
    ]
    emit(rows)  # type: ignore[arg-type]
    if args.breakdown:
        for line in breakdown(empty, default):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
