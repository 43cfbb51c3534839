"""Typed link inference and resolution, as a table: regex rules, frontmatter links,
"every link of this page type" rules, basename / path / alias resolution, ambiguous names,
and a link removed from the text disappearing from both sides."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.links import counts, links_of
from vaultbrain.packs.loader import load_pack
from vaultbrain.vault import Vault

PERSON = "---\ntype: person\nname: {name}\n{extra}---\n{body}\n"


def person(name: str, body: str = "", extra: str = "") -> str:
    return PERSON.format(name=name, body=body, extra=extra)


def meeting(attendees: list[str], body: str = "") -> str:
    items = "".join(f'  - "[[{a}]]"\n' for a in attendees)
    return f"---\ntype: meeting\ntitle: Sync\nattendees:\n{items}---\n{body}\n"


def _graph(tmp_path: Path, notes: dict[str, str]) -> tuple[Vault, GraphIndex]:
    root = tmp_path / "v"
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    vault = Vault(root, tmp_path / "state")
    pack = load_pack("vaultbrain-recommended")
    graph = GraphIndex(tmp_path / "state", lambda rel: pack, pack.identity)
    graph.catch_up(vault)
    return vault, graph


def _out(graph: GraphIndex, ref: str) -> set[tuple[str, str | None]]:
    doc = links_of(graph, ref, load_pack("vaultbrain-recommended"))
    return {(r["type"], r["to"] or f"?{r['name']}") for r in doc["out"]}


def _in(graph: GraphIndex, ref: str) -> set[tuple[str, str]]:
    doc = links_of(graph, ref, load_pack("vaultbrain-recommended"))
    return {(r["type"], r["from"]) for r in doc["in"]}


CASES = [
    pytest.param(
        {
            "People/Tom.md": person("Tom", "Tom works at [[Acme]] since May."),
            "Companies/Acme.md": "Acme makes anvils.\n",
        },
        "People/Tom.md",
        {("works_at", "Companies/Acme.md")},
        "Companies/Acme.md",
        {("employs", "People/Tom.md")},
        id="regex-by-basename",
    ),
    pytest.param(
        {
            "People/Tom.md": person("Tom", "He works at [[Companies/Acme|the anvil people]]."),
            "Companies/Acme.md": "x\n",
            "Archive/Acme.md": "an old Acme note\n",
        },
        "People/Tom.md",
        {("works_at", "Companies/Acme.md")},
        "Companies/Acme.md",
        {("employs", "People/Tom.md")},
        id="regex-by-path-despite-two-basenames",
    ),
    pytest.param(
        {
            "People/Tom.md": person("Tom", "Tom works at [[Acme]]."),
            "Companies/Acme.md": "x\n",
            "Archive/Acme.md": "y\n",
        },
        "People/Tom.md",
        {("works_at", "?acme")},
        "Companies/Acme.md",
        set(),
        id="ambiguous-basename-stays-unresolved",
    ),
    pytest.param(
        {
            "People/Tom.md": person("Tom", "Tom works at [[ACME Corp]]."),
            "Companies/Acme.md": "---\ntype: company\naliases: [ACME Corp]\n---\nx\n",
        },
        "People/Tom.md",
        {("works_at", "Companies/Acme.md")},
        "Companies/Acme.md",
        {("employs", "People/Tom.md")},
        id="by-alias",
    ),
    pytest.param(
        {
            "People/Tom.md": person("Tom", "Tom works at [[Sarah]]."),
            "People/Sarah.md": person("Sarah"),
        },
        "People/Tom.md",
        set(),
        "People/Sarah.md",
        set(),
        id="target-type-must-match",
    ),
    pytest.param(
        {
            "People/Tom.md": person("Tom", "Tom works at [[Initech]] (not written yet)."),
        },
        "People/Tom.md",
        {("works_at", "?initech")},
        "People/Tom.md",
        set(),
        id="regex-link-to-a-missing-note-kept-unresolved",
    ),
    pytest.param(
        {
            "Meetings/Sync.md": meeting(["People/Sarah|Sarah", "Tom"], "Notes with [[Bob]]."),
            "People/Sarah.md": person("Sarah"),
            "People/Tom.md": person("Tom"),
            "People/Bob.md": person("Bob"),
            "Companies/Bob.md": "---\ntype: company\n---\n",
        },
        "Meetings/Sync.md",
        {("attendee", "People/Sarah.md"), ("attendee", "People/Tom.md")},
        "People/Tom.md",
        {("attended", "Meetings/Sync.md")},
        id="frontmatter-links-and-an-ambiguous-body-link",
    ),
    pytest.param(
        {
            "Meetings/Sync.md": meeting([], "Met [[Sarah]] and [[Acme]]."),
            "People/Sarah.md": person("Sarah"),
            "Companies/Acme.md": "x\n",
        },
        "Meetings/Sync.md",
        {("attendee", "People/Sarah.md")},
        "People/Sarah.md",
        {("attended", "Meetings/Sync.md")},
        id="page-type-rule-takes-only-links-to-the-target-type",
    ),
    pytest.param(
        {
            "Notes/Loose.md": "Tom works at [[Acme]].\n",
            "Companies/Acme.md": "x\n",
        },
        "Notes/Loose.md",
        set(),
        "Companies/Acme.md",
        set(),
        id="rule-for-person-ignores-an-untyped-note",
    ),
]


@pytest.mark.parametrize(("notes", "src", "out", "dst", "inc"), CASES)
def test_link_inference(
    tmp_path: Path,
    notes: dict[str, str],
    src: str,
    out: set,
    dst: str,
    inc: set,
) -> None:
    _, graph = _graph(tmp_path, notes)
    assert _out(graph, src) == out
    assert _in(graph, dst) == inc


def test_a_link_removed_from_the_text_disappears_from_both_sides(tmp_path: Path) -> None:
    _vault, graph = _graph(
        tmp_path,
        {
            "People/Tom.md": person("Tom", "Tom works at [[Acme]]."),
            "Companies/Acme.md": "x\n",
        },
    )
    assert _in(graph, "Acme") == {("employs", "People/Tom.md")}
    graph.note_changed("People/Tom.md", person("Tom", "Tom left Acme."))
    assert _out(graph, "Tom") == set()
    assert _in(graph, "Acme") == set()
    assert counts(graph) == {}


def test_a_target_written_later_resolves_without_rereading_the_source(tmp_path: Path) -> None:
    vault, graph = _graph(tmp_path, {"People/Tom.md": person("Tom", "Tom works at [[Acme]].")})
    assert _out(graph, "Tom") == {("works_at", "?acme")}
    (vault.root / "Companies").mkdir()
    (vault.root / "Companies/Acme.md").write_text("x\n")
    assert graph.catch_up(vault) == {"indexed": 1, "dropped": 0}
    assert _out(graph, "Tom") == {("works_at", "Companies/Acme.md")}
    assert counts(graph) == {"works_at": 1}


def test_a_person_names_a_note_by_path_name_or_alias(tmp_path: Path) -> None:
    _, graph = _graph(
        tmp_path, {"Companies/Acme.md": "---\ntype: company\naliases: [Anvils Inc]\n---\n"}
    )
    for ref in ("Companies/Acme.md", "companies/acme", "Acme", "anvils inc"):
        assert links_of(graph, ref, load_pack("vaultbrain-recommended"))["note"] == (
            "Companies/Acme.md"
        )
