"""tend reads again only what changed, and finds exactly what a full reading finds: the
cards kept in the state dir's cache are the cards the notes give, an edited note is read
again, and enrich's ``since_last`` (the cycle's) proposes what a whole run proposes after
every kind of change (a new linking note, a link removed, a note deleted, an alias, the day
moving past a date)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from support.cli import run

from vaultbrain.brain import Brain
from vaultbrain.capture.reindex import reindex
from vaultbrain.graph.enrich import enrich
from vaultbrain.graph.open import graph_of
from vaultbrain.tend.cards import Card, read_cards, survey


def _write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, "utf-8")


def _meeting(vault: Path, title: str, day: str, person: str, body: str) -> None:
    _write(
        vault,
        f"Meetings/{title}.md",
        f"---\ntype: meeting\ntitle: {title}\ndate: {day}\ntags:\n  - garden\n"
        f'attendees:\n  - "[[People/{person}|{person}]]"\n---\n{body}\n',
    )


def _brain(vault: Path, day: str) -> Brain:
    brain = Brain(vault, clock=lambda: dt.datetime.fromisoformat(day + "T09:00:00"))
    reindex(brain)
    return brain


def _seen(card: Card) -> tuple[Any, ...]:
    return (
        card.rel,
        card.type,
        card.title,
        card.data,
        card.aliases,
        card.emails,
        card.links,
        card.size,
        sorted(card.dates()),
    )


def _both(brain: Brain) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    graph = graph_of(brain)
    full = enrich(brain, graph, dry_run=True)
    since = enrich(brain, graph, dry_run=True, since_last=True)
    return full, since


def _setup(vault: Path) -> None:
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _write(
        vault, "People/Sarah Lind.md", "---\ntype: person\nname: Sarah Lind\n---\nMet 2026-09-03.\n"
    )
    _write(vault, "People/Tom.md", "---\ntype: person\nname: Tom\nemail: tom@example.com\n---\n")
    _write(
        vault,
        "Projects/Hives.md",
        '---\ntype: project\nname: Hives\nstarted: 2026-08-01\npeople:\n  - "[[People/Tom]]"\n'
        "---\nSee [[People/Sarah Lind]].\n",
    )
    _meeting(vault, "Seed swap", "2026-10-01", "Sarah Lind", "Sarah is sarah@example.com now.")
    _meeting(vault, "Hive day", "2026-11-20", "Sarah Lind", "Write to Sarah at sarah@example.com.")
    _meeting(vault, "Tom chat", "2026-11-01", "Tom", "Tom at tom@new.example.")


def test_cards_from_the_cache_are_the_notes_cards_and_an_edit_is_read_again(vault: Path) -> None:
    _setup(vault)
    brain = _brain(vault, "2026-11-25")
    read = read_cards(brain)  # (every note read: the cache filled)
    kept = read_cards(brain)  # (every card from the cache)
    assert read and [_seen(c) for c in kept] == [_seen(c) for c in read]
    assert all(c.body == "" for c in kept), "the second walk read no note"
    hives = next(c for c in kept if c.rel == "Projects/Hives.md")
    assert dt.date(2026, 8, 1) in hives.dates() and isinstance(hives.data["started"], dt.date)
    assert "people/sarah lind" in hives.links

    _write(vault, "People/Tom.md", "---\ntype: person\nname: Tom\nemail: tom@new.example\n---\n")
    again = {c.rel: c for c in read_cards(brain)}
    assert again["People/Tom.md"].emails == {"tom@new.example"}
    (vault / "People/Tom.md").unlink()
    assert "People/Tom.md" not in {c.rel for c in read_cards(brain)}
    _write(vault, "Scratch/Idea.md", "Ask [[People/Sarah Lind]] about bees.\n")
    assert "people/sarah lind" in survey(brain).other_links["Scratch/Idea.md"]
    assert "people/sarah lind" in survey(brain).other_links["Scratch/Idea.md"]  # (kept)


def test_enrich_since_last_finds_what_a_whole_run_finds(vault: Path) -> None:
    _setup(vault)
    brain = _brain(vault, "2026-11-25")
    full, since = _both(brain)
    assert full and since == full
    assert _both(brain)[1] == full  # (from what was kept)

    # a new note linking to Sarah, with another address said twice
    _meeting(vault, "Pond", "2026-11-22", "Sarah Lind", "Sarah: s.lind@example.com")
    _meeting(vault, "Pond 2", "2026-11-23", "Sarah Lind", "Sarah: s.lind@example.com")
    _meeting(vault, "Pond 3", "2026-11-24", "Sarah Lind", "Sarah: s.lind@example.com")
    full, since = _both(_brain(vault, "2026-11-25"))
    assert since == full

    # a link taken out of a note, and a note deleted
    _write(vault, "Meetings/Pond 2.md", "---\ntype: meeting\ntitle: Pond 2\n---\nNobody.\n")
    (vault / "Meetings/Pond 3.md").unlink()
    full, since = _both(_brain(vault, "2026-11-25"))
    assert since == full

    # an alias: Tom's note now also answers to a name another link used
    _write(
        vault,
        "People/Tom.md",
        "---\ntype: person\nname: Tom\naliases:\n  - Tommy\n---\n",
    )
    _write(vault, "Meetings/Jam.md", "---\ntype: meeting\ndate: 2026-11-24\n---\n[[Tommy]] came.\n")
    full, since = _both(_brain(vault, "2026-11-25"))
    assert since == full

    # a meeting dated ahead: counted once the day has come
    _meeting(vault, "Later", "2026-12-02", "Tom", "Tom again.")
    full, since = _both(_brain(vault, "2026-11-25"))
    assert since == full
    full, since = _both(_brain(vault, "2026-12-03"))
    assert since == full
    tom = next((r for r in full if r["path"] == "People/Tom.md"), None)
    assert tom is not None and tom["fields"]["last_interaction"]["value"] == "2026-12-02"


def _phases(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        name: {k: v for k, v in r.items() if k != "seconds"}
        for name, r in entry["phases"].items()
        if name in ("consolidate", "drift", "orphans")
    }


def test_a_cycle_keeps_results_only_while_no_note_they_come_from_changed(vault: Path) -> None:
    from vaultbrain.tend.cycle import run_tend

    _setup(vault)
    _write(vault, "People/Sarah.md", "---\ntype: person\nname: Sarah\n---\n")
    _write(vault, "People/Quiet One.md", "---\ntype: person\nname: Quiet One\n---\n")
    _write(
        vault,
        "Admin/Renew passport.md",
        "---\ntype: admin\ntitle: Renew passport\ndue: 2026-12-20\nstatus: open\n---\n",
    )
    first = run_tend(_brain(vault, "2026-11-25"), phases=("consolidate", "drift", "orphans"))
    assert first["phases"]["drift"]["overdue"] == []
    assert "People/Quiet One.md" in [o["note"] for o in first["phases"]["orphans"]["orphans"]]
    assert [p["other"] for p in first["phases"]["consolidate"]["proposed"]] == ["People/Sarah.md"]
    again = run_tend(_brain(vault, "2026-11-25"), phases=("consolidate", "drift", "orphans"))
    assert _phases(again)["drift"] == _phases(first)["drift"]
    assert _phases(again)["orphans"] == _phases(first)["orphans"]
    assert again["phases"]["consolidate"]["proposed"] == []  # (proposed once)

    # the day moves past the due day; a plain note links the quiet one; a duplicate appears
    _write(vault, "Scratch/Call.md", "Call [[People/Quiet One]].\n")
    _write(vault, "People/Tom Berg.md", "---\ntype: person\nname: Tom Berg\n---\n")
    later = run_tend(_brain(vault, "2026-12-21"), phases=("consolidate", "drift", "orphans"))
    assert [r["note"] for r in later["phases"]["drift"]["overdue"]] == ["Admin/Renew passport.md"]
    assert "People/Quiet One.md" not in [o["note"] for o in later["phases"]["orphans"]["orphans"]]
    assert [p["other"] for p in later["phases"]["consolidate"]["proposed"]] == ["People/Tom.md"]

    # the admin note closed by hand: no longer overdue on the same day
    _write(
        vault,
        "Admin/Renew passport.md",
        "---\ntype: admin\ntitle: Renew passport\ndue: 2026-12-20\nstatus: done\n---\n",
    )
    closed = run_tend(_brain(vault, "2026-12-21"), phases=("drift",))
    assert closed["phases"]["drift"]["overdue"] == []
