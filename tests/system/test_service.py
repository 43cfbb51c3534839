from __future__ import annotations

import plistlib
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import run


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return h


def test_systemd_unit(tmp_path: Path, home: Path) -> None:
    vault = tmp_path / 'My "odd" Vault 100%'
    run(vault, "init")
    text = run(vault, "service", "install", "--print", "--platform", "linux").output
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert '"--vault"' in exec_line and 'My \\"odd\\" Vault 100%%' in exec_line
    out = run(vault, "service", "install", "--platform", "linux", "--no-start").output
    unit_files = list((home / ".config/systemd/user").glob("vaultbrain-*.service"))
    assert len(unit_files) == 1 and unit_files[0].read_text() == text
    assert str(unit_files[0]) in out
    if shutil.which("systemd-analyze"):
        check = subprocess.run(
            ["systemd-analyze", "verify", "--user", str(unit_files[0])],
            capture_output=True,
            text=True,
        )
        assert "Unknown key" not in check.stderr and "Invalid" not in check.stderr
    assert "removed" in run(vault, "service", "uninstall", "--platform", "linux").output
    assert not unit_files[0].exists()


def test_launchd_agent(tmp_path: Path, home: Path) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    text = run(vault, "service", "install", "--print", "--platform", "macos").output
    plist = plistlib.loads(text.encode())
    assert plist["Label"].startswith("com.vaultbrain.")
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}
    args = plist["ProgramArguments"]
    assert args[1:] == ["-m", "vaultbrain", "--vault", str(vault.resolve()), "daemon"]
    assert plist["StandardErrorPath"].startswith(str(home / "Library/Logs/vaultbrain"))
    run(vault, "service", "install", "--platform", "macos", "--no-start")
    assert list((home / "Library/LaunchAgents").glob("com.vaultbrain.*.plist"))


def test_status_reports_the_lock_holder(tmp_path: Path, home: Path) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    out = run(vault, "service", "status", "--platform", "linux").output
    assert "not installed" in out and "daemon: not running" in out
