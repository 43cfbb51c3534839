"""Service files: a systemd user unit on Linux, a launchd agent on macOS.

One service per vault, named after the vault's folder plus a short hash of its path, so two
vaults can each have their own.
"""

from __future__ import annotations

import hashlib
import os
import plistlib
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from vaultbrain.vault.files import atomic_write_file


@dataclass(frozen=True)
class ServiceSpec:
    platform: str
    name: str
    path: Path
    text: str


def _slug(vault: Path) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", vault.name.lower()).strip("-") or "vault"
    digest = hashlib.sha256(str(vault).encode()).hexdigest()[:6]
    return f"{base[:40]}-{digest}"


def _systemd_quote(arg: str) -> str:
    """Quote one ExecStart argument: double quotes, with \\ " and % escaped as systemd wants."""
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    escaped = escaped.replace("$", "$$")
    return f'"{escaped}"'


def _command(vault: Path, state_dir: Path | None) -> list[str]:
    args = [sys.executable, "-m", "vaultbrain", "--vault", str(vault)]
    if state_dir is not None:
        args += ["--state-dir", str(state_dir)]
    return [*args, "daemon"]


def render_service(vault: Path, state_dir: Path | None, platform: str) -> ServiceSpec:
    vault = Path(vault).resolve()
    slug = _slug(vault)
    home = Path.home()
    cmd = _command(vault, state_dir)
    if platform == "linux":
        name = f"vaultbrain-{slug}.service"
        unit_dir = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "systemd" / "user"
        text = "\n".join(
            [
                "[Unit]",
                f"Description=vaultbrain daemon for {vault.name}",
                "Documentation=https://pypi.org/project/vaultbrain/",
                "",
                "[Service]",
                "Type=simple",
                "ExecStart=" + " ".join(_systemd_quote(a) for a in cmd),
                f"WorkingDirectory={_systemd_quote(str(vault))}",
                "Restart=on-failure",
                "RestartSec=5",
                "Environment=PYTHONUNBUFFERED=1",
                "Nice=5",
                "",
                "[Install]",
                "WantedBy=default.target",
                "",
            ]
        )
        return ServiceSpec(platform, name, unit_dir / name, text)
    label = f"com.vaultbrain.{slug}"
    logs = home / "Library" / "Logs" / "vaultbrain"
    plist = {
        "Label": label,
        "ProgramArguments": cmd,
        "WorkingDirectory": str(vault),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ProcessType": "Background",
        "StandardOutPath": str(logs / f"{slug}.out.log"),
        "StandardErrorPath": str(logs / f"{slug}.err.log"),
        "EnvironmentVariables": {"PYTHONUNBUFFERED": "1"},
    }
    text = plistlib.dumps(plist).decode()
    return ServiceSpec(platform, label, home / "Library" / "LaunchAgents" / f"{label}.plist", text)


def _run(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{' '.join(cmd)}: {exc}"
    text = (out.stdout + out.stderr).strip()
    return f"{' '.join(cmd)}: " + (text.splitlines()[0] if text else f"exit {out.returncode}")


def install_service(spec: ServiceSpec, start: bool = True) -> list[str]:
    spec.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_file(spec.path, spec.text)
    if spec.platform == "macos":
        Path.home().joinpath("Library", "Logs", "vaultbrain").mkdir(parents=True, exist_ok=True)
    if not start:
        return ["not started (--no-start)"]
    if spec.platform == "linux":
        if not shutil.which("systemctl"):
            return [
                "systemctl not found: start it with `systemctl --user enable --now "
                f"{spec.name}` where systemd runs"
            ]
        return [
            _run(["systemctl", "--user", "daemon-reload"]),
            _run(["systemctl", "--user", "enable", "--now", spec.name]),
        ]
    if not shutil.which("launchctl"):
        return ["launchctl not found"]
    return [_run(["launchctl", "bootstrap", f"gui/{os.getuid()}", str(spec.path)])]


def uninstall_service(spec: ServiceSpec) -> list[str]:
    messages = []
    if spec.platform == "linux" and shutil.which("systemctl"):
        messages.append(_run(["systemctl", "--user", "disable", "--now", spec.name]))
    if spec.platform == "macos" and shutil.which("launchctl"):
        messages.append(_run(["launchctl", "bootout", f"gui/{os.getuid()}", str(spec.path)]))
    if spec.path.exists():
        spec.path.unlink()
        messages.append(f"removed {spec.path}")
    else:
        messages.append(f"{spec.path} was not installed")
    return messages


def service_status(spec: ServiceSpec, state_dir: Path) -> list[str]:
    out = [
        f"{spec.name}: "
        + ("installed at " + str(spec.path) if spec.path.exists() else "not installed")
    ]
    if spec.platform == "linux" and shutil.which("systemctl") and spec.path.exists():
        out.append(_run(["systemctl", "--user", "is-active", spec.name]))
    lock = Path(state_dir) / "daemon.lock"
    holder = _lock_holder(lock)
    out.append(f"daemon: running (pid {holder})" if holder else "daemon: not running")
    return out


def _lock_holder(lock: Path) -> str | None:
    import fcntl

    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.read(fd, 32).decode().strip() or "?"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
