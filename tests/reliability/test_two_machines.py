"""Two machines on one vault (issue 15): a laptop and a desktop syncing one vault, each with
its own state dir, both running the daemon. One is the filer (the first to start names
itself in vaultbrain.yml), the other observes: every thought is filed once, and Inbox.md is
quiet once the last line is filed (no two daemons rewriting it for ever)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for

THOUGHTS = [f"Idea: a garden for bees number {i}" for i in range(6)] + [
    "Met with Sarah about the new project. Need to follow up next week.",
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def machine(vault: Path, state: Path) -> None:
    """A machine's own settings, in its own state dir."""
    for key, value in (
        ("inbox_settle_seconds", "0.2"),
        ("inbox_idle_seconds", "0.5"),
        ("retry_seconds", "0.3"),
    ):
        run(vault, "--state-dir", str(state), "settings", "set", key, value)


def test_two_daemons_two_state_dirs_file_each_thought_once(
    vault: Path, daemon, tmp_path: Path
) -> None:
    laptop, desktop = tmp_path / "laptop-state", tmp_path / "desktop-state"
    machine(vault, laptop)
    machine(vault, desktop)
    a = daemon(env={"VAULTBRAIN_STATE_DIR": str(laptop)}).start()
    a.wait_ready()
    assert "is the filer (claimed the role just now)" in a.output(), a.output()
    b = daemon(env={"VAULTBRAIN_STATE_DIR": str(desktop)}).start()
    b.wait_ready()
    assert "is an observer" in b.output(), b.output()
    assert "filer:" in (vault / "vaultbrain.yml").read_text()

    inbox = vault / "Inbox.md"
    for thought in THOUGHTS:
        with open(inbox, "a") as fh:
            fh.write(f"- {thought}\n")
        time.sleep(0.1)

    def all_taken() -> bool:
        text = inbox.read_text()
        return all(
            re.search(re.escape(t) + r" → \[\[.*\^vb-[a-z0-9]{6}$", text, re.M) for t in THOUGHTS
        )

    wait_for(all_taken, 60, a.log)
    # Quiet afterwards: once the filer has shown every line's last form, neither daemon
    # rewrites the inbox again (before issue 15 two daemons rewrote it about once a second).
    seen = [inbox.read_bytes()]

    def still_for_two_seconds() -> bool:
        time.sleep(0.5)
        seen.append(inbox.read_bytes())
        return len(seen) > 4 and len(set(seen[-5:])) == 1

    wait_for(still_for_two_seconds, 30, a.log)
    settled = inbox.read_bytes()
    time.sleep(3)
    assert inbox.read_bytes() == settled
    text = settled.decode()
    for thought in THOUGHTS:
        assert len([line for line in text.splitlines() if thought in line]) == 1, text
    ideas = sorted(p.name for p in (vault / "Ideas").glob("*.md"))
    assert len(ideas) == 6, ideas  # one note per thought: no junk note named after a suffix
    assert len(list((vault / "People").glob("Sarah*.md"))) == 1
    assert "took" not in b.output() and "took" in a.output()
    assert "Traceback" not in a.output() + b.output()
    # The observer's store follows the notes the filer wrote.
    listed = run(vault, "--state-dir", str(desktop), "db", "list", "idea").output
    wait_for(
        lambda: (
            "bees number 5" in run(vault, "--state-dir", str(desktop), "db", "list", "idea").output
        ),
        20,
        b.log,
    )
    assert listed is not None

    # Claiming moves the role: the desktop files from now on, the laptop observes.
    run(vault, "--state-dir", str(desktop), "filer", "claim")
    wait_for(lambda: "is an observer" in a.output(), 20, a.log)
    with open(inbox, "a") as fh:
        fh.write("- Idea: a last thought after the switch\n")
    wait_for(lambda: "a last thought after the switch →" in inbox.read_text(), 30, b.log)
    assert len(list((vault / "Ideas").glob("*.md"))) == 7
    assert a.stop() == 0 and b.stop() == 0


def test_capture_on_an_observer_leaves_the_line_to_the_filer(
    vault: Path, daemon, tmp_path: Path
) -> None:
    laptop, phone = tmp_path / "laptop-state", tmp_path / "phone-state"
    machine(vault, laptop)
    assert "is now the filer" in run(vault, "--state-dir", str(laptop), "filer", "claim").output
    out = run(vault, "--state-dir", str(phone), "capture", "Idea: bees on the roof").output
    assert "is an observer" in out, out
    assert not (vault / "Ideas").exists() or not list((vault / "Ideas").glob("*.md"))
    assert "bees on the roof ⏳ waiting for the classifier ^vb-" in (vault / "Inbox.md").read_text()
    a = daemon(env={"VAULTBRAIN_STATE_DIR": str(laptop)}).start("--once")
    assert a.proc.wait(90) == 0, a.output()
    ideas = list((vault / "Ideas").glob("*.md"))
    assert len(ideas) == 1, a.output()
    assert re.search(r"bees on the roof → .*\^vb-", (vault / "Inbox.md").read_text())
    assert "is an observer" in run(vault, "--state-dir", str(phone), "filer", "show").output
