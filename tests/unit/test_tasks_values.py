"""Every value keeps its type in Obsidian, Dataview and PyYAML: text that looks like a date,
number, boolean or null is quoted; tags follow Obsidian's rules; generated notes' property
names do not collide with record fields; a digest's mentions link only notes that exist;
a pack's ``tasks:`` block is checked."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from vaultbrain.digest.facts import DailyFacts, Item
from vaultbrain.digest.insights import Insights
from vaultbrain.digest.render import render_digest
from vaultbrain.digest.store_view import Ref
from vaultbrain.filing.records import ordered_frontmatter
from vaultbrain.packs.lint import lint_pack
from vaultbrain.packs.loader import load_pack
from vaultbrain.packs.model import Manifest, ResolvedPack
from vaultbrain.vault.note import Text, parse_note, render_entry, render_note
from vaultbrain.vault.tags import merge_tags, normalize_tag

LOOKALIKES = [
    "2026-12-01",
    "2026-12-01T10:00:00",
    "2026-12-01 10:00:00",
    "2026-1-5 1:02:03",
    "1e3",
    "0o17",
    "0x1F",
    "0b101",
    "017",
    "1_000",
    "+1",
    "-.5",
    ".inf",
    ".NaN",
    "12:30",
    "1:20:30",
    "2026",
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "true",
    "False",
    "~",
    "null",
    "Null",
    "",
    "=",
    "plain words",
]


def _document() -> str:
    return "".join(render_entry(f"k{i}", Text(v)) for i, v in enumerate(LOOKALIKES))


@pytest.mark.parametrize("loader", [yaml.SafeLoader, yaml.BaseLoader, yaml.FullLoader])
def test_text_that_looks_like_another_type_stays_text_in_pyyaml(loader: type) -> None:
    data = yaml.load(_document(), Loader=loader)
    assert [data[f"k{i}"] for i in range(len(LOOKALIKES))] == LOOKALIKES


def _js_yaml() -> str | None:
    """js-yaml (Obsidian's parser) if this machine has it: $JS_YAML or node's own lookup."""
    node = shutil.which("node")
    if node is None:
        return None
    module = os.environ.get("JS_YAML", "js-yaml")
    probe = subprocess.run([node, "-e", f"require({json.dumps(module)})"], capture_output=True)
    return module if probe.returncode == 0 else None


def test_text_that_looks_like_another_type_stays_text_in_js_yaml() -> None:
    module = _js_yaml()
    if module is None:
        pytest.skip("node with js-yaml is not installed (set JS_YAML to its folder)")
    script = (
        f"const y=require({json.dumps(module)});let s='';"
        "process.stdin.on('data',d=>s+=d).on('end',()=>{const o=y.load(s);const t={};"
        "for(const k in o){t[k]=typeof o[k]==='string'?o[k]:null};console.log(JSON.stringify(t))})"
    )
    out = subprocess.run(
        ["node", "-e", script], input=_document(), capture_output=True, text=True, check=True
    )
    data = json.loads(out.stdout)
    assert [data[f"k{i}"] for i in range(len(LOOKALIKES))] == LOOKALIKES


def test_a_record_keeps_its_types_in_the_note() -> None:
    pack = load_pack("vaultbrain-base")
    idea, admin = pack.get_type("idea"), pack.get_type("admin")
    assert idea is not None and admin is not None
    text = render_note(
        ordered_frontmatter(
            idea,
            {"type": "idea", "id": "i1", "created": "2026-12-01T09:00:00"},
            {"title": "2026-12-01", "one_liner": "yes", "related": ["2026"], "tags": ["2026"]},
        ),
        "",
    )
    data = yaml.safe_load(text.split("---\n")[1])
    assert data["title"] == "2026-12-01" and data["one_liner"] == "yes"
    assert data["related"] == ["2026"] and data["tags"] == ["y2026"]
    assert data["created"] == dt.datetime(2026, 12, 1, 9, 0)  # a date-time stays one
    due = render_note(
        ordered_frontmatter(admin, {"type": "admin", "id": "a"}, {"due": "2026-12-08"}), ""
    )
    assert yaml.safe_load(due.split("---\n")[1])["due"] == dt.date(2026, 12, 8)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("#café crème", "café-crème"),
        ("2026", "y2026"),
        ("#1984", "y1984"),
        ("a/b c", "a/b-c"),
        ("  spaced   out ", "spaced-out"),
        ("what?!", "what"),
        ("nested//deep/", "nested/deep"),
        ("under_score-dash", "under_score-dash"),
        ("###", None),
        ("日本語", "日本語"),
    ],
)
def test_tags_follow_obsidians_rules(tag: str, expected: str | None) -> None:
    assert normalize_tag(tag) == expected


def test_tags_merge_once_case_insensitively() -> None:
    assert merge_tags(["ML", "#ml", "deep dive"], "2024") == ["ML", "deep-dive", "y2024"]


def test_generated_notes_use_property_names_no_record_type_uses() -> None:
    day = dt.date(2026, 12, 1)
    facts = DailyFacts(day)
    sarah = Ref("person", "Sarah", "People/Sarah.md", "p1")
    facts.people.append(Item(sarah, "ask about [[wiki|wiki]] and [[Projects/Real|Real]]"))
    exists = {"projects/real", "people/sarah"}.__contains__
    text = render_digest(
        facts,
        Insights(None, "no LLM"),
        exists=lambda t: exists(t.lower()),
    )
    data = parse_note(text).data
    record_fields = {name for t in load_pack("vaultbrain-recommended").types for name in t.fields}
    assert data["people_count"] == 1 and "people" not in data
    counts = [k for k in data if k.endswith("_count")]
    assert counts and not set(counts) & record_fields
    assert data["mentions"] == ["[[People/Sarah|Sarah]]", "[[Projects/Real|Real]]"]


def _pack_with(tasks: dict) -> ResolvedPack:
    doc = {
        "api_version": "vaultbrain-schema-pack-v1",
        "name": "tasky",
        "version": "1.0.0",
        "page_types": [
            {
                "name": "chore",
                "path_prefixes": ["Chores/"],
                "fields": {
                    "title": {"type": "text"},
                    "state": {"type": "enum", "values": ["todo", "done", "parked"]},
                },
                "tasks": tasks,
            }
        ],
    }
    return ResolvedPack(Manifest.model_validate(doc))


def test_lint_checks_the_tasks_block() -> None:
    bad = lint_pack(_pack_with({"status": "state", "due": "when", "statuses": {"todo": " "}}))
    rules = {i.rule: i.severity for i in bad.issues}
    assert rules["tasks_field_undeclared"] == "error" and not bad.ok
    assert rules["tasks_status_unmapped"] == "warning"
    good = _pack_with(
        {
            "title": "title",
            "status": "state",
            "due": None,
            "priority": None,
            "completed": None,
            "statuses": {"todo": " ", "done": "x", "parked": "-"},
        }
    )
    assert lint_pack(good).ok and not [i for i in lint_pack(good).issues if "tasks" in i.rule]
    base = load_pack("vaultbrain-base")
    assert not [i for i in lint_pack(base).issues if i.rule.startswith("tasks")]


def test_a_bad_tasks_block_is_refused_at_load() -> None:
    with pytest.raises(ValueError, match="a Tasks status is one checkbox character"):
        _pack_with({"statuses": {"todo": "xx"}})
    with pytest.raises(ValueError, match="a Tasks priority is one of highest"):
        _pack_with({"priorities": {"p1": "urgent"}})


def test_a_custom_tasks_type_ticks_through(tmp_path: Path) -> None:
    from vaultbrain.filing.records import settle_note

    chore = _pack_with(
        {
            "title": "title",
            "status": "state",
            "due": None,
            "priority": None,
            "completed": None,
            "statuses": {"todo": " ", "done": "x", "parked": "-"},
        }
    ).get_type("chore")
    text = "---\ntitle: Sweep\nstate: todo\n---\n- [-] Sweep\n"
    out = settle_note(text, chore, {"title": "Sweep", "state": "todo"}, dt.date(2026, 12, 2))
    assert out == "---\ntitle: Sweep\nstate: parked\n---\n- [-] Sweep\n"
