"""Benchmark: the cost of keeping an admin note's Tasks line and frontmatter in step.

Every import of an admin note now runs :func:`vaultbrain.filing.records.settle_note` (a
second parse of the note and a scan of its body for task lines). Reported: microseconds per
note for a settled note (the common case: nothing to write), a tick, and a Tasks recurrence,
beside ``parse_note`` alone as the baseline the import already paid.

    python bench/bench_tasks.py [--n 5000]   (each figure: the median of 5 runs of n calls)
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time

from vaultbrain.filing.records import settle_note
from vaultbrain.packs.loader import load_pack
from vaultbrain.vault.note import parse_note

NOTE = """---
type: admin
id: a1b2c3d4e5
title: Renew the domain
due: 2026-12-31
priority: high
status: open
related:
  - "[[People/Sarah|Sarah]]"
created: 2026-11-01T09:00:00
updated: 2026-11-01T09:00:00
---
# Renew the domain

{line}

## Log
""" + "".join(f"- 2026-11-{d:02d} a log line about the domain\n" for d in range(1, 29))

CASES = {
    "settled": "- [ ] Renew the domain ⏫ 📅 2026-12-31",
    "tick": "- [x] Renew the domain ⏫ 📅 2026-12-31 ✅ 2026-12-02",
    "recurrence": "- [ ] Renew the domain ⏫ 🔁 every week 📅 2027-01-07\n"
    "- [x] Renew the domain ⏫ 🔁 every week 📅 2026-12-31 ✅ 2026-12-02",
}
FIELDS = {"title": "Renew the domain", "due": "2026-12-31", "priority": "high", "status": "open"}


def per_call_us(fn, n: int, runs: int = 5) -> list[float]:
    """Microseconds per call, one figure per run of ``n`` calls."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        out.append((time.perf_counter() - start) / n * 1e6)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    n = parser.parse_args().n
    admin = load_pack("vaultbrain-base").get_type("admin")
    today = dt.date(2026, 12, 2)
    base = per_call_us(lambda: parse_note(NOTE.replace("{line}", CASES["settled"])), n)
    # the lines bench/run reads: "label: median X unit, min Y, max Z"
    print(f"parse_note alone: {_figures(base)}")
    for name, line in CASES.items():
        text = NOTE.replace("{line}", line)
        us = per_call_us(lambda text=text: settle_note(text, admin, FIELDS, today), n)
        ratio = statistics.median(us) / statistics.median(base)
        print(f"settle_note ({name}): {_figures(us)} ({ratio:.1f}x parse_note)")


def _figures(us: list[float]) -> str:
    return f"median {statistics.median(us):.1f} µs, min {min(us):.1f}, max {max(us):.1f}"


if __name__ == "__main__":
    main()
