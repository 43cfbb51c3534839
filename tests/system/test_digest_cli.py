"""``digest run|latest``, ``weekly run|latest`` and ``schedule`` on a temp vault.

The store is seeded the way the filing layer writes it (records.md) with matching notes. By
default the conftest points the LLM endpoint at a closed port (the offline path); tests that
want the model use the ``lmstudio`` fixture, a real HTTP server speaking LM Studio's API.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from vaultbrain.brain import Brain
from vaultbrain.cli.group import cli
from vaultbrain.vault.note import parse_note, render_note

DAY = "2026-12-01"


def run(vault: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--vault", str(vault), *args])


def seed(vault: Path) -> None:
    app = Brain(vault)

    def put(col: str, rec: dict[str, Any]) -> None:
        base = {
            "aliases": [],
            "sources": ["c1"],
            "confirmed": True,
            "deleted": False,
            "log": [],
            "created": f"{DAY}T19:30:00",
            "updated": f"{DAY}T19:30:00",
        }
        rec = {**base, **rec}
        app.store.collection(col).put(rec)
        front = {
            "type": rec["type"],
            "id": rec["id"],
            "created": rec["created"],
            "updated": rec["updated"],
            **rec["fields"],
        }
        app.vault.create(rec["path"], render_note(front, f"# {rec['title']}\n"))

    put(
        "people",
        {
            "id": "psarah0001",
            "type": "person",
            "title": "Sarah",
            "path": "People/Sarah.md",
            "fields": {
                "name": "Sarah",
                "last_interaction": DAY,
                "follow_ups": ["Follow up next week"],
            },
        },
    )
    put(
        "projects",
        {
            "id": "prnew00001",
            "type": "project",
            "title": "New project",
            "path": "Projects/New project.md",
            "fields": {"name": "New project", "status": "planned"},
        },
    )
    put(
        "admin",
        {
            "id": "afollow001",
            "type": "admin",
            "title": "Follow up with Sarah",
            "path": "Admin/Follow up with Sarah.md",
            "fields": {
                "title": "Follow up with Sarah",
                "due": "2026-12-08",
                "priority": "medium",
                "status": "open",
            },
        },
    )
    app.store.collection("inbox").put(
        {
            "id": "c1",
            "text": "Met with Sarah about the new project. Need to follow up next week.",
            "text_hash": "x",
            "ordinal": 0,
            "note": "Inbox.md",
            "origin": "inbox",
            "created": f"{DAY}T19:30:00",
            "updated": f"{DAY}T19:30:00",
            "status": "filed",
            "destinations": [
                {
                    "type": "person",
                    "title": "Sarah",
                    "path": "People/Sarah.md",
                    "record_id": "psarah0001",
                    "op": "create",
                },
                {
                    "type": "project",
                    "title": "New project",
                    "path": "Projects/New project.md",
                    "record_id": "prnew00001",
                    "op": "create",
                },
                {
                    "type": "admin",
                    "title": "Follow up with Sarah",
                    "path": "Admin/Follow up with Sarah.md",
                    "record_id": "afollow001",
                    "op": "create",
                },
            ],
        }
    )
    app.store.collection("inbox").put(
        {
            "id": "c2",
            "text": "hmm",
            "text_hash": "y",
            "ordinal": 0,
            "note": "Inbox.md",
            "origin": "inbox",
            "created": f"{DAY}T20:00:00",
            "updated": f"{DAY}T20:00:00",
            "status": "needs_review",
            "destinations": [],
        }
    )


@pytest.fixture
def seeded(vault: Path) -> Path:
    seed(vault)
    return vault


def digest_answer(req: dict[str, Any]) -> str:
    name = req["response_format"]["json_schema"]["name"]
    if name == "daily_digest":
        return json.dumps(
            {
                "summary": "You met Sarah and started the new project.",
                "top_actions": ["Follow up with Sarah", "Give New project a next action"],
                "stuck": "New project has no next action yet.",
                "small_win": "A new project is on the list.",
            }
        )
    return json.dumps(
        {
            "summary": "A week with one new project.",
            "wins": ["Met Sarah"],
            "focus": ["Follow up with Sarah"],
            "let_go": "",
        }
    )


def note(vault: Path, rel: str) -> Any:
    return parse_note((vault / rel).read_text("utf-8"))


def test_offline_digest_is_written_and_says_the_summary_is_unavailable(seeded: Path) -> None:
    result = run(seeded, "digest", "run", "--date", DAY)
    assert result.exit_code == 0, result.output
    assert "wrote Brain/Digests/2026-12-01.md" in result.output
    assert "summary unavailable: cannot reach the LLM server" in result.output
    got = note(seeded, "Brain/Digests/2026-12-01.md")
    assert got.data["type"] == "digest" and "llm" not in got.data  # (the run's history)
    assert got.data["captures_count"] == 2 and got.data["needs_review_count"] == 1
    assert "Summary unavailable" in got.body
    assert "New person added: [[People/Sarah|Sarah]]" in got.body
    assert (
        "Action due: [[Admin/Follow up with Sarah|Follow up with Sarah]] (2026-12-08)" in got.body
    )
    entry = list(Brain(seeded).store.read_jsonl("digests.jsonl"))
    assert len(entry) == 1 and entry[0]["llm"]["status"] == "unavailable"
    assert entry[0]["llm"]["kind"] == "unreachable" and entry[0]["trigger"] == "cli"


def test_online_digest_has_the_models_summary(seeded: Path, lmstudio: Any) -> None:
    lmstudio.responder = digest_answer
    result = run(seeded, "digest", "run", "--date", DAY, "--json")
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)
    assert entry["llm"]["status"] == "ok" and entry["llm"]["model"] == "test-model"
    got = note(seeded, entry["path"])
    assert not {"llm", "model", "summary"} & set(got.data)  # (the run's history has them)
    assert "You met Sarah and started the new project." in got.body
    assert "1. Follow up with Sarah" in got.body and "### Small win" in got.body
    (req,) = lmstudio.requests
    assert req["response_format"]["json_schema"]["strict"] is True
    system, user = req["messages"]
    assert "Today is 2026-12-01 (Tuesday)" in system["content"]
    assert "Met with Sarah about the new project" in user["content"]
    assert "Admin due within 7 days (1):\n- Follow up with Sarah" in user["content"]


def test_an_answer_that_does_not_fit_leaves_the_summary_unavailable(
    seeded: Path, lmstudio: Any
) -> None:
    lmstudio.responder = lambda req: json.dumps({"summary": 7, "top_actions": "x"})
    result = run(seeded, "digest", "run", "--date", DAY, "--json")
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)
    assert entry["llm"]["status"] == "unavailable" and entry["llm"]["kind"] == "invalid_answer"
    assert "did not fit" in entry["llm"]["reason"]
    assert "Summary unavailable" in note(seeded, entry["path"]).body


@pytest.mark.parametrize(
    ("cut", "summary"),
    [
        ('{"summary": "A quiet day in the garden.", "top_actions": ["Water the', True),
        ('{"summary": "A quiet day in the gar', False),
        ("Sure! Here is", False),
    ],
)
def test_an_answer_cut_at_the_token_limit_keeps_the_fields_it_finished(
    seeded: Path, lmstudio: Any, cut: str, summary: bool
) -> None:
    """A small model that lists until its token limit, asked twice: a whole summary before
    the cut is used (the list it was cut off in is left out); a summary cut itself is not."""
    lmstudio.mode, lmstudio.cut_answer = "length", cut
    result = run(seeded, "digest", "run", "--date", DAY, "--json")
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)
    assert len(lmstudio.requests) == 2  # asked once more before the cut answer is used
    body = note(seeded, entry["path"]).body
    if summary:
        assert entry["llm"]["status"] == "ok" and entry["llm"]["model"] == "test-model"
        assert "A quiet day in the garden." in body and "Water the" not in body
    else:
        assert entry["llm"]["status"] == "unavailable" and entry["llm"]["kind"] == "length"
        assert "Summary unavailable" in body and "cut off at" in body


@pytest.mark.parametrize("mode", ["invalid_json", "error500", "no_models"])
def test_server_failures_leave_the_summary_unavailable(
    seeded: Path, lmstudio: Any, mode: str
) -> None:
    lmstudio.mode = mode
    result = run(seeded, "digest", "run", "--date", DAY, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["llm"]["status"] == "unavailable"
    assert (seeded / "Brain/Digests/2026-12-01.md").is_file()


def test_rerun_the_same_day_replaces_the_note(seeded: Path, lmstudio: Any) -> None:
    lmstudio.responder = digest_answer
    assert run(seeded, "digest", "run", "--date", DAY).exit_code == 0
    path = seeded / "Brain/Digests/2026-12-01.md"
    path.write_text(path.read_text("utf-8") + "\n## Notes\n\nMy own thoughts.\n", "utf-8")
    # Something new happened later that day.
    Brain(seeded).store.collection("inbox").put(
        {
            "id": "c3",
            "text": "Call the bank",
            "text_hash": "z",
            "ordinal": 0,
            "note": "Inbox.md",
            "origin": "cli",
            "created": f"{DAY}T21:00:00",
            "updated": f"{DAY}T21:00:00",
            "status": "filed",
            "destinations": [],
        }
    )
    result = run(seeded, "digest", "run", "--date", DAY)
    assert result.exit_code == 0, result.output
    assert "replaced Brain/Digests/2026-12-01.md" in result.output
    assert sorted(p.name for p in (seeded / "Brain/Digests").iterdir()) == ["2026-12-01.md"]
    got = note(seeded, "Brain/Digests/2026-12-01.md")
    assert got.data["captures_count"] == 3 and "Call the bank" in got.body
    assert got.body.endswith("## Notes\n\nMy own thoughts.\n")
    history = list(Brain(seeded).store.read_jsonl("digests.jsonl"))
    assert [h["replaced"] for h in history] == [False, True]


def test_latest_prints_the_last_digest(seeded: Path) -> None:
    missing = run(seeded, "digest", "latest")
    assert missing.exit_code == 1
    # the hint repeats the --vault given, ready to paste
    assert f"error: no digest yet; run `vaultbrain --vault {seeded} digest run`" in missing.output
    assert run(seeded, "digest", "run", "--date", "2026-11-30").exit_code == 0
    assert run(seeded, "digest", "run", "--date", DAY).exit_code == 0
    result = run(seeded, "digest", "latest")
    assert result.exit_code == 0
    assert result.output.startswith("---\ntype: digest\ndate: 2026-12-01\n")
    doc = json.loads(run(seeded, "digest", "latest", "--json").output)
    assert doc["path"] == "Brain/Digests/2026-12-01.md" and doc["text"].startswith("---")


def test_weekly_run_and_latest(seeded: Path, lmstudio: Any) -> None:
    lmstudio.responder = digest_answer
    result = run(seeded, "weekly", "run", "--date", "2026-12-06", "--json")
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output)
    assert entry["path"] == "Brain/Reviews/2026-W49.md" and entry["week"] == "2026-W49"
    got = note(seeded, entry["path"])
    assert (
        got.data["type"] == "weekly-review"
        and "summary" not in got.data
        and "A week with one new project." in got.body
    )
    assert "[[Projects/New project|New project]] — planned · needs next actions" in got.body
    assert "[[People/Sarah|Sarah]] — Follow up next week; follow-up scheduled:" in got.body
    assert lmstudio.requests[0]["response_format"]["json_schema"]["name"] == "weekly_review"
    # The same ISO week again (Wednesday to Sunday are one week): replaced, not duplicated.
    again = json.loads(run(seeded, "weekly", "run", "--date", "2026-12-02", "--json").output)
    assert again["path"] == entry["path"] and again["replaced"] is True
    assert [p.name for p in (seeded / "Brain/Reviews").iterdir()] == ["2026-W49.md"]
    latest = json.loads(run(seeded, "weekly", "latest", "--json").output)
    assert latest["date"] == "2026-12-02" and "Weekly review: 2026-W49" in latest["text"]


def test_daily_note_gets_one_link_to_the_digest(seeded: Path) -> None:
    Brain(seeded).settings.set("daily_notes_folder", "Daily")
    daily = seeded / "Daily/2026-12-01.md"
    daily.parent.mkdir()
    daily.write_text("# Tuesday\n\n- walked the dog", "utf-8")
    result = run(seeded, "digest", "run", "--date", DAY)
    assert result.exit_code == 0, result.output
    assert "linked from Daily/2026-12-01.md" in result.output
    text = daily.read_text("utf-8")
    assert text == "# Tuesday\n\n- walked the dog\n\n[[Brain/Digests/2026-12-01|Daily digest]]\n"
    assert run(seeded, "digest", "run", "--date", DAY).exit_code == 0
    assert daily.read_text("utf-8") == text  # appended once
    # The person removes the link: a later run respects that.
    daily.write_text("# Tuesday\n\n- walked the dog\n", "utf-8")
    assert run(seeded, "digest", "run", "--date", DAY).exit_code == 0
    assert daily.read_text("utf-8") == "# Tuesday\n\n- walked the dog\n"
    # No daily note for the 30th: none is created.
    assert run(seeded, "digest", "run", "--date", "2026-11-30").exit_code == 0
    assert not (seeded / "Daily/2026-11-30.md").exists()


@pytest.mark.parametrize("nl", ["\r\n", "\r"])
def test_the_digest_link_keeps_the_daily_notes_line_endings(seeded: Path, nl: str) -> None:
    # A Windows (CRLF) or old Mac (lone CR) daily note gets the link in its own endings:
    # Obsidian shows a lone CR as a line break, so a "\n" added to it would be a stray byte.
    Brain(seeded).settings.set("daily_notes_folder", "Daily")
    daily = seeded / "Daily/2026-12-01.md"
    daily.parent.mkdir()
    daily.write_bytes(f"# Tuesday{nl}{nl}- walked the dog".encode())
    assert run(seeded, "digest", "run", "--date", DAY).exit_code == 0
    want = f"# Tuesday{nl}{nl}- walked the dog{nl}{nl}[[Brain/Digests/2026-12-01|Daily digest]]{nl}"
    assert daily.read_bytes() == want.encode()


def test_schedule_json_lists_the_jobs(seeded: Path) -> None:
    result = run(seeded, "schedule", "--json")
    assert result.exit_code == 0, result.output
    jobs = json.loads(result.output)
    assert [j["name"] for j in jobs] == ["digest", "review", "tend"]
    for job in jobs:
        assert {"name", "cron", "last_run", "next_run"} <= set(job)
        assert job["last_run"] is None
    review = dt.datetime.fromisoformat(jobs[1]["next_run"])
    assert jobs[1]["cron"] == "0 9 * * 0"
    assert review.weekday() == 6 and (review.hour, review.minute) == (9, 0)
    assert review.tzinfo is not None
    text = run(seeded, "schedule")
    assert text.exit_code == 0 and "every day at 18:00" in text.output


def test_schedule_shows_a_schedule_that_cannot_run(seeded: Path) -> None:
    # `settings set` refuses it now; a settings file from before that check (or edited by
    # hand) still reaches the scheduler, which shows it instead of failing.
    app = Brain(seeded)
    data = app.store.read_json("settings.json") or {}
    app.store.write_json("settings.json", {**data, "digest_schedule": "0 18 * * 9"})
    jobs = json.loads(run(seeded, "schedule", "--json").output)
    digest = jobs[0]
    assert digest["next_run"] is None and "out of range" in digest["last_error"]
    assert jobs[1]["next_run"] is not None


def test_bad_date_is_a_usage_error(seeded: Path) -> None:
    result = run(seeded, "digest", "run", "--date", "yesterday")
    assert result.exit_code == 2 and "not a date" in result.output


def test_user_errors_are_one_line_from_the_real_entry_point(seeded: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "vaultbrain", "--vault", str(seeded), "weekly", "latest"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: no weekly review yet; run `vaultbrain --vault {seeded} weekly run`"
    )
