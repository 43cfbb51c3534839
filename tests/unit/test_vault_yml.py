"""vaultbrain.yml's one writer (vaultbrain/vault/yml.py): one key's line changes, every other
byte stays; edits are compare-and-swap against whatever else writes the file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vaultbrain.errors import UserError
from vaultbrain.vault import yml
from vaultbrain.vault.files import Vault

PERSON = (
    "# my vault's settings -- synced with the notes\n"
    "schema: para   # chosen in May\n"
    "\n"
    "youtube:\n"
    "  folder: Media/YT    # nested, as I like it\n"
    "  video: true\n"
    "language: en\n"
    "filer: abc123def456  # desk, set by vaultbrain\n"
)


def lines_changed(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_replacing_a_key_changes_its_line_only_and_keeps_its_trailing_comment() -> None:
    out = yml.with_key(PERSON, "schema", "gtd")
    assert lines_changed(PERSON, out) == [
        ("schema: para   # chosen in May\n", "schema: gtd   # chosen in May\n")
    ]


def test_a_nested_key_is_replaced_where_the_person_wrote_it() -> None:
    out = yml.with_key(PERSON, "youtube.folder", "Watch: later")
    assert lines_changed(PERSON, out) == [
        (
            "  folder: Media/YT    # nested, as I like it\n",
            "  folder: 'Watch: later'    # nested, as I like it\n",
        )
    ]
    assert yml.flatten(yml.parse(out))["youtube.folder"] == "Watch: later"


def test_a_new_key_is_added_at_the_end_with_a_comment_above_it_once() -> None:
    out = yml.with_key(PERSON, "auto_confidence", 0.7, comment="file at or above this")
    assert out == PERSON + "# file at or above this\nauto_confidence: 0.7\n"
    again = yml.with_key(out, "auto_confidence", 0.9, comment="file at or above this")
    assert again == PERSON + "# file at or above this\nauto_confidence: 0.9\n"
    assert yml.without_key(again, "auto_confidence") == PERSON


def test_values_are_written_as_yaml_reads_them_back() -> None:
    for key, value in [
        ("digest_schedule", "0 18 * * *"),
        ("inbox_note", "Capture #1.md"),
        ("model", "123"),
        ("idealoom.enabled", True),
        ("schema_pack.source.Work/Clients: A", "para"),
        ("inbox_settle_seconds", 10.0),
    ]:
        out = yml.with_key("a: 1\n", key, value)
        assert out.startswith("a: 1\n") and out.count("\n") == 2
        assert yaml.safe_load(out)[key] == value


def test_a_file_without_a_last_newline_and_with_crlf_lines_keeps_them() -> None:
    text = "schema: para\r\nlanguage: en"
    assert yml.with_key(text, "schema", "gtd") == "schema: gtd\r\nlanguage: en"
    assert yml.with_key(text, "filer", "x1y2z3") == "schema: para\r\nlanguage: en\nfiler: x1y2z3\n"


def test_a_block_value_is_replaced_whole() -> None:
    text = "schema:\n  pack: para\nlanguage: en\n"
    assert yml.with_key(text, "schema", "gtd") == "schema: gtd\nlanguage: en\n"


def test_a_file_that_does_not_parse_is_never_edited() -> None:
    with pytest.raises(UserError) as info:
        yml.with_key("schema: [para\nlanguage: en\n", "schema", "gtd")
    message = str(info.value)
    assert "vaultbrain.yml is not valid YAML (line" in message and "\n" not in message


def test_a_broken_line_loses_only_its_own_key() -> None:
    text = "# ours\nschema: para\nauto_confidence: [0.7\nyoutube:\n  folder: 'Media\nfiler: ab12cd34ef\n"
    doc, broken = yml.parse_lenient(text)
    assert doc == {"schema": "para", "filer": "ab12cd34ef"}
    assert set(broken) == {"auto_confidence", "youtube"}
    assert broken["auto_confidence"].startswith("vaultbrain.yml line 3 is not valid YAML")


def test_the_edit_keeps_a_concurrent_edit(tmp_path: Path) -> None:
    """Between vaultbrain's read and its write the person (or a sync tool) saves the file:
    the swap fails, the file is read again, and both edits are in the result."""
    root = tmp_path / "Vault"
    root.mkdir()
    path = root / yml.VAULT_YML
    path.write_text(PERSON, "utf-8")
    vault = Vault(root, tmp_path / "state")
    seen: list[str] = []

    def change(text: str) -> str:
        seen.append(text)
        if len(seen) == 1:  # the person saves while vaultbrain is building its edit
            path.write_text(text + "daily_notes_folder: Journal\n", "utf-8")
        return yml.with_key(text, "auto_confidence", 0.75, comment="file at or above this")

    assert yml.edit(vault, change)
    assert len(seen) == 2 and seen[1] == PERSON + "daily_notes_folder: Journal\n"
    assert path.read_text("utf-8") == (
        PERSON + "daily_notes_folder: Journal\n# file at or above this\nauto_confidence: 0.75\n"
    )


def test_set_and_remove_through_the_vault(tmp_path: Path) -> None:
    root = tmp_path / "Vault"
    root.mkdir()
    vault = Vault(root, tmp_path / "state")
    assert yml.set_key(vault, "inbox_note", "Capture.md", comment="the capture note")
    assert not yml.set_key(vault, "inbox_note", "Capture.md", comment="the capture note")
    assert yml.read(root) == ({"inbox_note": "Capture.md"}, {})
    assert yml.remove_key(vault, "inbox_note")
    assert (root / yml.VAULT_YML).read_text() == ""
    assert not yml.remove_key(vault, "inbox_note")


# -- plain files are read without PyYAML, exactly as PyYAML reads them ---------------------

PLAIN_LINES = [
    "vault_id: 82204b168ab6cee2  # this vault's own id",
    "filer: abc123def456",
    "schema: para   # chosen in May",
    "packs_folder: Brain/Packs",
    "language: en",
    "auto_confidence_pct: 85",
    "retries: 0",
    "endpoint_name: lm-studio.local",
    "_private: x_y",
    "ratio: 1e5  # PyYAML reads no float without a dot",
    "# a comment",
    "",
]
NOT_PLAIN = [
    "enabled: yes",
    "enabled: Off",
    "name: null",
    "y: 1",
    "id: 0x1f",
    "id: 0b101",
    "mode: 0755",
    "ratio: 0.5",
    "when: 2024-01-02",
    "at: 1:30",
    "name: 'quoted'",
    "endpoint: http://localhost:1234/v1",
    "youtube:\n  folder: X",
    "key:",
    "tags: [a, b]",
    "id: 82204B168AB6",
    "key: value\r",
    "  # indented comment",
    "---",
    "key: a#b",
]


@pytest.mark.parametrize("line", PLAIN_LINES)
def test_a_plain_line_reads_as_pyyaml_reads_it(line: str) -> None:
    text = f"# head\n{line}\nlanguage: de\n"
    assert yml.plain_mapping(text) == (yaml.safe_load(text) or {})
    assert yml.parse(text) == (yaml.safe_load(text) or {})


@pytest.mark.parametrize("line", NOT_PLAIN)
def test_anything_else_is_left_to_pyyaml(line: str) -> None:
    assert yml.plain_mapping(f"language: en\n{line}\n") is None


def test_the_plain_reading_agrees_with_pyyaml_on_words_and_ids() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    key = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,8}", fullmatch=True)
    value = st.from_regex(r"[0-9A-Za-z_./:+-]{1,10}", fullmatch=True)

    @settings(max_examples=400, deadline=None)
    @given(key, value)
    def same(k: str, v: str) -> None:
        text = f"{k}: {v}\n"
        plain = yml.plain_mapping(text)
        if plain is not None:
            assert plain == yaml.safe_load(text)

    same()
