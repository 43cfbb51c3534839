"""Which machine (issue 29): a pack only one machine has never stops the filer on another.
The laptop makes and uses a pack of its own; the desktop, the filer, keeps filing with the
pack it had, says so once in its log and once in Needs Review, and restarts fine. `schema
use` says the pack is only on the laptop; `--in-vault` keeps it in the vault, and then the
desktop files with it too."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def on(machine: dict[str, str], vault: Path, *args: str):  # type: ignore[no-untyped-def]
    """A command on one machine: its own state dir and its own ~/.vaultbrain."""
    old = {k: os.environ.get(k) for k in machine}
    os.environ.update(machine)
    try:
        return run(vault, *args)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_a_pack_only_the_laptop_has_does_not_stop_the_desktop(
    vault: Path, tmp_path: Path, daemon
) -> None:
    laptop = {
        "VAULTBRAIN_STATE_DIR": str(tmp_path / "laptop-state"),
        "VAULTBRAIN_HOME": str(tmp_path / "laptop-home"),
    }
    desktop = {
        "VAULTBRAIN_STATE_DIR": str(tmp_path / "desktop-state"),
        "VAULTBRAIN_HOME": str(tmp_path / "desktop-home"),
    }
    for m in (laptop, desktop):
        for key, value in (("inbox_settle_seconds", "0.2"), ("inbox_idle_seconds", "0.5")):
            on(m, vault, "settings", "set", key, value)
    d = daemon(env=desktop).start()
    d.wait_ready()
    assert "is the filer" in d.output()

    on(laptop, vault, "schema", "init", "my-pack")
    said = on(laptop, vault, "schema", "use", "my-pack").output
    assert "is only on this machine" in said and "--in-vault" in said, said
    inbox = vault / "Inbox.md"
    with open(inbox, "a") as fh:
        fh.write("- Idea: a podcast about bees\n- Met with Sarah about the garden\n")
    wait_for(lambda: inbox.read_text().count("^vb-") == 2, 60, d.log)
    review = vault / "Brain" / "Needs Review.md"
    wait_for(lambda: review.is_file() and "my-pack" in review.read_text(), 30, d.log)
    time.sleep(1.5)  # (ten warnings a second, before: there would be a dozen by now)
    log = d.output()
    assert len(re.findall(r"'my-pack'.*cannot be used on this machine", log)) == 1, log
    # no line waits for ever (before: "⏳ waiting for the classifier", for good)
    wait_for(lambda: "⏳" not in inbox.read_text(), 60, d.log)
    section = review.read_text().split("## Can't read", 1)[1]
    assert "[[vaultbrain.yml" in section and "schema use NAME --in-vault" in section
    assert d.stop() == 0

    again = daemon(env=desktop).start()
    again.wait_ready()  # a restart does not exit 1
    with open(inbox, "a") as fh:
        fh.write("- Call the roofer on Monday\n")
    wait_for(lambda: inbox.read_text().count("^vb-") == 3, 60, again.log)
    wait_for(lambda: "⏳" not in inbox.read_text(), 60, again.log)
    assert again.alive()
    assert "Traceback" not in again.output()

    # Kept in the vault: the desktop finds it there, and the item leaves Needs Review.
    said = on(laptop, vault, "schema", "use", "my-pack", "--in-vault").output
    assert "kept in the vault for every machine: Brain/Packs/my-pack/pack.yaml" in said, said
    assert "is only on this machine" not in said
    assert "packs_folder: Brain/Packs" in (vault / "vaultbrain.yml").read_text()
    assert on(desktop, vault, "schema", "active").output.startswith("my-pack")
    wait_for(lambda: "my-pack" not in review.read_text(), 30, again.log)
    assert again.stop() == 0
    text = inbox.read_text()
    for thought in ("a podcast about bees", "Sarah about the garden", "the roofer on Monday"):
        assert len([line for line in text.splitlines() if thought in line]) == 1, text
