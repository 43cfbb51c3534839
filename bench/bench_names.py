"""Benchmark: the vault-wide name index a capture consults before it creates a note.

Every plan that meets a name no record has walks the vault
(:func:`vaultbrain.filing.names.note_names`). Reported, on a generated vault: the first build
(every note with frontmatter read for its aliases), a rebuild in the same process, a new
process (the index kept in ``state.db``, brought up to date: its folders' mtimes, a ``stat``
of each note that is no record), beside a bare ``os.walk`` + ``stat`` of the same notes as the
baseline a walk cannot beat.

    python bench/bench_names.py [--notes 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from vaultbrain.brain import Brain
from vaultbrain.filing import names


def make_vault(root: Path, n: int) -> None:
    (root / ".obsidian").mkdir(parents=True)
    (root / "Inbox.md").write_text("")
    for i in range(n):
        folder = root / f"Folder {i % 50}"
        folder.mkdir(exist_ok=True)
        head = f"---\naliases: [Alias {i}]\ntags: [t]\n---\n" if i % 2 else ""
        (folder / f"Note {i}.md").write_text(head + f"# Note {i}\n\nSome text [[Note {i - 1}]]\n")


def walk(root: Path) -> int:
    count = 0
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if f.endswith(".md"):
                os.stat(os.path.join(dirpath, f))
                count += 1
    return count


def timed(fn, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def line(label: str, values: list[float], base: float | None = None) -> str:
    med = statistics.median(values)
    tail = f", ratio vs walk+stat {med / base:.2f}" if base else ""
    return f"{label}: median {med:.1f} ms, min {min(values):.1f} ms, max {max(values):.1f} ms{tail}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vb-names-"))
    try:
        root = tmp / "Vault"
        make_vault(root, args.notes)
        base = timed(lambda: walk(root), args.runs)
        brain = Brain(root)
        brain.refresh()

        def cold() -> None:
            brain.store.remove_json(names.CACHE_FILE)  # (the kept names, a state.db document)
            names.note_names(Brain(root))

        def new_process() -> None:
            names.note_names(Brain(root))

        cold_ms = timed(cold, args.runs)
        reload_ms = timed(new_process, args.runs)
        warm_ms = timed(lambda: names.note_names(brain), args.runs)
        b = statistics.median(base)
        print(f"{args.notes} notes, half with aliases")
        print(line("walk+stat (baseline)", base))
        print(line("name index, first build", cold_ms, b))
        print(line("name index, a new process (the names kept in state.db)", reload_ms, b))
        print(line("name index, rebuild in process", warm_ms, b))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
