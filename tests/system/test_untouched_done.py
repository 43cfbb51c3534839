"""Issue 44's done-when check: on a lived-in vault with two hand-made notes sharing an
``id:`` on purpose, a Templater template outside any Templates folder and a frontmatter whose
closing ``---`` has text after it, ``init``, ``reindex``, ``adopt --dry-run``, ``schema
detect``, ``daemon --once`` twice and ``doctor`` (each a subprocess) change no note the
person wrote, and the second ``daemon --once`` writes no file in the vault at all."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.lived_in import lived_in, snapshot

SHARED_ID = "dune-1965"
NOTES = {
    # one book, two translations, one id on purpose (a Dataview query groups by it)
    "Projects/Dune (English).md": f"---\nid: {SHARED_ID}\nstatus: active\n---\nThe original.\n",
    "Projects/Dune (Français).md": f"---\nid: {SHARED_ID}\nstatus: active\n---\nLa traduction.\n",
    # a Templater script where no folder says "template"
    "People/New person.md": (
        "---\ntype: person\nname: <% tp.file.title %>\n---\n"
        '<%* const who = await tp.system.prompt("Who?") %>\n# <% tp.file.title %>\n'
    ),
    "Ideas/Daily scaffold.md": "---\ncreated: {{date}}\n---\n# {{title}}\n",
    # a button block on the closing line of the frontmatter
    "People/Grace Hopper.md": ("---\naliases: [Grace]\n--- %% button %%\nInvented the compiler.\n"),
    "People/Alan Turing.md": "---\naliases: [Alan]\n---\nComputing machinery.\n",
}


def vaultbrain(vault: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def every_file(root: Path) -> dict[str, tuple[str, int]]:
    """Every file in the vault (its config folder aside): content hash and mtime."""
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith(".obsidian/"):
            out[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return out


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = dict(os.environ)
    for key in [k for k in out if k.startswith("VAULTBRAIN_")]:
        out.pop(key)
    out["VAULTBRAIN_STATE_DIR"] = str(tmp_path / "state")
    out["VAULTBRAIN_PROVIDER"] = "heuristic"
    return out


def test_nothing_the_person_wrote_changes_and_a_second_pass_writes_nothing(
    tmp_path: Path, env: dict[str, str]
) -> None:
    vault = tmp_path / "Vault"
    lived_in(vault)
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    before = snapshot(vault)

    assert vaultbrain(vault, env, "init").returncode == 0
    reindexed = vaultbrain(vault, env, "reindex")
    assert reindexed.returncode == 0, reindexed.stderr
    dry = vaultbrain(vault, env, "adopt", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    said = dry.stdout + dry.stderr
    grace = [line for line in said.splitlines() if "Grace Hopper" in line]
    assert grace and all("conflict" in line and "(add)" not in line for line in grace), said
    assert "New person" not in said and "Daily scaffold" not in said  # templates: no records
    vaultbrain(vault, env, "schema", "detect")
    # A digest and a weekly review, made twice: the second run finds what the first found and
    # rewrites neither (the run's time and the LLM's state live in the state dir).
    for round_ in range(2):
        for kind in ("digest", "weekly"):
            made = vaultbrain(vault, env, kind, "run")
            assert made.returncode == 0, made.stderr
        if round_ == 0:
            made_first = every_file(vault)
    assert every_file(vault) == made_first
    assert vaultbrain(vault, env, "daemon", "--once").returncode == 0
    first = every_file(vault)
    assert any(rel.startswith("Brain/Digests/") for rel in first), sorted(first)
    assert any(rel.startswith("Brain/Reviews/") for rel in first), sorted(first)
    assert vaultbrain(vault, env, "daemon", "--once").returncode == 0
    second = every_file(vault)
    assert second == first  # no file written, not even with the same bytes
    vaultbrain(vault, env, "doctor")

    assert snapshot(vault) == before
    # The shared id stays shared, and each translation is a record of its own; the templates
    # are none.
    listed = vaultbrain(vault, env, "db", "list", "project", "--json")
    paths = {r.get("path") for r in json.loads(listed.stdout)}
    assert {"Projects/Dune (English).md", "Projects/Dune (Français).md"} <= paths
    people = vaultbrain(vault, env, "db", "list", "person", "--json")
    assert "People/New person.md" not in {r.get("path") for r in json.loads(people.stdout)}
