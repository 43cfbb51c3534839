"""The graph reads notes, not the inbox or ``Brain/``: search, whoknows and links (each a
subprocess on a real vault) never rank through ``Inbox.md``, Needs Review or the archive,
and the default pack's own fields make typed links (``links Sarah`` lists the project whose
``people:`` names her)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def vaultbrain(vault: Path, env: dict[str, str], *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in args else done.stdout


def write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, "utf-8")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("VAULTBRAIN_")}
    out["VAULTBRAIN_STATE_DIR"] = str(tmp_path / "state")
    out["VAULTBRAIN_PROVIDER"] = "heuristic"
    return out


@pytest.fixture
def vault(tmp_path: Path, env: dict[str, str]) -> Path:
    root = tmp_path / "Vault"
    vaultbrain(root, env, "init")
    write(root, "People/Sarah.md", "---\ntype: person\nname: Sarah\n---\nLikes tea.\n")
    write(root, "People/Gus.md", "---\ntype: person\nname: Gus\n---\nPlays chess.\n")
    write(root, "People/Ida.md", "---\ntype: person\nname: Ida\n---\nBakes.\n")
    write(
        root,
        "Projects/Garden makeover.md",
        "---\ntype: project\nname: Garden makeover\nstatus: active\npeople:\n"
        '  - "[[People/Sarah|Sarah]]"\n---\nNew raised beds for the garden.\n',
    )
    write(
        root,
        "Ideas/Seed swap.md",
        '---\ntype: idea\ntitle: Seed swap\nrelated:\n  - "[[Projects/Garden makeover]]"\n---\nSwap seeds.\n',
    )
    # Gus is tied to the garden only by a thought waiting in the inbox, Ida only by
    # vaultbrain's own notes, Old only by the archive.
    inbox = root / "Inbox.md"
    inbox.write_text(
        inbox.read_text("utf-8") + "- [ ] ask [[People/Gus|Gus]] about the garden compost\n",
        "utf-8",
    )
    write(root, "Brain/Digests/2026-12-01.md", "# Digest\n\n[[People/Ida|Ida]] and the garden.\n")
    write(
        root,
        "Brain/Archive/People/Old.md",
        "---\ntype: person\nname: Old\n---\nKnew everything about the garden.\n",
    )
    vaultbrain(root, env, "reindex")
    return root


def test_search_and_whoknows_never_rank_through_the_inbox_or_brain(
    vault: Path, env: dict[str, str]
) -> None:
    found = [r["path"] for r in vaultbrain(vault, env, "search", "garden", "--json")["results"]]
    assert sorted(found) == ["Ideas/Seed swap.md", "Projects/Garden makeover.md"]
    assert vaultbrain(vault, env, "search", "compost", "--json")["results"] == []
    experts = vaultbrain(vault, env, "whoknows", "garden", "--json")["results"]
    assert [e["path"] for e in experts] == ["People/Sarah.md"]
    for expert in experts:
        assert all(not w["note"].startswith(("Inbox", "Brain/")) for w in expert["why"])


def test_links_of_the_default_packs_own_fields(vault: Path, env: dict[str, str]) -> None:
    doc = vaultbrain(vault, env, "links", "Sarah", "--json")
    assert [(r["type"], r["from"]) for r in doc["in"]] == [
        ("people", "Projects/Garden makeover.md")
    ]
    garden = vaultbrain(vault, env, "links", "Garden makeover", "--json")
    assert [(r["type"], r["to"]) for r in garden["out"]] == [("people", "People/Sarah.md")]
    assert [(r["type"], r["from"]) for r in garden["in"]] == [("related", "Ideas/Seed swap.md")]
    # Gus is named only on an inbox line: no typed link, and no link at all counts.
    assert vaultbrain(vault, env, "links", "Gus", "--json")["in"] == []
    said = vaultbrain(vault, env, "links", "Sarah")
    assert "no typed links" not in said and "Projects/Garden makeover.md" in said


def test_the_inbox_changing_keeps_it_out(vault: Path, env: dict[str, str]) -> None:
    """A new thought in the inbox, read by a daemon pass: still not evidence of anything."""
    inbox = vault / "Inbox.md"
    inbox.write_text(inbox.read_text("utf-8") + "- [ ] Gus knows all about beekeeping\n", "utf-8")
    vaultbrain(vault, env, "daemon", "--once")
    experts = vaultbrain(vault, env, "whoknows", "beekeeping", "--json")["results"]
    assert all(e["path"] != "People/Gus.md" or e["why"][0]["note"] != "Inbox.md" for e in experts)
    hits = vaultbrain(vault, env, "search", "beekeeping", "--json")["results"]
    assert "Inbox.md" not in [r["path"] for r in hits]
