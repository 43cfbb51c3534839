"""Benchmark: ``adopt --apply`` of a lived-in vault against its first ``reindex``.

A vault of hand-made notes (``vaultgen.write_hand_made``: the default pack's folders, the
person's own properties, no ids) is first imported (``reindex`` with a state dir that never
saw it: every note read, parsed and made a record), then adopted (every note's ``id:`` and
missing ``type:`` written, compare-and-swap, its record following). Adopting writes every
note where the import only reads them; it must stay within 1.5x of it. Both are timed in the
same run, on the same copy, the page cache warm, and the ratio is taken run by run.

    python bench/bench_adopt.py [--notes 12000] [--runs 3] [--quiet SECONDS]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vaultgen  # noqa: E402
from benchlib import emit, row  # noqa: E402

# ext4 without a journal (this VM's disk, and CI's) makes a file by looking past every inode
# freed in the last minute, or the last six while its inode table block is unwritten: right
# after 12,000 files are freed (the last run's displaced notes, or copies removed), each of
# the 12,000 files an adoption makes costs a look at thousands, and the adoption took twice
# the time, with twice the kernel time. A person's vault was not just emptied of 12,000
# files: each adoption starts QUIET seconds after the bench last freed any.
QUIET = 400.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=12_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--quiet",
        type=float,
        default=None,
        help=f"Seconds without files freed before each adoption ({QUIET:.0f} from 1,000 notes).",
    )
    args = parser.parse_args()
    if args.quiet is None:
        args.quiet = QUIET if args.notes >= 1000 else 0.0
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    os.environ["VAULTBRAIN_PROVIDER"] = "heuristic"
    from vaultbrain.brain import Brain
    from vaultbrain.capture.reindex import reindex
    from vaultbrain.filing.adopt import apply
    from vaultbrain.filing.setup import init_vault

    master = work / f"hand-made-{args.notes}"
    if not master.exists():
        app = Brain(master)
        init_vault(app)
        shutil.rmtree(app.state_dir, ignore_errors=True)  # the first reindex starts afresh
        vaultgen.write_hand_made(master, args.notes)
    first: list[float] = []
    adopt: list[float] = []
    ratios: list[float] = []
    # Every copy made before any run: removing files makes the next files made slow (see
    # QUIET), and the copies go only once every run is done.
    for i in range(args.runs):
        shutil.rmtree(work / f"adopt-{i}", ignore_errors=True)
    freed_at = time.monotonic()
    for i in range(args.runs):
        shutil.copytree(master, work / f"adopt-{i}")
    for i in range(args.runs):
        vault = work / f"adopt-{i}"
        for path in vault.rglob("*.md"):  # the page cache warm for both, as for every row
            path.read_bytes()
        os.sync()
        wait = freed_at + args.quiet - time.monotonic()
        if wait > 0:
            print(f"run {i + 1}: {wait:.0f} s without files freed first (--quiet)", flush=True)
            time.sleep(wait)
        start = time.perf_counter()
        report, _ = reindex(Brain(vault))
        first.append(time.perf_counter() - start)
        assert report.created == args.notes and not report.problems, report
        os.sync()  # the import's writes are not the adoption's to flush
        start = time.perf_counter()
        done = apply(Brain(vault))
        adopt.append(time.perf_counter() - start)
        freed_at = time.monotonic()  # (the files the swaps displaced, freed as it ended)
        assert len(done.done) == args.notes and not done.problems, done.problems[:3]
        ratios.append(adopt[-1] / first[-1])
        print(
            f"run {i + 1}: first reindex {first[-1]:.2f} s, adopt --apply {adopt[-1]:.2f} s, "
            f"ratio {ratios[-1]:.2f}",
            flush=True,
        )
    for i in range(args.runs):
        shutil.rmtree(work / f"adopt-{i}", ignore_errors=True)
    n = f"{args.notes:,}"
    fb = sorted(first)[len(first) // 2]
    emit(
        [
            row(f"first reindex of a hand-made vault, {n} notes", first, "s", "baseline"),
            row(
                f"adopt --apply, {n} hand-made notes (ratio per run: "
                + ", ".join(f"{r:.2f}" for r in ratios)
                + ")",
                adopt,
                "s",
                f"< 1.5 x the first reindex {fb:.2f} s",
                1.5,
                fb,
            ),
        ]
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
