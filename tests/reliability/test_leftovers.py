"""Crash leftovers are cleaned by whoever comes next (issue 47, item 6).

- A real ``adopt --apply`` subprocess on a vault of 3,000 hand-made notes, killed with
  SIGKILL while its temp files stand in the person's folder: afterwards nothing the person
  wrote is lost (every note is its text, with at most an id added); ``reindex`` removes the
  leftovers and says so in one line on stderr; a rerun of ``adopt --apply`` adopts every
  note once (one id each, nothing duplicated); ``doctor`` names nothing left.
- ``doctor`` lists a leftover it cannot remove.
- ``restyle`` keeps a remark the person typed on a machine-written property line.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import run, run_json

from vaultbrain.vault.note import parse_note

pytestmark = [pytest.mark.timeout(300)]

N = 3000


def _body(i: int) -> str:
    return f"Words the person wrote about person {i:04d}.\n"


def _cli(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=240,
    )


def _temps(vault: Path) -> list[Path]:
    return [p for p in vault.rglob(".vb-tmp-*")]


def _kill_mid_write(vault: Path) -> list[str]:
    """``adopt --apply`` started, stopped at moments until its temp files stand in People/,
    then killed with SIGKILL (with the writer processes it forked). The temps' names."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "adopt", "--apply"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    found: list[str] = []
    try:
        for _ in range(20_000):
            if proc.poll() is not None:
                break
            os.killpg(proc.pid, signal.SIGSTOP)
            with os.scandir(vault / "People") as it:
                found = [e.name for e in it if e.name.startswith(".vb-tmp-")]
            if found:
                break
            os.killpg(proc.pid, signal.SIGCONT)
            time.sleep(0.001)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    return found


def test_a_killed_adopt_leaves_temps_that_the_next_command_removes_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    vault = tmp_path / "Vault"
    run(vault, "init")
    (vault / "People").mkdir(exist_ok=True)
    for i in range(N):
        (vault / f"People/Person {i:04d}.md").write_text(
            f"---\nname: Person {i:04d}\n---\n{_body(i)}", "utf-8"
        )
    assert _cli(vault, "reindex").returncode == 0

    left = _kill_mid_write(vault)
    assert left, "the kill landed while adopt's temp files stood in People/"
    assert _temps(vault), "the killed adopt left its temp files behind"

    def person_notes_intact() -> None:
        for i in range(N):
            text = (vault / f"People/Person {i:04d}.md").read_text("utf-8")
            note = parse_note(text)
            assert note.error is None and note.data["name"] == f"Person {i:04d}", text
            assert note.body == _body(i), "the person's words, every one"
            assert set(note.data) <= {"name", "id", "type"}, text
            assert text.count("\nid: ") <= 1, "an id at most once"

    person_notes_intact()
    done = _cli(vault, "reindex")
    assert done.returncode == 0 and "Traceback" not in done.stderr + done.stdout, done.stderr
    said = [line for line in done.stderr.splitlines() if "temp file" in line]
    assert len(said) == 1, done.stderr
    assert re.match(r"removed \d+ temp files? \(\.vb-tmp-\*\) an interrupted", said[0])
    assert _temps(vault) == [], "no leftover in the vault or the state dir"
    person_notes_intact()

    # The next command has nothing to remove and says nothing about it.
    again = _cli(vault, "adopt", "--apply")
    assert again.returncode == 0 and "temp file" not in again.stderr, again.stderr
    assert "Traceback" not in again.stderr
    person_notes_intact()
    ids = [parse_note(p.read_text("utf-8")).data.get("id") for p in (vault / "People").glob("*.md")]
    assert len(ids) == N and None not in ids and len(set(ids)) == N, "each adopted once"
    doctor = _cli(vault, "doctor")
    assert "leftovers" not in doctor.stdout and "Traceback" not in doctor.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root removes a file from any folder")
def test_doctor_lists_a_leftover_it_cannot_remove(tmp_path: Path) -> None:
    vault = tmp_path / "Vault"
    run(vault, "init")
    locked = vault / "Ideas"
    locked.mkdir(exist_ok=True)
    stray = locked / ".vb-tmp-999999-deadbeef1"
    stray.write_text("old text", "utf-8")
    os.utime(stray, (time.time() - 3600, time.time() - 3600))
    locked.chmod(0o555)
    try:
        doctor = _cli(vault, "doctor")
    finally:
        locked.chmod(0o755)
    assert "[warn] leftovers: temp files that could not be removed" in doctor.stdout
    assert ".vb-tmp-999999-deadbeef1" in doctor.stdout and "Traceback" not in doctor.stderr
    assert stray.exists()


def test_restyle_keeps_a_remark_typed_on_a_machine_property_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    vault = tmp_path / "Vault"
    run(vault, "init")
    run(vault, "settings", "set", "note_style", "full")
    rec = run_json(vault, "db", "add", "admin", "--set", "title=Renew the passport")
    note = vault / rec["path"]
    text = note.read_text("utf-8")
    (updated,) = [line for line in text.splitlines() if line.startswith("updated:")]
    remarked = f"{updated}  # I checked this with the office"
    note.write_text(text.replace(updated, remarked), "utf-8")
    run(vault, "reindex")
    run(vault, "settings", "set", "note_style", "minimal")

    preview = run(vault, "restyle").output
    assert "kept updated (your remark on the line)" in preview
    run(vault, "restyle", "--apply")
    after = note.read_text("utf-8")
    assert remarked in after, "every word the person typed is kept"
    parsed = parse_note(after)
    assert not parsed.body.startswith("# "), "the rest of the restyle still happened"
    assert after.count("I checked this with the office") == 1
    assert "0 note(s) would be restyled" in run(vault, "restyle").output
