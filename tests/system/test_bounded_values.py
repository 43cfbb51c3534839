"""Every value from a note or a command line is bounded (issue 47, item 5).

- Ticking a recurring task whose next occurrence runs past the calendar (``🔁 every 9999
  years`` due 9000-01-01, ``🔁 every day`` due 9999-12-31) with the daemon running: the task
  is marked in its note's log, once, and the other tick of the same pass is applied (its next
  occurrence written as Tasks does); the daemon keeps running, no traceback.
- Spans, dates and counts out of range on the command line (``--since 99999999d``,
  ``--since 1000000y``, a date at the end of the calendar) are one line, exit 1, as a real
  subprocess prints them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.daemon import wait_for

from vaultbrain.vault.tasks import find_task_lines


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "provider", "heuristic")
    return root


def _admin(vault: Path, title: str, due: str) -> Path:
    rec = run_json(vault, "db", "add", "admin", "--set", f"title={title}", "--set", f"due={due}")
    return vault / rec["path"]


def _task_lines(path: Path) -> list[str]:
    lines = path.read_text("utf-8").splitlines()
    return [lines[f.index] for f in find_task_lines(lines)]


def _set_line(path: Path, new: str) -> None:
    text = path.read_text("utf-8")
    (old,) = _task_lines(path)
    path.write_text(text.replace(old, new), "utf-8")


def test_a_recurrence_past_the_calendar_is_marked_and_the_other_tick_is_applied(
    vault: Path, daemon
) -> None:
    far = _admin(vault, "Renew the lease", "9000-01-01")
    end = _admin(vault, "Feed the cat", "9999-12-31")
    fine = _admin(vault, "Water the plants", "2026-12-01")
    d = daemon().start()
    d.wait_ready()
    _set_line(far, "- [ ] Renew the lease 🔁 every 9999 years 📅 9000-01-01")
    _set_line(end, "- [ ] Feed the cat 🔁 every day 📅 9999-12-31")
    _set_line(fine, "- [ ] Water the plants 🔁 every week 📅 2026-12-01")
    wait_for(lambda: frontmatter(fine).get("recurrence") == "every week", 20, d.log)
    # Three ticks in one pass: the daemon sees them together.
    _set_line(far, "- [x] Renew the lease 🔁 every 9999 years 📅 9000-01-01 ✅ 2026-12-02")
    _set_line(end, "- [x] Feed the cat 🔁 every day 📅 9999-12-31 ✅ 2026-12-02")
    _set_line(fine, "- [x] Water the plants 🔁 every week 📅 2026-12-01 ✅ 2026-12-02")

    wait_for(lambda: frontmatter(fine).get("due") == "2026-12-08", 30, d.log)
    assert _task_lines(fine) == ["- [ ] Water the plants 🔁 every week 📅 2026-12-08"]
    assert "- 2026-12-02 done, due 2026-12-01: Water the plants" in fine.read_text("utf-8")

    def marked(path: Path) -> bool:
        return "past the calendar's last day" in path.read_text("utf-8")

    wait_for(lambda: marked(far) and marked(end), 30, d.log)
    wait_for(lambda: frontmatter(far).get("status") == "done", 30, d.log)
    far_text = far.read_text("utf-8")
    assert "🔁 every 9999 years after 9000-01-01 runs past the calendar's last day" in far_text
    assert "🔁 every day after 9999-12-31 runs past" in end.read_text("utf-8")
    # The ticked lines stay as the person left them: nothing they wrote is lost.
    assert _task_lines(far) == [
        "- [x] Renew the lease 🔁 every 9999 years 📅 9000-01-01 ✅ 2026-12-02"
    ]
    # Marked once, however many passes look at the note again.
    run(vault, "reindex")
    assert far.read_text("utf-8").count("past the calendar's last day") == 1
    assert d.alive(), "the daemon kept running"
    d.stop()
    assert "Traceback" not in d.output()


def _cli(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()}
    return subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("takes", "--since", "99999999d"), "at most 100 years"),
        (("takes", "--since", "1000000y"), "at most 100 years"),
        (("takes", "--since", "9" * 5000 + "d"), "at most 100 years"),
        (("trust", "--since", "99999999d"), "at most 100 years"),
        (("trust", "--since", "9999-12-31"), "out of range"),
        (("trust", "--since", "0001-01-01"), "out of range"),
        (("schema", "usage", "--since", "999999999999999h"), "at most 100 years"),
        (("digest", "run", "--date", "9999-12-31"), "out of range"),
        (("weekly", "run", "--date", "0001-01-01"), "out of range"),
    ],
)
def test_a_value_out_of_range_is_one_line_and_exit_1(
    vault: Path, args: tuple[str, ...], said: str
) -> None:
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    done = _cli(vault, *args)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], lines
    assert len(lines[0]) < 300, "the value is quoted short"
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before, "nothing written"


def test_values_in_range_still_work(vault: Path) -> None:
    for args in (
        ("takes", "--since", "3y"),
        ("trust", "--since", "2026-11-01"),
        ("trust", "--since", "36525d"),
        ("schema", "usage", "--since", "90m"),
    ):
        done = _cli(vault, *args)
        assert done.returncode == 0, (args, done.stderr)
