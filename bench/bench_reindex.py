"""Benchmark: ``reindex`` of a 10,000-note vault against a plain Python loop.

The baseline reads every note and parses its frontmatter with ``yaml.CSafeLoader``: the least
any tool must do to know what a vault holds. ``reindex`` cold (no ``notes-cache.json``, the
store already in step) must stay within 1.5x of it; warm (the cache present, nothing changed)
under 0.1x. Each figure is median / min / max over the runs, in-process, page cache warm.

The first import (issue 14) has its own row and baseline: ``reindex`` with a state dir that
has never seen the vault (removed before each run) against the naive import loop, which reads
each note, parses its frontmatter with ``yaml.CSafeLoader`` and writes one JSON record per
note. It must stay within 1.5x of that loop, measured side by side in the same run.

    python bench/bench_reindex.py [--notes 10000] [--runs 5]
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


def naive_import(vault: Path, out: Path) -> int:
    """The naive import loop: read, parse the frontmatter, write one JSON record per note."""
    import json

    import yaml

    written = 0
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.endswith(".md"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8")
            data = {}
            if text.startswith("---\n"):
                end = text.find("\n---", 4)
                if end > 0:
                    data = yaml.load(text[4:end], Loader=yaml.CSafeLoader) or {}
            record = {"path": os.path.relpath(path, vault), "fields": data}
            with open(out / f"{written}.json", "w", encoding="utf-8") as fh:
                fh.write(json.dumps(record, default=str))
            written += 1
    return written


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
    os.environ["VAULTBRAIN_PROVIDER"] = "heuristic"  # a fresh state dir has no settings
    vault = vaultgen.fresh_copy(work, args.notes, "reindex")
    from vaultbrain.brain import Brain
    from vaultbrain.capture.reindex import reindex
    from vaultbrain.filing.sync import CACHE_FILE

    cache = vault / ".vaultbrain" / CACHE_FILE
    parsed = baseline(vault)  # warms the page cache for every figure alike
    assert parsed >= args.notes, parsed
    base = timed(lambda: baseline(vault), args.runs)

    def cold() -> None:
        cache.unlink(missing_ok=True)  # (a file in the file store's state dir)
        if (vault / ".vaultbrain" / "state.db").exists():  # (a document of state.db)
            from vaultbrain.store import Store

            store = Store(vault / ".vaultbrain")
            store.remove_json(CACHE_FILE)
            store.close()
        report, _ = reindex(Brain(vault))
        assert report.read >= args.notes and not report.imported and not report.created, report

    def warm() -> None:
        report, _ = reindex(Brain(vault))
        assert report.read == 0, report

    cold_t = timed(cold, args.runs)
    cold()
    warm_t = timed(warm, args.runs)

    # The first import: a state dir that has never seen the vault, against the naive loop,
    # the two alternating run by run so a busy machine weighs on both alike.
    state = vault / ".vaultbrain"
    records = work / "naive-records"
    naive_t: list[float] = []
    first_t: list[float] = []
    # What a run leaves is moved aside and deleted after the last run: deleting 20,000 files
    # just before a timed run slows the file system's inode allocation for the next one (on
    # ext4 each run took 2-3 s longer than the one before), which no first import meets.
    aside = work / "aside"
    aside.mkdir(exist_ok=True)
    for i in range(args.runs):
        # What each run starts from is made outside the timing: an empty records folder, no
        # state dir (and the page cache warm for the notes, as for every row).
        if records.exists():
            records.rename(aside / f"records-{i}")
        records.mkdir()
        # Each run starts with nothing waiting to be written back: without this, the
        # reindex's closing sync would also flush the loop's 10,000 files.
        os.sync()
        start = time.perf_counter()
        assert naive_import(vault, records) >= args.notes
        naive_t.append(time.perf_counter() - start)
        if state.exists():
            state.rename(aside / f"state-{i}")
        os.sync()
        start = time.perf_counter()
        report, _ = reindex(Brain(vault))
        first_t.append(time.perf_counter() - start)
        assert report.created >= args.notes and not report.problems, report
    shutil.rmtree(records, ignore_errors=True)
    shutil.rmtree(aside, ignore_errors=True)
    b = sorted(base)[len(base) // 2]
    nb = sorted(naive_t)[len(naive_t) // 2]
    n = f"{args.notes:,}"
    rows = [
        row(f"reindex baseline: read + CSafeLoader, {n} notes", base, "s", "baseline"),
        row(f"reindex cold, {n} notes", cold_t, "s", f"< 1.5 x baseline {b:.2f} s", 1.5, b),
        row(f"reindex warm, {n} notes", warm_t, "s", f"< 0.1 x baseline {b:.2f} s", 0.1, b),
        row(
            f"first import baseline: read + CSafeLoader + a JSON record each, {n} notes",
            naive_t,
            "s",
            "baseline",
        ),
        row(
            f"reindex first import (fresh state dir), {n} notes",
            first_t,
            "s",
            f"< 1.5 x the naive import loop {nb:.2f} s",
            1.5,
            nb,
        ),
    ]
    emit(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
