"""service install/uninstall/status: the unit and the plist as systemd and launchd read them.

``systemctl``, ``loginctl`` and ``launchctl`` are found on PATH; the tests that install put
small scripts there, so no test ever enables a real service on the machine running it.
"""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import stat
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
    verify(unit_files[0], tmp_path)
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
    assert args[-3:] == ["--vault", str(vault.resolve()), "daemon"]
    assert Path(args[0]).name == "vaultbrain"  # this venv's script, not its python
    assert plist["StandardErrorPath"].startswith(str(home / "Library/Logs/vaultbrain"))
    run(vault, "service", "install", "--platform", "macos", "--no-start")
    assert list((home / "Library/LaunchAgents").glob("com.vaultbrain.*.plist"))


def test_status_reports_the_lock_holder(tmp_path: Path, home: Path) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    out = run(vault, "service", "status", "--platform", "linux").output
    assert "not installed" in out and "daemon: not running" in out


def verify(unit: Path, tmp_path: Path) -> None:
    """``systemd-analyze verify`` on the unit, where systemd is installed (CI installs it)."""
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    check = subprocess.run(
        ["systemd-analyze", "verify", "--user", str(unit)],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        timeout=60,
    )
    assert check.returncode == 0, check.stderr
    assert check.stderr == "", check.stderr


def unit_settings(text: str) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("[", "#")):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    return settings


def test_systemd_unit_with_spaces_runs_in_the_vault_and_keeps_the_environment(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "My Vault 100% $HOME"
    run(vault, "init")
    monkeypatch.setenv("VAULTBRAIN_MODEL", 'qwen "small" 50%')
    monkeypatch.setenv("VAULTBRAIN_STATE_DIR", str(tmp_path / "state dir"))
    run(vault, "service", "install", "--platform", "linux", "--no-start")
    unit = next((home / ".config/systemd/user").glob("vaultbrain-*.service"))
    text = unit.read_text()
    settings = unit_settings(text)
    # A path setting is the rest of the line: no quotes, `%` doubled.
    assert settings["WorkingDirectory"] == [str(vault.resolve()).replace("%", "%%")]
    assert 'Environment="VAULTBRAIN_MODEL=qwen \\"small\\" 50%%"' in text
    assert f'Environment="VAULTBRAIN_STATE_DIR={tmp_path}/state dir"' in text
    assert not any(v.startswith('"VAULTBRAIN_VAULT=') for v in settings["Environment"])
    verify(unit, tmp_path)


def fake_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scripts: dict[str, str]) -> Path:
    """Small stand-ins for systemctl/loginctl on PATH; each logs its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in scripts.items():
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "{name} $*" >> "{bin_dir}/calls"\n{body}\n')
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def test_install_fails_in_one_line_when_systemd_cannot_be_reached(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    fake_tools(
        tmp_path,
        monkeypatch,
        {"systemctl": 'echo "Failed to connect to bus: No medium found" >&2; exit 1'},
    )
    result = run(vault, "service", "install", "--platform", "linux", ok=False)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: wrote ")
    assert "Failed to connect to bus" in lines[0] and "is not running" in lines[0]
    assert "systemctl --user enable --now vaultbrain-" in lines[0]


def test_install_starts_the_unit_and_hints_at_lingering(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    bin_dir = fake_tools(tmp_path, monkeypatch, {"systemctl": "exit 0", "loginctl": "echo no"})
    out = run(vault, "service", "install", "--platform", "linux").output
    assert "loginctl enable-linger" in out
    calls = (bin_dir / "calls").read_text().splitlines()
    assert calls[0] == "systemctl --user daemon-reload"
    assert calls[1].startswith("systemctl --user enable --now vaultbrain-vault-")
    (bin_dir / "loginctl").write_text("#!/bin/sh\necho yes\n")
    out = run(vault, "service", "install", "--platform", "linux").output
    assert "enable-linger" not in out


def test_launchd_plist_round_trips_with_spaces_and_the_environment(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "My <Vault> & Notes"
    run(vault, "init")
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", "http://127.0.0.1:11434/v1?a=1&b=2")
    text = run(vault, "service", "install", "--print", "--platform", "macos").output
    plist = plistlib.loads(text.encode())
    assert plistlib.loads(plistlib.dumps(plist)) == plist
    assert plist["WorkingDirectory"] == str(vault.resolve())
    assert plist["ProgramArguments"][1:3] == ["--vault", str(vault.resolve())]
    assert plist["EnvironmentVariables"] == {
        "PYTHONUNBUFFERED": "1",
        "VAULTBRAIN_ENDPOINT": "http://127.0.0.1:11434/v1?a=1&b=2",
        "VAULTBRAIN_HOME": os.environ["VAULTBRAIN_HOME"],
        "PATH": os.environ["PATH"],  # launchd's own PATH has no Homebrew (ffmpeg)
    }


def test_status_as_json(tmp_path: Path, home: Path) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    doc = json.loads(run(vault, "service", "status", "--platform", "linux", "--json").output)
    assert doc["installed"] is False and doc["daemon_running"] is False
    assert doc["name"].startswith("vaultbrain-vault-") and doc["platform"] == "linux"


def test_the_service_runs_a_stable_vaultbrain(tmp_path: Path, home: Path) -> None:
    """The pipx/uv shim on PATH when it is this installation's, else this venv's own script:
    never a checkout's python by path when a script exists; --dry-run is --print."""
    import sys

    from vaultbrain.daemon.service import runner

    own = Path(sys.prefix) / "bin" / "vaultbrain"
    assert own.is_file()
    shims = tmp_path / "local-bin"
    shims.mkdir()
    assert runner(str(tmp_path / "nothing")).args == [str(own)]
    (shims / "vaultbrain").symlink_to(own)  # what pipx and uv put in ~/.local/bin
    got = runner(str(shims))
    assert got.args == [str(shims / "vaultbrain")] and "on PATH" in got.why
    other = tmp_path / "other-venv" / "bin"
    other.mkdir(parents=True)
    (other / "vaultbrain").write_text("#!/bin/sh\n")
    (other / "vaultbrain").chmod(0o755)
    assert runner(str(other)).args == [str(own)]  # another installation's: not ours to run
    vault = tmp_path / "Vault"
    run(vault, "init")
    printed = run(vault, "service", "install", "--print", "--platform", "linux").output
    assert run(vault, "service", "install", "--dry-run", "--platform", "linux").output == printed
    assert "# runs " in printed
    assert not list((home / ".config").glob("systemd/user/*.service"))  # nothing installed
