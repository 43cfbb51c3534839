"""The vault is the truth (issue 15): the person's edits to a filed line are theirs, a line
that lost its id gets it back, and a lost state dir is rebuilt from the vault without filing
anything twice. The daemon runs as a subprocess (``--once``) on a temp vault; no LLM is
running, so the embedded fallback files each thought as a suggestion."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.daemon import wait_for

THOUGHT = "Met with Sarah about the new project. Need to follow up next week."


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    settle(root)
    # The long forms of vaultbrain's suffix (note_style full; lines an earlier version
    # wrote keep them): the most there is of ours on a line to be edited around.
    run(root, "settings", "set", "note_style", "full")
    # the lines edited around are suggestions': the embedded classifier files a clear
    # thought outright at the default bar since issue 42
    run(root, "settings", "set", "auto_confidence", "1.0")
    return root


def settle(root: Path) -> None:
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    run(root, "settings", "set", "inbox_idle_seconds", "0")


def once(daemon, vault: Path) -> str:  # type: ignore[no-untyped-def]
    d = daemon(vault).start("--once")
    assert d.proc.wait(90) == 0, d.output()
    assert "Traceback" not in d.output(), d.output()
    return d.output()


def inbox(vault: Path) -> str:
    return (vault / "Inbox.md").read_text()


def line_of(vault: Path, words: str) -> str:
    hits = [line for line in inbox(vault).splitlines() if words in line]
    assert len(hits) == 1, hits
    return hits[0]


def notes(vault: Path) -> dict[str, bytes]:
    """Every note of the vault outside the state dir and Obsidian's config, by path; the
    Brain/ notes (vaultbrain's own views, stamped when shown) by path only."""
    out = {}
    for p in sorted(vault.rglob("*.md")):
        rel = p.relative_to(vault)
        if p.is_file() and not rel.parts[0].startswith("."):
            out[str(rel)] = b"" if rel.parts[0] == "Brain" else p.read_bytes()
    return out


def captures(vault: Path) -> list[dict]:
    return run_json(vault, "inbox", "--limit", "1000")


def filed_once(daemon, vault: Path) -> str:  # type: ignore[no-untyped-def]
    with open(vault / "Inbox.md", "a") as fh:
        fh.write(f"- {THOUGHT}\n")
    once(daemon, vault)
    line = line_of(vault, "Met with Sarah")
    assert "(suggested: confirm in" in line and re.search(r" \^vb-[a-z0-9]{6}$", line), line
    return line


def test_a_remark_before_and_after_the_id_is_kept_byte_for_byte(vault: Path, daemon) -> None:
    line = filed_once(daemon, vault)
    before = notes(vault)
    cid = re.search(r"\^vb-([a-z0-9]+)", line).group(1)
    edited = line.replace(f" ^vb-{cid}", f" -- ask Tom first ^vb-{cid} and bring the deck")
    (vault / "Inbox.md").write_text(inbox(vault).replace(line, edited))
    once(daemon, vault)
    assert line_of(vault, "Met with Sarah") == edited
    assert notes(vault).keys() == before.keys()  # no junk note named after the remark
    assert [c["id"] for c in captures(vault)] == [cid]
    # Confirming it rewrites our suffix only: the remarks stay where the person typed them.
    run(vault, "review", "confirm", cid)
    once(daemon, vault)
    now = line_of(vault, "Met with Sarah")
    assert now.startswith(f"- [x] {THOUGHT} → [[People/Sarah|Sarah]]"), now
    assert now.endswith(f" -- ask Tom first ^vb-{cid} and bring the deck"), now
    assert "suggested" not in now


def test_editing_our_suffix_does_not_duplicate_it(vault: Path, daemon) -> None:
    line = filed_once(daemon, vault)
    cut = line.replace("(suggested: confirm in [[Brain/Needs Review|Needs Review]])", "(suggested")
    (vault / "Inbox.md").write_text(inbox(vault).replace(line, cut))
    once(daemon, vault)
    assert line_of(vault, "Met with Sarah") == line
    assert len(captures(vault)) == 1


@pytest.mark.parametrize("how", ["undo", "id removed"])
def test_a_line_that_lost_its_id_gets_it_back(vault: Path, daemon, how: str) -> None:
    line = filed_once(daemon, vault)
    before = notes(vault)
    cid = re.search(r"\^vb-([a-z0-9]+)", line).group(1)
    lost = f"- {THOUGHT}" if how == "undo" else line.replace(f" ^vb-{cid}", "")
    (vault / "Inbox.md").write_text(inbox(vault).replace(line, lost))
    out = once(daemon, vault)
    assert line_of(vault, "Met with Sarah") == line, out
    assert [c["id"] for c in captures(vault)] == [cid]
    assert notes(vault) == before  # Sarah's note not written again, no second log entry


def test_a_lost_state_dir_is_rebuilt_from_the_vault(vault: Path, daemon) -> None:
    filed_once(daemon, vault)
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: a podcast about bees\n")
    once(daemon, vault)
    run(vault, "review", "confirm", captures(vault)[0]["id"])
    once(daemon, vault)
    before = notes(vault)
    ids = sorted(c["id"] for c in captures(vault))
    shutil.rmtree(vault / ".vaultbrain")
    assert "2 capture(s) rebuilt from their inbox lines" in run(vault, "reindex").output
    assert notes(vault) == before  # zero notes created, zero lines changed
    assert sorted(c["id"] for c in captures(vault)) == ids
    settle(vault)  # this machine's settings are what a lost state dir loses
    # A new state dir is a new machine: it observes until it claims the filer role.
    out = once(daemon, vault)
    assert "is an observer" in out, out
    assert notes(vault) == before
    assert "is an observer" in run(vault, "doctor", ok=False).output
    assert "is now the filer" in run(vault, "filer", "claim").output
    out = once(daemon, vault)
    assert "is the filer" in out, out
    assert notes(vault) == before
    rebuilt = {c["id"]: c["status"] for c in captures(vault)}
    assert sorted(rebuilt) == ids
    assert set(rebuilt.values()) <= {"filed", "suggested", "corrected"}
    # A rebuilt suggestion is still the person's to confirm.
    waiting = [cid for cid, status in rebuilt.items() if status == "suggested"]
    assert waiting
    run(vault, "review", "confirm", waiting[0])
    once(daemon, vault)
    assert re.search(r"- \[x\] Idea: a podcast about bees → \[\[", inbox(vault)), inbox(vault)


@pytest.mark.parametrize("lost", ["the state dir", "only state.db"])
def test_the_state_dir_deleted_while_running(vault: Path, daemon, lost: str) -> None:
    run(vault, "settings", "set", "inbox_idle_seconds", "0.5")
    d = daemon(vault).start()
    d.wait_ready()
    with open(vault / "Inbox.md", "a") as fh:
        fh.write(f"- {THOUGHT}\n")
    wait_for(lambda: "(suggested: confirm in" in inbox(vault), 30, d.log)
    first = line_of(vault, "Met with Sarah")
    if lost == "the state dir":
        shutil.rmtree(vault / ".vaultbrain", ignore_errors=True)
    else:
        for name in ("state.db", "state.db-wal", "state.db-shm"):
            (vault / ".vaultbrain" / name).unlink(missing_ok=True)
    with open(vault / "Inbox.md", "a") as fh:
        fh.write("- Idea: a podcast about bees\n")
    wait_for(lambda: re.search(r"podcast about bees → .*\^vb-", inbox(vault)), 30, d.log)
    time.sleep(1.5)  # another pass or two: nothing more may change
    assert line_of(vault, "Met with Sarah") == first
    assert not list(vault.rglob("* (2).md")), sorted(vault.rglob("*.md"))
    assert d.alive() and "Traceback" not in d.output(), d.output()
    assert "is an observer" not in d.output()
    assert "was deleted while running" in d.output(), d.output()
    assert d.stop() == 0
    # The same machine after the restart: it still files.
    out = once(daemon, vault)
    assert "is the filer" in out, out


def test_doctor_warns_of_a_state_dir_a_sync_tool_carries(vault: Path, tmp_path: Path) -> None:
    assert "state dir sync" not in run(vault, "doctor", ok=False).output
    (vault / ".stfolder").mkdir()
    out = run(vault, "doctor", ok=False).output
    assert "inside a vault Syncthing syncs" in out, out
    outside = run(vault, "--state-dir", str(tmp_path / "state"), "doctor", ok=False).output
    assert "state dir sync" not in outside
