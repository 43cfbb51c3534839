"""The notes vaultbrain writes, as Obsidian's YAML reader (js-yaml) and Dataview read them.

A vault is built with vaultbrain's own commands: captures typed with Tasks and Dataview
syntax, ``db add`` with link fields and values that look like other types, a YouTube note
whose title looks like a date, a confirmation, a tick, digests and a weekly review. Then
every note is read by js-yaml and by Dataview's own code (both from the npm registry, see
``.ci/node-deps`` and ``obsidian_reader.js``) and compared with what vaultbrain meant:

- every property has the same type for PyYAML (vaultbrain's reader), js-yaml and Dataview;
- no text vaultbrain copies (a ``## Log`` bullet, a digest, Needs Review, a review) carries a
  field Dataview reads, and no page gets an inline field it did not mean;
- a Dataview task listing (``TASK`` without the inbox and ``Brain/``, as the README's query
  does) lists each real task once, with its due date; no other task in the vault carries one.

Needs node and the npm modules (``.ci/node-deps`` installs them in ``.ci/node``, or point
``VAULTBRAIN_NODE_MODULES`` at a ``node_modules``); skipped, saying so, when they are absent,
except where ``VAULTBRAIN_NODE_REQUIRED`` is set (CI), where their absence fails.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_it import MarkdownIt
from support.cli import frontmatter, run, run_json

from vaultbrain.vault.note import parse_note

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]
READER = Path(__file__).with_name("obsidian_reader.js")
FIXTURES = ROOT / "tests" / "fixtures" / "youtube" / "recordings"
DATE_VIDEO = "dateTitle01"

TYPED = [
    "water plants 🔁 every week 📅 2026-12-05",
    "call the dentist ⏫ 📅 2026-12-09",
    "Renew the domain 🔺",
    "pay rent [due:: 2026-12-01] (repeat:: every month on the 1st)",
    "book the car service ⏳ 2026-12-10 📅 2026-12-12 #car",
]
PLAIN = [
    "Met with Sarah about the garden project, follow up next week",
    "Idea: a podcast about bees",
]


def node_modules() -> Path | None:
    found = os.environ.get("VAULTBRAIN_NODE_MODULES") or str(ROOT / ".ci" / "node" / "node_modules")
    path = Path(found)
    ok = (path / "js-yaml").is_dir() and (path / "obsidian-dataview" / "lib").is_dir()
    return path if ok else None


def unavailable(reason: str) -> None:
    """Skip, saying what to install; CI sets VAULTBRAIN_NODE_REQUIRED, so a missing node or
    npm module fails there instead of passing quietly."""
    if os.environ.get("VAULTBRAIN_NODE_REQUIRED"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def node() -> tuple[str, Path]:
    exe = shutil.which("node")
    if exe is None:
        unavailable("node is not installed (the Obsidian/Dataview contract needs node 18+)")
    modules = node_modules()
    if modules is None:
        unavailable("js-yaml and obsidian-dataview are not installed: run `.ci/node-deps`")
    assert exe is not None and modules is not None
    return exe, modules


# -- the vault, built with vaultbrain's own commands -----------------------------------------


def _recordings(into: Path) -> Path:
    """The recorded talk, as a second video whose title and channel look like other types."""
    shutil.copytree(FIXTURES / "talk", into / "talk")
    video = into / "datetitle"
    shutil.copytree(FIXTURES / "talk", video)
    info = json.loads((video / "info.json").read_text("utf-8"))
    info.update(
        id=DATE_VIDEO,
        title="2026-12-01",
        fulltitle="2026-12-01",
        channel="1984",
        uploader="1984",
        duration=750,
        webpage_url=f"https://www.youtube.com/watch?v={DATE_VIDEO}",
        original_url=f"https://www.youtube.com/watch?v={DATE_VIDEO}",
    )
    (video / "info.json").write_text(json.dumps(info), "utf-8")
    return into


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("markdown-contract")
    root = base / "Vault"
    with pytest.MonkeyPatch.context() as mp:
        # As tests/conftest.py isolates each test (a module fixture runs outside it).
        mp.setenv("VAULTBRAIN_HOME", str(base / "home"))
        mp.setenv("VAULTBRAIN_STATE_IN_VAULT", "1")
        mp.setenv("XDG_STATE_HOME", str(base / "home" / "state"))
        mp.setenv("VAULTBRAIN_ENDPOINT", "http://127.0.0.1:9/v1")
        mp.setenv("VAULTBRAIN_YTDLP_REPLAY", str(_recordings(base / "recordings")))
        for var in ("VAULTBRAIN_VAULT", "VAULTBRAIN_MODEL", "VAULTBRAIN_PROVIDER"):
            mp.delenv(var, raising=False)
        mp.delenv("VAULTBRAIN_SCHEMA_PACK", raising=False)
        mp.delenv("VAULTBRAIN_STATE_DIR", raising=False)
        run(root, "init")
        run(root, "settings", "set", "provider", "heuristic")
        caps = [run_json(root, "capture", text) for text in TYPED + PLAIN]
        run(root, "db", "add", "person", "--set", "name=José Ñúñez")
        run(
            root, "db", "add", "person", "--set", "name=Ada Lovelace",
            "--set", "topics=yes,1e3,12:30,2026-12,null", "--set", "contact=+44 20 7946 0958",
        )  # fmt: skip
        run(
            root, "db", "add", "project", "--set", "name=Garden makeover",
            "--set", "people=2024,José Ñúñez", "--set", "deadline=2026-12-24",
        )  # fmt: skip
        run(root, "db", "add", "idea", "--set", "title=2026-12-01", "--set", "one_liner=yes")
        run(root, "youtube", "ingest", f"https://youtu.be/{DATE_VIDEO}", "--tag", "2026")
        # Gestures: a confirmation, a tick in Obsidian, a Properties edit.
        suggested = [c for c in caps if c["status"] == "suggested"]
        if suggested:
            run(root, "review", "confirm", suggested[0]["id"])
        dentist = next(iter(sorted((root / "Admin").glob("*dentist*.md"))), None)
        if dentist is not None:
            text = dentist.read_text("utf-8")
            ticked = re.sub(r"^- \[ \] (.*)$", r"- [x] \1 ✅ 2026-12-03", text, count=1, flags=re.M)
            dentist.write_text(ticked)
        run(root, "reindex")
        run(root, "digest", "run")
        run(root, "weekly", "run")
        run(root, "daemon", "--once")
        yield root


# -- reading every note -----------------------------------------------------------------------

_LIST_ITEM = re.compile(r"^[\s>]*(\d+\.|\d+\)|\*|-|\+)\s*(\[.{0,1}\])?\s*(.*)$")
_MD = MarkdownIt("commonmark").enable("table")


def _tagged(value: Any) -> Any:
    """A PyYAML value as JSON, dates tagged (what vaultbrain meant the property to be)."""
    if isinstance(value, dt.datetime):
        return {"$date": value.strftime("%Y-%m-%dT%H:%M:%S")}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, list):
        return [_tagged(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _tagged(v) for k, v in value.items()}
    return value


def _py_type(value: Any) -> Any:
    if value is None:
        return "null"
    if isinstance(value, list):
        return [_py_type(v) for v in value]
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    return "string"


def _shape(rel: str, text: str) -> dict[str, Any]:
    """What Obsidian's metadata cache gives Dataview: the frontmatter and the list items
    (CommonMark, with the first line's text as Dataview's LIST_ITEM_REGEX takes it)."""
    note = parse_note(text)
    lines = text.split("\n")
    start = text[: note.body_start].count("\n") if note.has_frontmatter else 0
    body = "\n".join(lines[start:])
    in_items: set[int] = set()
    items = []
    for token in _MD.parse(body):
        if token.type != "list_item_open" or token.map is None:
            continue
        first = token.map[0] + start
        m = _LIST_ITEM.match(lines[first])
        if m is None:
            continue
        box = m.group(2)
        items.append({"line": first, "text": m.group(3), "task": box[1:-1] if box else None})
        in_items.add(first)
    others = [
        {"line": i, "text": line}
        for i, line in enumerate(lines)
        if i >= start and i not in in_items
    ]
    intended: dict[str, Any] = {}
    if note.has_frontmatter and note.raw.strip():
        loaded = yaml.load(note.raw, Loader=yaml.CSafeLoader) or {}
        intended = {str(k): _tagged(v) for k, v in loaded.items()}
    return {
        "path": rel,
        "yaml": note.raw if note.has_frontmatter else None,
        "intended": intended,
        "items": items,
        "lines": others,
    }


@pytest.fixture(scope="module")
def read(vault: Path, node: tuple[str, Path]) -> dict[str, dict[str, Any]]:
    exe, modules = node
    notes = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        notes.append(_shape(rel, path.read_text("utf-8")))
    done = subprocess.run(
        [exe, str(READER)],
        input=json.dumps({"notes": notes}),
        capture_output=True,
        text=True,
        env={**os.environ, "VAULTBRAIN_NODE_MODULES": str(modules)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["notes"]
    by_path = {n["path"]: n for n in out}
    for n in notes:
        by_path[n["path"]]["py"] = {
            k: _py_type(v)
            for k, v in (
                yaml.load(n["yaml"], Loader=yaml.CSafeLoader) if n["yaml"] else {}
            ).items()
        } if n["yaml"] else {}  # fmt: skip
    return by_path


# -- the contract -------------------------------------------------------------------------------


def test_the_vault_has_what_the_contract_reads(vault: Path, read: dict) -> None:
    kinds = {rel.split("/")[0] for rel in read}
    assert {"Inbox.md", "Admin", "People", "Projects", "Ideas", "Consumed", "Brain"} <= kinds
    assert any(rel.startswith("Brain/Digests/") for rel in read)
    assert any(rel.startswith("Brain/Reviews/") for rel in read)


def test_every_property_has_one_type_for_pyyaml_jsyaml_and_dataview(read: dict) -> None:
    disagreements = []
    for rel, note in read.items():
        if note["yaml_error"]:
            disagreements.append(f"{rel}: js-yaml cannot read it: {note['yaml_error']}")
            continue
        for key, py in note["py"].items():
            js = note["jsyaml"].get(key)
            if js != py:
                disagreements.append(f"{rel} {key}: PyYAML {py}, js-yaml {js}")
            if note["dataview"].get(key) != note["intended"].get(key):
                disagreements.append(
                    f"{rel} {key}: Dataview {note['dataview'].get(key)}, "
                    f"meant {note['intended'].get(key)}"
                )
    assert disagreements == []


def test_typed_values_are_what_the_pack_says(vault: Path, read: dict) -> None:
    project = read["Projects/Garden makeover.md"]
    assert project["jsyaml"]["people"] == ["string", "string"]
    assert project["dataview"]["people"] == ["string", "link"]  # "2024" names no note
    assert frontmatter(vault / "Projects/Garden makeover.md")["people"] == [
        "2024",
        "[[People/José Ñúñez|José Ñúñez]]",
    ]
    assert project["dataview"]["deadline"] == "date"
    ada = read["People/Ada Lovelace.md"]
    assert ada["jsyaml"]["topics"] == ["string"] * 5 and ada["jsyaml"]["contact"] == "string"
    idea = read["Ideas/2026-12-01.md"]
    assert idea["jsyaml"]["title"] == "string" and idea["jsyaml"]["one_liner"] == "string"
    video = next(rel for rel in read if rel.startswith("Consumed/YouTube/") and "2026-12-01" in rel)
    assert read[video]["jsyaml"]["title"] == "string"
    assert read[video]["jsyaml"]["channel"] == "string"
    assert read[video]["jsyaml"]["duration"] == "string"
    assert read[video]["jsyaml"]["published"] == "date"
    for rel, note in read.items():
        if rel.startswith("Admin/"):
            assert note["dataview"].get("due", "date") == "date", rel


def test_copied_text_carries_no_field(read: dict) -> None:
    """Outside the inbox (where the person's words stay as typed), the only fields Dataview
    reads in a body are those of a record's one Tasks line."""
    stray = []
    for rel, note in read.items():
        if rel == "Inbox.md":
            continue
        task_lines = [i for i in note["items"] if i["task"] is not None]
        own = task_lines[0]["line"] if rel.startswith("Admin/") and task_lines else None
        for item in note["items"]:
            if item["fields"] and item["line"] != own and not rel.startswith("Brain/Archive/"):
                stray.append(f"{rel}:{item['line'] + 1}: {item['text']} -> {item['fields']}")
        for line in note["lines"]:
            stray.append(f"{rel}:{line['line'] + 1}: {line['text']} -> {line['fields']}")
    assert stray == []


def test_a_dataview_task_listing_counts_each_real_task_once(vault: Path, read: dict) -> None:
    listed = [
        (rel, item)
        for rel, note in read.items()
        for item in note["items"]
        if item["task"] is not None and rel != "Inbox.md" and not rel.startswith("Brain/")
    ]
    admin = sorted(rel for rel in read if rel.startswith("Admin/"))
    assert sorted(rel for rel, _ in listed) == admin  # one task per admin note, nothing else
    for rel, item in listed:
        due = frontmatter(vault / rel).get("due")
        assert item["fields"].get("due", {}).get("value") == due, (rel, item)
    dated = [
        (rel, item["text"])
        for rel, note in read.items()
        for item in note["items"]
        if rel != "Inbox.md" and "due" in item["fields"]
    ]
    assert sorted(rel for rel, _ in dated) == sorted(
        rel for rel in admin if frontmatter(vault / rel).get("due")
    ), dated


def test_typed_tasks_syntax_became_fields(vault: Path) -> None:
    water = frontmatter(vault / "Admin/Water plants.md")
    assert (water["due"], water["recurrence"]) == ("2026-12-05", "every week")
    assert frontmatter(vault / "Admin/Renew the domain.md")["priority"] == "highest"
    rent = frontmatter(vault / "Admin/Pay rent.md")
    assert (rent["due"], rent["recurrence"]) == ("2026-12-01", "every month on the 1st")
    car = (vault / "Admin/Book the car service.md").read_text("utf-8")
    assert "- [ ] Book the car service #car ⏳ 2026-12-10 📅 2026-12-12" in car


# -- Obsidian Tasks: vaultbrain's own checkboxes stay out of the person's task lists -------------

TASKS_READER = Path(__file__).with_name("tasks_reader.js")
TEN = [
    "water plants 🔁 every week 📅 2026-12-05",
    "call the dentist ⏫ 📅 2026-12-09",
    "Renew the domain 🔺",
    "pay rent [due:: 2026-12-01] (repeat:: every month on the 1st)",
    "book the car service ⏳ 2026-12-10 📅 2026-12-12 #car",
    "Met with Sarah about the garden project, follow up next week",
    "Idea: a podcast about bees",
    "buy milk",
    "ask Tom about the budget for the kitchen project 📅 2026-12-20",
    "something about the thing",
]
# The person's own tasks, in a note of their own: real, whatever vaultbrain does.
OWN_NOTE = "Projects/Allotment.md"
OWN = "# Allotment\n\n- [ ] order seeds 📅 2026-12-07\n- [x] dig the bed ✅ 2026-12-01\n"


@pytest.fixture(scope="module")
def node_exe() -> str:
    exe = shutil.which("node")
    if exe is None:
        unavailable("node is not installed (the Obsidian Tasks contract needs node 18+)")
    assert exe is not None
    return exe


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    """A fresh vault with Obsidian Tasks installed (never configured), after ten captures
    (some filed, some waiting as suggestions, one needing a decision) and a daemon pass; and
    what `doctor` said of Tasks before and after its line was put in Tasks' Global Query."""
    base = tmp_path_factory.mktemp("tasks-contract")
    root = base / "Vault"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VAULTBRAIN_HOME", str(base / "home"))
        mp.setenv("XDG_STATE_HOME", str(base / "home" / "state"))
        mp.setenv("VAULTBRAIN_STATE_DIR", str(base / "state"))
        mp.setenv("VAULTBRAIN_PROVIDER", "heuristic")
        for var in ("VAULTBRAIN_VAULT", "VAULTBRAIN_MODEL", "VAULTBRAIN_ENDPOINT"):
            mp.delenv(var, raising=False)
        mp.delenv("VAULTBRAIN_SCHEMA_PACK", raising=False)
        run(root, "init")
        (root / ".obsidian" / "plugins" / "obsidian-tasks-plugin").mkdir(parents=True)
        run(root, "settings", "set", "auto_confidence", "0.95")  # some wait as suggestions
        (root / OWN_NOTE).parent.mkdir(parents=True, exist_ok=True)
        (root / OWN_NOTE).write_text(OWN, "utf-8")
        for text in TEN:
            run(root, "capture", text)
        run(root, "daemon", "--once")
        said = [run(root, "doctor", ok=False).output]
        line = re.search(r"\"Global Query\": (.+)$", said[0], re.M)
        assert line is not None, said[0]
        data = root / ".obsidian" / "plugins" / "obsidian-tasks-plugin" / "data.json"
        data.write_text(json.dumps({"globalQuery": line.group(1).strip()}), "utf-8")
        said.append(run(root, "doctor", ok=False).output)
        yield root, said


def _tasks(vault: Path, node_exe: str, global_query: str = "") -> list[dict[str, Any]]:
    """Every task Tasks makes of the vault: the lines Obsidian's cache flags as tasks."""
    notes = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        text = path.read_text("utf-8")
        lines = text.split("\n")
        items = [
            {"line": i["line"], "raw": lines[i["line"]], "task": i["task"]}
            for i in _shape(rel, text)["items"]
            if i["task"] is not None
        ]
        notes.append({"path": rel, "items": items})
    done = subprocess.run(
        [node_exe, str(TASKS_READER)],
        input=json.dumps({"notes": notes, "globalFilter": "", "globalQuery": global_query}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    tasks: list[dict[str, Any]] = json.loads(done.stdout)["tasks"]
    return tasks


def _real(vault: Path) -> list[tuple[str, str]]:
    """The real open tasks: each admin note's one Tasks line, and the person's own."""
    out = [(OWN_NOTE, "order seeds")]
    for path in sorted((vault / "Admin").glob("*.md")):
        if frontmatter(path).get("status") in (None, "open", "waiting"):
            out.append((path.relative_to(vault).as_posix(), str(frontmatter(path)["title"])))
    return sorted(out)


def test_tasks_lists_only_the_real_open_tasks(fresh: tuple[Path, list[str]], node_exe: str) -> None:
    vault, said = fresh
    assert "[warn] obsidian tasks: Tasks lists vaultbrain's own checkboxes" in said[0]
    assert "[ok  ] obsidian tasks:" in said[1] and "Global Query leaves" in said[1]
    query = json.loads(
        (vault / ".obsidian/plugins/obsidian-tasks-plugin/data.json").read_text("utf-8")
    )["globalQuery"]
    everything = _tasks(vault, node_exe)
    open_ = [t for t in everything if t["statusType"] in ("TODO", "IN_PROGRESS")]
    # The premise: vaultbrain's own open checkboxes are there (waiting inbox lines, Needs
    # Review items), and Tasks without the line lists them with the person's tasks.
    assert any(t["path"] == "Inbox.md" for t in open_), open_
    assert any(t["path"] == "Brain/Needs Review.md" for t in open_), open_
    listed = _tasks(vault, node_exe, query)
    seen = sorted(
        (t["path"], t["description"])
        for t in listed
        if t["listed"] and t["statusType"] in ("TODO", "IN_PROGRESS")
    )
    real = _real(vault)
    assert [p for p, _ in seen] == [p for p, _ in real]  # each real task once, nothing else
    for (_, description), (path, title) in zip(seen, real, strict=True):
        assert description.startswith(title) or path == OWN_NOTE, (description, title)
    # Done tasks are theirs too: the inbox's ticked lines are not listed as done tasks.
    done = [t["path"] for t in listed if t["listed"] and t["statusType"] == "DONE"]
    assert OWN_NOTE in done
    assert all(p.startswith("Admin/") or p == OWN_NOTE for p in done), done


def test_no_line_of_vaultbrain_carries_a_field_tasks_reads(
    fresh: tuple[Path, list[str]], node_exe: str
) -> None:
    """Even without the Global Query line, a date or recurrence query lists only real tasks:
    the 📅 🔁 ⏫ typed on an inbox line are words to Tasks (vaultbrain's suffix and block id
    end the line), and a tick on it with Tasks makes no next occurrence."""
    vault, _ = fresh
    dated = sorted(
        t["path"]
        for t in _tasks(vault, node_exe)
        if t["due"] or t["recurrence"] or t["priority"] or t["scheduled"]
    )
    assert dated, "the premise: the admin notes carry their fields"
    assert all(p.startswith("Admin/") or p == OWN_NOTE for p in dated), dated
    inbox = (vault / "Inbox.md").read_text("utf-8")
    assert "📅 2026-12-05" in inbox  # the person's words stay as typed


def test_a_dataview_task_query_as_documented_lists_only_the_real_open_tasks(
    fresh: tuple[Path, list[str]], node: tuple[str, Path]
) -> None:
    """Dataview has no global setting: the documented query leaves the inbox and ``Brain/``
    out (``TASK FROM -"Inbox" AND -"Brain" WHERE !completed``); read by Dataview's own code,
    it lists each real open task once, with its due date."""
    vault, _ = fresh
    exe, modules = node
    notes = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if not any(part.startswith(".") for part in rel.split("/")):
            notes.append(_shape(rel, path.read_text("utf-8")))
    done = subprocess.run(
        [exe, str(READER)],
        input=json.dumps({"notes": notes}),
        capture_output=True,
        text=True,
        env={**os.environ, "VAULTBRAIN_NODE_MODULES": str(modules)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    listed = sorted(
        (
            (n["path"], item)
            for n in json.loads(done.stdout)["notes"]
            for item in n["items"]
            if item["task"] == " "
            and n["path"] != "Inbox.md"
            and not n["path"].startswith("Brain/")
        ),
        key=lambda found: found[0],
    )
    assert [p for p, _ in listed] == [p for p, _ in _real(vault)]
    for rel, item in listed:
        due = frontmatter(vault / rel).get("due") if rel.startswith("Admin/") else "2026-12-07"
        assert item["fields"].get("due", {}).get("value") == due, (rel, item)
