"""Helpers for the fault-injection tests and the hostile-input corpus."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.cli import run

# Root reads and writes everything; without these capabilities it obeys mode bits like anyone.
NO_DAC = "-dac_override,-dac_read_search,-fowner,-linux_immutable"


# Commands that write, each on a vault whose disk is full: (args, test id).
WRITING_COMMANDS = [
    (["capture", "Met with Bob about the shed"], "capture"),
    (["db", "add", "person", "--set", "name=Bob"], "db add"),
    (["db", "update", "person", "Sarah", "--set", "contact=s@x.org"], "db update"),
    (["settings", "set", "inbox_settle_seconds", "3"], "settings set"),
]


def make_vault(root: Path) -> Path:
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0.2")
    run(root, "settings", "set", "inbox_idle_seconds", "1")
    run(root, "settings", "set", "retry_seconds", "0.3")
    return root


def vb(
    vault: Path, *args: str, prefix: list[str] | None = None, timeout: float = 120, **kw
) -> subprocess.CompletedProcess[str]:
    """``vaultbrain --vault VAULT ARGS`` as a whole process (optionally under ``prefix``)."""
    cmd = [*(prefix or []), sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The command failed the way PRODUCT.md says: exit 1 and one `error: …` line."""
    no_traceback(proc)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def snapshot(root: Path, skip_state: bool = True) -> dict[str, bytes]:
    """Every file below ``root`` (not following symlinks) and its bytes."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if skip_state and rel_dir.split(os.sep)[0] == ".vaultbrain":
            dirnames[:] = []
            continue
        for name in [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            target = os.readlink(os.path.join(dirpath, name))
            out[os.path.normpath(os.path.join(rel_dir, name))] = b"-> " + os.fsencode(target)
        for name in filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if os.path.islink(path):
                out[rel] = b"-> " + os.fsencode(os.readlink(path))
                continue
            try:
                with open(path, "rb") as fh:
                    out[rel] = fh.read()
            except OSError as exc:
                out[rel] = f"<unreadable {exc.errno}>".encode()
    return out


def temp_leftovers(root: Path) -> list[str]:
    return [str(p) for p in root.rglob(".vb-tmp-*")]


# -- a small filesystem that can fill up ---------------------------------------------------
class SmallDisk:
    """A tmpfs of a few MB; ``fill()`` takes all its free space, ``free()`` gives it back."""

    def __init__(self, mountpoint: Path) -> None:
        self.root = mountpoint
        self.filler = mountpoint / "filler.bin"

    def fill(self) -> None:
        for path, size in ((self.filler, 1 << 16), (self.root / "filler-tail.bin", 1)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                block = b"\0" * size
                while True:
                    os.write(fd, block)
            except OSError:
                pass  # ENOSPC: full (the tail file takes the last bytes of a page)
            finally:
                os.close(fd)

    def free(self) -> None:
        for p in (self.filler, self.root / "filler-tail.bin"):
            p.unlink(missing_ok=True)

    def remount(self, *options: str) -> None:
        subprocess.run(
            ["mount", "-o", ",".join(("remount", *options)), str(self.root)],
            check=True,
            capture_output=True,
        )
