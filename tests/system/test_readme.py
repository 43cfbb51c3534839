"""README's commands, as a new user runs them (issue 33): a wheel built from this tree,
installed with pip into a fresh venv, then the first command and the first hour's commands
typed as README writes them, in a home of their own with no LLM server.

No test reaches the internet, so two things differ from a person's run, and only these: the
wheel is built here with ``pip wheel --no-deps`` (no build isolation: hatchling comes with
the test extras) and installed with ``--no-index --no-deps``, the step README writes as
``pip install .``; vaultbrain's dependencies are the ones this environment already has, seen
by the fresh venv through a ``.pth`` line (a .pth line adds a folder to the path without
running that folder's own .pth files, so this environment's editable vaultbrain stays out).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ".venv/bin/pip install ."


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)


def first_hour(text: str) -> list[str]:
    """The commands of README's "The first hour" block, one a line, comments dropped."""
    section = text.split("\n## The first hour\n", 1)[1].split("\n## ", 1)[0]
    (block,) = code_blocks(section)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheelhouse")
    env = {**os.environ, "PIP_NO_INDEX": "1"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        env=env,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("vaultbrain-*.whl")
    return built


@pytest.mark.slow
def test_readme_commands_work_as_written_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    first, second = (block.strip() for block in code_blocks(readme)[:2])
    assert "pytest" in second  # the second command runs the tests (this test among them)
    steps = [step.strip() for step in first.split(" && ")]
    assert steps[0] == "python3 -m venv .venv" and steps[1] == INSTALL, steps

    checkout = tmp_path / "checkout"  # where a person runs the first command
    home = tmp_path / "home"
    shims = tmp_path / "shims"
    for folder in (checkout, home, shims):
        folder.mkdir()
    (shims / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (shims / "python3").chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VAULTBRAIN_", "PYTHON", "VIRTUAL_ENV", "XDG_"))
    }
    env |= {
        "HOME": str(home),
        "PATH": f"{shims}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        "PIP_NO_INDEX": "1",
        # no LLM server: a port where nothing listens (as conftest does for every test)
        "VAULTBRAIN_ENDPOINT": os.environ["VAULTBRAIN_ENDPOINT"],
    }

    sh(steps[0], checkout, env)  # python3 -m venv .venv
    site = Path(
        sh(".venv/bin/python -c 'import sysconfig; print(sysconfig.get_path(\"purelib\"))'",
           checkout, env).stdout.strip()
    )  # fmt: skip
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "zz_vaultbrain_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    # --ignore-installed: pip sees a vaultbrain through the .pth line too (this environment's
    # own, a regular install in CI) and would call the wheel already there.
    installed = sh(
        f".venv/bin/pip install -q --no-index --no-deps --ignore-installed {shlex.quote(str(wheel))}",
        checkout, env,
    )  # fmt: skip
    assert "error" not in installed.stderr.lower()
    where = sh(".venv/bin/python -c 'import vaultbrain; print(vaultbrain.__file__)'", checkout, env)
    assert where.stdout.startswith(str(site)), where.stdout  # the wheel's copy, not this tree

    done = sh(" && ".join(steps[2:]), checkout, env)  # init, then the capture, as written
    assert re.search(r"^\w+: suggested \(", done.stdout, flags=re.M), done.stdout
    assert "embedded classifier: the LLM server is not running" in done.stdout
    assert "WARNING" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    vault = home / "Vault"
    for note in ("People/Sarah.md", "Projects/New project.md", "Admin/Follow up with Sarah.md"):
        assert (vault / note).is_file(), note
    assert not (vault / ".vaultbrain").exists()  # the state lives outside the vault

    env["PATH"] = f"{checkout / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
    commands = first_hour(readme)
    assert commands[0].startswith("vaultbrain ") and len(commands) >= 5
    for command in commands:
        out = sh(command, checkout, env)
        assert "Traceback" not in out.stderr and "WARNING" not in out.stderr, (command, out)
    assert "Idea: a podcast about bees" in (vault / "Inbox.md").read_text("utf-8")
