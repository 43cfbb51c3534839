"""One count of the vault, the same in every command: ``init``, ``reindex``, ``doctor`` and
``schema review-orphans`` (each a subprocess) say the same number of notes, the inbox,
``Brain/`` and templates aside; a README or folder note is counted but is no record; a note
with a ``type:`` of its own is typed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

NOTES = {
    "People/Ann.md": "---\naliases: [Annie]\n---\nAnn.\n",
    "People/Bo.md": "Bo.\n",
    "People/Cy.md": "Cy.\n",
    "People/README.md": "Everyone I know, one note each.\n",  # not a person named README
    "Projects/Projects.md": "A folder note: what the folder holds.\n",
    "Journal/Amy.md": "---\ntype: person\n---\nPaints.\n",  # typed by its own type:
    "Reading/Dune.md": "---\ntype: book\n---\nA book.\n",  # a type the pack does not have
    "Home.md": "# Home\n",
    # not counted: templates, vaultbrain's own notes
    "Templates/Meeting.md": "---\ndate: {{date}}\n---\n# {{title}}\n",
    "Brain/Old digest.md": "An old note of vaultbrain's.\n",
}
COUNT = 8


def vaultbrain(vault: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("VAULTBRAIN_")}
    out["VAULTBRAIN_STATE_DIR"] = str(tmp_path / "state")
    out["VAULTBRAIN_PROVIDER"] = "heuristic"
    return out


def test_every_command_counts_the_vault_alike(tmp_path: Path, env: dict[str, str]) -> None:
    vault = tmp_path / "Vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, "utf-8")
    init = vaultbrain(vault, env, "init").stdout
    assert f"this vault already has {COUNT} note(s), 3 of them in the pack's folders" in init
    reindexed = vaultbrain(vault, env, "reindex")
    assert re.search(rf"^{COUNT} notes, ", reindexed.stdout, re.M), reindexed.stdout
    # One untyped note in a folder: the warning lists it, and sends nobody to `schema detect`,
    # which proposes nothing for it.
    said = reindexed.stdout + reindexed.stderr
    assert "have no type of the active schema pack" in said and "schema detect" not in said
    detected = json.loads(vaultbrain(vault, env, "schema", "detect", "--json").stdout)
    assert detected["candidates"] == []
    doctor = vaultbrain(vault, env, "doctor").stdout
    assert f"7 of {COUNT} notes typed" in doctor, doctor  # all but Home.md
    orphans = vaultbrain(vault, env, "schema", "review-orphans").stdout
    assert f"1 of {COUNT} notes have no type" in orphans, orphans
    assert "Home.md" in orphans and "book (1)" in orphans
    assert "schema detect" not in orphans  # no folder it would propose a type for
    doc = json.loads(vaultbrain(vault, env, "schema", "review-orphans", "--json").stdout)
    assert (doc["total"], doc["untyped"]) == (COUNT, 1)
    people = json.loads(vaultbrain(vault, env, "db", "list", "person", "--json").stdout)
    assert sorted(p["path"] for p in people) == ["People/Ann.md", "People/Bo.md", "People/Cy.md"]
    projects = json.loads(vaultbrain(vault, env, "db", "list", "project", "--json").stdout)
    assert projects == []
