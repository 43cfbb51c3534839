"""A generated "lived-in" vault: the notes a person already has before vaultbrain arrives.

``References/Steph Ango.md`` (hand-made, no frontmatter) linked as ``[[Steph Ango]]`` from 9
daily notes, ``Philosophy/Plato.md``, a note with aliases, a Templates folder, a home note.
"""

from __future__ import annotations

from pathlib import Path

PLATO_NOTE = "---\ntags: [philosophy]\n---\n# Plato\n\nThe Republic, the cave, the Forms.\n"


def lived_in(root: Path) -> None:
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text("{}\n")
    files = {
        "References/Steph Ango.md": "CEO of Obsidian. Writes at stephango.com.\n",
        "Philosophy/Plato.md": PLATO_NOTE,
        "Reading/Tiago Forte.md": "---\naliases:\n  - Tiago\n  - TF\n---\nBuilding a Second Brain.\n",
        "Templates/Meeting.md": "---\ndate: {{date}}\n---\n# {{title}}\n",
        "Home.md": "# Home\n\nSee [[Steph Ango]] and [[Plato]].\n",
    }
    for day in range(1, 10):
        files[f"Daily/2026-11-0{day}.md"] = (
            f"# 2026-11-0{day}\n\n- read something by [[Steph Ango]] today\n"
        )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every note the person had (vaultbrain's own inbox and Brain/ notes aside)."""
    out = {}
    for path in root.rglob("*.md"):
        rel = path.relative_to(root).as_posix()
        if rel == "Inbox.md" or rel.startswith(("Brain/", ".")):
            continue
        out[rel] = path.read_bytes()
    return out
