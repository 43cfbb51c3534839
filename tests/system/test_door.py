"""`vaultbrain capture` hands its thought to the daemon watching the vault (the daemon's door,
vaultbrain/daemon/door.py), and makes it itself, exactly once, whenever the daemon does not
answer: the real daemon as a subprocess, the command as a subprocess too."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run

from vaultbrain.brain import Brain
from vaultbrain.capture import lines
from vaultbrain.capture.pipeline import capture
from vaultbrain.daemon.door import address, new_capture_id, valid_capture_id


def vaultbrain(vault: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "provider", "heuristic")  # no LLM: the embedded one files
    run(root, "settings", "set", "inbox_settle_seconds", "0.2")
    return root


def socket_of(vault: Path) -> Path:
    where = address(Brain(vault).state_dir)
    assert where is not None
    return Path(where)


def lines_with(vault: Path, cid: str) -> list[str]:
    text = (vault / "Inbox.md").read_text("utf-8")
    return [line for line in text.splitlines() if f"^vb-{cid}" in line]


def handed(d, cid: str) -> bool:
    return f"capture {cid} (handed over" in d.output()


def test_the_daemon_makes_the_capture_and_the_command_prints_it(vault: Path, daemon) -> None:
    d = daemon().start()
    d.wait_ready()
    sock = socket_of(vault)
    assert sock.exists()  # open once the daemon says it is watching
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600  # the person's alone
    out = vaultbrain(vault, "capture", "Met with Quinn about the shed")
    cid = re.match(r"([a-z0-9]{6}): ", out).group(1)  # type: ignore[union-attr]
    assert handed(d, cid), d.output()
    assert "People/Quinn.md" in out
    # What the daemon made is what the command says: the line, the record, the note.
    assert len(lines_with(vault, cid)) == 1
    doc = json.loads(vaultbrain(vault, "inbox", "--json"))
    assert [r["id"] for r in doc if r["id"] == cid] == [cid]
    # --json through the door: the capture as `inbox --json` and a capture made here show it.
    got = json.loads(vaultbrain(vault, "capture", "--json", "Renew the passport by Friday"))
    assert handed(d, got["id"])
    assert got["text"] == "Renew the passport by Friday"
    assert len(lines_with(vault, got["id"])) == 1
    assert d.stop() == 0
    assert not sock.exists()  # the door closed with the daemon


def test_a_capture_made_here_is_said_as_the_daemon_says_it(vault: Path, daemon) -> None:
    """The same thought, captured by the command itself and by the daemon, prints the same
    lines (but for its id)."""
    here = vaultbrain(vault, "capture", "Idea: a podcast about bees")
    d = daemon().start()
    d.wait_ready()
    there = vaultbrain(vault, "capture", "Idea: a podcast about wasps")
    cid = there.split(":", 1)[0]
    assert handed(d, cid)

    def shape(out: str) -> list[str]:
        return [re.sub(r"bees|wasps|^[a-z0-9]{6}", "X", line) for line in out.splitlines()]

    assert shape(here) == shape(there)


def test_no_hand_over_when_the_daemon_would_capture_otherwise(vault: Path, daemon) -> None:
    d = daemon().start()
    d.wait_ready()
    # Other VAULTBRAIN_* settings in the command's environment: refused, made here, once.
    out = vaultbrain(vault, "capture", "Call Ann about the roof", env={"VAULTBRAIN_MODEL": "x"})
    cid = out.split(":", 1)[0]
    assert valid_capture_id(cid)
    assert len(lines_with(vault, cid)) == 1
    # -v: the person asked to see this process's log.
    done = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "-v", "--vault", str(vault), "capture", "Call Bo"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    cid2 = done.stdout.split(":", 1)[0]
    assert len(lines_with(vault, cid2)) == 1
    d.stop()
    assert not handed(d, cid) and not handed(d, cid2), d.output()


def test_a_socket_left_by_a_killed_daemon_is_passed_by(vault: Path, daemon) -> None:
    d = daemon().start()
    d.wait_ready()
    sock = socket_of(vault)
    assert sock.exists()  # open once the daemon says it is watching
    d.kill9()
    assert sock.exists()  # nobody listens there now
    out = vaultbrain(vault, "capture", "Met with Quinn after the crash")
    cid = out.split(":", 1)[0]
    assert len(lines_with(vault, cid)) == 1
    # The next daemon takes the socket over and captures through it again.
    d2 = daemon().start()
    d2.wait_ready()  # (its door is open once it says it is watching)
    cid2 = vaultbrain(vault, "capture", "Met with Quinn again").split(":", 1)[0]
    assert handed(d2, cid2), d2.output()
    assert len(lines_with(vault, cid2)) == 1
    d2.stop()


def test_a_handed_over_capture_does_not_load_the_classifier(vault: Path, daemon) -> None:
    d = daemon().start()
    d.wait_ready()
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "vaultbrain",
            "--vault",
            str(vault),
            "capture",
            "Met with Quinn about imports",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    cid = done.stdout.split(":", 1)[0]
    assert handed(d, cid)
    loaded = set(re.findall(r"\|\s*([\w.]+)\s*$", done.stderr, re.M))
    for heavy in ("vaultbrain.classify", "vaultbrain.capture.pipeline", "vaultbrain.store"):
        assert heavy not in loaded, heavy
    d.stop()


# -- exactly once, whatever the daemon did before it stopped answering --------------------------


def test_made_again_under_the_same_id_the_capture_is_made_once(vault: Path) -> None:
    brain = Brain(vault)
    cid = new_capture_id()
    first = capture(brain, "Met with Quinn about the fence", cid)
    again = capture(Brain(vault), "Met with Quinn about the fence", cid)
    assert first.id == again.id == cid
    assert again.status == first.status
    assert len(lines_with(vault, cid)) == 1
    assert len([r for r in Brain(vault).store.inbox.all() if r["id"] == cid]) == 1


def test_a_line_the_daemon_added_before_it_stopped_is_not_added_twice(vault: Path) -> None:
    brain = Brain(vault)
    cid = new_capture_id()
    lines.add_line(brain, "Met with Quinn about the gate", cid)  # the daemon, then killed
    made = capture(Brain(vault), "Met with Quinn about the gate", cid)
    assert made.id == cid and made.destinations
    assert len(lines_with(vault, cid)) == 1


def test_an_id_an_older_capture_has_gives_the_thought_its_own(vault: Path) -> None:
    brain = Brain(vault)
    old = capture(brain, "Renew the domain", None)
    made = capture(Brain(vault), "Met with Quinn about the roof", old.id)
    assert made.id != old.id
    assert len(lines_with(vault, old.id)) == 1 and len(lines_with(vault, made.id)) == 1
    assert made.text == "Met with Quinn about the roof"


def test_capture_ids_are_the_stores_kind() -> None:
    ids = {new_capture_id() for _ in range(500)}
    assert len(ids) == 500
    assert all(valid_capture_id(c) for c in ids)
    assert not valid_capture_id("ABCDEF") and not valid_capture_id("1abcde")


def test_a_daemon_killed_while_filing_leaves_the_command_to_finish_it_once(
    vault: Path, daemon, lmstudio
) -> None:
    """The daemon took the thought, wrote its line and journaled it, and died waiting on a
    slow model: the command, whose connection broke, makes the capture itself under the same
    id, going on from where the daemon stopped. One line, one capture, one note."""
    import time

    from support.lmstudio import reply

    run(vault, "settings", "set", "provider", "lmstudio")
    run(vault, "settings", "set", "second_opinion", "false")

    def slow_idea(body: dict) -> str:
        time.sleep(3)
        return reply([{"type": "idea", "title": "Bees on the roof", "fields": {}}], 0.95)

    lmstudio.responder = slow_idea
    d = daemon().start()
    d.wait_ready()
    command = subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "capture", "Bees on the roof"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def asked() -> int:
        return sum(
            "Bees on the roof" in json.dumps(b.get("messages", ""), ensure_ascii=False)
            for b in list(lmstudio.requests)
        )

    deadline = time.monotonic() + 30
    while not asked():  # the daemon has it: its line written, journaled, the model asked
        assert time.monotonic() < deadline and command.poll() is None
        time.sleep(0.02)
    assert "Bees on the roof" in (vault / "Inbox.md").read_text("utf-8")
    d.kill9()
    before = asked()
    out, err = command.communicate(timeout=60)
    assert command.returncode == 0, err
    cid = out.split(":", 1)[0]
    assert valid_capture_id(cid), out
    assert len(lines_with(vault, cid)) == 1
    assert "Bees on the roof" in "".join(lines_with(vault, cid))
    records = [r for r in Brain(vault).store.inbox.all() if r["text"] == "Bees on the roof"]
    assert [r["id"] for r in records] == [cid]
    assert records[0]["status"] == "filed", records[0]
    assert [p.name for p in (vault / "Ideas").glob("*.md")] == ["Bees on the roof.md"]
    # The daemon was asking the model when it died, and the command asked again.
    assert asked() > before
    assert f"capture {cid} (handed over" not in d.output()


def test_doctor_says_whether_captures_are_handed_over(vault: Path, daemon) -> None:
    from vaultbrain.doctor import run_checks

    def said() -> str:
        return next(c.detail for c in run_checks(Brain(vault)) if c.name == "daemon")

    assert said().startswith("not running: each `vaultbrain capture` files its thought itself")
    d = daemon().start()
    d.wait_ready()
    assert said() == (
        f"watching this vault (pid {d.proc.pid}): `vaultbrain capture` hands its thoughts to it"
    )
    d.kill9()
    assert said().startswith("not running (its socket was left by one that stopped)")
