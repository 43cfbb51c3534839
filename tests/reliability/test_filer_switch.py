"""The filer role moved while lines are in flight (issue 15): a laptop files a burst, the
desktop runs `vaultbrain filer claim` in the middle of it. A taken line is never taken
again: every thought is filed once (one note holds its capture id, once), no `(2)` note,
no line left waiting, and claiming the role back changes nothing. Two daemons as
subprocesses, two state dirs, one vault; the loopback LM Studio server classifies."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for
from support.lmstudio import FakeLMStudio, reply

SARAH = [f"Sarah thought number {i}" for i in range(10)]
IDEAS = [f"Idea: a garden for bees number {i}" for i in range(8)]


def classify(body: dict) -> str:
    if body.get("response_format", {}).get("json_schema", {}).get("name") != "brain_classification":
        return json.dumps({"summary": "n/a"})
    thought = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
    if thought.startswith("Sarah"):
        return reply([{"type": "person", "title": "Sarah", "fields": {}}], 0.9)
    return reply([{"type": "idea", "title": thought[6:], "fields": {}}], 0.9)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def machine(vault: Path, state: Path) -> dict[str, str]:
    for key, value in (
        ("inbox_settle_seconds", "0.2"),
        ("inbox_idle_seconds", "0.5"),
        ("retry_seconds", "0.3"),
        ("second_opinion", "false"),
    ):
        run(vault, "--state-dir", str(state), "settings", "set", key, value)
    return {"VAULTBRAIN_STATE_DIR": str(state)}


def holders(vault: Path) -> dict[str, list[str]]:
    """Capture id -> the notes that hold it, once per line that names it (Inbox.md aside)."""
    out: dict[str, list[str]] = {}
    for p in sorted(vault.rglob("*.md")):
        rel = str(p.relative_to(vault))
        if rel == "Inbox.md" or rel.startswith((".", "Brain/")):
            continue
        for line in p.read_text("utf-8").splitlines():
            if line.startswith("source:"):
                continue  # a created note names its capture twice: source and log line
            for cid in set(re.findall(r"\^vb-([a-z0-9]+)", line)):
                out.setdefault(cid, []).append(rel)
    return out


def notes(vault: Path) -> dict[str, bytes]:
    """Every note but the inbox and vaultbrain's own Brain/ views, by path."""
    return {
        str(p.relative_to(vault)): p.read_bytes()
        for p in vault.rglob("*.md")
        if p.name != "Inbox.md" and "Brain" not in p.parts and ".vaultbrain" not in p.parts
    }


def settled(vault: Path) -> bool:
    text = (vault / "Inbox.md").read_text("utf-8")
    done = [line for line in text.splitlines() if line.startswith("- [x] ") and "^vb-" in line]
    return len(done) == len(SARAH) + len(IDEAS)


def test_a_claim_mid_burst_files_each_thought_once(
    vault: Path, daemon, lmstudio: FakeLMStudio, tmp_path: Path
) -> None:
    lmstudio.responder = classify
    lmstudio.delay = 0.1
    laptop = machine(vault, tmp_path / "laptop-state")
    desktop = machine(vault, tmp_path / "desktop-state")
    a = daemon(env=laptop).start()
    a.wait_ready()
    b = daemon(env=desktop).start()
    b.wait_ready()
    assert "is an observer" in b.output(), b.output()
    lines = [t for pair in zip(SARAH, IDEAS + [""] * 2, strict=True) for t in pair if t]
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("".join(f"- {t}\n" for t in lines))
    wait_for(lambda: len(holders(vault)) >= 3, 30, a.log)
    run(vault, "--state-dir", desktop["VAULTBRAIN_STATE_DIR"], "filer", "claim")
    wait_for(lambda: "is an observer" in a.output(), 20, a.log)
    wait_for(lambda: settled(vault), 60, b.log)
    time.sleep(1.5)  # both daemons look again: nothing more may be filed

    text = (vault / "Inbox.md").read_text("utf-8")
    ids = re.findall(r"\^vb-([a-z0-9]+)$", text, re.M)
    assert len(ids) == len(lines) == len(set(ids)), text
    assert "⏳" not in text, text
    held = holders(vault)
    twice = {cid: notes for cid, notes in held.items() if len(notes) != 1}
    assert not twice, twice
    assert sorted(held) == sorted(ids), (sorted(held), sorted(ids))
    assert not list(vault.rglob("* (2).md"))
    assert sorted(p.name for p in (vault / "People").glob("*.md")) == ["Sarah.md"]
    assert len(list((vault / "Ideas").glob("*.md"))) == len(IDEAS)

    # Claimed back: the laptop's store still has captures it left pending, whose notes the
    # person has deleted since. Their lines say what they became: nothing is filed again,
    # and nothing deleted comes back.
    left = len(re.findall(r"is not the filer", a.output()))
    assert left, a.output()  # the laptop did leave captures pending when it lost the role
    for note in (vault / "Ideas").glob("*.md"):
        note.unlink()
    time.sleep(1.5)  # both daemons see the deletes
    before = notes(vault)
    run(vault, "--state-dir", laptop["VAULTBRAIN_STATE_DIR"], "filer", "claim")
    wait_for(lambda: "is the filer" in a.output().rsplit("is an observer", 1)[-1], 20, a.log)
    time.sleep(2.0)
    assert notes(vault) == before
    assert not list((vault / "Ideas").glob("*.md"))
    text = (vault / "Inbox.md").read_text("utf-8")
    assert "⏳" not in text and len(re.findall(r"\^vb-", text)) == len(lines), text
    assert "Traceback" not in a.output() + b.output()
    assert a.stop() == 0 and b.stop() == 0
