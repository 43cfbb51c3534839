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


def lived_in_shapes(root: Path) -> dict[str, str]:
    """A vault with each shape issue 30 met in people's vaults, for the default pack:

    - ``People/`` notes whose ``type:`` is a list of links, ``[]``, or empty;
    - templates three ways: the core plugin's folder (``Meta/Scaffolds``), Templater's
      (``Templater``), a ``Templates/`` folder, and ``Blueprints/``, named nothing special
      but mostly ``{{…}}`` placeholders; their ``date: {{date}}`` is not YAML;
    - a CRM folder of full names (``Databases/CRM/Jane Doe.md``), two Miriams, a note with
      aliases and a ``name:`` of its own, accents (``Zoë Ångström``);
    - notes the vault types as something else: a theme, a tool, an algorithm, a company;
    - one name, two notes (``FacturaIA`` as a project and as a client);
    - numbered folders (``00 Home``, ``1 LifeOS``) and folders whose names a naive singular
      breaks (``Physics``, ``Windows``, ``Files and folders``);
    - ``Brain/Archive/``: a dismissed person vaultbrain archived.

    Returns every note written, by path."""
    files: dict[str, str] = {
        "People/Ann Example.md": '---\ntype: ["[[Authors]]"]\nname: Ann Example\n---\nAuthor.\n',
        "People/Bea Blank.md": "---\ntype: []\n---\nNo type yet.\n",
        "People/Cy Empty.md": "---\ntype:\ntags:\n  - friend\n---\nCy.\n",
        "People/Miriam Cohen.md": "---\nname: Miriam Cohen\n---\nBaker.\n",
        "People/Kira Kube.md": "---\ntopics:\n  - kubernetes\n---\nRuns the kubernetes clusters.\n",
        "Databases/CRM/Jane Doe.md": "---\ntags:\n  - crm\n  - client\n---\nClient since 2021.\n",
        "Databases/CRM/Omar Haddad.md": "---\ntags:\n  - crm\n---\nSupplier.\n",
        "Databases/CRM/Miriam Levi.md": "---\ntags:\n  - crm\n---\nLawyer.\n",
        "Databases/CRM/ZA.md": "---\nname: Zoë Ångström\naliases:\n  - Zoe\n---\nDesigner.\n",
        "References/Steph Ango.md": "CEO of Obsidian.\n",
        "Themes/Minimal.md": "---\ntype: theme\n---\nAn Obsidian theme.\n",
        "Tools/Evernote.md": "---\ntags:\n  - tool\n  - app\n---\nWhere my old notes were.\n",
        "Concepts/Paxos.md": "---\ntype: concept\ntags:\n  - algorithm\n---\nConsensus.\n",
        "Clients/Acme Corp.md": "---\ntype: company\n---\nA client company.\n",
        "Projects/FacturaIA.md": "---\nstatus: active\n---\nInvoicing with AI.\n",
        "Clients/FacturaIA.md": "---\ntype: company\n---\nThe client of that name.\n",
        "Meta/Scaffolds/Meeting.md": "---\ndate: {{date}}\ntype: meeting\n---\n# {{title}}\n",
        "Meta/Scaffolds/Person.md": "---\ntype: person\nname: {{title}}\n---\n",
        "Templater/Daily.md": "---\ncreated: <% tp.date.now() %>\n---\n<% tp.file.title %>\n",
        "Templates/Book.md": "---\nauthor: {{author}}\n---\n",
        "Brain/Archive/People/Dismissed Dan.md": (
            "---\ntype: person\nname: Dismissed Dan\ntopics:\n  - kubernetes\n"
            "archived: true\nid: dandan1234\n---\nKnows kubernetes too.\n"
        ),
    }
    for i in range(5):
        files[f"Blueprints/Blueprint {i}.md"] = (
            f"---\ndate: {{{{date}}}}\n---\n# {{{{title}}}} {i}\n"
        )
    files["Blueprints/Checklist.md"] = "- [ ] a plain list, no placeholder\n"
    for folder, stem in (
        ("00 Home", "Home page"),
        ("1 LifeOS", "Routine"),
        ("Physics", "Lecture"),
        ("Windows", "Shortcut"),
        ("Files and folders", "Layout"),
    ):
        for i in range(5):
            files[f"{folder}/{stem} {i}.md"] = f"---\ntags:\n  - t{i}\n---\nAbout {folder}.\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    obsidian = root / ".obsidian"
    obsidian.mkdir(parents=True, exist_ok=True)
    (obsidian / "app.json").write_text("{}\n")
    (obsidian / "templates.json").write_text('{"folder": "Meta/Scaffolds"}\n')
    plugin = obsidian / "plugins" / "templater-obsidian"
    plugin.mkdir(parents=True, exist_ok=True)
    (plugin / "data.json").write_text('{"templates_folder": "Templater"}\n')
    return files
