"""What a person types, read as Obsidian Tasks and Dataview read it, and written back as
Tasks writes it: a table test against Tasks' documented format (docs/Reference/Task
Formats/Tasks Emoji Format.md, docs/Getting Started/Recurring Tasks.md and Priority.md of
obsidian-tasks-group/obsidian-tasks), its parser (src/TaskSerializer/DefaultTaskSerializer.ts:
fields read from the end, any order, an optional U+FE0F after each emoji, any spaces before
a value) and rrule's ``toText`` for the rules Tasks writes back."""

from __future__ import annotations

import pytest

from vaultbrain.vault.tasks import TaskLine, parse_task_line, render_task_line, rule_text
from vaultbrain.vault.typed import inert, inline_fields, is_thought, parse_typed, title_text

VS = "\ufe0f"

# (typed line, its words, the fields Tasks and Dataview give it)
TYPED = [
    # every signifier of the Tasks emoji format
    ("Has a created date ➕ 2023-04-13", "Has a created date", {"created": "2023-04-13"}),
    ("Has a scheduled date ⏳ 2023-04-14", "Has a scheduled date", {"scheduled": "2023-04-14"}),
    (
        "scheduled, the other glyph ⌛ 2023-04-14",
        "scheduled, the other glyph",
        {"scheduled": "2023-04-14"},
    ),
    ("Has a start date 🛫 2023-04-15", "Has a start date", {"start": "2023-04-15"}),
    ("Has a due date 📅 2023-04-16", "Has a due date", {"due": "2023-04-16"}),
    ("due, calendar glyph 📆 2023-04-16", "due, calendar glyph", {"due": "2023-04-16"}),
    ("due, spiral glyph 🗓 2023-04-16", "due, spiral glyph", {"due": "2023-04-16"}),
    ("Has a done date ✅ 2023-04-17", "Has a done date", {"done": "2023-04-17"}),
    ("Has a cancelled date ❌ 2023-04-18", "Has a cancelled date", {"cancelled": "2023-04-18"}),
    ("do this first 🆔 dcf64c", "do this first", {"id": "dcf64c"}),
    ("after first ⛔ dcf64c,0h17ye", "after first", {"depends_on": ["dcf64c", "0h17ye"]}),
    ("after, spaced ⛔ dcf64c , 0h17ye", "after, spaced", {"depends_on": ["dcf64c", "0h17ye"]}),
    ("Remove when done 🏁 delete", "Remove when done", {"on_completion": "delete"}),
    # all five priorities
    ("Lowest priority ⏬", "Lowest priority", {"priority": "lowest"}),
    ("Low priority 🔽", "Low priority", {"priority": "low"}),
    ("Normal priority", "Normal priority", {}),
    ("Medium priority 🔼", "Medium priority", {"priority": "medium"}),
    ("High priority ⏫", "High priority", {"priority": "high"}),
    ("Highest priority 🔺", "Highest priority", {"priority": "highest"}),
    # recurrence, written back as Tasks writes it (rrule's toText)
    (
        "take out the trash 🔁 every Sunday 📅 2021-04-25",
        "take out the trash",
        {"recurrence": "every week on Sunday", "due": "2021-04-25"},
    ),
    (
        "Mow the lawn 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30",
        "Mow the lawn",
        {"recurrence": "every 2 weeks", "scheduled": "2021-10-28", "due": "2021-10-30"},
    ),
    (
        "sweep 🔁 every week when done ⏳ 2022-02-20",
        "sweep",
        {"recurrence": "every week when done", "scheduled": "2022-02-20"},
    ),
    (
        "water plants 🔁 every week 📅 2026-12-05",
        "water plants",
        {"recurrence": "every week", "due": "2026-12-05"},
    ),
    ("stand-up 🔁 every weekday", "stand-up", {"recurrence": "every weekday"}),
    (
        "gym 🔁 every mon, wed and fri",
        "gym",
        {"recurrence": "every week on Monday, Wednesday, Friday"},
    ),
    (
        "pay rent 🔁 every month on the 1st 📅 2026-12-01",
        "pay rent",
        {"recurrence": "every month on the 1st", "due": "2026-12-01"},
    ),
    ("vitamins 🔁 Every 1 Day", "vitamins", {"recurrence": "every day"}),
    # order-insensitive, spaces and U+FE0F as Tasks reads them
    (
        "call the dentist ⏫ 📅 2026-12-09",
        "call the dentist",
        {"priority": "high", "due": "2026-12-09"},
    ),
    (
        "call the dentist 📅 2026-12-09 ⏫",
        "call the dentist",
        {"priority": "high", "due": "2026-12-09"},
    ),
    (f"no space 📅{VS}2026-12-09", "no space", {"due": "2026-12-09"}),
    ("tight📅2026-12-09", "tight", {"due": "2026-12-09"}),
    (f"selector ⏫{VS}", "selector", {"priority": "high"}),
    (
        f"selectors ⏳{VS} 2026-12-01 🔁{VS} every day",
        "selectors",
        {"scheduled": "2026-12-01", "recurrence": "every day"},
    ),
    # tags between and after fields stay words, as in Tasks
    (
        "Do exercises #todo 📅 2023-07-04 #health",
        "Do exercises #todo #health",
        {"due": "2023-07-04"},
    ),
    # Tasks reads fields at the end only: one in the middle stays words
    ("🔺 before the words", "🔺 before the words", {}),
    ("due 📅 2026-12-09 then words", "due 📅 2026-12-09 then words", {}),
    # Dataview inline fields, anywhere, with Tasks' Dataview-format keys
    (
        "pay rent [due:: 2026-12-05] (priority:: high)",
        "pay rent",
        {"due": "2026-12-05", "priority": "high"},
    ),
    ("[repeat:: every week] feed the cat", "feed the cat", {"recurrence": "every week"}),
    (
        "sent [completion:: 2026-12-01] [created:: 2026-11-30]",
        "sent",
        {"done": "2026-12-01", "created": "2026-11-30"},
    ),
]


@pytest.mark.parametrize(("line", "words", "fields"), TYPED, ids=[t[0] for t in TYPED])
def test_a_typed_line_is_its_words_and_its_fields(line: str, words: str, fields: dict) -> None:
    typed = parse_typed(line)
    assert typed.words == words
    assert typed.fields == fields
    assert not typed.problems


def test_the_same_line_as_a_task_gives_tasks_fields_and_description() -> None:
    """The grammar and the Tasks line parser agree: they are one reading (read_fields)."""
    for line, words, fields in TYPED:
        if "::" in line:
            continue
        task = parse_task_line(f"- [ ] {line}")
        assert task is not None and task.description == words
        for name, value in fields.items():
            got = getattr(task, name)
            if name == "recurrence":
                assert rule_text(got) == value
            else:
                assert got == value


def test_dataview_fields_of_other_keys_are_kept_as_inline_fields() -> None:
    typed = parse_typed("see Sarah about the garden [project:: Garden] (mood:: good)")
    assert typed.words == "see Sarah about the garden"
    assert typed.inline == {"project": "Garden", "mood": "good"}
    assert typed.fields == {}


def test_a_wikilink_is_not_an_inline_field_and_brackets_nest() -> None:
    found = inline_fields("[[Sarah]] said [note:: see [[Plan]] (v2)] ok")
    assert [(f.key, f.value) for f in found] == [("note", "see [[Plan]] (v2)")]


@pytest.mark.parametrize(
    ("line", "problem"),
    [("bar 📅 2026-02-30", "📅 2026-02-30"), ("x 🔁 sometimes", "🔁 sometimes")],
)
def test_what_looks_like_a_field_but_is_not_one_is_said_and_out_of_the_words(
    line: str, problem: str
) -> None:
    typed = parse_typed(line)
    assert typed.fields == {}
    assert typed.words in ("bar", "x")
    assert any(problem in p for p in typed.problems)


# -- written back: Tasks' field order, every field, round trip -------------------------------


def test_every_field_written_in_tasks_order_and_read_back() -> None:
    task = TaskLine(
        "Do exercises #todo #health",
        priority="medium",
        recurrence="every day when done",
        on_completion="delete",
        created="2023-07-01",
        start="2023-07-02",
        scheduled="2023-07-03",
        due="2023-07-04",
        cancelled="2023-07-06",
        done="2023-07-05",
        id="abcdef",
        depends_on=["123456", "abc123"],
        block_link=" ^dcf64c",
    )
    line = render_task_line(task)
    assert line == (
        "- [ ] Do exercises #todo #health 🆔 abcdef ⛔ 123456,abc123 🔼 🔁 every day when done "
        "🏁 delete ➕ 2023-07-01 🛫 2023-07-02 ⏳ 2023-07-03 📅 2023-07-04 ❌ 2023-07-06 "
        "✅ 2023-07-05 ^dcf64c"
    )
    assert parse_task_line(line) == task


@pytest.mark.parametrize("priority", ["highest", "high", "medium", "low", "lowest"])
def test_each_priority_round_trips(priority: str) -> None:
    line = render_task_line(TaskLine("Renew the domain", priority=priority, due="2026-12-31"))
    back = parse_task_line(line)
    assert back is not None and back.priority == priority
    assert parse_typed(line[len("- [ ] ") :]).fields["priority"] == priority


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("every Sunday", "every week on Sunday"),
        ("every sunday when done", "every week on Sunday when done"),
        ("every 1 week", "every week"),
        ("every 3 days", "every 3 days"),
        ("every 7 days", "every 7 days"),
        ("every weekday", "every weekday"),
        ("every 2 weekdays", "every 2 weeks on weekdays"),
        ("every week on Tuesday, Friday", "every week on Tuesday, Friday"),
        ("every Friday and Tuesday", "every week on Tuesday, Friday"),
        ("every 3 weeks on Friday", "every 3 weeks on Friday"),
        ("every 2 months", "every 2 months"),
        ("every year", "every year"),
        ("every 2 years when done", "every 2 years when done"),
        ("every month on the last Friday", "every month on the last Friday"),
    ],
)
def test_a_rule_is_written_as_tasks_writes_it(typed: str, written: str) -> None:
    assert rule_text(typed) == written
    assert rule_text(written) == written  # what Tasks wrote, Tasks reads and keeps


# -- copies never become a second task or field ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "water plants 🔁 every week 📅 2026-12-05",
        f"call the dentist ⏫{VS} 📅{VS} 2026-12-09",
        "pay rent [due:: 2026-12-05]",
        "due:: 2026-12-05",
        "[ ] looks like a checkbox 🗓️ 2026-12-05",
    ],
)
def test_a_copy_carries_no_signifier_and_no_field(text: str) -> None:
    copy = inert(text)
    assert inert(copy) == copy
    assert "::" not in copy
    assert not any(e in copy for e in "📅📆🗓⏳⌛🛫➕✅❌🔁🏁🆔⛔🔺⏫🔼🔽⏬")
    assert not copy.startswith("[")
    assert parse_typed(copy).fields == {} and parse_typed(copy).inline == {}
    task = parse_task_line(f"- [ ] {copy}")
    assert task is not None and (task.due, task.priority, task.recurrence) == (None, None, None)


def test_a_copy_keeps_its_words() -> None:
    assert inert("water plants 🔁 every week 📅 2026-12-05") == "water plants every week 2026-12-05"


# -- titles and thoughts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        ("[Urgent] Renew the passport", "[Urgent] Renew the passport"),
        ("\x1b[31mRenew\x1b[0m the passport", "Renew the passport"),
        ("Renew the domain ⏫", "Renew the domain"),
        ("Water plants 🔁 every week 📅 2026-12-05", "Water plants"),
        ("Pay rent [due:: 2026-12-05]", "Pay rent"),
        ("🎉🎉", ""),
        ("⏫", ""),
        ("Book the car\nservice", "Book the car service"),
    ],
)
def test_a_title(raw: str, title: str) -> None:
    assert title_text(raw) == title


def test_a_long_title_is_cut_at_a_word_and_never_on_a_dangling_word() -> None:
    raw = "Book the car service for the Volvo before the winter tyre change next month please"
    assert title_text(raw, 40) == "Book the car service for the Volvo"
    assert title_text("Book the car service for", 22) == "Book the car service"


@pytest.mark.parametrize(
    ("text", "thought"),
    [
        ("🎉🎉", False),
        ("⏫", False),
        ("📅 2026-12-05", False),
        ("...", False),
        ("🎉 party", True),
        ("buy milk", True),
        ("2026 plans", True),
        ("🔁 every week", False),
    ],
)
def test_is_thought(text: str, thought: bool) -> None:
    assert is_thought(text) is thought


@pytest.mark.parametrize(
    ("thought", "title"),
    [
        ("Book the car service for next Tuesday", "Book the car service"),
        ("book the car service for the Volvo by the 15th of december", "Book the car service for the Volvo"),
        (
            "Need to book the car service for my mum's Toyota Corolla before the winter tyre change",
            "Book the car service for my mum's Toyota Corolla",
        ),
    ],
)  # fmt: skip
def test_the_embedded_classifier_never_cuts_a_title_on_a_dangling_word(
    thought: str, title: str
) -> None:
    import datetime as dt

    from vaultbrain.classify.embedded import classify_embedded
    from vaultbrain.packs.loader import load_pack

    result = classify_embedded(thought, dt.date(2026, 12, 3), pack=load_pack("vaultbrain-base"))
    assert [(d.type, d.title) for d in result.destinations] == [("admin", title)]
    assert "priority" not in result.destinations[0].fields  # none was given


@pytest.mark.parametrize("thought", ["Idea: a podcast about bees", "idea - a podcast about bees"])
def test_an_ideas_one_liner_has_no_cue(thought: str) -> None:
    import datetime as dt

    from vaultbrain.classify.embedded import classify_embedded
    from vaultbrain.packs.loader import load_pack

    result = classify_embedded(thought, dt.date(2026, 12, 3), pack=load_pack("vaultbrain-base"))
    idea = next(d for d in result.destinations if d.type == "idea")
    assert idea.fields["one_liner"] == "A podcast about bees"
