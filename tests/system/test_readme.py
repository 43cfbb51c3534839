"""README's commands, as a new user runs them (issues 33 and 44): a wheel built from this tree,
installed with pip into a fresh venv, then the first command and the whole first hour typed
as README writes them, in a home of their own with no LLM server: the first hour's block is
run as one shell script, verbatim, so its first line (which puts `vaultbrain` on PATH) is
tested as a person meets it.

No test reaches the internet, so two things differ from a person's run, and only these: the
wheel is built here with ``pip wheel --no-deps`` (no build isolation: hatchling comes with
the test extras) and installed with ``--no-index --no-deps``, the step README writes as
``pip install .``; vaultbrain's dependencies are the ones this environment already has, seen
by the fresh venv through a ``.pth`` line (a .pth line adds a folder to the path without
running that folder's own .pth files, so this environment's editable vaultbrain stays out).

README's links are checked too: every ``(#anchor)`` names a heading (as GitHub makes its
anchors), and every link into ``docs/`` names a file and a heading there.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ".venv/bin/pip install ."


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)


def first_hour(text: str) -> str:
    """README's "The first hour" block: the commands a person pastes into one terminal."""
    section = text.split("\n## The first hour\n", 1)[1].split("\n## ", 1)[0]
    return code_blocks(section)[0]


def commands(block: str) -> list[str]:
    """A block's commands, one a line, comments dropped."""
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown file's headings (outside code fences)."""
    found: set[str] = set()
    fence = ""
    for line in text.splitlines():
        mark = re.match(r"^(`{3,}|~{3,})", line)
        if mark:
            if not fence:
                fence = mark.group(1)
            elif line.strip() == fence[0] * len(line.strip()) and len(line.strip()) >= len(fence):
                fence = ""
            continue
        heading = re.match(r"^#{1,6} (.+)$", line)
        if heading and not fence:
            found.add(slug(heading.group(1)))
    return found


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
        # no vaultbrain on PATH but what the first hour puts there (this environment's may be)
        "PATH": os.pathsep.join(
            [str(shims)]
            + [
                d
                for d in env.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                if d and not (Path(d) / "vaultbrain").exists()
            ]
        ),
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
    # the embedded classifier files outright where its measured precision reaches
    # auto_confidence, else as suggestions: README says which the output shows
    assert re.search(r"^\w+: (filed|suggested) \(", done.stdout, flags=re.M), done.stdout
    assert "embedded classifier: the LLM server is not running" in done.stdout
    assert "WARNING" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    vault = home / "Vault"
    for note in ("People/Sarah.md", "Projects/New project.md", "Admin/Follow up with Sarah.md"):
        assert (vault / note).is_file(), note
    assert not (vault / ".vaultbrain").exists()  # the state lives outside the vault

    # The first hour, verbatim, as one script in one terminal: its first line puts vaultbrain
    # on PATH (before it, `vaultbrain` is "command not found", as it was for issue 44).
    assert shutil.which("vaultbrain", path=env["PATH"]) is None
    block = first_hour(readme)
    steps = commands(block)
    assert steps[0] == "source .venv/bin/activate", steps[0]
    assert all(step.startswith("vaultbrain ") for step in steps[1:]) and len(steps) >= 6, steps
    script = tmp_path / "first-hour.sh"
    script.write_text(block)
    done = sh(f"set -e; source {shlex.quote(str(script))}", checkout, env)
    assert "Traceback" not in done.stderr and "WARNING" not in done.stderr, done.stderr
    assert "Idea: a podcast about bees" in (vault / "Inbox.md").read_text("utf-8")
    assert re.search(r"^\[(ok  |warn)\] vault: ", done.stdout, flags=re.M), done.stdout  # doctor
    assert "Usage: vaultbrain" in done.stdout  # the last step, --help
    assert "Sarah" in done.stdout  # db list person: the first command's person


def test_readme_links_name_headings_and_files() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    own = anchors(readme)
    missing = [a for a in re.findall(r"\]\(#([^)]+)\)", readme) if a not in own]
    assert not missing, missing
    for target, anchor in re.findall(r"\]\((docs/[^)#]+)(?:#([^)]+))?\)", readme):
        doc = ROOT / target
        assert doc.is_file(), target
        assert not anchor or anchor in anchors(doc.read_text("utf-8")), (target, anchor)
    for doc in (ROOT / "docs").glob("*.md"):
        text = doc.read_text("utf-8")
        inner = [a for a in re.findall(r"\]\(#([^)]+)\)", text) if a not in anchors(text)]
        assert not inner, (doc.name, inner)
        for anchor in re.findall(r"\]\(\.\./README\.md#([^)]+)\)", text):
            assert anchor in own, (doc.name, anchor)


def test_readme_first_hour_is_the_second_section_after_the_two_commands() -> None:
    """README's top is the two commands, then opening the vault in Obsidian, then the first
    hour, with a table of contents; the guide comes before the reference."""
    readme = (ROOT / "README.md").read_text("utf-8")
    sections = re.findall(r"^## (.+)$", readme.split("\n## Contents\n", 1)[1], flags=re.M)
    assert sections[:3] == ["Open `~/Vault` in Obsidian", "The first hour", "Install for every day"]
    assert sections.index("User guide") < sections.index("Reference"), sections
    head = readme.split("\n## Contents\n", 1)[0]
    assert len(code_blocks(head)) == 2  # the two commands, and nothing else above the contents


GLOBAL_WITH_VALUE = {"--vault", "--state-dir", "--schema-pack"}
GLOBAL_FLAGS = {"-v", "--verbose", "-q", "--quiet", "--version", "-h", "--help"}


def shown_commands(text: str) -> list[str]:
    """Every vaultbrain command README shows: the lines of its code blocks and the inline
    code spans that start with ``vaultbrain ``."""
    blocks = re.findall(r"^```\w*\n(.*?)^```", text, flags=re.S | re.M)
    lines = [line for block in blocks for line in block.splitlines()]
    lines += re.findall(r"`(vaultbrain [^`]+)`", text)
    shown = []
    for line in lines:
        line = re.split(r"\s#(?:\s|$)", line)[0].strip()  # a shell comment, not a #tag
        synopsis = "…" in line or "|" in line or " [" in line  # options shown as a pattern
        if line.startswith("vaultbrain ") and not synopsis:
            shown.append(line)
    return shown


def test_every_command_readme_shows_exists_with_its_options() -> None:
    """Each `vaultbrain …` README shows names a command of the installed tool, and each
    `--option` on it is one that command (or the group) takes: checked against click's own
    command table, so a renamed option (`--print` → `--dry-run`) fails here."""
    import click

    from vaultbrain.cli.group import cli

    readme = (ROOT / "README.md").read_text("utf-8")
    checked = 0
    wrong = []
    for line in shown_commands(readme):
        words = shlex.split(line.replace("~", "HOME"))[1:]
        command: click.Command = cli
        ctx = click.Context(cli)
        names = ["vaultbrain"]
        options: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            if word in GLOBAL_WITH_VALUE:
                i += 2
                continue
            if word.startswith("-"):
                options.append(word.split("=")[0])
            elif isinstance(command, click.Group) and not options and not word.isupper():
                sub = command.get_command(ctx, word)
                if sub is None:
                    wrong.append(f"{line}: no command {' '.join([*names, word])}")
                    break
                command, names = sub, [*names, word]
            i += 1
        else:
            known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
            for option in options:
                if option not in known | GLOBAL_FLAGS | GLOBAL_WITH_VALUE:
                    wrong.append(f"{line}: {' '.join(names)} takes no {option}")
            checked += 1
    assert not wrong, "\n".join(wrong)
    assert checked >= 60, checked
