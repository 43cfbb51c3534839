"""Typed links shown on vaultbrain's own record notes (a property per link type, the inverse
on the target), never on a note the person made, and gone from both sides when the link is
removed from the text."""

from __future__ import annotations

from pathlib import Path

from support.cli import frontmatter, run

from vaultbrain.brain import Brain
from vaultbrain.filing.sync import notes_sync
from vaultbrain.graph import graph_of


def _own(vault: Path, rel: str, type_name: str, name: str, body: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\ntype: {type_name}\nid: {name.lower()}1\nname: {name}\n"
        f'source: "[[Inbox#^vb-{name.lower()}]]"\nclassified_by: heuristic\n---\n{body}\n',
        "utf-8",
    )


def test_own_notes_show_typed_links_both_ways_hand_made_notes_are_untouched(
    vault: Path,
) -> None:
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _own(vault, "People/Tom.md", "person", "Tom", "Tom works at [[Acme]] now.")
    _own(vault, "Companies/Acme.md", "company", "Acme", "Makes anvils.")
    hand = "---\ntype: person\nname: Hana\n---\nHana works at [[Acme]] too.\n"
    (vault / "People/Hana.md").write_text(hand, "utf-8")
    run(vault, "reindex")

    assert frontmatter(vault / "People/Tom.md")["works_at"] == ["[[Companies/Acme|Acme]]"]
    assert frontmatter(vault / "Companies/Acme.md")["employs"] == [
        "[[People/Hana|Hana]]",
        "[[People/Tom|Tom]]",
    ]
    hana = frontmatter(vault / "People/Hana.md")
    assert "works_at" not in hana and "employs" not in hana  # the person's note: store only
    assert (vault / "People/Hana.md").read_text("utf-8").endswith("Hana works at [[Acme]] too.\n")
    text = (vault / "People/Tom.md").read_text("utf-8")
    assert 'works_at:\n  - "[[Companies/Acme|Acme]]"\n' in text  # quoted, a block list
    assert text.endswith("Tom works at [[Acme]] now.\n")  # the body untouched

    # the link leaves Tom's text: it leaves both notes at the next sync
    body = text.replace("Tom works at [[Acme]] now.", "Tom left.")
    (vault / "People/Tom.md").write_text(body, "utf-8")
    brain = Brain(vault)
    graph_of(brain)
    notes_sync(brain).sync_path("People/Tom.md")
    assert "works_at" not in frontmatter(vault / "People/Tom.md")
    assert frontmatter(vault / "Companies/Acme.md")["employs"] == ["[[People/Hana|Hana]]"]

    # a sync that changes nothing writes nothing
    before = {p: (vault / p).read_text() for p in ("People/Tom.md", "Companies/Acme.md")}
    notes_sync(brain).sync_path("Companies/Acme.md")
    notes_sync(brain).sync_path("People/Tom.md")
    assert before == {p: (vault / p).read_text() for p in before}

    # Hana's note goes: Acme forgets her
    (vault / "People/Hana.md").unlink()
    notes_sync(brain).sync_path("People/Hana.md")
    assert "employs" not in frontmatter(vault / "Companies/Acme.md")
