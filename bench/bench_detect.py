"""Benchmark: ``schema detect`` on a generated vault of every shape it must tell apart.

The vault (``--notes`` in all, spread over ``--notes / 20`` folders): topic folders of
notes with nothing in common, area folders with a folder of one kind inside, a Zettelkasten
of mixed ``type:`` values, tag-typed notes, daily notes and dated meetings. One figure:
``detect`` (survey, evidence, folders; nothing saved) median / min / max over the runs, and
the ratio of the median to a target of 1 s per 1,000 notes. The proposals found are printed
so a change that makes it fast by finding nothing shows.

    python bench/bench_detect.py [--notes 3000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KINDS = ["permanent", "literature", "fleeting", "hub"]


def write(path: Path, front: dict[str, object] | None, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    head = ""
    if front:
        head = "---\n" + "".join(f"{k}: {v}\n" for k, v in front.items()) + "---\n"
    path.write_text(head + body, "utf-8")


def build(root: Path, notes: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    (root / ".obsidian").mkdir(parents=True)
    folders = max(5, notes // 20)
    for i in range(notes):
        shape = i % 10
        f = rng.randrange(folders)
        if shape < 4:  # topic folders: a tag now and then, nothing shared
            front = {"tags": f"[t{rng.randrange(50)}]"} if rng.random() < 0.5 else None
            write(root / f"Topics/Topic {f}/Note {i}.md", front, "Some thoughts.\n")
        elif shape < 6:  # an area, with a folder of one kind inside
            area = f"Areas/Area {f % 12}"
            if rng.random() < 0.5:
                write(root / f"{area}/Log {i}.md", None, "A line.\n")
            else:
                write(root / f"{area}/Workouts/Session {i}.md", {"sets": 3, "reps": 10}, "")
        elif shape < 8:  # a Zettelkasten of mixed kinds
            write(root / f"Zettelkasten/Z{i}.md", {"type": rng.choice(KINDS)}, "An idea.\n")
        elif shape == 8:  # tag-typed books, daily notes
            if i % 20 == 8:
                write(root / f"Library/Book {i}.md", {"tags": "[type/book]", "author": "A"}, "")
            else:
                day = f"{2020 + i % 6}-{1 + i % 12:02d}-{1 + i % 28:02d}"
                write(root / f"Daily/{day} {i}.md".replace(f" {i}", ""), {"mood": "ok"}, "")
        else:  # dated meetings
            write(root / f"Meetings/2026-01-{1 + i % 28:02d} Sync {i}.md", None, "## Notes\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vb-bench-detect-"))
    os.environ["VAULTBRAIN_HOME"] = str(work / "home")
    os.environ["VAULTBRAIN_STATE_DIR"] = str(work / "state")
    os.environ.pop("VAULTBRAIN_SCHEMA_PACK", None)
    vault = work / "Vault"
    build(vault, args.notes)

    from vaultbrain.brain import Brain
    from vaultbrain.packs.detect import detect

    app = Brain(vault, env=dict(os.environ))
    times, found = [], None
    for _ in range(args.runs):
        start = time.perf_counter()
        found = detect(app, save=False)
        times.append(time.perf_counter() - start)
    assert found is not None
    target = args.notes / 1000
    med = statistics.median(times)
    print(
        f"detect ({args.notes} notes): median {med:.3f} s  min {min(times):.3f} s  "
        f"max {max(times):.3f} s  ratio vs {target:.1f} s target {med / target:.3f}"
    )
    names = sorted(f"{c.prefix}={c.name}" for c in found.candidates)
    print(f"{len(names)} proposals: {', '.join(names)}")


if __name__ == "__main__":
    main()
