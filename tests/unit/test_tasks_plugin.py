"""Obsidian Tasks' settings as doctor reads them (vaultbrain/vault/tasks_plugin.py): the one
Global Query line, which queries already keep vaultbrain's checkboxes out, a global filter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultbrain.vault.tasks_plugin import (
    escape_regex,
    exclusion_line,
    own_checkboxes_finding,
    query_lists,
    tasks_setup,
)

PLUGIN = Path("plugins/obsidian-tasks-plugin")


def installed(config: Path, data: object | None = None) -> Path:
    (config / PLUGIN).mkdir(parents=True)
    if data is not None:
        (config / PLUGIN / "data.json").write_text(json.dumps(data), "utf-8")
    return config


def test_not_installed_says_nothing(tmp_path: Path) -> None:
    assert tasks_setup(tmp_path / ".obsidian") is None
    assert own_checkboxes_finding(tmp_path / ".obsidian", "Inbox.md") is None


def test_installed_and_never_configured_is_tasks_defaults(tmp_path: Path) -> None:
    config = installed(tmp_path)
    setup = tasks_setup(config)
    assert setup is not None and (setup.global_filter, setup.global_query) == ("", "")
    ok, said = own_checkboxes_finding(config, "Inbox.md") or (None, "")
    assert ok is False
    assert said.endswith('"Global Query": path regex does not match /^(Inbox\\.md|Brain\\/)/')


def test_a_broken_data_file_is_the_defaults(tmp_path: Path) -> None:
    config = installed(tmp_path)
    (config / PLUGIN / "data.json").write_text("{not json", "utf-8")
    assert tasks_setup(config) is not None
    assert (own_checkboxes_finding(config, "Inbox.md") or (None, ""))[0] is False


@pytest.mark.parametrize(
    ("inbox", "line"),
    [
        ("Inbox.md", r"path regex does not match /^(Inbox\.md|Brain\/)/"),
        (
            "Capture/My inbox (phone).md",
            r"path regex does not match /^(Capture\/My inbox \(phone\)\.md|Brain\/)/",
        ),
    ],
)
def test_the_line_names_this_vaults_inbox(inbox: str, line: str) -> None:
    assert exclusion_line(inbox) == line
    assert not query_lists(line, inbox)
    assert not query_lists(line, "Brain/Needs Review.md")
    assert query_lists(line, "Admin/Call the dentist.md")
    assert query_lists(line, "Projects/Inbox zero.md")  # anchored: a note of the person's


def test_escape_is_tasks_own() -> None:
    assert escape_regex("a.b*c+d?e^f$g{h}i(j)k|l[m]n/o\\p q") == (
        "a\\.b\\*c\\+d\\?e\\^f\\$g\\{h\\}i\\(j\\)k\\|l\\[m\\]n\\/o\\\\p q"
    )


@pytest.mark.parametrize(
    ("query", "keeps_ours"),
    [
        ("path does not include Inbox\npath does not include Brain/", False),  # the README's
        ("PATH DOES NOT INCLUDE inbox.md\nfolder does not include brain", False),
        ("path does not include Inbox", True),  # Needs Review still listed
        ("not done\nsort by due", True),  # nothing about files
        ("filename does not include Needs Review\npath regex does not match /^Inbox/", False),
        ("path regex does not match /^(Inbox|Brain/", True),  # a broken regex filters nothing
        ("path regex does not match /^(inbox\\.md|brain\\/)/i", False),
    ],
)
def test_queries_that_keep_them_out(tmp_path: Path, query: str, keeps_ours: bool) -> None:
    config = installed(tmp_path, {"globalQuery": query})
    ok, said = own_checkboxes_finding(config, "Inbox.md") or (None, "")
    assert ok is (not keeps_ours), said


def test_a_global_filter_keeps_them_out_and_says_what_it_costs(tmp_path: Path) -> None:
    config = installed(tmp_path, {"globalFilter": "#task", "globalQuery": ""})
    ok, said = own_checkboxes_finding(config, "Inbox.md") or (None, "")
    assert ok is True and "'#task'" in said and "admin notes' task lines" in said
