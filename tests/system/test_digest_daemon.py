"""The scheduler inside the real ``vaultbrain daemon --once``: a missed run is run, once."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

from vaultbrain.brain import Brain


def daemon_once(vault: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "daemon", "--once"],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_daemon_once_runs_the_missed_digest_once(vault: Path) -> None:
    app = Brain(vault)
    app.settings.set("provider", "heuristic")  # no LLM wait; the note says why
    now = dt.datetime.now().astimezone()
    # The daemon last looked two days ago, so at least one 18:00 has passed unrun.
    since = (now - dt.timedelta(days=2)).isoformat()
    app.store.write_json(
        "meta.json", {"scheduler": {"digest": {"cron": "0 18 * * *", "since": since}}}
    )
    proc = daemon_once(vault)
    assert proc.returncode == 0, proc.stderr
    runs = list(app.store.read_jsonl("digests.jsonl"))
    assert len(runs) == 1 and runs[0]["trigger"] == "schedule"
    local = dt.datetime.now()
    fired = local.replace(hour=18, minute=0, second=0, microsecond=0)
    if fired > local:
        fired -= dt.timedelta(days=1)
    assert runs[0]["date"] == fired.date().isoformat()  # the latest missed 18:00's day
    assert (vault / runs[0]["path"]).is_file()
    state = app.store.read_json("meta.json")["scheduler"]["digest"]
    assert state["last_status"] == "ok"
    last_fire = dt.datetime.fromisoformat(state["last_fire"]).astimezone().replace(tzinfo=None)
    assert last_fire == fired
    # Run again: nothing is due any more.
    assert daemon_once(vault).returncode == 0
    assert len(list(app.store.read_jsonl("digests.jsonl"))) == 1
