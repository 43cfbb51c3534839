"""The search index is built ahead of a first search (issue 30): by the daemon once it is
ready (in the background: it files meanwhile), and by `reindex`; a first search that has to
build it says so instead of a silent wait."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from support.cli import run, run_json
from support.daemon import wait_for

from vaultbrain.brain import Brain
from vaultbrain.graph import graph_of


def _vault(vault: Path) -> Path:
    run(vault, "init")
    for i in range(40):
        (vault / f"People/Person {i}.md").write_text(
            f"---\nname: Person {i}\n---\nkeeps bees {i}\n"
        )
    (vault / "Notes").mkdir()
    (vault / "Notes/Hives.md").write_text("The hive inspection with [[Person 3]].\n")
    return vault


def test_the_daemon_builds_a_missing_index_once_it_is_ready(vault: Path, daemon) -> None:
    _vault(vault)
    run(vault, "reindex")
    shutil.rmtree(vault / ".vaultbrain" / "graph")  # lost (or never built: another pack)
    d = daemon().start()
    d.wait_ready()
    wait_for(lambda: "search index built" in d.output(), 30, d.log)
    assert graph_of(Brain(vault)).built
    found = run(vault, "search", "inspection")
    assert "building the search index" not in found.output  # nothing left to build
    assert "Notes/Hives.md" in found.output
    d.stop()


def test_a_first_search_that_builds_the_index_says_so(vault: Path) -> None:
    _vault(vault)
    run(vault, "reindex")
    shutil.rmtree(vault / ".vaultbrain" / "graph")
    first = run(vault, "search", "inspection")
    assert "building the search index" in first.stderr
    assert "Notes/Hives.md" in first.stdout
    again = run(vault, "search", "inspection")
    assert "building the search index" not in again.output
    assert run_json(vault, "search", "hive")["results"]  # --json: stdout stays JSON alone


def test_reindex_hands_on_the_index_builds_progress(vault: Path) -> None:
    """`reindex` reports the build beside its scan (the child's count through a pipe, or
    its own catch-up) to the progress callback it is given. In a process of its own, as the
    command runs: a fork needs a process with one thread (a test session has others)."""
    _vault(vault)
    script = (
        "import json, sys\n"
        "from vaultbrain.brain import Brain\n"
        "from vaultbrain.capture.reindex import reindex\n"
        "seen = []\n"
        "reindex(Brain(sys.argv[1]), graph_progress=lambda d, t: seen.append((d, t)))\n"
        "print(json.dumps(seen))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(vault)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    assert seen and seen[-1][0] == seen[-1][1] and seen[-1][1] >= 41, seen
    assert graph_of(Brain(vault)).built
