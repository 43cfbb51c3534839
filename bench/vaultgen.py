"""Generated vaults for the benchmarks: record notes in the shape ``vaultbrain db add`` writes.

Notes are written directly (ordered frontmatter, the pack's templates, a few log lines), then
one ``reindex`` brings the store in step, exactly as it would for a person's existing vault.
A generated vault is cached under the bench temp dir and copied for each benchmark that
changes it.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

FIRST = (
    "Sarah Tom Priya Bob Aiko Lena Omar Chen Ada Iris Marco Noor Femi Jonas Rosa Emil Maya "
    "Kofi Hana Luca Zoe Ravi Ines Yusuf Nina Pablo Greta Theo Amara Felix"
).split()
LAST = (
    "Okafor Smith Patel Novak Tanaka Berg Haddad Wang Lovelace Moreau Rossi Khan Adeyemi "
    "Weber Costa Larsen Silva Mensah Sato Bianchi Fischer Rao Duarte Demir Ivanova Ruiz"
).split()
TOPICS = "garden bees compost budget hiring design launch roadmap travel music books".split()
WORDS = (
    "plan review draft follow call budget garden shed launch design notes idea sketch "
    "vendor contract meeting deadline research prototype survey"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def person_names(n: int) -> list[str]:
    names = []
    for i in range(n):
        names.append(f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]} {i}")
    return names


def write_notes(app: Any, n: int, seed: int = 42) -> dict[str, list[str]]:
    """``n`` record notes across the default pack's four fileable types."""
    from vaultbrain.filing.records import link_to, new_id, ordered_frontmatter, render_body
    from vaultbrain.vault.note import render_note

    rng = random.Random(seed)
    pack = app.pack
    kinds = [("person", 0.4), ("project", 0.25), ("idea", 0.2), ("admin", 0.15)]
    counts = {k: int(n * share) for k, share in kinds}
    counts["person"] += n - sum(counts.values())
    titles: dict[str, list[str]] = {}
    people = person_names(counts["person"])
    base = dt.datetime(2025, 1, 1, 9, 0, 0)
    for kind, _share in kinds:
        ptype = pack.get_type(kind)
        assert ptype is not None
        folder = app.vault.root / ptype.folder
        folder.mkdir(parents=True, exist_ok=True)
        titles[kind] = []
        for i in range(counts[kind]):
            when = base + dt.timedelta(minutes=37 * i)
            if kind == "person":
                title = people[i]
                fields: dict[str, Any] = {
                    "name": title,
                    "contact": f"{title.split()[0].lower()}{i}@example.com",
                    "last_interaction": when.date().isoformat(),
                    "topics": rng.sample(TOPICS, 2),
                }
                if i % 5 == 0:
                    fields["aliases"] = [title.split()[0] + f"{i}"]
            elif kind == "project":
                title = f"Project {_sentence(rng, 2)} {i}"
                fields = {
                    "name": title,
                    "status": rng.choice(["active", "planned", "on-hold", "completed"]),
                    "goals": [_sentence(rng, 5)],
                    "next_actions": [_sentence(rng, 4)],
                    "people": [link_to(f"People/{rng.choice(people)}.md", "x")],
                }
            elif kind == "idea":
                title = f"Idea {_sentence(rng, 3)} {i}"
                fields = {
                    "title": title,
                    "one_liner": _sentence(rng, 8),
                    "category": rng.choice(["product", "content", "business", "tech"]),
                    "maturity": rng.choice(["raw", "explored"]),
                }
            else:
                title = f"Task {_sentence(rng, 3)} {i}"
                fields = {
                    "title": title,
                    "due": (when.date() + dt.timedelta(days=7)).isoformat(),
                    "priority": rng.choice(["high", "medium", "low"]),
                    "status": "open",
                }
            stamp = when.isoformat()
            core = {"type": kind, "id": new_id(), "created": stamp, "updated": stamp}
            log = "\n".join(
                f"- {(when + dt.timedelta(days=d)).date()} {_sentence(rng, rng.randint(4, 14))}"
                for d in range(rng.randint(1, 6))
            )
            body = render_body(ptype, title, fields, log)
            if rng.random() < 0.2:
                body += "\n" + "\n".join(_sentence(rng, 12) for _ in range(rng.randint(5, 40)))
            text = render_note(ordered_frontmatter(ptype, core, fields), body)
            (folder / f"{title}.md").write_text(text, "utf-8")
            titles[kind].append(title)
    return titles


def build(root: Path, n: int) -> dict[str, Any]:
    """A vault of ``n`` record notes with the store in step; returns what it took."""
    from vaultbrain.brain import Brain
    from vaultbrain.filing.setup import init_vault
    from vaultbrain.filing.sync import reindex

    app = Brain(root)
    init_vault(app)
    app.settings.set("provider", "heuristic")
    started = time.perf_counter()
    titles = write_notes(app, n) if n else {}
    wrote = time.perf_counter() - started
    started = time.perf_counter()
    report = reindex(Brain(root))
    return {
        "titles": titles,
        "write_s": wrote,
        "reindex_s": time.perf_counter() - started,
        "created": report.created,
    }


_CACHE: dict[int, Path] = {}


def cached(workdir: Path, n: int) -> Path:
    """A pristine generated vault of ``n`` notes (built once per bench run)."""
    master = workdir / f"master-{n}"
    if not (master / ".vaultbrain").exists():
        shutil.rmtree(master, ignore_errors=True)
        build(master, n)
    return master


def fresh_copy(workdir: Path, n: int, name: str) -> Path:
    """A private copy of the cached ``n``-note vault that a benchmark may change."""
    master = cached(workdir, n)
    dest = workdir / name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(master, dest, symlinks=True)
    return dest


def workdir_from_env() -> Path:
    path = os.environ.get("VB_BENCH_DIR")
    if path:
        p = Path(path)
        p.mkdir(parents=True, exist_ok=True)
        return p
    import tempfile

    return Path(tempfile.mkdtemp(prefix="vb-bench-"))


def isolate_home(workdir: Path) -> None:
    # Processes the benches start (`vaultbrain capture`, the daemon) run vaultbrain as an
    # installed copy does: compiled once (pip does it at install), not from source at every
    # start because the shell that runs the bench says not to write bytecode.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    import compileall

    import vaultbrain

    compileall.compile_dir(Path(vaultbrain.__file__).parent, quiet=1)
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    os.environ["VAULTBRAIN_HOME"] = str(home)
    # The benches read the state dir beside each generated vault (`<vault>/.vaultbrain`).
    os.environ["VAULTBRAIN_STATE_IN_VAULT"] = "1"
    os.environ["XDG_STATE_HOME"] = str(home / "state")
    for var in (
        "VAULTBRAIN_VAULT",
        "VAULTBRAIN_MODEL",
        "VAULTBRAIN_SCHEMA_PACK",
        "VAULTBRAIN_STATE_DIR",
    ):
        os.environ.pop(var, None)


def write_hand_made(root: Path, n: int, seed: int = 7) -> int:
    """``n`` notes a person wrote before vaultbrain came: in the default pack's folders, with
    properties of their own (a name, tags, a date) and no ``id``; a tenth without
    frontmatter, a tenth with a ``type:`` already. Returns how many were written."""
    rng = random.Random(seed)
    people = person_names(n)
    kinds = {"People": "person", "Projects": "project", "Ideas": "idea", "Admin": "admin"}
    folders = list(kinds)
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        folder = folders[i % len(folders)]
        kind = kinds[folder]
        title = people[i] if kind == "person" else f"{kind.title()} {_sentence(rng, 3)} {i}"
        body = "\n".join(_sentence(rng, rng.randint(6, 16)) for _ in range(rng.randint(2, 12)))
        if i % 10 == 0:
            text = f"# {title}\n\n{body}\n"
        else:
            # (lists as Obsidian writes them, and now and then as a person types them)
            tag = rng.choice(TOPICS)
            tags = f"tags: [{tag}]" if i % 10 == 5 else f"tags:\n  - {tag}"
            props = [tags, f"date: 2025-0{1 + i % 9}-1{i % 10}"]
            if i % 10 == 1:
                props.insert(0, f"type: {kind}")
            text = "---\n" + "\n".join(props) + f"\n---\n{body}\n"
        (root / folder / f"{title}.md").write_text(text, "utf-8")
    return n
