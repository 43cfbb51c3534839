"""Benchmark: start-up, as ratios to ``python -c "import click"`` in the same run.

`vaultbrain --help`, and a cold `vaultbrain capture` (a new interpreter each time, as a phone
shortcut over ssh or a script runs it) on an empty vault and on a vault of 10,000 notes, each
run interleaved with the baseline so that all share the machine's state. The figure is the
CPU time (user + system) of the child process: on a shared machine it is steadier than the
wall clock, which is printed beside it.

A capture runs as a new user's does: the default provider with no LLM server listening (the
embedded classifier files the thought, and says so). A row with ``provider heuristic`` (no
server asked at all) follows. Targets (issue 43): --help <= 1.3x, a cold capture <= 3x (on an
empty vault and on 10,000 notes), a capture handed to a running daemon <= 1x.

    python bench/bench_startup.py [--notes 10000] [--runs 15] [--breakdown] [--no-daemon]

``--breakdown`` adds what a cold capture imports, by package (``python -X importtime``).
The cold captures' wall times (fsyncs and the last look for late writers included) are given
as ratios of their own, to the wall time of ``import click`` beside them. ``--against DIR``
runs a second source tree (e.g. ``git archive main vaultbrain packs corpus prompts
templates``, unpacked) in the same alternating series, on the same vaults, and adds its rows
and this tree's ratio to them.
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
NEUTRAL = os.path.abspath(os.sep)  # the root folder: no vaultbrain/ in it
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
    # (not in the bench's folder: ``python -c`` looks for modules in the current folder
    # first, so a tree checked out there would be imported instead of --against's)
    done = subprocess.run(args, capture_output=True, env=env, cwd=NEUTRAL)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall


def start_daemon(vault: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`vaultbrain daemon` on ``vault``, once its door is open (it says it is watching)."""
    log = vault.parent / f"{vault.name}-daemon.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-c", VAULTBRAIN, "--vault", str(vault), "daemon"],
            stdout=fh,
            stderr=fh,
            env=env,
            cwd=NEUTRAL,
        )
    deadline = time.monotonic() + 120
    while "watching" not in log.read_text(errors="replace"):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.1)
    return proc


def series(
    runs: dict[str, tuple[list[str], dict[str, str]]], n: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """(CPU ms, wall ms) of each of ``runs``, ``n`` times, interleaved so that all share the
    machine's state; each capture a new thought."""
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    wall: dict[str, list[float]] = {name: [] for name in runs}
    for i in range(n):
        for name, (cmd, env) in runs.items():
            extra = [f"Met with Quinn about the shed number {i}"] if "capture" in cmd else []
            c, w = timed([*cmd, *extra], env)
            cpu[name].append(c)
            wall[name].append(w)
    return cpu, wall


def wait_idle(proc: subprocess.Popen[bytes], limit: float = 300) -> None:
    """Until the daemon has used under 20 ms of CPU in a second (its first work done)."""
    deadline = time.monotonic() + limit
    before = proc_cpu(proc.pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = proc_cpu(proc.pid)
        if now - before < 20:
            return
        before = now


def stop_daemon(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(60)


def proc_cpu(pid: int) -> float:
    """CPU ms a running process has used (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def breakdown(vault: Path, env: dict[str, str]) -> list[str]:
    """Self time of each package a cold capture imports (importtime's own figures, which
    run slower than a plain start), largest first."""
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            VAULTBRAIN,
            "--vault",
            str(vault),
            "capture",
            "Met with Quinn about the breakdown",
        ],
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
    parser.add_argument("--against", metavar="DIR", help="Another source tree, run alongside.")
    parser.add_argument(
        "--no-daemon",
        dest="daemon",
        action="store_false",
        help="Leave out the rows of captures handed to a running daemon.",
    )
    args = parser.parse_args()
    work = vaultgen.workdir_from_env().resolve()  # (children run in another folder)
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
    if args.against:
        # On copies of their own: two versions on one state dir would each find the other's
        # caches (the pack's, the classifier's) not theirs at every turn.
        other = {**default, "PYTHONPATH": str(Path(args.against).resolve())}
        import compileall

        compileall.compile_dir(Path(args.against).resolve() / "vaultbrain", quiet=1)  # (as pip)
        runs["help-against"] = (runs["help"][0], {**base, **other})
        for name, size in (("empty", 0), ("big", args.notes)):
            copy = vaultgen.fresh_copy(work, size, f"startup-{name}-against")
            runs[f"{name}-against"] = ([*capture, str(copy), "capture"], other)
    for name in ("empty", "big", *(("empty-against", "big-against") if args.against else ())):
        # the first capture trains and caches the corpus model
        cmd, env = runs[name]
        timed([*cmd, "Warm the state dir up"], env)
    cpu, wall = series(runs, args.runs)
    click = statistics.median(cpu["click"])
    n = f"{args.notes:,}"

    def ratio(name: str, label: str, limit: float, base: float, note: str = "") -> object:
        return row(
            f"{label} / `python -c 'import click'` (CPU)",
            cpu[name],
            "ms",
            f"<= {limit:g}x {base:.0f} ms",
            limit,
            baseline=base,
            note=f"wall median {statistics.median(wall[name]):.0f} ms" + note,
        )

    rows = [
        row(
            "`python -c 'import click'` (CPU)",
            cpu["click"],
            "ms",
            "baseline",
            note=f"wall median {statistics.median(wall['click']):.0f} ms",
        ),
        ratio("help", "`vaultbrain --help`", 1.3, click),
        ratio("empty", "cold `vaultbrain capture`, no LLM server, empty vault", 3.0, click),
        ratio("big", f"cold `vaultbrain capture`, no LLM server, {n} notes", 3.0, click),
        ratio(
            "empty-heuristic",
            "cold `vaultbrain capture`, provider heuristic, empty vault",
            3.0,
            click,
        ),
    ]
    click_wall = statistics.median(wall["click"])
    for name, label in (("empty", "empty vault"), ("big", f"{n} notes")):
        rows.append(
            row(
                f"cold `vaultbrain capture`, no LLM server, {label} / `import click` (wall)",
                wall[name],
                "ms",
                f"<= 3x {click_wall:.0f} ms",
                3.0,
                baseline=click_wall,
                note="fsyncs and the last look for late writers included",
            )
        )
    if args.against:
        for name, label in (
            ("help", "`vaultbrain --help`"),
            ("empty", "cold capture, empty vault"),
            ("big", f"cold capture, {n} notes"),
        ):
            theirs = statistics.median(cpu[f"{name}-against"])
            rows.append(
                row(
                    f"{label}, this tree / {args.against} (CPU)",
                    cpu[name],
                    "ms",
                    f"{args.against}: {theirs:.0f} ms",
                    baseline=theirs,
                    note=f"{args.against} / click {theirs / click:.2f}x",
                )
            )
    if args.daemon:
        # The same captures handed to a daemon watching each vault (vaultbrain/daemon/door.py),
        # on copies of their own, once the daemons are idle (a daemon builds the graph index
        # after it starts), against a baseline taken beside them.
        daemons: dict[str, subprocess.Popen[bytes]] = {}
        there: dict[str, tuple[list[str], dict[str, str]]] = {"click": runs["click"]}
        try:
            for name, size in (("empty", 0), ("big", args.notes)):
                copy = vaultgen.fresh_copy(work, size, f"startup-{name}-daemon")
                there[name] = ([*capture, str(copy), "capture"], default)
                daemons[name] = start_daemon(copy, default)
            for name, proc in daemons.items():
                cmd, env = there[name]
                timed([*cmd, "Warm the daemon up"], env)  # (its first loads the classifier)
                wait_idle(proc)
            used = {name: proc_cpu(proc.pid) for name, proc in daemons.items()}
            cpu, wall = series(there, args.runs)
            for name, proc in daemons.items():
                used[name] = (proc_cpu(proc.pid) - used[name]) / args.runs
        finally:
            for proc in daemons.values():
                stop_daemon(proc)
        base = statistics.median(cpu["click"])
        handed = "cold `vaultbrain capture` handed to the running daemon"
        said = "; the daemon's CPU per capture {:.0f} ms"
        rows += [
            row(
                "`python -c 'import click'` (CPU), beside the daemons",
                cpu["click"],
                "ms",
                "baseline",
            ),
            ratio("empty", f"{handed}, empty vault", 1.0, base, said.format(used["empty"])),
            ratio("big", f"{handed}, {n} notes", 1.0, base, said.format(used["big"])),
        ]
    emit(rows)  # type: ignore[arg-type]
    if args.breakdown:
        for line in breakdown(empty, default):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
