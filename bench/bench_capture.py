"""Benchmark: capture, in-process and as a whole process.

- In-process: ``capture.pipeline.capture(brain, text)`` with the loopback LM Studio server answering at
  once, on an empty vault and on a generated vault of 10,000 record notes. Half the thoughts
  name an existing person (an update of that note), half are new ideas (a new note). Target:
  median under 30 ms per capture, and the 10,000-note / empty ratio under 1.5.
- Whole process: ``vaultbrain capture`` started cold (a new interpreter each time) with the
  embedded classifier (``provider heuristic``). Aim: median under 400 ms.

    python bench/bench_capture.py [--notes 10000] [--captures 60] [--processes 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vaultgen  # noqa: E402
from benchlib import cold_captures, emit, row  # noqa: E402


def responder(body: dict) -> str:
    from support.lmstudio import reply

    thought = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
    if thought.startswith("Met with "):
        name = thought[len("Met with ") :].split(" about ")[0]
        return reply([{"type": "person", "title": name, "fields": {"topics": ["bench"]}}], 0.9)
    return reply([{"type": "idea", "title": thought[:60], "fields": {}}], 0.9)


def in_process(vault: Path, names: list[str], n: int, warmup: int = 5) -> list[float]:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.pipeline import capture

    app = Brain(vault)
    app.settings.set("provider", "lmstudio")
    app.refresh()
    times = []
    for i in range(n + warmup):
        if i % 2 and names:
            text = f"Met with {names[(i * 7919) % len(names)]} about the bench run {i}"
        else:
            text = f"Idea: benchmark thought number {i} about compost"
        start = time.perf_counter()
        record = capture(app, text)
        elapsed = (time.perf_counter() - start) * 1000
        assert record.status == "filed", record
        if i >= warmup:
            times.append(elapsed)
    return times


def whole_process(vault: Path, n: int) -> list[float]:
    return cold_captures(vault, n, "Met with Quinn about the shed number {}")[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--captures", type=int, default=60)
    parser.add_argument("--processes", type=int, default=15)
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    from support.lmstudio import FakeLMStudio

    server = FakeLMStudio().start()
    server.responder = responder
    os.environ["VAULTBRAIN_ENDPOINT"] = server.url
    try:
        big = vaultgen.fresh_copy(work, args.notes, "capture-big")
        empty = vaultgen.fresh_copy(work, 0, "capture-empty")
        from vaultbrain.brain import Brain
        from vaultbrain.store import Store  # noqa: F401

        names = [s["title"] for s in Brain(big).store.collection("people").summaries()]
        t_empty = in_process(empty, [], args.captures)
        t_big = in_process(big, names, args.captures)
        proc_empty = whole_process(vaultgen.fresh_copy(work, 0, "capture-proc"), args.processes)
        proc_big = whole_process(big, args.processes)
    finally:
        server.stop()
    med_empty = statistics.median(t_empty)
    n = f"{args.notes:,}"
    rows = [
        row("capture in-process, empty vault", t_empty, "ms", "< 30 ms", 30.0),
        row(f"capture in-process, {n} notes", t_big, "ms", "< 30 ms", 30.0),
        row(
            f"capture in-process, {n} notes / empty",
            [t / med_empty for t in t_big],
            "x",
            "< 1.5",
            1.5,
            baseline=1.0,
            note="per-capture time over the empty vault's median",
        ),
        row(
            "`vaultbrain capture` process, cold, heuristic, empty vault",
            proc_empty,
            "ms",
            "aim < 400 ms",
            400.0,
        ),
        row(
            f"`vaultbrain capture` process, cold, heuristic, {n} notes",
            proc_big,
            "ms",
            "aim < 400 ms",
            400.0,
        ),
    ]
    emit(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
