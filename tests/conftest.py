from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from support.lmstudio import FakeLMStudio  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never read or write the real ~/.vaultbrain, and never talk to a real LLM server."""
    home = tmp_path_factory.mktemp("vbhome")
    monkeypatch.setenv("VAULTBRAIN_HOME", str(home))
    for var in (
        "VAULTBRAIN_VAULT",
        "VAULTBRAIN_ENDPOINT",
        "VAULTBRAIN_MODEL",
        "VAULTBRAIN_EMBEDDING_MODEL",
        "VAULTBRAIN_PROVIDER",
        "VAULTBRAIN_SCHEMA_PACK",
        "VAULTBRAIN_STATE_DIR",
    ):
        monkeypatch.delenv(var, raising=False)
    # Tests read <vault>/.vaultbrain/ directly: keep new vaults' state there (the per-user
    # default is tested on its own, tests/system/test_vault_truth_statedir.py), and never
    # touch the real per-user state folder.
    monkeypatch.setenv("VAULTBRAIN_STATE_IN_VAULT", "1")
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    # An endpoint where nothing listens: tests that want an LLM start the fake one.
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", "http://127.0.0.1:9/v1")


@pytest.fixture
def lmstudio(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLMStudio]:
    server = FakeLMStudio().start()
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", server.url)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """An Obsidian vault as a person has one: a folder with Obsidian's config folder."""
    root = tmp_path / "Vault"
    (root / ".obsidian").mkdir(parents=True)
    return root


@pytest.fixture
def env_home() -> Path:
    return Path(os.environ["VAULTBRAIN_HOME"])


@pytest.fixture
def daemon(vault: Path, tmp_path: Path) -> Iterator:
    """``daemon()`` makes a daemon process on the test's ``vault`` (or ``root``), started by
    the test; any still alive at the end is killed."""
    from support.daemon import DaemonProcess

    procs: list[DaemonProcess] = []

    def make(root: Path | None = None, env: dict[str, str] | None = None) -> DaemonProcess:
        d = DaemonProcess(root or vault, tmp_path / f"daemon-{len(procs)}.log", env)
        procs.append(d)
        return d

    yield make
    for d in procs:
        if d.alive():
            d.kill9()
