"""The first reindex of an existing vault: --dry-run changes nothing, Ctrl-C stops cleanly
and a rerun goes on, no progress bar off a terminal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.brain import Brain
from vaultbrain.filing.sync import reindex


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    for i in range(8):
        (root / f"People/P{i}.md").write_text(f"---\nname: P{i}\n---\nMet at the market.\n")
    (root / "Notes").mkdir()
    (root / "Notes/Elsewhere.md").write_text("---\ntype: person\n---\nnot in People/\n")
    return root


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_dry_run_lists_records_and_writes_nothing(vault: Path) -> None:
    before = tree(vault)  # the notes and the state dir alike
    out = run(vault, "reindex", "--dry-run").output
    for i in range(8):
        assert f"would become a person record: People/P{i}.md" in out
    assert "Notes/Elsewhere.md" not in out  # a type: outside the pack's folders is theirs
    assert "8 note(s) would become records" in out and "0 note(s) would be written" in out
    assert tree(vault) == before
    run(vault, "reindex")
    assert run(vault, "reindex", "--dry-run").output.startswith("0 note(s) would become")


def test_dry_run_writes_nothing_in_a_copy(vault: Path) -> None:
    run(vault, "db", "add", "person", "--set", "name=Sarah")
    run(vault, "reindex")
    shutil.copy(vault / "People/Sarah.md", vault / "People/Sarah copy.md")
    before = tree(vault)
    doc = run_json(vault, "reindex", "--dry-run")
    assert doc["records"] == [["People/Sarah copy.md", "person"]]
    assert doc["writes"] == []  # its `id:` (the original's) is the person's to keep
    assert tree(vault) == before
    run(vault, "reindex")
    notes = {k: v for k, v in before.items() if k.endswith(".md")}
    assert {k: v for k, v in tree(vault).items() if k.endswith(".md")} == notes


def test_ctrl_c_stops_cleanly_and_a_rerun_goes_on(vault: Path) -> None:
    notes = {p: p.read_bytes() for p in vault.rglob("*.md")}

    def stop_after_three(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reindex(Brain(vault), progress=stop_after_three)
    seen: list[tuple[int, int]] = []
    report = reindex(Brain(vault), progress=lambda d, t: seen.append((d, t)))
    assert report.read == report.scanned - 3  # the three read before the stop are not again
    people = run_json(vault, "db", "list", "person")
    assert sorted(r["path"] for r in people) == [f"People/P{i}.md" for i in range(8)]
    assert seen and seen[-1][0] == seen[-1][1]
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == notes


def test_no_progress_bar_when_stdout_is_not_a_terminal(vault: Path) -> None:
    out = run(vault, "reindex").output
    assert "\r" not in out and "notes/s" not in out
    assert "8 created" in out
