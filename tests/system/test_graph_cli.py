"""search, whoknows and links through the CLI on temp vaults, and the index kept in step by
the notes ↔ store sync and rebuilt by ``reindex``.

The whoknows vault is generated so that the right answer is known: one person's own note
names the topic, others are tied to it only by meetings (recent or years old) that link to
them, and the rest of the people and notes are noise that never mentions it.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from support.cli import run, run_json

from vaultbrain.brain import Brain
from vaultbrain.filing.sync import notes_sync
from vaultbrain.graph import graph_of

TODAY = dt.date.today()
NOISE = "garden budget hiring design launch roadmap travel music books compost".split()


def _write(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _person(vault: Path, name: str, topics: list[str], body: str = "") -> None:
    items = "".join(f"  - {t}\n" for t in topics)
    _write(
        vault,
        f"People/{name}.md",
        f"---\ntype: person\nname: {name}\ntopics:\n{items}---\n{body}\n",
    )


def _meeting(vault: Path, title: str, day: dt.date, people: list[str], body: str) -> None:
    links = "".join(f'  - "[[People/{p}|{p}]]"\n' for p in people)
    _write(
        vault,
        f"Meetings/{title}.md",
        f"---\ntype: meeting\ntitle: {title}\ndate: {day.isoformat()}\n"
        f"attendees:\n{links}---\n{body}\n",
    )


def _generated(vault: Path, seed: int = 7) -> int:
    """Write the vault; returns how many attendee links its meetings hold."""
    rng = random.Random(seed)
    run(vault, "init")
    people = [f"Person {i:02d}" for i in range(40)]
    for p in people:
        _person(vault, p, rng.sample(NOISE, 2), f"Talked about {rng.choice(NOISE)}.")
    _person(vault, "Ada Beck", ["beekeeping", "garden"], "Keeps four hives; swarm season notes.")
    _person(vault, "Omar Reyes", ["music"], "Plays bass.")
    _person(vault, "Iris Vale", ["travel"], "Walks a lot.")
    for i in range(3):
        _meeting(
            vault,
            f"Hive check {i}",
            TODAY - dt.timedelta(days=10 * i),
            ["Omar Reyes", rng.choice(people)],
            "Inspected the beekeeping setup and the queen.",
        )
    _meeting(
        vault,
        "Old bee talk",
        TODAY - dt.timedelta(days=3 * 365),
        ["Iris Vale"],
        "Long ago Iris told a beekeeping story.",
    )
    for i in range(60):
        _meeting(
            vault,
            f"Standup {i}",
            TODAY - dt.timedelta(days=i),
            rng.sample(people, 2),
            f"Went over the {rng.choice(NOISE)} and the {rng.choice(NOISE)}.",
        )
    return 3 * 2 + 1 + 60 * 2


def test_whoknows_ranks_the_known_experts_with_why(vault: Path) -> None:
    _generated(vault)
    doc = run_json(vault, "--schema-pack", "vaultbrain-recommended", "whoknows", "beekeeping")
    names = [r["title"] for r in doc["results"]]
    assert names[:2] == ["Ada Beck", "Omar Reyes"]
    assert "Iris Vale" in names  # old evidence still counts, but less
    assert names.index("Iris Vale") > names.index("Omar Reyes")
    assert {"person", "company"} <= set(doc["expert_types"])
    ada = doc["results"][0]
    assert ada["why"][0]["how"] == "own note" and ada["why"][0]["note"] == "People/Ada Beck.md"
    assert any("beekeeping" in line for line in ada["why"][0]["lines"])
    omar = doc["results"][1]
    assert {w["note"] for w in omar["why"]} == {f"Meetings/Hive check {i}.md" for i in range(3)}
    assert all(w["how"] == "links to it" for w in omar["why"])
    # every person tied to the topic only by chance (a random attendee of a hive check)
    # comes after the three the vault was built around
    assert set(names[:3]) == {"Ada Beck", "Omar Reyes"} | {names[2]}
    text = run(vault, "--schema-pack", "vaultbrain-recommended", "whoknows", "beekeeping").output
    assert text.splitlines()[0].startswith("1. Ada Beck  (person, People/Ada Beck.md")


def test_whoknows_with_no_evidence_says_nobody(vault: Path) -> None:
    _generated(vault)
    out = run(vault, "whoknows", "submarines").output
    assert "nobody" in out


def test_search_ranks_titles_first_filters_by_type_and_snippets(vault: Path) -> None:
    _generated(vault)
    doc = run_json(vault, "--schema-pack", "vaultbrain-recommended", "search", "hive")
    paths = [r["path"] for r in doc["results"]]
    # the three whose title says it, before the one that only says it in the body
    assert set(paths[:3]) == {f"Meetings/Hive check {i}.md" for i in range(3)}
    assert "People/Ada Beck.md" not in paths  # no stemming: "hives" is not "hive"
    only = run_json(
        vault, "--schema-pack", "vaultbrain-recommended", "search", "hive*", "--type", "person"
    )
    assert [r["path"] for r in only["results"]] == ["People/Ada Beck.md"]
    assert "**hives**" in only["results"][0]["snippet"]
    assert run_json(vault, "search", "beekeeping", "queen")["results"][0]["path"].startswith(
        "Meetings/Hive check"
    )
    bad = run(vault, "search", "***", ok=False)
    assert bad.exit_code == 1 and "no words" in bad.output


def test_links_both_ways_through_the_cli(vault: Path) -> None:
    attendees = _generated(vault)
    doc = run_json(vault, "--schema-pack", "vaultbrain-recommended", "links", "Omar Reyes")
    assert {(r["type"], r["from"]) for r in doc["in"]} == {
        ("attended", f"Meetings/Hive check {i}.md") for i in range(3)
    }
    one = run_json(
        vault,
        "--schema-pack",
        "vaultbrain-recommended",
        "links",
        "Hive check 0",
        "--type",
        "attendee",
    )
    assert "People/Omar Reyes.md" in {r["to"] for r in one["out"]}
    graph = run(vault, "--schema-pack", "vaultbrain-recommended", "schema", "graph").output
    assert f"    attendee: {attendees}" in graph.splitlines()
    missing = run(vault, "links", "Nobody Here", ok=False)
    assert missing.exit_code == 1 and "no note named" in missing.output


def test_sync_keeps_the_index_in_step_and_reindex_rebuilds_it(vault: Path, tmp_path: Path) -> None:
    run(vault, "init")
    _person(vault, "Ada Beck", ["beekeeping"])
    run(vault, "reindex")
    brain = Brain(vault)
    assert graph_of(brain).path.exists()
    assert graph_of(brain).path.is_relative_to(brain.state_dir)
    for path in vault.rglob("*.sqlite*"):  # never among the notes
        assert path.is_relative_to(brain.state_dir)
    graph = graph_of(brain)
    from vaultbrain.graph.search import search

    assert [r["path"] for r in search(graph, "beekeeping")] == ["People/Ada Beck.md"]
    notes = graph.count()

    _person(vault, "Ada Beck", ["woodwork"])
    notes_sync(brain).sync_path("People/Ada Beck.md")  # what the daemon does for a changed note
    assert search(graph, "woodwork") and not search(graph, "beekeeping")
    (vault / "People/Ada Beck.md").unlink()
    notes_sync(brain).sync_path("People/Ada Beck.md")
    assert graph.count() == notes - 1 and not search(graph, "woodwork")
    _person(vault, "Tom", ["sailing"])
    run(vault, "reindex")
    assert [r["path"] for r in search(graph_of(Brain(vault)), "sailing")] == ["People/Tom.md"]


def test_a_warm_reindex_finds_the_index_in_step_by_the_scans_stamp(
    vault: Path, monkeypatch
) -> None:
    """reindex hands the graph index its scan's walk (filing/scan.py NotesCache.walk): the
    notes cache as the scan left it names the walk, so an unchanged vault is in step
    without a row read; a changed note, a row written by another process or a note that
    cannot be read each mean a catch-up."""
    from vaultbrain.filing.sync import reindex
    from vaultbrain.graph.index import GraphIndex
    from vaultbrain.graph.search import search

    run(vault, "init")
    _person(vault, "Ada Beck", ["beekeeping"])
    _person(vault, "Tom", ["sailing"])
    walks: list[str] = []  # each reindex's walk stamp
    rows_read: list[str] = []  # "" when the index was in step with it (no row compared)
    real = GraphIndex.catch_up

    def spy(self, vault_, stats=None, stamp=None, **kw):  # type: ignore[no-untyped-def]
        walks.append(stamp)
        rows_read.append(stamp if self._meta("in_step") != stamp else "")
        return real(self, vault_, stats, stamp, **kw)

    monkeypatch.setattr(GraphIndex, "catch_up", spy)
    reindex(Brain(vault))
    reindex(Brain(vault))
    reindex(Brain(vault))
    assert graph_of(Brain(vault))._meta("in_step") == walks[-1]
    assert rows_read[-1] == ""  # the same walk: in step, no row compared

    _person(vault, "Tom", ["kayaking"])
    reindex(Brain(vault))
    assert rows_read[-1] != ""  # the cache was rewritten: another walk
    assert [r["path"] for r in search(graph_of(Brain(vault)), "kayaking")] == ["People/Tom.md"]
    reindex(Brain(vault))
    assert rows_read[-1] == ""  # (the store's version in the cache is the one it left)

    other = graph_of(Brain(vault))  # a row written by another process drops the stamp
    other.note_changed("People/Tom.md", None)
    assert other._meta("in_step") is None
    reindex(Brain(vault))
    assert [r["path"] for r in search(graph_of(Brain(vault)), "kayaking")] == ["People/Tom.md"]

    (vault / "People/Ada Beck.md").write_bytes(b"\xff\xfe not text\n")
    reindex(Brain(vault))
    assert "unread 1" in walks[-1]
    assert graph_of(Brain(vault))._meta("in_step") != walks[-1]  # tried again next time
