"""Digest and review facts from a seeded store, and the notes rendered from them.

The store is seeded the way the filing layer writes it (records.md), with matching notes, so
these tests do not depend on the filer. The day is the seed doc's workflow example: "Met with
Sarah about the new project. Need to follow up next week."
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from vaultbrain.brain import Brain
from vaultbrain.digest.facts import collect_daily, collect_weekly, iso_week
from vaultbrain.digest.insights import DigestInsights, Insights, ReviewInsights
from vaultbrain.digest.render import render_digest, render_review
from vaultbrain.digest.store_view import link_alias
from vaultbrain.vault.note import parse_note, render_note

DAY = dt.date(2026, 12, 1)  # a Tuesday
NOW = dt.datetime(2026, 12, 1, 18, 0)
OFFLINE = Insights(None, "cannot reach the LLM server", "unreachable")

PATHS = {"person": "People", "project": "Projects", "idea": "Ideas", "admin": "Admin"}
COLLECTIONS = {"person": "people", "project": "projects", "idea": "ideas", "admin": "admin"}


def put_record(
    app: Brain,
    rid: str,
    type_: str,
    title: str,
    fields: dict[str, Any],
    created: str,
    updated: str | None = None,
    deleted: bool = False,
    log: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    path = f"{PATHS[type_]}/{title}.md"
    key = "name" if type_ in ("person", "project") else "title"
    rec = {
        "id": rid,
        "type": type_,
        "title": title,
        "aliases": [],
        "path": path,
        "fields": {key: title, **fields},
        "created": created,
        "updated": updated or created,
        "sources": [],
        "confirmed": True,
        "confidence": 0.9,
        "classified_by": "heuristic",
        "base_hash": "",
        "deleted": deleted,
        "log": log or [],
    }
    app.store.collection(COLLECTIONS[type_]).put(rec)
    if not deleted:
        front = {
            "type": type_,
            "id": rid,
            "created": created,
            "updated": rec["updated"],
            **rec["fields"],
        }
        app.vault.create(path, render_note(front, f"# {title}\n"))
    return rec


def put_capture(
    app: Brain,
    cid: str,
    text: str,
    created: str,
    status: str = "filed",
    destinations: list[dict[str, Any]] | None = None,
) -> None:
    app.store.collection("inbox").put(
        {
            "id": cid,
            "text": text,
            "text_hash": "h" + cid,
            "ordinal": 0,
            "note": "Inbox.md",
            "origin": "inbox",
            "created": created,
            "updated": created,
            "status": status,
            "pack": "vaultbrain-base@1.0.0+test",
            "classification": None,
            "destinations": destinations or [],
            "timings": {},
        }
    )


def dest(type_: str, title: str, rid: str, op: str = "create") -> dict[str, Any]:
    return {
        "type": type_,
        "title": title,
        "path": f"{PATHS[type_]}/{title}.md",
        "record_id": rid,
        "op": op,
    }


@pytest.fixture
def app(vault: Path) -> Brain:
    app = Brain(vault, clock=lambda: NOW)
    today = "2026-12-01T19:30:00"
    put_record(
        app,
        "psarah0001",
        "person",
        "Sarah",
        {"last_interaction": "2026-12-01", "follow_ups": ["Follow up next week"]},
        today,
        log=[{"date": "2026-12-01", "text": "Met with Sarah", "capture": "c1"}],
    )
    put_record(
        app,
        "pghost0001",
        "person",
        "Ghost",
        {"last_interaction": "2026-12-01"},
        today,
        deleted=True,
    )
    put_record(
        app,
        "pbob000001",
        "person",
        "Bob",
        {"last_interaction": "2026-11-02"},
        "2026-11-02T10:00:00",
    )
    put_record(app, "prnew00001", "project", "New project", {"status": "planned"}, today)
    put_record(
        app,
        "prweb00001",
        "project",
        "Website",
        {"status": "active", "next_actions": ["Write the copy"]},
        "2026-10-01T09:00:00",
        "2026-11-10T09:00:00",
    )
    put_record(
        app,
        "prold00001",
        "project",
        "Old thing",
        {"status": "completed"},
        "2026-09-01T09:00:00",
        "2026-11-28T12:00:00",
    )
    put_record(
        app,
        "afollow001",
        "admin",
        "Follow up with Sarah",
        {"due": "2026-12-08", "priority": "medium", "status": "open"},
        today,
    )
    put_record(
        app,
        "apass00001",
        "admin",
        "Renew passport",
        {"due": "2026-11-25", "priority": "high", "status": "open"},
        "2026-11-10T08:00:00",
    )
    put_record(
        app,
        "ataxes0001",
        "admin",
        "File taxes",
        {"due": "2026-12-20", "priority": "low", "status": "waiting"},
        "2026-11-12T08:00:00",
    )
    put_record(
        app,
        "arent00001",
        "admin",
        "Pay rent",
        {"due": "2026-11-30", "status": "done", "completion_notes": "paid online"},
        "2026-11-20T08:00:00",
        "2026-11-30T09:00:00",
    )
    put_record(
        app,
        "ipod000001",
        "idea",
        "Podcast",
        {"maturity": "explored", "one_liner": "A show about notes"},
        "2026-11-15T08:00:00",
    )
    put_record(app, "iraw000001", "idea", "Raw idea", {"maturity": "raw"}, "2026-11-29T08:00:00")
    put_capture(
        app,
        "c1",
        "Met with Sarah about the new project. Need to follow up next week.",
        today,
        destinations=[
            dest("person", "Sarah", "psarah0001"),
            dest("project", "New project", "prnew00001"),
            dest("admin", "Follow up with Sarah", "afollow001"),
        ],
    )
    put_capture(app, "c2", "something vague", "2026-12-01T20:10:00", status="needs_review")
    put_capture(app, "c3", "maybe a person called Ann", "2026-11-30T09:00:00", status="suggested")
    put_capture(app, "c4", "never mind", "2026-12-01T21:00:00", status="dismissed")
    put_capture(app, "c5", "later", "2026-12-01T22:00:00", status="pending")
    return app


def titles(items: list[Any]) -> list[str]:
    return [i.ref.title for i in items]


def test_daily_facts_from_the_store(app: Brain) -> None:
    facts = collect_daily(app, DAY)
    assert [c.id for c in facts.captures] == ["c1", "c2", "c5"]  # dismissed is left out
    first = facts.captures[0]
    assert first.time == "19:30"
    assert [r.link for r in first.destinations] == [
        "[[People/Sarah|Sarah]]",
        "[[Projects/New project|New project]]",
        "[[Admin/Follow up with Sarah|Follow up with Sarah]]",
    ]
    # The workflow example's "Daily digest includes".
    assert [(a.verb, a.ref.title, a.note) for a in facts.actions] == [
        ("New person added", "Sarah", ""),
        ("New project started", "New project", "planned"),
        ("Action due", "Follow up with Sarah", "2026-12-08"),
    ]
    assert titles(facts.projects) == ["New project"]  # Website's last activity is 3 weeks old
    assert titles(facts.people) == ["Sarah"]  # not Bob (November), not the tombstoned Ghost
    assert titles(facts.admin_overdue) == ["Renew passport"]
    assert titles(facts.admin_due) == ["Follow up with Sarah"]  # taxes are 19 days away
    assert titles(facts.ideas_ready) == ["Podcast"]
    assert facts.needs_review == 2 and facts.pending == 1
    assert facts.counts() == {
        "captures": 3,
        "actions": 3,
        "projects": 1,
        "people": 1,
        "admin_due": 1,
        "admin_overdue": 1,
        "ideas_ready": 1,
        "needs_review": 2,
        "pending": 1,
    }


def test_daily_facts_for_an_earlier_day_use_that_day(app: Brain) -> None:
    facts = collect_daily(app, dt.date(2026, 11, 30))
    assert [c.id for c in facts.captures] == ["c3"]
    assert titles(facts.people) == []
    assert [(a.verb, a.ref.title) for a in facts.actions] == [("Done", "Pay rent")]
    # On the 30th the passport (due the 25th) was already overdue; Sarah's item did not exist
    # in the facts of that day only through its due date, which is within the week.
    assert "Renew passport" in titles(facts.admin_overdue)


def test_digest_note_links_every_record_and_counts_in_frontmatter(app: Brain) -> None:
    facts = collect_daily(app, DAY)
    text = render_digest(facts, OFFLINE)
    note = parse_note(text)
    assert note.error is None
    data = note.data
    assert data["type"] == "digest" and data["date"] == "2026-12-01"
    # Only what a person queries: no stamp of the run, no LLM bookkeeping, no empty value.
    assert not {"generated", "llm", "model", "summary"} & set(data)
    assert all(v not in ("", None, []) for v in data.values())
    assert (
        data["captures_count"] == 3
        and data["needs_review_count"] == 2
        and data["admin_overdue_count"] == 1
    )
    assert set(data["mentions"]) == {
        "[[People/Sarah|Sarah]]",
        "[[Projects/New project|New project]]",
        "[[Admin/Follow up with Sarah|Follow up with Sarah]]",
        "[[Admin/Renew passport|Renew passport]]",
        "[[Ideas/Podcast|Podcast]]",
    }
    for link in data["mentions"]:
        assert link in note.body
        target = link[2:].split("|")[0]
        assert (app.vault.root / f"{target}.md").is_file()  # every link resolves to a note
    assert '"[[People/Sarah|Sarah]]"' in text  # links quoted in the Properties
    body = note.body
    assert "Summary unavailable" in body and "cannot reach the LLM server" in body
    assert "New person added: [[People/Sarah|Sarah]]" in body
    assert "Action due: [[Admin/Follow up with Sarah|Follow up with Sarah]] (2026-12-08)" in body
    assert "2 thoughts wait for you in [[Brain/Needs Review|Needs Review]]" in body
    assert "[[Admin/Renew passport|Renew passport]] — overdue since 2026-11-25 · high" in body


def test_digest_note_with_the_llm_answer(app: Brain) -> None:
    facts = collect_daily(app, DAY)
    answer = DigestInsights.model_validate(
        {
            "summary": "You met Sarah and started the new project.",
            "top_actions": ["Renew the passport", "Follow up with Sarah", "Plan the new project"],
            "stuck": "The passport renewal is overdue.",
            "small_win": "A new project started.",
        }
    )
    text = render_digest(facts, Insights(answer, model="test-model"))
    note = parse_note(text)
    assert not {"llm", "model", "summary"} & set(note.data)  # (the run's history has them)
    assert "You met Sarah and started the new project." in note.body
    assert "1. Renew the passport" in note.body and "3. Plan the new project" in note.body
    assert "### Stuck\n\nThe passport renewal is overdue." in note.body
    assert "Summary unavailable" not in note.body


def test_rerender_keeps_the_persons_own_notes_section(app: Brain) -> None:
    facts = collect_daily(app, DAY)
    first = render_digest(facts, OFFLINE)
    edited = first + "\n## Notes\n\nCall the passport office first thing.\n"
    again = render_digest(facts, OFFLINE, edited)
    assert again.endswith("## Notes\n\nCall the passport office first thing.\n")
    assert again.count("## Notes") == 1
    assert again == edited  # the same facts an hour later: the same note, byte for byte


def test_weekly_facts_gtd_style(app: Brain) -> None:
    facts = collect_weekly(app, DAY)
    assert facts.week == "2026-W49" and facts.start == dt.date(2026, 11, 25)
    loops = {o.label: titles(o.items) for o in facts.open_loops}
    assert loops == {
        "People": ["Sarah"],
        "Projects": ["New project", "Website"],
        "Ideas": ["Podcast", "Raw idea"],
        "Admin": ["Renew passport", "Follow up with Sarah", "File taxes"],
    }
    assert [(a.verb, a.ref.title) for a in facts.accomplishments] == [
        ("Project completed", "Old thing"),
        ("Done", "Pay rent"),
    ]
    review = {i.ref.title: i.note for i in facts.projects_to_review}
    assert review == {
        "New project": "planned · needs next actions",  # the workflow example's open loop
        "Website": "active · no activity for 21 days (since 2026-11-10)",
    }
    people = {i.ref.title: i.note for i in facts.people_to_follow_up}
    assert people == {
        "Sarah": "Follow up next week; follow-up scheduled: "
        "[[Admin/Follow up with Sarah|Follow up with Sarah]] (due 2026-12-08)",
    }
    assert titles(facts.ideas_to_explore) == ["Raw idea", "Podcast"]
    assert titles(facts.admin_to_address) == [
        "Renew passport",
        "Follow up with Sarah",
        "File taxes",
    ]
    assert facts.captures == 4  # c1, c2, c3, c5 in the seven days; the dismissed one is not
    assert facts.created == {"People": 1, "Projects": 1, "Ideas": 1, "Admin": 1}
    counts = facts.counts()
    assert counts["open_loops"] == 8 and counts["open_admin"] == 3 and counts["open_people"] == 1


def test_review_note(app: Brain) -> None:
    facts = collect_weekly(app, DAY)
    answer = ReviewInsights.model_validate(
        {
            "summary": "A busy week.",
            "wins": ["Old thing shipped"],
            "focus": ["Renew the passport", "Give New project a next action", "Call Sarah"],
            "let_go": "Drop the raw idea.",
        }
    )
    text = render_review(facts, Insights(answer, model="m"))
    note = parse_note(text)
    data = note.data
    assert data["type"] == "weekly-review" and data["week"] == "2026-W49"
    assert data["date"] == "2026-12-01" and "2026-11-25 to 2026-12-01" in note.body
    assert not {"generated", "llm", "model", "summary", "period_start"} & set(data)
    assert data["open_loops_count"] == 8 and data["projects_to_review_count"] == 2
    assert "[[Projects/Old thing|Old thing]]" in data["mentions"]
    assert "[[Admin/Follow up with Sarah|Follow up with Sarah]]" in data["mentions"]
    body = note.body
    assert "### Admin (3)" in body
    assert "[[Projects/New project|New project]] — planned · needs next actions" in body
    assert "Project completed: [[Projects/Old thing|Old thing]]" in body
    assert "4 thoughts captured this week; new notes: People 1," in body
    assert "### Focus next week\n\n1. Renew the passport" in body
    for link in data["mentions"]:
        assert link in body


def test_an_empty_store_still_makes_a_complete_note(vault: Path) -> None:
    app = Brain(vault, clock=lambda: NOW)
    facts = collect_daily(app, DAY)
    assert facts.is_empty()
    note = parse_note(render_digest(facts, OFFLINE))
    assert note.data["captures_count"] == 0 and "mentions" not in note.data
    assert not any(k.endswith("_count") for k in note.data if k != "captures_count")
    assert "Nothing captured today." in note.body
    review = parse_note(render_review(collect_weekly(app, DAY), OFFLINE))
    assert review.data["open_loops_count"] == 0 and "No open loops." in review.body


def test_long_sections_are_capped_but_counted(vault: Path) -> None:
    app = Brain(vault, clock=lambda: NOW)
    for i in range(60):
        put_record(
            app,
            f"a{i:04d}xxxxx",
            "admin",
            f"Task {i:02d}",
            {"due": "2026-12-03", "status": "open"},
            "2026-11-01T08:00:00",
        )
    facts = collect_daily(app, DAY)
    assert len(facts.admin_due) == 60
    note = parse_note(render_digest(facts, OFFLINE))
    assert note.data["admin_due_count"] == 60
    assert "## Admin due within 7 days (60)" in note.body
    assert "… and 10 more" in note.body
    assert len(note.data["mentions"]) == 50  # only what the note shows is linked


def test_names_and_weeks() -> None:
    assert iso_week(dt.date(2026, 12, 6)) == "2026-W49"  # Sunday ends the ISO week
    assert iso_week(dt.date(2027, 1, 1)) == "2026-W53"
    assert iso_week(dt.date(2026, 1, 1)) == "2026-W01"
    assert link_alias("A | B [draft]") == "A - B (draft)"


def test_follow_ups_scheduled_by_name_or_by_link(vault: Path) -> None:
    app = Brain(vault, clock=lambda: NOW)
    put_record(app, "pann000001", "person", "Ann Lee", {}, "2026-11-01T08:00:00")
    put_record(app, "pann000002", "person", "Ann", {}, "2026-11-01T08:00:00")
    put_record(app, "pbob000001", "person", "Bob", {}, "2026-11-01T08:00:00")
    put_record(
        app,
        "aemail0001",
        "admin",
        "Email ann lee the draft",
        {"status": "open"},
        "2026-11-01T08:00:00",
    )
    put_record(
        app, "areport001", "admin", "Annual report", {"status": "open"}, "2026-11-01T08:00:00"
    )
    put_record(
        app,
        "acall00001",
        "admin",
        "Call about the lease",
        {"status": "open", "related": ["[[People/Bob|Bob]]"]},
        "2026-11-01T08:00:00",
    )
    put_record(app, "adone00001", "admin", "Thank Bob", {"status": "done"}, "2026-11-01T08:00:00")
    people = {i.ref.title: i.note for i in collect_weekly(app, DAY).people_to_follow_up}
    assert set(people) == {"Ann Lee", "Bob"}  # "Ann" is not in "Annual", nor only in "Ann Lee"
    assert "Email ann lee the draft" in people["Ann Lee"]
    assert "[[Admin/Call about the lease|Call about the lease]]" in people["Bob"]
    assert "Thank Bob" not in people["Bob"]  # done items are not follow-ups
