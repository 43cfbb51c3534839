"""Issue 14's whole check: a lived-in vault (every kind of note a person already has), and
every command a person runs first, one after another. After each, every note that was there
before vaultbrain arrived has the same bytes and the same mtime.

The vault: notes with ``type:`` outside the pack's folders, a template folder configured for
the core Templates plugin and another for Templater (plus a plain ``Templates/``), a
``People/`` note without frontmatter and a copy of it, a same-name note in another folder
linked from daily notes, a note with invalid YAML, a note with a few NUL bytes, and an
``Inbox.md`` with old lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.lived_in import lived_in
from support.lmstudio import FakeLMStudio, reply


def _lived_in_everything(root: Path) -> None:
    lived_in(root)  # Steph Ango (linked from 9 daily notes), Plato, aliases, Templates/, Home
    files = {
        "Permanent/Zettel 202401.md": "---\ntype: Person\nname: Zettel\n---\nA thought.\n",
        "Permanent/Zettel 202402.md": "---\ntype: project\n---\nAnother.\n",
        "Tmpl/Core/Person.md": "---\ntype: person\nname: {{title}}\n---\n",
        "Tmpl/Templater/Daily.md": "<% tp.date.now() %>\n",
        "People/Ann.md": "Ann keeps bees. No frontmatter at all.\n",
        "People/Ann copy.md": "Ann keeps bees. No frontmatter at all.\n",
        "People/Broken.md": "---\nname: [unclosed\n---\nInvalid YAML above.\n",
        "Ideas/Pasted.md": "---\ntitle: Pasted\n---\nfrom a PDF \x00\x00 with NULs\n",
        "Inbox.md": "# Inbox\n\n- an old thought from last year\n- another old line\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    obsidian = root / ".obsidian"
    (obsidian / "templates.json").write_text(json.dumps({"folder": "Tmpl/Core"}))
    plugin = obsidian / "plugins" / "templater-obsidian"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text(json.dumps({"templates_folder": "Tmpl/Templater"}))


def _state(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every note the person had: bytes and mtime (vaultbrain's Brain/ notes aside)."""
    out = {}
    for path in root.rglob("*.md"):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(("Brain/", ".")):
            out[rel] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def _unchanged(before: dict[str, tuple[bytes, int]], root: Path, after_what: str) -> None:
    now = _state(root)
    changed = sorted(rel for rel, was in before.items() if now.get(rel) != was)
    assert changed == [], f"{after_what} changed {changed}"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    _lived_in_everything(root)
    # the fake LLM's reading is the premise here (the pair: tests/system/test_classify_pair.py)
    run(root, "settings", "set", "second_opinion", "false")
    return root


def test_no_note_the_person_had_changes_whatever_they_run_first(
    vault: Path, lmstudio: FakeLMStudio
) -> None:
    before = _state(vault)
    lmstudio.responder = lambda body: reply([{"type": "idea", "title": "Hives"}], 0.9, "x")

    out = run(vault, "init").output
    _unchanged(before, vault, "init")
    assert "2" in out and "Inbox.md" in out  # the old lines are said, and held

    report = run_json(vault, "reindex")
    _unchanged(before, vault, "reindex")
    assert report["problems"]  # the invalid YAML is reported, not written
    records = run_json(vault, "db", "list", "person")
    paths = {r["path"] for r in records}
    assert {"People/Ann.md", "People/Ann copy.md"} <= paths  # a copy is its own record
    assert not any(p.startswith(("Permanent/", "Tmpl/", "Templates/")) for p in paths)

    run(vault, "doctor", ok=False)
    _unchanged(before, vault, "doctor")

    run(vault, "schema", "use", "vaultbrain-base")
    _unchanged(before, vault, "schema use")

    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "daemon", "--once"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    _unchanged(before, vault, "daemon --once")  # the old inbox lines are held, not filed
    assert not any("old thought" in json.dumps(r) for r in lmstudio.requests)

    # A suggestion naming an existing note of the person's, then dismissed.
    lmstudio.responder = lambda body: reply(
        [
            {"type": "person", "title": "Ann", "fields": {}},
            {"type": "idea", "title": "Observation hive", "fields": {}},
        ],
        0.6,
        "x",
    )
    doc = run_json(vault, "capture", "Ann wants an observation hive for the school")
    assert doc["status"] == "suggested"
    ann = next(d for d in doc["destinations"] if d["type"] == "person")
    assert ann["path"] == "People/Ann.md" and ann.get("held") is True
    # `capture` adds the thought's own line to Inbox.md (what the person asked); the rest
    # of it, and every other note, stays as it was.
    old = before.pop("Inbox.md")[0].decode()
    _unchanged(before, vault, "a suggestion")
    run(vault, "review", "dismiss", doc["id"])
    _unchanged(before, vault, "dismissing the suggestion")
    inbox = (vault / "Inbox.md").read_text()
    assert inbox.startswith(old)  # the old lines untouched (still held, not filed)
