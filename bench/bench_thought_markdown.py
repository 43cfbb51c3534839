"""Benchmark: what reading a person's Markdown in a thought costs a title.

``title_text`` now reduces the thought's Markdown to its words (vaultbrain/vault/inline.py:
markdown-it-py's inline rules and a wikilink rule). Reported: microseconds per title for a
plain thought (no syntax: the parse is skipped) and for thoughts with a strike, a wikilink,
code and math, beside the plain one as the baseline. Each figure: the median of 5 runs of n
calls. A title is made once per destination of a capture, so any of these is far below the
classifier's own cost per thought.

    python bench/bench_thought_markdown.py [--n 5000]
"""

from __future__ import annotations

import argparse
import statistics
import time

from vaultbrain.vault.typed import title_text

CASES = {
    "plain": "Call the plumber about the leak before Friday",
    "strike": "the call moved from ~~Monday~~ to Friday",
    "wikilink": "Lunch with [[People/Sarah Connor|Sarah]] next week",
    "code and math": "Rotate the `api_key` and check $E=mc^2$ on the poster[^1]",
}


def per_call_us(text: str, n: int, runs: int = 5) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(n):
            title_text(text)
        out.append((time.perf_counter() - start) / n * 1e6)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    n = parser.parse_args().n
    title_text(CASES["strike"])  # markdown-it imported and set up once, not timed
    base = statistics.median(per_call_us(CASES["plain"], n))
    for name, text in CASES.items():
        us = per_call_us(text, n)
        med = statistics.median(us)
        print(
            f"title_text ({name}): median {med:.1f} µs, min {min(us):.1f}, max {max(us):.1f}"
            f" ({med / base:.1f}x plain)"
        )


if __name__ == "__main__":
    main()
