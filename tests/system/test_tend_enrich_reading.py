"""Enrich as the tending cycle runs it over most of a vault (a first cycle): the graph index
read once per run, every name and link at once (``Reading``), finds exactly what asking the
index note by note finds: each rule's inputs and each record's proposals, on a vault with
ambiguous names, aliases, links that resolve to nothing and notes linking by alias."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from support.cli import run

from vaultbrain.brain import Brain
from vaultbrain.capture.reindex import reindex
from vaultbrain.graph import enrich as enrich_mod
from vaultbrain.graph.enrich import enrich
from vaultbrain.graph.enrich_rules import _backlinks, link_keys_of, propose, reading
from vaultbrain.graph.open import graph_of


def _write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, "utf-8")


def _vault(vault: Path) -> Brain:
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _write(vault, "People/Sarah.md", "---\ntype: person\nname: Sarah\naliases:\n  - Sal\n---\n")
    _write(vault, "People/Tom.md", "---\ntype: person\nname: Tom\n---\nTom. tom@new.example\n")
    _write(vault, "Archive/Tom.md", "---\ntype: person\nname: Tom\n---\nAnother Tom.\n")
    _write(vault, "People/Ann Lee.md", "---\ntype: person\nname: Ann Lee\n---\n")
    _write(vault, "Projects/Hives.md", "---\ntype: project\nname: Hives\n---\nWith [[Sal]].\n")
    for i, (who, day) in enumerate(
        [("Sarah", "2026-10-01"), ("Sal", "2026-11-20"), ("Tom", "2026-11-01"), ("Nobody", "")]
    ):
        date = f"date: {day}\n" if day else ""
        _write(
            vault,
            f"Meetings/Meet {i}.md",
            f"---\ntype: meeting\ntitle: Meet {i}\n{date}tags:\n  - garden\n  - bees\n"
            f'attendees:\n  - "[[{who}]]"\n---\n{who} is at {who.lower()}@example.com.\n'
            "Also [[People/Ann Lee|Ann]] and [[Ann Lee]].\n",
        )
    brain = Brain(vault, clock=lambda: dt.datetime(2026, 11, 25, 9, 0))
    reindex(brain)
    return brain


def test_a_run_that_reads_the_index_at_once_finds_what_asking_note_by_note_finds(
    vault: Path, monkeypatch: Any
) -> None:
    brain = _vault(vault)
    graph = graph_of(brain)
    whole, memo = reading(graph, whole=True), reading(graph)
    nids = [n for (n,) in graph.db.execute("SELECT id FROM notes ORDER BY rel")]
    keys = sorted(
        {k for (k,) in graph.db.execute("SELECT key FROM names UNION SELECT key FROM links")}
    )
    assert keys and len(nids) > 8
    for k in [*keys, "no such note"]:
        assert whole.resolve(k) == memo.resolve(k) == graph.resolve(k), k
    today = dt.date(2026, 11, 25)
    people = enrich_mod.people_names(graph, ["person"])
    for nid in nids:
        assert sorted(whole.keys_of(nid)) == sorted(graph.keys_of(nid))
        assert sorted(link_keys_of(whole, nid)) == sorted(link_keys_of(graph, nid))
        assert _backlinks(whole, nid) == _backlinks(memo, nid) == _backlinks(graph, nid)
        row = graph.note_row(nid)
        ptype = brain.pack.get_type(row["type"]) if row["type"] else None
        if ptype is not None and ptype.fields:
            got = propose(whole, nid, ptype, today, None, people)
            assert got == propose(graph, nid, ptype, today, None, people), row["rel"]
    sarah = graph.note_id_exact("People/Sarah.md")
    assert sarah is not None and len(_backlinks(whole, sarah)) == 3  # (by name and by alias)

    # the whole run, both ways (a run reads at once from WHOLE_AT records found anew)
    plain = enrich(brain, graph, dry_run=True)
    monkeypatch.setattr(enrich_mod, "WHOLE_AT", 1)
    assert enrich(brain, graph, dry_run=True) == plain
    assert any(r["path"] == "People/Sarah.md" for r in plain)


def test_a_person_met_finds_again_only_the_records_a_line_naming_them_may_change(
    vault: Path,
) -> None:
    from vaultbrain.graph.enrich_since import Since

    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _write(vault, "People/Tom.md", "---\ntype: person\nname: Tom\n---\n")
    _write(vault, "People/Ann Lee.md", "---\ntype: person\nname: Ann Lee\n---\n")
    _write(
        vault,
        "Meetings/Lunch.md",
        '---\ntype: meeting\ntitle: Lunch\ndate: 2026-11-02\nattendees:\n  - "[[Tom]]"\n'
        "---\nTom came with Gail: gail@example.com\n",
    )
    _write(
        vault,
        "Meetings/Tea.md",
        '---\ntype: meeting\ntitle: Tea\ndate: 2026-11-03\nattendees:\n  - "[[Ann Lee]]"\n'
        "---\nAnn Lee: ann@example.com\n",
    )
    brain = Brain(vault, clock=lambda: dt.datetime(2026, 11, 25, 9, 0))

    def both() -> list[dict[str, Any]]:
        reindex(brain)
        graph = graph_of(brain)
        since = enrich(brain, graph, dry_run=True, since_last=True)
        assert since == enrich(brain, graph, dry_run=True)  # (as from scratch)
        return since

    def contact(rows: list[dict[str, Any]], rel: str) -> Any:
        return next((r["fields"].get("contact") for r in rows if r["path"] == rel), None)

    first = both()
    assert contact(first, "People/Tom.md")["value"] == "gail@example.com"
    assert contact(first, "People/Ann Lee.md")["value"] == "ann@example.com"
    # Gail met: the line is about someone else now; Ann's records are not found again
    _write(vault, "People/Gail.md", "---\ntype: person\nname: Gail\n---\n")
    reindex(brain)
    graph = graph_of(brain)
    enrichable = [e.type for e in brain.pack.manifest.enrichable_types]
    people = sorted({t.name for t in brain.all_types() if t.expert_routing})
    since = Since(
        brain,
        graph,
        [*enrichable, "|", *people],  # (as enrich asks)
        lambda: enrich_mod.people_names(graph, people),
        dt.date(2026, 11, 25),
    )
    assert since.dirty is not None
    assert "People/Tom.md" in since.dirty and "People/Ann Lee.md" not in since.dirty
    after = both()
    assert contact(after, "People/Tom.md") is None
    assert contact(after, "People/Ann Lee.md") == contact(first, "People/Ann Lee.md")
    # a name beyond plain words: every record found again, as before
    _write(vault, "People/Zoë.md", "---\ntype: person\nname: Zoë\n---\n")
    assert contact(both(), "People/Ann Lee.md") == contact(first, "People/Ann Lee.md")
