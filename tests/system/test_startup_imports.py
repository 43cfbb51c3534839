"""A command loads only what it uses (issue 33): what `vaultbrain --help` imports, read from
``sys.modules`` in a fresh interpreter (not timed: the timings are bench/bench_startup.py's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run as the `vaultbrain` script runs: import the entry point, call it, then list modules.
PROBE = """
import json, sys
from vaultbrain.cli import main
sys.argv = ["vaultbrain", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""


def modules_after(*args: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_imports_no_command_and_none_of_the_heavy_packages() -> None:
    loaded = modules_after("--help")
    heavy = ("pydantic", "httpx", "yaml", "vaultbrain.youtube", "vaultbrain.idealoom")
    heavy += ("vaultbrain.graph", "vaultbrain.brain", "vaultbrain.packs", "vaultbrain.store")
    assert not {m for m in loaded if m.split(".")[0] in heavy or m.startswith(heavy)}
    # The help comes from the command table alone: no command module is imported.
    assert {m for m in loaded if m.startswith("vaultbrain.cli.")} == set()


def test_a_group_help_imports_that_group_only() -> None:
    loaded = modules_after("settings", "--help")
    assert "vaultbrain.cli.settings" in loaded
    assert "vaultbrain.cli.youtube" not in loaded and "vaultbrain.cli.schema" not in loaded
    assert not any(m.split(".")[0] in ("pydantic", "httpx") for m in loaded)
