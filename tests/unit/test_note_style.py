"""note_style: what a new record note looks like (minimal by default, full as before), and
the store keeping what a minimal note leaves out — and letting go of what a note dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultbrain.classify.result import Classification, Destination
from vaultbrain.filing.records import record_from_note
from vaultbrain.filing.style import (
    NoteStyle,
    drop_title_heading,
    inline_title_shown,
    machine_values,
    note_changes,
    record_note,
)
from vaultbrain.filing.typed import apply_typed, line_fields
from vaultbrain.packs.loader import load_pack
from vaultbrain.vault.note import parse_note
from vaultbrain.vault.typed import parse_typed

PACK = load_pack("vaultbrain-base")
ADMIN = PACK.get_type("admin")
CORE = {
    "type": "admin",
    "id": "qk2uduj5s5",
    "source": "[[Inbox#^vb-7f3k2a]]",
    "confidence": 0.85,
    "classified_by": "lmstudio:qwen2.5-7b-instruct",
    "confirmed": False,
    "created": "2026-12-01T19:22:27",
    "updated": "2026-12-01T19:22:27",
}
FIELDS = {"title": "Follow up with Sarah", "due": "2026-12-08", "status": "open"}
LOG = "- 2026-12-01 Met with Sarah ([[Inbox#^vb-7f3k2a|capture]])"


def test_a_minimal_note_is_type_fields_created_and_id_last_without_an_h1() -> None:
    text = record_note(NoteStyle("minimal", True), ADMIN, CORE, FIELDS, FIELDS["title"], LOG)
    assert text == (
        "---\n"
        "type: admin\n"
        "title: Follow up with Sarah\n"
        "due: 2026-12-08\n"
        "status: open\n"
        "created: 2026-12-01T19:22:27\n"
        "suggested: true\n"
        "id: qk2uduj5s5\n"
        "---\n"
        "- [ ] Follow up with Sarah 📅 2026-12-08\n"
        "\n"
        "## Log\n"
        f"{LOG}\n"
    )


@pytest.mark.parametrize("style", ["minimal", "full"])
def test_only_a_suggestions_note_says_suggested_in_every_style(style: str) -> None:
    guess = parse_note(record_note(NoteStyle(style), ADMIN, CORE, FIELDS, "t", LOG)).data
    filed = parse_note(
        record_note(NoteStyle(style), ADMIN, CORE | {"confirmed": None}, FIELDS, "t", LOG)
    ).data
    assert guess["suggested"] is True
    assert "suggested" not in filed and "confirmed" not in filed
    rec = record_from_note(
        "Admin/x.md",
        parse_note(record_note(NoteStyle(style), ADMIN, CORE, FIELDS, "t", LOG)),
        ADMIN,
        None,
        "h",
    )
    assert "suggested" not in rec["fields"]  # vaultbrain's mark, not a field of the type


def test_a_minimal_note_has_its_h1_when_obsidian_hides_inline_titles() -> None:
    text = record_note(NoteStyle("minimal", False), ADMIN, CORE, FIELDS, FIELDS["title"], LOG)
    assert parse_note(text).body.startswith("# Follow up with Sarah\n\n- [ ] Follow up")


def test_a_full_note_is_the_note_of_earlier_versions() -> None:
    text = record_note(NoteStyle("full", True), ADMIN, CORE, FIELDS, FIELDS["title"], LOG)
    note = parse_note(text)
    assert list(note.data) == [
        "type", "id", "title", "due", "status", "source", "confidence", "classified_by",
        "confirmed", "created", "updated", "suggested",
    ]  # fmt: skip
    assert note.body.startswith("# Follow up with Sarah\n")


def test_the_store_keeps_what_a_minimal_note_leaves_out_and_reindex_keeps_it() -> None:
    text = record_note(NoteStyle(), ADMIN, CORE, FIELDS, FIELDS["title"], LOG)
    note = parse_note(text)
    rec = record_from_note("Admin/x.md", note, ADMIN, None, "h1", machine_values(CORE))
    assert (rec["confidence"], rec["classified_by"], rec["confirmed"]) == (
        0.85,
        CORE["classified_by"],
        False,
    )
    assert rec["source"] == CORE["source"] and rec["made"] is True
    again = record_from_note("Admin/x.md", note, ADMIN, rec, "h1")  # a reindex of the same note
    assert again["confirmed"] is False and again["confidence"] == 0.85


def test_a_key_the_note_dropped_goes_from_the_store_too() -> None:
    full = record_note(NoteStyle("full"), ADMIN, CORE, FIELDS, FIELDS["title"], LOG)
    rec = record_from_note("Admin/x.md", parse_note(full), ADMIN, None, "h1", machine_values(CORE))
    assert rec["confirmed"] is False
    confirmed = full.replace("confirmed: false\n", "")
    after = record_from_note("Admin/x.md", parse_note(confirmed), ADMIN, rec, "h2")
    assert "confirmed" not in after
    assert after["confidence"] == 0.85  # still in the note


def test_a_record_from_before_note_keys_follows_its_note() -> None:
    old = {"id": "qk2uduj5s5", "confirmed": False, "confidence": 0.85, "fields": {}}
    note = parse_note("---\ntype: admin\nid: qk2uduj5s5\ntitle: x\nconfidence: 0.85\n---\n")
    rec = record_from_note("Admin/x.md", note, ADMIN, old, "h")
    assert "confirmed" not in rec and rec["confidence"] == 0.85


def test_an_update_adds_no_machine_key_to_a_minimal_note() -> None:
    changes = {"due": "2026-12-09", "updated": "2026-12-02T10:00:00"}
    assert note_changes(NoteStyle(), {"title": "x"}, changes) == {"due": "2026-12-09"}
    assert note_changes(NoteStyle(), {"updated": "old"}, changes) == changes
    assert note_changes(NoteStyle("full"), {}, changes) == changes


@pytest.mark.parametrize(
    ("config", "shown"),
    [(None, True), ({}, True), ({"showInlineTitle": True}, True),
     ({"showInlineTitle": False}, False), ("not json", True)],
)  # fmt: skip
def test_obsidians_inline_title_setting(tmp_path: Path, config: object, shown: bool) -> None:
    if config is not None:
        (tmp_path / ".obsidian").mkdir()
        raw = config if isinstance(config, str) else json.dumps(config)
        (tmp_path / ".obsidian/app.json").write_text(raw)
    assert inline_title_shown(tmp_path) is shown


def test_only_the_title_heading_is_dropped() -> None:
    assert drop_title_heading("# A\n\ntext\n", "A") == "text\n"
    assert drop_title_heading("# Another\n\ntext\n", "A") == "# Another\n\ntext\n"
    assert drop_title_heading("## A\n", "A") == "## A\n"
    assert drop_title_heading("# \\[Urgent\\] Renew\n\nx\n", "[Urgent] Renew") == "x\n"


# -- a typed thought's fields reach the admin destination -----------------------------------


def test_typed_fields_override_the_classifier_and_titles_lose_signifiers() -> None:
    typed = parse_typed("call the dentist ⏫ 🔁 every 6 months ⏳ 2026-12-08 📅 2026-12-09")
    result = Classification(
        [Destination("admin", "Call the dentist ⏫", {"priority": "medium", "status": "open"})],
        0.9,
        "",
        "lmstudio:x",
    )
    out = apply_typed(result, typed, PACK)
    assert [(d.type, d.title) for d in out.destinations] == [("admin", "Call the dentist")]
    assert out.destinations[0].fields == {
        "priority": "high",
        "status": "open",
        "due": "2026-12-09",
        "recurrence": "every 6 months",
    }
    assert line_fields(typed) == {"scheduled": "2026-12-08"}


def test_typed_tasks_syntax_adds_a_task_the_classifier_missed() -> None:
    typed = parse_typed("water plants 🔁 every week 📅 2026-12-05")
    result = Classification([Destination("idea", "Water plants", {})], 0.6, "", "embedded")
    out = apply_typed(result, typed, PACK)
    assert [(d.type, d.title) for d in out.destinations] == [
        ("idea", "Water plants"),
        ("admin", "Water plants"),
    ]
    assert out.destinations[1].fields == {"due": "2026-12-05", "recurrence": "every week"}


def test_an_emoji_only_title_is_refused() -> None:
    typed = parse_typed("🎉🎉")
    result = Classification([Destination("admin", "🎉🎉", {})], 0.9, "", "lmstudio:x")
    assert apply_typed(result, typed, PACK).destinations == []
