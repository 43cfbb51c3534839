"""Benchmark: reading a 5,000-line inbox (``vaultbrain.vault.inbox.scan_inbox``).

The daemon scans the inbox note at every inbox pass, so a long-lived inbox of thousands of
taken lines is scanned often. Lines are found by CommonMark's block rules (markdown-it-py's
block parser, with tables, ``$$`` math and footnotes) since the inbox grammar (issue 34);
before, a hand-written line loop knew fences, headings and comments only. The inbox here is
a year of thoughts: taken lines with their suffix and id, a few waiting ones, headings, a
fenced block, a table and typed Tasks syntax.

    python bench/bench_inbox.py [--lines 5000] [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

from vaultbrain.vault.inbox import scan_inbox


def inbox(n: int) -> str:
    out = ["---", "cssclasses: [inbox]", "---", "# Inbox", ""]
    i = 0
    while len(out) < n:
        i += 1
        if i % 200 == 0:
            out += ["", f"## Week {i // 200}", ""]
        elif i % 500 == 7:
            out += ["", "```python", "print('not a thought')", "```", ""]
        elif i % 700 == 11:
            out += ["", "| a | b |", "|---|---|", "| 1 | 2 |", ""]
        elif i % 9 == 0:
            out.append(f"- water the plants {i} 🔁 every week 📅 2026-12-05")
        elif i % 5 == 0:
            out.append(f"- a waiting thought number {i} → needs review ^vb-w{i:07d}")
        else:
            out.append(
                f"- [x] met with Sarah about the project, item {i} → "
                f"[[People/Sarah|Sarah]] · [[Projects/Garden|Garden]] ^vb-t{i:07d}"
            )
    return "\n".join(out[:n]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    text = inbox(args.lines)
    found = len(scan_inbox(text))
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        scan_inbox(text)
        times.append((time.perf_counter() - start) * 1000)
    med = statistics.median(times)
    print(
        f"scan_inbox, {args.lines:,}-line inbox ({found:,} thoughts): median {med:.4g} ms, "
        f"min {min(times):.4g}, max {max(times):.4g}"
    )


if __name__ == "__main__":
    main()
