"""An admin note's Tasks line and its frontmatter agree (records.py), on real note text:
a tick, an untick, ✅/❌ and a 🔁 completion reach the frontmatter; a store change reaches
the line; archived tasks close. Every other byte stays as it was."""

from __future__ import annotations

import datetime as dt

import pytest

from vaultbrain.filing.records import (
    close_task,
    new_task_line,
    render_body,
    retype_task_line,
    settle_fields,
    settle_note,
    sync_task_line,
)
from vaultbrain.packs.loader import load_pack
from vaultbrain.packs.model import PageType
from vaultbrain.vault.note import parse_note, update_frontmatter

TODAY = dt.date(2026, 12, 2)

NOTE = """---
type: admin
id: a1b2c3d4e5
title: Renew the domain
due: 2026-12-31
priority: high
status: open
created: 2026-11-01T09:00:00
updated: 2026-11-01T09:00:00
---
# Renew the domain

{line}

## Log
- 2026-11-01 filed from [[Inbox#^vb-abc123|inbox]]
"""
OPEN = "- [ ] Renew the domain ⏫ 📅 2026-12-31"
FIELDS = {"title": "Renew the domain", "due": "2026-12-31", "priority": "high", "status": "open"}


@pytest.fixture(scope="module")
def admin() -> PageType:
    ptype = load_pack("vaultbrain-base").get_type("admin")
    assert ptype is not None and ptype.tasks is not None
    return ptype


def note(line: str = OPEN) -> str:
    return NOTE.replace("{line}", line)


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """Lines that differ (a pair per position); the notes have the same line count here."""
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_a_new_admin_note_has_one_line_that_agrees(admin: PageType) -> None:
    body = render_body(admin, "Renew the domain ⏫", FIELDS, "- log")
    assert "- [ ] Renew the domain ⏫ 📅 2026-12-31" in body
    assert body.count("- [") == 1
    done = new_task_line(admin, "Pay", {"status": "done", "completed": "2026-12-01"}, TODAY)
    assert done == "- [x] Pay ✅ 2026-12-01"


def test_a_tick_sets_status_and_completed_and_nothing_else(admin: PageType) -> None:
    before = note("- [x] Renew the domain ⏫ 📅 2026-12-31")
    after = settle_note(before, admin, FIELDS, TODAY)
    data = parse_note(after).data
    assert data["status"] == "done" and data["completed"] == TODAY.isoformat()
    # status changed in place, completed appended at the end of the frontmatter
    assert after.replace("completed: 2026-12-02\n", "") == before.replace(
        "status: open", "status: done"
    )


def test_tasks_done_date_is_the_completion_date(admin: PageType) -> None:
    before = note("- [x] Renew the domain ⏫ 📅 2026-12-31 ✅ 2026-11-30")
    data = parse_note(settle_note(before, admin, FIELDS, TODAY)).data
    assert data["status"] == "done" and data["completed"] == "2026-11-30"


def test_an_untick_reopens_and_drops_completed(admin: PageType) -> None:
    done = settle_note(note("- [x] Renew the domain ⏫ 📅 2026-12-31"), admin, FIELDS, TODAY)
    prev = dict(FIELDS, status="done", completed=TODAY.isoformat())
    reopened = done.replace("- [x] Renew the domain ⏫ 📅 2026-12-31", OPEN)
    after = settle_note(reopened, admin, prev, TODAY)
    data = parse_note(after).data
    assert data["status"] == "open" and "completed" not in data
    assert after == note()


def test_cancelled_in_tasks_is_cancelled(admin: PageType) -> None:
    before = note("- [-] Renew the domain ⏫ 📅 2026-12-31 ❌ 2026-12-01")
    data = parse_note(settle_note(before, admin, FIELDS, TODAY)).data
    assert data["status"] == "cancelled" and data["completed"] == "2026-12-01"


def test_in_progress_and_waiting_are_open_work(admin: PageType) -> None:
    before = note("- [/] Renew the domain ⏫ 📅 2026-12-31")
    assert settle_note(before, admin, FIELDS, TODAY) == before
    waiting = before.replace("status: open", "status: waiting")
    assert settle_note(waiting, admin, dict(FIELDS, status="waiting"), TODAY) == waiting


def test_a_properties_edit_rewrites_only_the_line(admin: PageType) -> None:
    before = update_frontmatter(note(), {"due": "2030-01-15", "priority": "low"})
    after = settle_note(before, admin, FIELDS, TODAY)
    assert changed_lines(before, after) == [(OPEN, "- [ ] Renew the domain 🔽 📅 2030-01-15")]


def test_a_line_edit_of_the_due_date_reaches_the_frontmatter(admin: PageType) -> None:
    before = note("- [ ] Renew the domain ⏫ 📅 2027-01-10")
    after = settle_note(before, admin, FIELDS, TODAY)
    assert parse_note(after).data["due"] == "2027-01-10"
    assert changed_lines(before, after) == [("due: 2026-12-31", "due: 2027-01-10")]


def test_a_settled_note_is_left_alone(admin: PageType) -> None:
    assert settle_note(note(), admin, FIELDS, TODAY) == note()
    assert settle_note(note(), admin, None, TODAY) == note()


@pytest.mark.parametrize("order", ["above", "below"])
def test_a_tasks_recurrence_keeps_the_task_open_and_logs_the_completion(
    admin: PageType, order: str
) -> None:
    new = "- [ ] Renew the domain ⏫ 🔁 every week 📅 2027-01-07"
    old = "- [x] Renew the domain ⏫ 🔁 every week 📅 2026-12-31 ✅ 2026-12-02"
    pair = f"{new}\n{old}" if order == "above" else f"{old}\n{new}"
    after = settle_note(note(pair), admin, FIELDS, TODAY)
    data = parse_note(after).data
    assert data["status"] == "open" and data["due"] == "2027-01-07" and "completed" not in data
    body = parse_note(after).body
    assert new in body and old not in body
    assert body.count("- [") == 1
    assert "- 2026-12-02 done, due 2026-12-31: Renew the domain" in body.split("## Log")[1]
    assert settle_note(after, admin, dict(FIELDS, due="2027-01-07"), TODAY) == after


def test_a_plain_tick_of_a_recurring_task_writes_the_next_occurrence(admin: PageType) -> None:
    ticked = "- [x] Renew the domain ⏫ 🔁 every month 🛫 2026-12-24 📅 2026-12-31"
    after = settle_note(note(ticked), admin, FIELDS, TODAY)
    body = parse_note(after).body
    assert "- [ ] Renew the domain ⏫ 🔁 every month 🛫 2027-01-24 📅 2027-01-31" in body
    assert parse_note(after).data["due"] == "2027-01-31"
    assert parse_note(after).data["status"] == "open"
    assert f"- {TODAY.isoformat()} done, due 2026-12-31: Renew the domain" in body


def test_a_store_change_rewrites_only_the_line_keeping_other_fields(admin: PageType) -> None:
    line = "- [ ] Renew the domain #web 🆔 t1 ⏫ 🔁 every year ➕ 2026-01-01 ⏳ 2026-12-20 📅 2026-12-31"
    before = note(line)
    fields = dict(FIELDS, due="2030-01-15", priority="low")
    after = sync_task_line(before, admin, fields, TODAY)
    expected = "- [ ] Renew the domain #web 🆔 t1 🔽 🔁 every year ➕ 2026-01-01 ⏳ 2026-12-20 📅 2030-01-15"
    assert changed_lines(before, after) == [(line, expected)]
    done = sync_task_line(before, admin, dict(FIELDS, status="done"), TODAY)
    assert "- [x] Renew the domain #web 🆔 t1 ⏫" in done and "✅ 2026-12-02" in done


def test_a_new_title_rewrites_the_description_without_signifiers(admin: PageType) -> None:
    after = sync_task_line(note(), admin, dict(FIELDS, title="Renew it ⏫ now"), TODAY)
    assert changed_lines(note(), after) == [(OPEN, "- [ ] Renew it now ⏫ 📅 2026-12-31")]


def test_a_note_without_a_line_gets_one_before_the_log(admin: PageType) -> None:
    before = note("Some notes.")
    after = sync_task_line(before, admin, FIELDS, TODAY)
    assert after == before.replace("\n## Log", f"\n{OPEN}\n\n## Log")


@pytest.mark.parametrize("nl", ["\r\n", "\r"])
def test_a_line_added_to_a_note_keeps_its_line_endings(admin: PageType, nl: str) -> None:
    # A Windows or old Mac note: the Tasks line it gets ends as its other lines do.
    without = note("Some notes.").replace(
        "\n## Log\n- 2026-11-01 filed from [[Inbox#^vb-abc123|inbox]]\n", ""
    )
    before = without.rstrip("\n").replace("\n", nl)
    after = sync_task_line(before, admin, FIELDS, TODAY)
    assert after == before + nl + nl + OPEN + nl


def test_archiving_closes_the_task(admin: PageType) -> None:
    after = close_task(note(), admin, TODAY)
    data = parse_note(after).data
    assert data["status"] == "cancelled" and data["completed"] == TODAY.isoformat()
    assert "- [-] Renew the domain ⏫ 📅 2026-12-31 ❌ 2026-12-02" in after
    done = note("- [x] Renew the domain ⏫ 📅 2026-12-31 ✅ 2026-12-01")
    assert close_task(done, admin, TODAY) == done


def test_refiling_adds_or_drops_the_line(admin: PageType) -> None:
    idea = load_pack("vaultbrain-base").get_type("idea")
    assert idea is not None
    text = "---\ntype: admin\ntitle: X\n---\n# X\n\nSome text.\n\n## Log\n- l\n"
    as_admin = retype_task_line(text, idea, admin, {"title": "X", "due": "2026-12-09"}, TODAY)
    assert "- [ ] X 📅 2026-12-09\n\n## Log" in as_admin
    back = retype_task_line(as_admin, admin, idea, {"title": "X"}, TODAY)
    assert "- [ ]" not in back and "Some text." in back


def test_completion_date_follows_the_status(admin: PageType) -> None:
    done = settle_fields(admin, FIELDS, dict(FIELDS, status="done"), TODAY)
    assert done["completed"] == TODAY.isoformat()
    assert "completed" not in settle_fields(admin, done, dict(done, status="open"), TODAY)


def test_a_hand_made_note_is_not_written_while_its_line_says_nothing_new(admin: PageType) -> None:
    text = "---\ntitle: Mine\n---\n- [ ] Mine\n- [ ] a checklist item\n"
    assert settle_note(text, admin, None, TODAY) == text
    assert settle_note(text, admin, {"title": "Mine"}, TODAY) == text
    ticked = text.replace("- [ ] Mine", "- [x] Mine")
    assert parse_note(settle_note(ticked, admin, {"title": "Mine"}, TODAY)).data == {
        "title": "Mine",
        "status": "done",
        "completed": TODAY.isoformat(),
    }
