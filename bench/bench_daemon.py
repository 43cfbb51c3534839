"""Benchmark: the daemon as a process on a generated 10,000-note vault, loopback LLM.

In the order they run (each on the same daemon process, so the idle figure is a fresh one):

- idle: CPU time (utime + stime from /proc/<pid>/stat) over ``--idle`` seconds (60 by
  default) once the daemon is ready, and its RSS (VmRSS; VmHWM as the peak). Targets: CPU
  under 0.5 s, RSS under 120 MB.
- latency: a settled line (settle time 0) appended to Inbox.md → its note on disk. One line
  at a time, the LLM answering at once. Targets: median under 100 ms, p95 under 300 ms.
- burst: 1,000 lines written at once → all filed (ticked in Inbox.md, one note each). Aim:
  under 15 s. The loopback server counts the most requests in flight, which must equal
  ``llm_concurrency``; with replies at once two requests seldom overlap, so a second burst
  (``--flight``, 100 lines) has the server take 50 ms per reply, as a real model would.
- idle again, for half as long, with every capture of the runs above in the store.
- restart: SIGTERM, start again on the unchanged vault: the time from spawning the process
  to its "watching … ready" log line. Targets: under 1 s, and under 0.2 of a cold
  ``vaultbrain reindex`` process (no notes cache in state.db) on the same vault.

    python bench/bench_daemon.py [--notes 10000] [--idle 60] [--probes 30] [--burst 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vaultgen  # noqa: E402
from benchlib import emit, p95, row  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def responder(body: dict) -> str:
    from support.lmstudio import reply

    thought = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
    return reply([{"type": "idea", "title": thought[:60], "fields": {}}], 0.9)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def wait_for(predicate, timeout: float, poll: float = 0.001) -> float:
    start = time.perf_counter()
    deadline = start + timeout
    while time.perf_counter() < deadline:
        if predicate():
            return time.perf_counter() - start
        time.sleep(poll)
    raise TimeoutError(f"not done after {timeout}s")


def append(vault: Path, text: str) -> None:
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--probes", type=int, default=30)
    parser.add_argument("--burst", type=int, default=1000)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--flight", type=int, default=100)
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    from support.daemon import DaemonProcess
    from support.lmstudio import FakeLMStudio

    from vaultbrain.brain import Brain
    from vaultbrain.vault.names import sanitize_filename

    vault = vaultgen.fresh_copy(work, args.notes, "daemon")
    app = Brain(vault)
    for key, value in (
        ("provider", "lmstudio"),
        ("inbox_settle_seconds", "0"),
        ("inbox_idle_seconds", "2"),
        # The fake server's "idea" is the premise: the embedded classifier's second opinion
        # would send the probes (its own words about a bench) to Needs Review.
        ("second_opinion", "false"),
    ):
        app.settings.set(key, value)
    concurrency = int(app.settings.get("llm_concurrency"))
    server = FakeLMStudio().start()
    server.responder = responder
    os.environ["VAULTBRAIN_ENDPOINT"] = server.url
    log = work / "daemon.log"
    rows = []
    n = f"{args.notes:,}"
    d = DaemonProcess(vault, log)
    try:
        d.start()
        wait_for(lambda: "watching" in d.output(), 60, 0.01)
        assert d.proc is not None
        pid = d.proc.pid
        time.sleep(2.0)  # the first rescan and hooks settle
        overflows0 = d.output().count("queue overflowed")
        cpu0 = cpu_seconds(pid)
        time.sleep(args.idle)
        cpu = cpu_seconds(pid) - cpu0
        mem = memory_mb(pid)
        overflows = d.output().count("queue overflowed") - overflows0
        rows.append(
            row(
                f"daemon idle {args.idle:g} s, {n} notes: CPU",
                [cpu],
                "s",
                "< 0.5 s",
                0.5,
                note=f"{overflows} inotify queue overflows while idle",
            )
        )
        rows.append(
            row(
                f"daemon idle, {n} notes: RSS",
                [mem["VmRSS"]],
                "MB",
                "< 120 MB",
                120.0,
                note=f"peak (VmHWM) {mem['VmHWM']:.0f} MB",
            )
        )

        latencies = []
        for i in range(args.probes):
            thought = f"latency probe number {i} for the bench"
            note = vault / "Ideas" / f"{sanitize_filename(thought[:60])}.md"
            append(vault, f"- {thought}\n")
            latencies.append(wait_for(note.exists, 30) * 1000)
            wait_for(lambda t=thought: f"- [x] {t} →" in (vault / "Inbox.md").read_text(), 30)
            time.sleep(0.2)
        rows.append(
            row(
                f"settled line -> filed note, {n} notes",
                latencies,
                "ms",
                "< 100 ms",
                100.0,
                note=f"p95 {p95(latencies):.0f} ms (target < 300 ms)",
            )
        )
        rows.append(
            row(
                f"settled line -> filed note, {n} notes: p95",
                [p95(latencies)],
                "ms",
                "< 300 ms",
                300.0,
            )
        )

        server.max_in_flight = 0
        lines = "".join(f"- burst thought {i} about the garden\n" for i in range(args.burst))
        start = time.perf_counter()
        append(vault, lines)
        inbox = vault / "Inbox.md"
        wait_for(lambda: inbox.read_text().count("- [x] burst thought ") == args.burst, 600, 0.05)
        total = time.perf_counter() - start
        filed = sum(1 for p in (vault / "Ideas").iterdir() if p.name.startswith("burst thought"))
        assert filed == args.burst, filed
        rows.append(
            row(
                f"{args.burst:,} lines at once -> all filed",
                [total],
                "s",
                "aim < 15 s",
                15.0,
                note=f"max in flight {server.max_in_flight}, replies at once",
            )
        )

        server.max_in_flight = 0
        server.delay = 0.05
        lines = "".join(f"- flight thought {i} about bees\n" for i in range(args.flight))
        start = time.perf_counter()
        append(vault, lines)
        done_count = "- [x] flight thought "
        wait_for(lambda: inbox.read_text().count(done_count) == args.flight, 600, 0.05)
        flight_total = time.perf_counter() - start
        server.delay = 0.0
        flight = row(
            f"requests in flight ({args.flight} lines, 50 ms replies): max",
            [server.max_in_flight],
            "requests",
            f"== llm_concurrency {concurrency}",
            note=f"all filed in {flight_total:.1f} s",
        )
        flight.ok = server.max_in_flight == concurrency
        rows.append(flight)

        # Idle again, now with every capture above in the store (a vault in use for a while).
        time.sleep(3.0)  # the last inbox pass and the cache save settle
        captures = args.probes + args.burst + args.flight
        cpu0 = cpu_seconds(pid)
        time.sleep(args.idle / 2)
        cpu = cpu_seconds(pid) - cpu0
        rows.append(
            row(
                f"daemon idle {args.idle / 2:g} s after {captures:,} captures: CPU",
                [cpu],
                "s",
                f"< {0.5 / 2:g} s (half the 60 s budget)",
                0.25,
            )
        )
        assert d.stop() == 0

        cold = []
        from vaultbrain.filing.sync import CACHE_FILE
        from vaultbrain.store import Store

        kept = Store(vault / ".vaultbrain")  # (the notes cache is a state.db document)
        saved = kept.read_json(CACHE_FILE)
        for _ in range(3):
            kept.remove_json(CACHE_FILE)
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "reindex"],
                capture_output=True,
            )
            cold.append(time.perf_counter() - start)
            assert done.returncode == 0, done.stderr
        cold_in = []
        from vaultbrain.filing.sync import reindex

        for _ in range(3):
            kept.remove_json(CACHE_FILE)
            start = time.perf_counter()
            reindex(Brain(vault))
            cold_in.append(time.perf_counter() - start)
        cold_in_med = sorted(cold_in)[len(cold_in) // 2]
        kept.write_json(CACHE_FILE, saved)
        cold_med = sorted(cold)[len(cold) // 2]
        ready = []
        reported = []
        for _ in range(args.restarts):
            d = DaemonProcess(vault, log)
            start = time.perf_counter()
            d.start()
            wait_for(lambda d=d: "watching" in d.output(), 60, 0.005)
            ready.append(time.perf_counter() - start)
            line = next(x for x in d.output().splitlines() if "watching" in x)
            reported.append(float(re.search(r"ready in ([\d.]+)s", line).group(1)))
            assert d.stop() == 0
        rows.append(
            row(
                f"daemon restart, unchanged {n} notes: spawn -> ready",
                ready,
                "s",
                "< 1 s",
                1.0,
                note=f"its own 'ready in' {min(reported):.2f}-{max(reported):.2f} s",
            )
        )
        rows.append(
            row(
                "daemon restart / cold `vaultbrain reindex` process",
                [r / cold_med for r in ready],
                "x",
                f"< 0.2 (cold reindex {cold_med:.2f} s)",
                0.2,
                baseline=1.0,
            )
        )
        rows.append(
            row(
                "daemon restart, own 'ready in' / cold reindex, both in-process",
                [r / cold_in_med for r in reported],
                "x",
                f"< 0.2 (cold reindex {cold_in_med:.2f} s in-process)",
                0.2,
                baseline=1.0,
            )
        )
    finally:
        if d.alive():
            d.kill9()
        server.stop()
    emit(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
