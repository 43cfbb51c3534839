"""The Tasks line parser, writer and recurrence, against lines from the Obsidian Tasks docs
(docs/Getting Started/*.md and the reference tables of obsidian-tasks-group/obsidian-tasks)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultbrain.vault.tasks import (
    TaskLine,
    clean_description,
    find_task_lines,
    next_occurrence,
    parse_rule,
    parse_task_line,
    render_task_line,
    task_group,
)

# (line from the Tasks docs, the fields Tasks reads from it)
PARSED = [
    (
        "- [ ] #task Has a created date ➕ 2023-04-13",
        {"description": "#task Has a created date", "created": "2023-04-13"},
    ),
    ("- [ ] #task Has a scheduled date ⏳ 2023-04-14", {"scheduled": "2023-04-14"}),
    ("- [ ] #task Has a start date 🛫 2023-04-15", {"start": "2023-04-15"}),
    ("- [ ] #task Has a due date 📅 2023-04-16", {"due": "2023-04-16"}),
    ("- [x] #task Has a done date ✅ 2023-04-17", {"status": "x", "done": "2023-04-17"}),
    (
        "- [ ] #task Lowest priority ⏬",
        {"priority": "lowest", "description": "#task Lowest priority"},
    ),
    ("- [ ] #task Low priority 🔽", {"priority": "low"}),
    ("- [ ] #task Normal priority", {"priority": None, "description": "#task Normal priority"}),
    ("- [ ] #task Medium priority 🔼", {"priority": "medium"}),
    ("- [ ] #task High priority ⏫", {"priority": "high"}),
    ("- [ ] #task Highest priority 🔺", {"priority": "highest"}),
    (
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25",
        {"description": "take out the trash", "recurrence": "every Sunday", "due": "2021-04-25"},
    ),
    (
        "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2021-04-24",
        {"status": "x", "recurrence": "every Sunday", "due": "2021-04-25", "done": "2021-04-24"},
    ),
    (
        "-   [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30",
        {"recurrence": "every 2 weeks", "scheduled": "2021-10-28", "due": "2021-10-30"},
    ),
    (
        "  - [ ] Do exercises #todo #health 🆔 abcdef ⛔ 123456,abc123 🔼 🔁 every day when done "
        "➕ 2023-07-01 🛫 2023-07-02 ⏳ 2023-07-03 📅 2023-07-04 ❌ 2023-07-06 ✅ 2023-07-05 ^dcf64c",
        {
            "indent": "  ",
            "description": "Do exercises #todo #health",
            "id": "abcdef",
            "depends_on": ["123456", "abc123"],
            "priority": "medium",
            "recurrence": "every day when done",
            "created": "2023-07-01",
            "start": "2023-07-02",
            "scheduled": "2023-07-03",
            "due": "2023-07-04",
            "cancelled": "2023-07-06",
            "done": "2023-07-05",
            "block_link": " ^dcf64c",
        },
    ),
    ("- [/] minimal task", {"status": "/", "description": "minimal task"}),
    ("- [-] cancelled task ❌ 2023-07-06", {"status": "-", "cancelled": "2023-07-06"}),
    (
        "- [ ] do stuff 🏁 delete 🔁 every day 📅 2024-02-10",
        {"on_completion": "delete", "recurrence": "every day"},
    ),
    # Fields in another order, and tags between them: read from the end, tags kept.
    (
        "- [ ] Buy milk 📅 2026-12-08 #shopping ⏫",
        {"description": "Buy milk #shopping", "due": "2026-12-08", "priority": "high"},
    ),
    # The alternative due and scheduled emoji, and a variation selector.
    (
        "- [ ] Alt 📆 2026-01-02 ⌛ 2026-01-01 ⛔️ ab",
        {"due": "2026-01-02", "scheduled": "2026-01-01"},
    ),
    ("* [ ] star marker", {"marker": "*", "description": "star marker"}),
    ("1. [x] numbered", {"marker": "1.", "status": "x"}),
    ("> - [ ] in a quote", {"indent": "> ", "description": "in a quote"}),
]


@pytest.mark.parametrize(("line", "expected"), PARSED)
def test_a_line_reads_as_tasks_reads_it(line: str, expected: dict[str, object]) -> None:
    task = parse_task_line(line)
    assert task is not None
    for key, value in expected.items():
        assert getattr(task, key) == value, key


@pytest.mark.parametrize("line", ["- not a task", "plain text", "-[ ] no space", "- [ ]"])
def test_non_tasks_are_not_read(line: str) -> None:
    task = parse_task_line(line)
    assert task is None or task.description == ""


# Lines Tasks itself wrote (its order): written back byte for byte.
ROUND_TRIP = [
    "- [ ] take out the trash 🔁 every Sunday 📅 2021-05-02",
    "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2021-04-24",
    "- [ ] take out the trash 🔁 every Sunday ➕ 2023-03-10 📅 2021-05-02",
    "- [x] sweep the floors 🔁 every week when done ⏳ 2021-02-06 ✅ 2022-02-13",
    "- [ ] do stuff 🔁 every month on the last 📅 2022-06-30",
    "  - [ ] Do exercises #todo #health 🆔 abcdef ⛔ 123456,abc123 🔼 🔁 every day when done "
    "➕ 2023-07-01 🛫 2023-07-02 ⏳ 2023-07-03 📅 2023-07-04 ❌ 2023-07-06 ✅ 2023-07-05 ^dcf64c",
    "- [/] minimal task",
    "- [-] Renew the domain ⏫ 📅 2026-12-31 ❌ 2026-12-02",
]


@pytest.mark.parametrize("line", ROUND_TRIP)
def test_tasks_own_lines_are_written_back_unchanged(line: str) -> None:
    task = parse_task_line(line)
    assert task is not None
    assert render_task_line(task) == line


def test_fields_are_written_in_tasks_order() -> None:
    line = "- [ ] Buy milk 📅 2026-12-08 ⏫ ➕ 2026-12-01"
    task = parse_task_line(line)
    assert task is not None
    assert render_task_line(task) == "- [ ] Buy milk ⏫ ➕ 2026-12-01 📅 2026-12-08"


@pytest.mark.parametrize(
    ("title", "description"),
    [
        ("Renew the domain ⏫", "Renew the domain"),
        ("Pay 📅 rent 🔁 monthly", "Pay rent monthly"),
        ("🔺⏫🔼🔽⏬📅🛫⏳✅❌🔁🏁🆔⛔➕", "Task"),
        ("Fix link ^abc", "Fix link abc"),
        ("Two\nlines", "Two lines"),
    ],
)
def test_titles_never_carry_signifiers_into_the_description(title: str, description: str) -> None:
    assert clean_description(title) == description
    task = parse_task_line(render_task_line(TaskLine(description=clean_description(title))))
    assert task is not None
    assert task.description == description
    assert task.priority is None and task.due is None and task.recurrence is None


# -- recurrence: the docs' examples ---------------------------------------------------------

RECUR = [
    # (the task completed, completed on, the new occurrence Tasks wrote)
    (
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25",
        "2021-04-24",
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-05-02",
    ),
    (
        "- [ ] sweep the floors 🔁 every week ⏳ 2021-02-06",
        "2022-02-13",
        "- [ ] sweep the floors 🔁 every week ⏳ 2021-02-13",
    ),
    (
        "- [ ] sweep the floors 🔁 every week when done ⏳ 2021-02-06",
        "2022-02-13",
        "- [ ] sweep the floors 🔁 every week when done ⏳ 2022-02-20",
    ),
    (
        "- [ ] do stuff 🔁 every month 📅 2021-10-31",
        "2021-10-31",
        "- [ ] do stuff 🔁 every month 📅 2021-11-30",
    ),
    (
        "- [ ] do stuff 🔁 every month 📅 2022-01-30",
        "2022-01-30",
        "- [ ] do stuff 🔁 every month 📅 2022-02-28",
    ),
    (
        "- [ ] do stuff 🔁 every 3 months 📅 2022-01-31",
        "2022-01-31",
        "- [ ] do stuff 🔁 every 3 months 📅 2022-04-30",
    ),
    (
        "-   [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30",
        "2021-10-30",
        "-   [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-11-11 📅 2021-11-13",
    ),
    ("- [ ] a 🔁 every day 📅 2026-12-31", "2027-01-05", "- [ ] a 🔁 every day 📅 2027-01-01"),
    (
        "- [ ] a 🔁 every 3 days 📅 2026-12-30",
        "2026-12-30",
        "- [ ] a 🔁 every 3 days 📅 2027-01-02",
    ),
    (
        "- [ ] a 🔁 every 10 days when done 📅 2026-01-01",
        "2026-03-01",
        "- [ ] a 🔁 every 10 days when done 📅 2026-03-11",
    ),
    # 2026-12-04 is a Friday: the next weekday is Monday.
    (
        "- [ ] a 🔁 every weekday 📅 2026-12-04",
        "2026-12-04",
        "- [ ] a 🔁 every weekday 📅 2026-12-07",
    ),
    (
        "- [ ] a 🔁 every week on Monday 📅 2026-12-02",
        "2026-12-02",
        "- [ ] a 🔁 every week on Monday 📅 2026-12-07",
    ),
    (
        "- [ ] a 🔁 every week on Tuesday, Friday 📅 2026-12-01",
        "2026-12-01",
        "- [ ] a 🔁 every week on Tuesday, Friday 📅 2026-12-04",
    ),
    (
        "- [ ] a 🔁 every 3 weeks on Friday 📅 2026-12-04",
        "2026-12-04",
        "- [ ] a 🔁 every 3 weeks on Friday 📅 2026-12-25",
    ),
    ("- [ ] a 🔁 every year 📅 2024-02-29", "2024-02-29", "- [ ] a 🔁 every year 📅 2025-02-28"),
    # Start and scheduled keep their distance to the due date; id and dependsOn go, as in Tasks.
    (
        "- [ ] a 🆔 x1 ⛔ y2 🔼 🔁 every week ➕ 2026-01-01 🛫 2026-12-01 📅 2026-12-03",
        "2026-12-03",
        "- [ ] a 🔼 🔁 every week 🛫 2026-12-08 📅 2026-12-10",
    ),
    ("- [ ] Do stuff 🔁 every day", "2023-02-11", "- [ ] Do stuff 🔁 every day"),
]


@pytest.mark.parametrize(("line", "completed", "expected"), RECUR)
def test_the_next_occurrence_is_the_one_tasks_writes(
    line: str, completed: str, expected: str
) -> None:
    task = parse_task_line(line)
    assert task is not None
    nxt = next_occurrence(task, dt.date.fromisoformat(completed))
    assert nxt is not None
    assert render_task_line(nxt) == expected


@pytest.mark.parametrize(
    "rule",
    ["every month on the last", "every month on the 1st", "every January on the 15th", "daily"],
)
def test_rules_vaultbrain_does_not_compute_are_left_to_tasks(rule: str) -> None:
    assert parse_rule(rule) is None


def test_the_group_is_the_occurrences_tasks_put_above_or_below() -> None:
    above = [
        "# Take out the trash",
        "",
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-05-02",
        "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2021-04-24",
        "- [ ] a checklist item",
    ]
    below = [above[0], above[1], above[3], above[2], above[4]]
    for lines in (above, below):
        group = task_group(find_task_lines(lines))
        assert [g.index for g in group] == [2, 3]
        assert sorted(g.task.status for g in group) == [" ", "x"]


def test_task_lines_in_code_fences_are_not_tasks() -> None:
    lines = ["```markdown", "- [ ] example", "```", "- [ ] real"]
    assert [f.index for f in find_task_lines(lines)] == [3]


_words = st.text(
    alphabet=st.characters(
        whitelist_categories=("Lu", "Ll", "Nd", "Zs", "Po", "So"),
        blacklist_characters="\r\n\u2028\u2029\x85",
    ),
    max_size=30,
)
_dates = st.dates(dt.date(2000, 1, 1), dt.date(2099, 12, 31)).map(dt.date.isoformat)


@given(
    title=_words,
    status=st.sampled_from([" ", "x", "-", "/"]),
    priority=st.none() | st.sampled_from(["highest", "high", "medium", "low", "lowest"]),
    recurrence=st.none() | st.sampled_from(["every day", "every 2 weeks when done"]),
    due=st.none() | _dates,
    start=st.none() | _dates,
    done=st.none() | _dates,
)
@settings(max_examples=300, deadline=None)
def test_a_written_line_reads_back_as_the_same_task(
    title: str,
    status: str,
    priority: str | None,
    recurrence: str | None,
    due: str | None,
    start: str | None,
    done: str | None,
) -> None:
    task = TaskLine(
        description=clean_description(title),
        status=status,
        priority=priority,
        recurrence=recurrence,
        due=due,
        start=start,
        done=done,
    )
    back = parse_task_line(render_task_line(task))
    assert back == task
