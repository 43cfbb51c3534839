"""Service files: a systemd user unit on Linux, a launchd agent on macOS.

One service per vault, named after the vault's folder plus a short hash of its path, so two
vaults can each have their own. The service starts from systemd or launchd, not from the
person's shell, so the ``VAULTBRAIN_*`` variables they set are written into it. Install
says exactly what happened: a service manager that cannot be reached is an error that
names the file written and the command to start it by hand.
"""

from __future__ import annotations

import hashlib
import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from vaultbrain.errors import UserError
from vaultbrain.vault.atomic import atomic_write_file


@dataclass(frozen=True)
class ServiceSpec:
    platform: str
    name: str
    path: Path
    text: str
    runs: str = ""  # which vaultbrain the service starts, and why that one


def _slug(vault: Path) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", vault.name.lower()).strip("-") or "vault"
    digest = hashlib.sha256(str(vault).encode()).hexdigest()[:6]
    return f"{base[:40]}-{digest}"


def _systemd_escape(value: str) -> str:
    """``%`` is a specifier in every unit setting; a literal one is written ``%%``."""
    return value.replace("%", "%%")


def _systemd_quote(arg: str) -> str:
    """Quote one ExecStart argument: double quotes, with \\ " % and $ escaped as systemd wants."""
    escaped = _systemd_escape(arg.replace("\\", "\\\\").replace('"', '\\"'))
    return '"' + escaped.replace("$", "$$") + '"'


def _systemd_environment(key: str, value: str) -> str:
    """One ``Environment=`` line. The value is unquoted and C-unescaped by systemd, and
    specifiers are expanded, but ``$`` is not (unlike ExecStart)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'Environment="{_systemd_escape(f"{key}={escaped}")}"'


def passed_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``VAULTBRAIN_*`` variables the person set that vaultbrain reads, for the service to
    see too (the service starts from systemd or launchd, not from their shell). The vault is
    named on the command line, so ``VAULTBRAIN_VAULT`` is left out; variables vaultbrain does
    not read (a test harness's, a typo) are not carried into a unit that outlives them."""
    from vaultbrain.settings import KEYS

    known = {key.env for key in KEYS.values() if key.env}
    known |= {"VAULTBRAIN_HOME", "VAULTBRAIN_SCHEMA_PACK", "VAULTBRAIN_STATE_DIR"}
    env = os.environ if environ is None else environ
    return {k: v for k, v in sorted(env.items()) if k in known and v}


def _check_path(what: str, path: str) -> None:
    # Neither a unit file nor a plist can carry these in a path, and a path that holds them
    # is almost surely a mistake: refuse rather than write a service that never starts.
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        raise UserError(f"the {what} path {path!r} holds a control character; rename it first")


@dataclass(frozen=True)
class Runner:
    """What the service runs: the arguments that start vaultbrain, and why those."""

    args: list[str]
    why: str


def runner(path_env: str | None = None) -> Runner:
    """The most stable way to start this installation of vaultbrain: the ``vaultbrain`` on
    PATH when it is this installation's (pipx's or uv's shim in ``~/.local/bin``, which
    outlives a reinstall), else this environment's own ``vaultbrain`` script (a venv's
    ``bin/``), else this Python with ``-m vaultbrain``."""
    here = Path(sys.prefix).resolve()
    own = Path(sys.prefix) / ("Scripts/vaultbrain.exe" if os.name == "nt" else "bin/vaultbrain")
    found = shutil.which("vaultbrain", path=path_env if path_env is not None else None)
    if found:
        shim = Path(found)
        try:
            target = shim.resolve()
        except OSError:
            target = shim
        if target.parent.parent == here and shim.parent.resolve() != own.parent.resolve():
            return Runner([str(shim)], f"the vaultbrain on PATH ({shim.parent}), a link to {here}")
    if own.is_file() and os.access(own, os.X_OK):
        return Runner([str(own)], f"this environment's own script ({own.parent})")
    return Runner([sys.executable, "-m", "vaultbrain"], f"this Python ({sys.executable})")


def _command(vault: Path, state_dir: Path | None) -> list[str]:
    args = [*runner().args, "--vault", str(vault)]
    if state_dir is not None:
        args += ["--state-dir", str(Path(state_dir).resolve())]
    return [*args, "daemon"]


def render_service(
    vault: Path,
    state_dir: Path | None,
    platform: str,
    environ: Mapping[str, str] | None = None,
) -> ServiceSpec:
    """The unit (Linux) or plist (macOS) that runs ``vaultbrain daemon`` on ``vault``."""
    vault = Path(vault).resolve()
    slug = _slug(vault)
    home = Path.home()
    cmd = _command(vault, state_dir)
    why = runner().why
    for arg in cmd:
        _check_path("vault" if arg == str(vault) else "command", arg)
    env = {"PYTHONUNBUFFERED": "1", **passed_environment(environ)}
    if platform == "linux":
        name = f"vaultbrain-{slug}.service"
        unit_dir = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "systemd" / "user"
        text = "\n".join(
            [
                "[Unit]",
                f"Description=vaultbrain daemon for {_systemd_escape(vault.name)}",
                "Documentation=https://pypi.org/project/vaultbrain/",
                "",
                "[Service]",
                "Type=simple",
                f"# runs {_systemd_escape(why)}",
                "ExecStart=" + " ".join(_systemd_quote(a) for a in cmd),
                # A path setting takes the rest of the line as the path, spaces included;
                # quotes would become part of it ("path is not absolute").
                f"WorkingDirectory={_systemd_escape(str(vault))}",
                "Restart=on-failure",
                "RestartSec=5",
                *(_systemd_environment(k, v) for k, v in env.items()),
                "Nice=5",
                "",
                "[Install]",
                "WantedBy=default.target",
                "",
            ]
        )
        return ServiceSpec(platform, name, unit_dir / name, text, why)
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
        # launchd starts agents with PATH=/usr/bin:/bin:/usr/sbin:/sbin, where Homebrew's
        # ffmpeg and JavaScript runtimes (for YouTube ingests) are not: keep the person's.
        "EnvironmentVariables": {**env, "PATH": os.environ.get("PATH") or os.defpath},
    }
    text = plistlib.dumps(plist).decode()
    path = home / "Library" / "LaunchAgents" / f"{label}.plist"
    return ServiceSpec(platform, label, path, text, why)


@dataclass(frozen=True)
class Step:
    """One call to systemctl/launchctl/loginctl and what it said."""

    command: list[str]
    ok: bool
    output: str

    def line(self) -> str:
        first = self.output.splitlines()[0] if self.output else ("ok" if self.ok else "failed")
        return f"{' '.join(self.command)}: {first}"


def _run(cmd: list[str]) -> Step:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Step(cmd, False, str(exc))
    return Step(cmd, out.returncode == 0, (out.stdout + out.stderr).strip())


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def linger_hint() -> str | None:
    """A user unit runs only while its user is logged in, unless lingering is enabled."""
    user = _user()
    if shutil.which("loginctl"):
        # `Linger=yes` (`--value` would drop the name, but systemd before 230 lacks it)
        step = _run(["loginctl", "show-user", user, "-p", "Linger"])
        if step.ok and step.output.strip().rpartition("=")[2] == "yes":
            return None
    return (
        "the service runs while you are logged in; to keep it running after you log out "
        f"(or on a server), run `loginctl enable-linger {user}`"
    )


def install_service(spec: ServiceSpec, start: bool = True) -> list[str]:
    """Write the service file and (unless ``start`` is false) enable and start it.

    Returns lines to show. A step that fails raises UserError saying what was done (the
    file is written) and what was not (the service is not running), in one line.
    """
    spec.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_file(spec.path, spec.text)
    if spec.platform == "macos":
        Path.home().joinpath("Library", "Logs", "vaultbrain").mkdir(parents=True, exist_ok=True)
    if not start:
        return ["not started (--no-start)"]
    if spec.platform == "linux":
        by_hand = f"systemctl --user daemon-reload && systemctl --user enable --now {spec.name}"
        if not shutil.which("systemctl"):
            raise UserError(
                f"wrote {spec.path}, but systemctl is not here, so it is not running; "
                f"where systemd runs, start it with `{by_hand}`"
            )
        steps = [["systemctl", "--user", "daemon-reload"]]
        steps.append(["systemctl", "--user", "enable", "--now", spec.name])
    else:
        by_hand = f"launchctl bootstrap gui/{os.getuid()} {shlex.quote(str(spec.path))}"
        if not shutil.which("launchctl"):
            raise UserError(f"wrote {spec.path}, but launchctl is not here: run `{by_hand}`")
        # A plist already loaded makes bootstrap fail: unload the old one first.
        _run(["launchctl", "bootout", f"gui/{os.getuid()}", str(spec.path)])
        steps = [["launchctl", "bootstrap", f"gui/{os.getuid()}", str(spec.path)]]
    lines = []
    for cmd in steps:
        step = _run(cmd)
        if not step.ok:
            raise UserError(
                f"wrote {spec.path}, but the service is not running: {step.line()}; "
                f"from a login session, run `{by_hand}`"
            )
        lines.append(step.line())
    if spec.platform == "linux":
        hint = linger_hint()
        if hint:
            lines.append(hint)
    return lines


def uninstall_service(spec: ServiceSpec) -> list[str]:
    messages = []
    if spec.platform == "linux" and shutil.which("systemctl"):
        messages.append(_run(["systemctl", "--user", "disable", "--now", spec.name]).line())
    if spec.platform == "macos" and shutil.which("launchctl"):
        messages.append(_run(["launchctl", "bootout", f"gui/{os.getuid()}", str(spec.path)]).line())
    if spec.path.exists():
        spec.path.unlink()
        messages.append(f"removed {spec.path}")
    else:
        messages.append(f"{spec.path} was not installed")
    return messages


def service_status(spec: ServiceSpec, state_dir: Path) -> dict[str, object]:
    """Whether the service file is installed, what the service manager says, and which
    process holds the daemon lock (the daemon may run without the service)."""
    installed = spec.path.exists()
    state: str | None = None  # what systemd says of the unit: active, inactive, failed, …
    error: str | None = None  # why systemd could not be asked
    if spec.platform == "linux" and installed:
        if not shutil.which("systemctl"):
            error = "systemctl is not here"
        else:
            step = _run(["systemctl", "--user", "is-active", spec.name])
            first = step.output.splitlines()[0].strip() if step.output else ""
            if first in _UNIT_STATES:
                state = first
            else:  # `Failed to connect to bus` over ssh or in a container
                error = first or f"systemctl --user is-active {spec.name} failed"
    holder = _lock_holder(Path(state_dir) / "daemon.lock")
    return {
        "name": spec.name,
        "platform": spec.platform,
        "path": str(spec.path),
        "installed": installed,
        "active": state == "active",
        "state": state,
        "error": error,
        "daemon_running": holder is not None,
        "daemon_pid": int(holder) if holder and holder.isdigit() else None,
    }


# What `systemctl is-active` answers for a unit it knows; anything else is an error message.
_UNIT_STATES = frozenset(
    ("active", "reloading", "inactive", "failed", "activating", "deactivating", "maintenance")
)


def status_lines(status: Mapping[str, object]) -> list[str]:
    """``service_status`` as a person reads it."""
    where = f"installed at {status['path']}" if status["installed"] else "not installed"
    out = [f"{status['name']}: {where}"]
    if status.get("state") is not None:
        out.append(f"systemd: {status['state']}")
    if status.get("error"):
        out.append(f"systemd: could not be asked: {status['error']}")
    if status["daemon_running"]:
        out.append(f"daemon: running (pid {status['daemon_pid'] or '?'})")
    else:
        out.append("daemon: not running")
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
