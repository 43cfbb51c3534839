"""A command loads only what it uses (issue 33): what `vaultbrain --help` imports, read from
``sys.modules`` in a fresh interpreter (not timed: the timings are bench/bench_startup.py's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run as the `vaultbrain` script runs: import the entry point, call it; the modules are
# listed by an exit handler (the script ends without tearing the interpreter down, after
# running those).
PROBE = """
import atexit, json, sys
from vaultbrain.cli import main
sys.argv = ["vaultbrain", *json.loads(sys.argv[1])]
atexit.register(lambda: sys.stderr.write(json.dumps(sorted(sys.modules))))
main()
"""


def modules_after(*args: str, env: dict[str, str] | None = None) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
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
    # The help comes from the command table alone: no command module is imported, only the
    # front end (the group and what every command shares).
    assert {m for m in loaded if m.startswith("vaultbrain.cli.")} == {
        "vaultbrain.cli.context",
        "vaultbrain.cli.group",
    }


def test_a_group_help_imports_that_group_only() -> None:
    loaded = modules_after("settings", "--help")
    assert "vaultbrain.cli.settings" in loaded
    assert "vaultbrain.cli.youtube" not in loaded and "vaultbrain.cli.schema" not in loaded
    assert not any(m.split(".")[0] in ("pydantic", "httpx") for m in loaded)


def test_a_cold_capture_imports_neither_pydantic_nor_httpx_nor_the_features(
    tmp_path: Path,
) -> None:
    """A capture with no LLM server running (conftest's endpoint: nothing listens): the pack
    comes from the state dir's cache as plain parts, and the refused connection is known
    without httpx. (PyYAML is loaded when a note or vaultbrain.yml needs it, not before.)"""
    vault = tmp_path / "Vault"
    made = modules_after("--vault", str(vault), "init")
    first = modules_after("--vault", str(vault), "capture", "Call the plumber")
    # the pack was validated once (by init, or the first capture) and cached in the state dir
    assert "pydantic" in made | first
    loaded = modules_after("--vault", str(vault), "capture", "Met with Sarah about the shed")
    assert "vaultbrain.capture.pipeline" in loaded  # it did capture
    assert "Met with Sarah about the shed" in (vault / "Inbox.md").read_text("utf-8")
    heavy = ("pydantic", "httpx", "httpcore")
    features = (
        "vaultbrain.youtube",
        "vaultbrain.idealoom",
        "vaultbrain.graph",
        "vaultbrain.digest",
    )
    assert sorted(m for m in loaded if m.split(".")[0] in heavy or m.startswith(features)) == []
    # The vault's own files as init made them and captures add to them: vaultbrain.yml of
    # plain lines, an inbox of items under its callout; neither needs its parser.
    assert {"yaml", "markdown_it"} & loaded == set()
    assert "vaultbrain.capture.gestures" not in loaded
    # A server that refused the connection sent no error to read.
    assert "vaultbrain.classify.llm_errors" not in loaded


def test_a_refused_connection_is_known_without_a_request() -> None:
    import socket

    from vaultbrain.classify.transport import refuses_connections

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        assert not refuses_connections(f"http://127.0.0.1:{port}/v1")
        assert not refuses_connections(f"http://localhost:{port}/v1")
    assert refuses_connections(f"http://127.0.0.1:{port}/v1")  # closed now: nothing listens
    assert not refuses_connections("not a url")
