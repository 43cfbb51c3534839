"""``vaultbrain idealoom …`` on a temp vault: list editing, the result table and ``--json``,
settings, one-line errors, and CLI edits reaching the daemon's automatic export."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.brain import Brain
from vaultbrain.idealoom import AutoExporter
from vaultbrain.idealoom.pending import PendingExports


def enable(vault: Path, auto: bool = False) -> None:
    run(vault, "idealoom", "settings", "--enabled", "true", "--auto-export", str(auto).lower())


def create(vault: Path, *args: str) -> dict:
    return run_json(vault, "idealoom", "create", "What could I build?", "--title", "Weekend",
                    "--idea", "kite", "--idea", "tide clock", *args)  # fmt: skip


def test_create_show_list_and_edit(vault: Path) -> None:
    doc = create(vault, "--category", "fun", "--help-text", "Think:\n1. small\n2. fun")
    list_id = doc["id"]
    assert doc["ideas"] == ["kite", "tide clock"]
    assert doc["status"] == "draft" and doc["category"] == "fun" and doc["note"] is None
    shown = run(vault, "idealoom", "show", list_id[:6]).output
    assert "prompt:        What could I build?" in shown
    assert "  1. small\n  2. fun\n" in shown  # help keeps its numbered lines
    assert "ideas:\n  1. kite\n  2. tide clock\n" in shown
    table = run(vault, "idealoom", "list").output.splitlines()
    assert table[0].split() == ["id", "title", "status", "category", "ideas", "modified", "sync"]
    assert table[1].startswith(list_id[:8]) and "not exported" in table[1]

    doc = run_json(vault, "idealoom", "add-idea", list_id, "sundial", "--at", "1")
    assert doc["ideas"] == ["sundial", "kite", "tide clock"]
    doc = run_json(vault, "idealoom", "move-idea", list_id, "1", "3")
    assert doc["ideas"] == ["kite", "tide clock", "sundial"]
    doc = run_json(vault, "idealoom", "remove-idea", list_id, "2")
    assert doc["ideas"] == ["kite", "sundial"]
    doc = run_json(vault, "idealoom", "edit", list_id, "--status", "completed", "--help-text", "")
    assert doc["status"] == "completed" and doc["help"] == ""
    doc = run_json(vault, "idealoom", "edit", list_id, "--help-text", "-")
    assert doc["help"] == ""
    out = run(vault, "idealoom", "edit", list_id, "--help-text", "-", input="From\nstdin\n").output
    assert "  From\n  stdin\n" in out
    assert [d["id"] for d in run_json(vault, "idealoom", "list")] == [list_id]

    out = run(vault, "idealoom", "delete", list_id).output
    assert out.startswith(f"deleted {list_id[:8]} Weekend")
    assert run_json(vault, "idealoom", "list") == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "nope"], "no IdeaLoom list 'nope'"),
        (["add-idea", "{id}", "x", "--at", "9"], "position 9 is outside 1 to 3"),
        (["move-idea", "{id}", "1", "7"], "there is no position 7"),
        (["remove-idea", "{id}", "0"], "there is no idea 0"),
        (["edit", "{id}"], "nothing to change"),
        (["edit", "{id}", "--title", "two\nlines"], "the title must be a single line"),
        (["edit", "{id}", "--help-text", "ok\n## Ideas"], "line 2 starts with '#' or '##'"),
        (["add-idea", "{id}", "   "], "the idea must not be empty"),
        (["import"], "the IdeaLoom exchange with the vault is off"),
        (["export"], "the IdeaLoom exchange with the vault is off"),
        (["settings", "--enabled", "maybe"], "idealoom.enabled: 'maybe' must be true or false"),
        # PortOS's limits (issue 18)
        (["edit", "{id}", "--title", "t" * 201], "the title is 201 characters long"),
        (["edit", "{id}", "--category", "c" * 101], "IdeaLoom allows at most 100"),
        (["edit", "{id}", "--prompt", "p" * 10_001], "IdeaLoom allows at most 10,000"),
        (["edit", "{id}", "--help-text", "h" * 5_001], "IdeaLoom allows at most 5,000"),
        (["add-idea", "{id}", "i" * 2_001], "IdeaLoom allows at most 2,000"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    vault: Path, args: list[str], message: str
) -> None:
    list_id = create(vault)["id"]
    before = run_json(vault, "idealoom", "show", list_id)
    result = run(vault, "idealoom", *[a.replace("{id}", list_id) for a in args], ok=False)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert run_json(vault, "idealoom", "show", list_id) == before


def test_settings_show_and_set(vault: Path) -> None:
    doc = run_json(vault, "idealoom", "settings")
    assert doc["settings"] == {
        "idealoom.enabled": False, "idealoom.auto_export": False, "idealoom.folder": "Idea Loom",
    }  # fmt: skip
    out = run(vault, "idealoom", "settings", "--enabled", "true", "--folder", "Loom").output
    rows = [line.split(None, 2) for line in out.splitlines()]
    assert rows[0] == ["key", "value", "source"]
    assert ["idealoom.enabled", "true", "vaultbrain.yml"] in rows
    assert ["idealoom.auto_export", "false", "default"] in rows
    assert ["idealoom.folder", "Loom", "vaultbrain.yml"] in rows


def test_the_result_table_and_json(vault: Path) -> None:
    enable(vault)
    kept = create(vault)["id"]
    run(vault, "idealoom", "export")
    gone = run_json(vault, "idealoom", "create", "Gone?", "--title", "Gone")["id"]
    run(vault, "idealoom", "export", gone[:8])
    (vault / run_json(vault, "idealoom", "show", gone)["note"]).unlink()
    folder = vault / "Idea Loom"
    note = (vault / run_json(vault, "idealoom", "show", kept)["note"]).read_text()
    (folder / "broken.md").write_text(
        note.replace(kept, "11111111-2222-4333-8444-555555555555").replace("2. tide", "3. tide")
    )
    (folder / ".Elsewhere.md.icloud").write_bytes(b"")
    fresh = run_json(vault, "idealoom", "create", "New?", "--title", "Fresh")["id"]

    out = run(vault, "idealoom", "export").output.splitlines()
    assert out[0].split() == ["outcome", "reason", "list", "note", "detail"]
    rows = {line.split()[0] + " " + line.split()[1]: line for line in out[1:-1]}
    assert rows["skipped unchanged"].split()[2] == kept[:8]
    assert "--recreate-missing" in rows["missing note-deleted-externally"]
    assert re.search(
        rf"{fresh[:8]}  Idea Loom/\d{{4}}-\d\d-\d\d-fresh\.md", rows["exported new-note"]
    )
    assert out[-1] == (
        "export: 0 imported, 1 exported, 1 skipped, 0 conflicted, 1 missing, 0 malformed, "
        "0 unavailable, 0 failed"
    )

    doc = run_json(vault, "idealoom", "import")
    assert doc["kind"] == "import"
    assert doc["counts"] == {
        "imported": 0, "exported": 0, "skipped": 2, "conflicted": 0, "missing": 1,
        "malformed": 1, "unavailable": 1, "failed": 0,
    }  # fmt: skip
    malformed = next(i for i in doc["items"] if i["outcome"] == "malformed")
    assert malformed == {
        "outcome": "malformed", "reason": "numbering-not-dense", "path": "Idea Loom/broken.md",
        "list_id": None, "title": None, "line": 16,
        "message": "idea numbered 3, expected 2 (ideas are numbered 1, 2, 3 …)",
    }  # fmt: skip
    unavailable = next(i for i in doc["items"] if i["outcome"] == "unavailable")
    assert unavailable["path"] == "Idea Loom/Elsewhere.md"
    table = run(vault, "idealoom", "import").output
    assert "Idea Loom/broken.md:16" in table

    out = run(vault, "idealoom", "export", "--recreate-missing", gone[:8]).output
    assert out.splitlines()[1].split()[:2] == ["exported", "recreated"]


def test_cli_edits_reach_the_daemons_automatic_export(vault: Path) -> None:
    enable(vault, auto=True)
    list_id = create(vault)["id"]
    run(vault, "idealoom", "export")
    note = vault / run_json(vault, "idealoom", "show", list_id)["note"]
    run(vault, "idealoom", "move-idea", list_id, "2", "1")
    run(vault, "idealoom", "add-idea", list_id, "sundial")
    app = Brain(vault)
    assert AutoExporter(app).pending()
    assert AutoExporter(app, clock=lambda: time.time() - 60).tick() is None  # not yet due
    result = AutoExporter(app, clock=lambda: time.time() + 10).tick()
    assert result is not None
    assert [(i.outcome, i.reason) for i in result.items] == [("exported", "list-changed")]
    assert "1. tide clock\n2. kite\n3. sundial\n" in note.read_text()
    settings = run_json(vault, "idealoom", "settings")
    assert settings["last_auto_export"]["counts"]["exported"] == 1


def test_daemon_once_runs_a_due_automatic_export(vault: Path) -> None:
    enable(vault, auto=True)
    list_id = create(vault)["id"]
    run(vault, "idealoom", "export")
    note = vault / run_json(vault, "idealoom", "show", list_id)["note"]
    run(vault, "idealoom", "remove-idea", list_id, "1")
    # The edit happened more than the debounce ago.
    queue = PendingExports(Brain(vault).store)
    queue.discard()
    queue.add(list_id, time.time() - 30)
    run(vault, "daemon", "--once")
    assert "1. tide clock\n" in note.read_text() and "kite" not in note.read_text()
    assert not queue.any()


def test_a_disabled_integration_leaves_the_vault_alone_on_daemon_start(vault: Path) -> None:
    list_id = create(vault)["id"]
    run(vault, "idealoom", "add-idea", list_id, "x")
    assert not PendingExports(Brain(vault).store).any()
    run(vault, "daemon", "--once")
    assert not (vault / "Idea Loom").exists()
    assert json.loads(run(vault, "idealoom", "list", "--json").output)[0]["note"] is None


def test_create_past_portos_limits_is_refused(vault: Path) -> None:
    ideas = [a for n in range(501) for a in ("--idea", f"idea {n}")]
    result = run(vault, "idealoom", "create", "Prompt?", *ideas, ok=False)
    assert result.exit_code == 1 and "501 ideas; IdeaLoom allows at most 500" in result.output
    result = run(vault, "idealoom", "create", "Prompt?", "--title", "t" * 201, ok=False)
    assert result.exit_code == 1 and "IdeaLoom allows at most 200" in result.output
    assert run_json(vault, "idealoom", "list") == []


def test_import_past_portos_limits_is_malformed_with_a_reason(vault: Path) -> None:
    enable(vault)
    folder = vault / "Idea Loom"
    folder.mkdir(exist_ok=True)
    (folder / "Long.md").write_text(
        "---\nid: 7d3f7c0e-6d8c-4f57-9a3b-2c1d0e9f8a7b\ntitle: " + "t" * 201 + "\n"
        "category: fun\nstatus: draft\ncreated: 2026-01-02T10:00:00.000Z\n"
        "modified: 2026-01-02T10:00:00.000Z\ntags: [idea-loom]\n---\n# What now?\n\n## Ideas\n"
    )
    doc = run_json(vault, "idealoom", "import")
    item = next(i for i in doc["items"] if i["path"] == "Idea Loom/Long.md")
    assert (item["outcome"], item["reason"]) == ("malformed", "title-too-long")
    assert run_json(vault, "idealoom", "list") == []
