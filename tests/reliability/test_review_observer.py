"""Review on a machine that does not file (issue 28): the vault is the truth. The desktop files
(its daemon runs as a subprocess); the laptop, a second state dir on the same vault, shows
what Needs Review and the inbox show, and its review commands write the person's gesture into
the vault, which the filer carries out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run
from support.daemon import wait_for

THOUGHT = "Met Sarah about the kiln"


@pytest.fixture
def machines(vault: Path, tmp_path: Path, lmstudio) -> tuple[Path, Path]:
    from support.lmstudio import reply

    lmstudio.responder = lambda body: reply(
        [
            {"type": "person", "title": "Sarah", "fields": {}},
            {"type": "project", "title": "Kiln", "fields": {}},
        ],
        0.6,
        "a person and a project",
    )
    desktop, laptop = tmp_path / "desktop-state", tmp_path / "laptop-state"
    run(vault, "--state-dir", str(desktop), "init")
    for state in (desktop, laptop):
        run(vault, "--state-dir", str(state), "settings", "set", "inbox_settle_seconds", "0")
    # The premise is the fake LLM's reading (a suggestion at 0.6), not the pair's decision.
    run(vault, "--state-dir", str(desktop), "settings", "set", "second_opinion", "false")
    run(vault, "--state-dir", str(desktop), "filer", "claim")
    return desktop, laptop


def _capture(vault: Path, desktop: Path) -> str:
    doc = json.loads(run(vault, "--state-dir", str(desktop), "capture", "--json", THOUGHT).output)
    assert doc["status"] == "suggested", doc
    return doc["id"]


def _status(vault: Path, state: Path, cid: str) -> str:
    rows = json.loads(run(vault, "--state-dir", str(state), "inbox", "--json").output)
    return next(r["status"] for r in rows if r["id"] == cid)


def test_an_observer_lists_what_the_vault_shows(vault: Path, machines) -> None:
    desktop, laptop = machines
    cid = _capture(vault, desktop)
    assert (vault / "Brain/Needs Review.md").exists()  # drawn by the capture: its line links there
    shown = run(vault, "--state-dir", str(laptop), "review", "list").output
    assert cid in shown and THOUGHT in shown and "does not file" in shown
    doc = json.loads(run(vault, "--state-dir", str(laptop), "review", "list", "--json").output)
    assert doc["observer"] is True
    assert [(i["id"], i["needs"]) for i in doc["items"]] == [(cid, "confirm")]


@pytest.mark.parametrize(
    ("args", "status", "types"),
    [
        (["confirm"], "filed", ["person", "project"]),
        (["resolve", "{cid}", "project"], "filed", ["project"]),
        (["dismiss"], "dismissed", None),
    ],
    ids=["confirm", "resolve", "dismiss"],
)
def test_an_observers_decision_is_a_gesture_the_filer_carries_out(
    vault: Path, machines, daemon, args: list[str], status: str, types: list[str] | None
) -> None:
    desktop, laptop = machines
    cid = _capture(vault, desktop)
    command = [a.format(cid=cid) for a in args] if len(args) > 1 else [args[0], cid]
    said = run(vault, "--state-dir", str(laptop), "review", *command).output
    assert "the filer carries it out" in said
    assert _status(vault, desktop, cid) == "suggested"  # nothing decided on the laptop itself
    filer = daemon(env={"VAULTBRAIN_STATE_DIR": str(desktop)}).start()
    filer.wait_ready()
    wait_for(lambda: _status(vault, desktop, cid) == status, 30, filer.log)
    if types is not None:
        rows = json.loads(run(vault, "--state-dir", str(desktop), "inbox", "--json").output)
        dests = next(r["destinations"] for r in rows if r["id"] == cid)
        assert sorted(d["type"] for d in dests) == types
    assert filer.stop() == 0
    assert "Traceback" not in filer.output()


def test_an_observer_refuses_what_no_gesture_can_say(vault: Path, machines) -> None:
    desktop, laptop = machines
    cid = _capture(vault, desktop)
    result = run(
        vault,
        "--state-dir",
        str(laptop),
        "review",
        "resolve",
        cid,
        "project",
        "--set",
        "status=active",
        ok=False,
    )
    assert result.exit_code == 2 and "--set and --title work on the filer" in result.output
    missing = run(vault, "--state-dir", str(laptop), "review", "confirm", "zzzzzz", ok=False)
    assert missing.exit_code == 1 and "no item 'zzzzzz'" in missing.output
