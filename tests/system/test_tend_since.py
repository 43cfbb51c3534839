"""A tending cycle after a day's changes works only on the notes that changed (the survey's
change set: drift's kept facts, orphans' kept link counts, consolidate's kept groups), and
finds exactly what a cycle from scratch finds on the same vault: checked phase by phase
after every kind of change, against the notes read afresh (no cache, nothing kept)."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli import run

from vaultbrain.brain import Brain
from vaultbrain.capture.reindex import reindex
from vaultbrain.graph.extract import WIKILINK, base_key, link_key, note_key
from vaultbrain.tend import consolidate as cons
from vaultbrain.tend.card import Card
from vaultbrain.tend.cards import card_of
from vaultbrain.tend.cycle import Cycle
from vaultbrain.tend.drift import facts, judge

RECORDS = ("People/", "Projects/", "Admin/", "Meetings/")


def _write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, "utf-8")
    if path.stat().st_mtime_ns == old:  # (a coarse clock: the edit seen as one)
        os.utime(path, ns=(old + 1_000_000, old + 1_000_000))


def _person(vault: Path, name: str, *extra: str, body: str = "") -> None:
    lines = "\n".join(("type: person", f"name: {name}", *extra))
    _write(vault, f"People/{name}.md", f"---\n{lines}\n---\n{body}")


def _brain(vault: Path, day: str) -> Brain:
    brain = Brain(vault, clock=lambda: dt.datetime.fromisoformat(day + "T09:00:00"))
    reindex(brain)
    return brain


def _fresh(brain: Brain) -> tuple[list[Card], dict[str, set[str]]]:
    """Every card read from its note (no cache), and the links of the other notes."""
    cards: list[Card] = []
    others: dict[str, set[str]] = {}
    for rel, _ in brain.vault.iter_notes():
        card = card_of(brain, rel) if rel.startswith(RECORDS) else None
        if card is not None:
            cards.append(card)
        elif not rel.startswith("Brain/"):
            text = brain.vault.read(rel).text
            others[rel] = {link_key(t) for t, _ in WIKILINK.findall(text) if t.strip()}
    return cards, others


def _scratch(brain: Brain, day: dt.date) -> dict[str, Any]:
    cards, others = _fresh(brain)
    stale_days = int(brain.settings.get("stale_days") or 30)
    d = judge(facts(cards), day, stale_days)
    linked: set[str] = set().union(*(c.links for c in cards), *others.values())
    lonely = sorted(
        c.rel
        for c in cards
        if not c.links and note_key(c.rel) not in linked and base_key(c.rel) not in linked
    )
    return {
        "pairs": sorted((p.type, p.keep, p.other, p.why) for p in cons.find_pairs(brain, cards)),
        "overdue": [(r, due.isoformat()) for r, _, due in d.overdue],
        "stale": [(r, last and last.isoformat()) for r, _, last in d.stale],
        "follow_ups": [(r, text) for r, _, text in d.follow_ups],
        "orphans": lonely,
    }


def _cycle(brain: Brain, day: dt.date) -> tuple[dict[str, Any], Cycle]:
    cycle = Cycle(brain, day, dry_run=False)
    pairs = cons.find_pairs_kept(brain, cycle.survey)
    drift = cycle.drift_phase()
    orphans = cycle.orphans()
    return {
        "pairs": sorted((p.type, p.keep, p.other, p.why) for p in pairs),
        "overdue": [(r["note"], r["due"]) for r in drift["overdue"]],
        "stale": [(r["note"], r["last"]) for r in drift["stale"]],
        "follow_ups": [(r["note"], r["text"]) for r in drift["follow_ups"]],
        "orphans": [o["note"] for o in orphans["orphans"]],
    }, cycle


def _setup(vault: Path) -> None:
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _person(vault, "Sam Ortiz", "contact: sam@example.com", body="Met at the market.\n")
    _person(vault, "Sam", body="Call back.\n")
    _person(vault, "Alexis Berg")
    _person(vault, "Alexis Holm", "follow_ups:", "  - Send the seeds 2026-11-30")
    _person(vault, "Quiet One")
    _write(
        vault,
        "Projects/Hives.md",
        '---\ntype: project\nname: Hives\nstatus: active\npeople:\n  - "[[People/Sam Ortiz]]"\n'
        "---\nStarted 2026-08-01.\n",
    )
    _write(
        vault,
        "Projects/The hives project.md",
        '---\ntype: project\nname: The hives project\npeople:\n  - "[[People/Sam Ortiz]]"\n---\n',
    )
    _write(
        vault,
        "Admin/Renew passport.md",
        "---\ntype: admin\ntitle: Renew passport\ndue: 2026-12-20\nstatus: open\n---\n",
    )


def _same_as_scratch(vault: Path, day: str, *, since: bool = True) -> dict[str, Any]:
    """The cycle's findings, checked against scratch's. ``since``: the cycle brought up to
    date from what the last one kept, without decoding every card (consolidate decodes
    the cards of the types whose groups a change touched)."""
    brain = _brain(vault, day)
    today = dt.date.fromisoformat(day)
    got, cycle = _cycle(brain, today)
    assert got == _scratch(brain, today)
    if since:
        assert cycle.survey.changes is not None and cycle.survey.changes.now
        assert cycle.survey._cards is None
    return got


def test_an_incremental_cycle_finds_what_a_cycle_from_scratch_finds(vault: Path) -> None:
    _setup(vault)
    first = _same_as_scratch(vault, "2026-11-25", since=False)
    assert ("person", "People/Sam Ortiz.md", "People/Sam.md") in {p[:3] for p in first["pairs"]}
    assert "People/Quiet One.md" in first["orphans"]
    assert _same_as_scratch(vault, "2026-11-25", since=False) == first  # (nothing changed)

    # the short Sam's note grows longer than the full one's: the kept note chosen again
    # (and the project filed twice: its second note grows longer, so it is kept)
    _person(vault, "Sam", body="Call back.\n" + "A long talk about hives and honey.\n" * 20)
    _write(
        vault,
        "Projects/The hives project.md",
        '---\ntype: project\nname: The hives project\npeople:\n  - "[[People/Sam Ortiz]]"\n'
        "---\n" + "Frames, smokers and suits.\n" * 20,
    )
    got = _same_as_scratch(vault, "2026-11-25")
    assert ("project", "Projects/The hives project.md", "Projects/Hives.md") in {
        p[:3] for p in got["pairs"]
    }

    # a plain note links the quiet one (no longer an orphan); a note that links nowhere
    _write(vault, "Scratch/Call.md", "Call [[People/Quiet One]] about the hives.\n")
    _person(vault, "Lone Wolf")
    got = _same_as_scratch(vault, "2026-11-25")
    assert "People/Quiet One.md" not in got["orphans"]
    assert "People/Lone Wolf.md" in got["orphans"]

    # the link taken out again, the admin item closed, a follow-up added
    _write(vault, "Scratch/Call.md", "Call about the hives.\n")
    _write(
        vault,
        "Admin/Renew passport.md",
        "---\ntype: admin\ntitle: Renew passport\ndue: 2026-12-20\nstatus: done\n---\n",
    )
    _person(vault, "Alexis Berg", "follow_ups:", "  - Ask about the bees 2026-12-01")
    got = _same_as_scratch(vault, "2026-11-25")
    assert "People/Quiet One.md" in got["orphans"]

    # a new duplicate (what groups the notes changed), an alias, a note deleted
    _person(vault, "Tom Berg", body="Neighbour.\n")
    _person(vault, "Tom")
    _person(vault, "Alexis Holm", "aliases:", "  - Lex", "follow_ups:", "  - Seeds 2026-11-30")
    (vault / "Projects/The hives project.md").unlink()
    got = _same_as_scratch(vault, "2026-11-25")
    assert ("person", "People/Tom Berg.md", "People/Tom.md") in {p[:3] for p in got["pairs"]}

    # two projects of the same words, linking people who have no note yet: one project;
    # then the people's notes come, two people: two projects (their links resolve now)
    _write(
        vault,
        "Projects/Garden plan.md",
        "---\ntype: project\nname: Garden plan\n---\nWith [[Pat]].\n",
    )
    _write(
        vault,
        "Projects/Plan garden.md",
        "---\ntype: project\nname: Plan garden\n---\nWith [[Kim]].\n",
    )
    garden = {"Projects/Garden plan.md", "Projects/Plan garden.md"}
    got = _same_as_scratch(vault, "2026-11-25")
    assert any({p[1], p[2]} == garden for p in got["pairs"])
    _person(vault, "Pat")
    _person(vault, "Kim")
    got = _same_as_scratch(vault, "2026-11-25")
    assert not any({p[1], p[2]} == garden for p in got["pairs"])

    # the day moves: overdue items, stale projects and due follow-ups judged anew
    _write(
        vault,
        "Admin/Renew passport.md",
        "---\ntype: admin\ntitle: Renew passport\ndue: 2026-12-20\nstatus: open\n---\n",
    )
    got = _same_as_scratch(vault, "2027-02-01")
    assert [r for r, _ in got["overdue"]] == ["Admin/Renew passport.md"]
    assert "Projects/Hives.md" in [r for r, _ in got["stale"]]
    assert {r for r, _ in got["follow_ups"]} == {"People/Alexis Berg.md", "People/Alexis Holm.md"}

    # a person's note (by its folder) without properties now, linking another; then gone
    _write(vault, "People/Lone Wolf.md", "Just a page about [[People/Sam Ortiz]].\n")
    got = _same_as_scratch(vault, "2027-02-01")
    assert "People/Lone Wolf.md" not in got["orphans"]
    (vault / "People/Lone Wolf.md").unlink()
    (vault / "Scratch/Call.md").unlink()
    _same_as_scratch(vault, "2027-02-01")
    (vault / "Scratch/Old.md").write_text("[[People/Quiet One]]\n", "utf-8")
    assert "People/Quiet One.md" not in _same_as_scratch(vault, "2027-02-01")["orphans"]


def test_a_cache_that_cannot_be_read_makes_every_phase_find_anew(vault: Path) -> None:
    import sqlite3

    _setup(vault)
    _same_as_scratch(vault, "2026-11-25", since=False)
    _write(vault, "Scratch/Call.md", "Call [[People/Quiet One]].\n")
    _person(vault, "Sam", body="Call back, twice.\n")
    # the cards' table gone under the cycle (its meta row, the last survey's keys, kept)
    db = sqlite3.connect(vault / ".vaultbrain" / "state.db")
    db.execute("DROP TABLE tend_cards")
    db.commit()
    db.close()
    brain = _brain(vault, "2026-11-25")
    today = dt.date(2026, 11, 25)
    got, cycle = _cycle(brain, today)
    assert cycle.survey.changes is None  # (no account of what changed: found anew)
    assert got == _scratch(brain, today)
    assert "People/Quiet One.md" not in got["orphans"]


def _card_facts(card: Card) -> tuple[Any, ...]:
    """What the phases read of a card (its properties' dates as the days they state)."""
    return (
        card.type,
        card.title,
        card.hash,
        card.aliases,
        card.emails,
        card.links,
        card.size,
        card.n_keys,
        card.typed,
        sorted(card.dates()),
        card.get("status"),
    )


@pytest.mark.parametrize("fill", ["inline", "beside"])
def test_a_first_cycle_takes_what_the_reindex_read_and_still_follows_the_files(
    vault: Path, monkeypatch: Any, fill: str
) -> None:
    from vaultbrain.tend import seed

    monkeypatch.setattr(seed, "SEED_AT_LEAST", 1)  # (a small vault: seeded all the same)
    # Both ways the reindex fills the graph index: from the notes its scan parses (dates
    # as the store keeps them, 2026-10-01T08:30:00: what a reindex with another thread
    # alive does), or by a child beside the scan reading them itself (where it may fork).
    if fill == "inline":
        monkeypatch.setenv("VAULTBRAIN_GRAPH_FILL", "inline")
    else:
        monkeypatch.delenv("VAULTBRAIN_GRAPH_FILL", raising=False)
    _setup(vault)
    _write(
        vault,
        "People/Dana Reyes.md",
        "---\ntype: person\nname: Dana Reyes\naliases:\n  - Dee\nlast_interaction: 2026-10-02\n"
        "created: 2026-10-01T08:30:00\n---\nMet with [[People/Sam Ortiz]] on 2026-10-03.\n",
    )
    _write(vault, "People/Broken.md", "---\ntype: person\nname: [unclosed\n---\nText.\n")
    long_ago = time.time_ns() - 3_600 * 10**9  # (a lived-in vault: no note written just now)
    for path in vault.rglob("*.md"):
        os.utime(path, ns=(long_ago, long_ago))
    brain = _brain(vault, "2026-11-25")  # (the reindex reads every note, the index built)
    # a note edited outside vaultbrain after the reindex: its file, not the index, counts
    _person(vault, "Sam", body="Call back about [[People/Dana Reyes]].\n")
    walked = dict(brain.vault.iter_notes())
    wanted = {
        rel: (st.st_mtime_ns, st.st_size)
        for rel, entry in walked.items()
        if rel.startswith(RECORDS) and (st := entry.stat())
    }
    found = seed.seeds(brain, wanted)
    assert "People/Dana Reyes.md" in found and "Admin/Renew passport.md" in found
    assert "People/Sam.md" not in found  # (its stat is not the one the reindex read)
    assert "People/Broken.md" not in found  # (properties the index holds as none: read)
    # (the index holds the note's properties one way, whichever way it was filled)
    assert found["People/Dana Reyes.md"].data["created"] == "2026-10-01T08:30:00"

    today = dt.date(2026, 11, 25)
    taken: list[dict[str, Any]] = []  # (what the cycle's walk took from the reindex)
    real = seed.seeds
    monkeypatch.setattr(seed, "seeds", lambda b, w: taken.append(real(b, w)) or taken[-1])
    got, cycle = _cycle(brain, today)
    assert cycle.survey.changes is None  # (a first cycle: nothing kept before)
    assert len(taken) == 1 and set(taken[0]) == set(found)
    assert got == _scratch(brain, today)
    cards = {c.rel: c for c in cycle.cards}
    for rel, card in cards.items():
        from_file = card_of(brain, rel)
        assert from_file is not None
        assert _card_facts(card) == _card_facts(from_file), rel
    assert cards["People/Sam.md"].links == {"people/dana reyes"}
    assert cards["People/Dana Reyes.md"].aliases == ["Dee"]
    assert dt.date(2026, 10, 1) in cards["People/Dana Reyes.md"].dates()  # (its `created`)
    # kept as read: the next cycle, after an edit, is brought up to date from them
    _write(vault, "Admin/Renew passport.md", "---\ntype: admin\ntitle: Renew passport\n---\n")
    _same_as_scratch(vault, "2026-11-25")


def test_people_who_come_and_go_are_grouped_anew_from_the_notes_they_share_a_block_with(
    vault: Path,
) -> None:
    _setup(vault)
    first = _same_as_scratch(vault, "2026-11-25", since=False)
    short_sam = ("person", "People/Sam Ortiz.md", "People/Sam.md")
    assert short_sam in {p[:3] for p in first["pairs"]}

    def pairs() -> set[tuple[str, str, str]]:
        return {p[:3] for p in _same_as_scratch(vault, "2026-11-25")["pairs"]}

    # a second Sam with a surname: "Sam" is no longer surely the short form of one of them
    _person(vault, "Sam Lee")
    assert short_sam not in pairs()
    (vault / "People/Sam Lee.md").unlink()
    assert short_sam in pairs()
    # a name that is another's alias; then a third note gives it: nobody's in particular
    _person(vault, "Alexis Berg", "aliases:", "  - Lex")
    _person(vault, "Lex")
    assert ("person", "People/Alexis Berg.md", "People/Lex.md") in pairs()
    _person(vault, "Lex Again", "aliases:", "  - Lex")
    assert not any("People/Lex.md" in p for p in pairs())
    # the same e-mail under another name joins the Sams' group; the address changed again
    _person(vault, "S. Ortiz", "contact: SAM@example.com")
    assert ("person", "People/Sam Ortiz.md", "People/S. Ortiz.md") in pairs()
    _person(vault, "S. Ortiz", "contact: sonia@example.com")
    assert not any("People/S. Ortiz.md" in p for p in pairs())
    # a person whose file name a project links by: the project's people read again
    _write(
        vault,
        "Projects/Bee plan.md",
        "---\ntype: project\nname: Bee plan\n---\nWith [[Robin]].\n",
    )
    _write(
        vault,
        "Projects/Plan bees.md",
        "---\ntype: project\nname: Plan bees\n---\nWith [[Robyn]].\n",
    )
    bees = ("project", "Projects/Bee plan.md", "Projects/Plan bees.md")
    assert any({p[1], p[2]} == set(bees[1:]) for p in pairs())
    _person(vault, "Robin")
    _person(vault, "Robyn")
    assert not any({p[1], p[2]} == set(bees[1:]) for p in pairs())
