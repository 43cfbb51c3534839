"""Needs Review, fix/correct and the trust trail: in the vault and on the command line."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.daemon import DaemonProcess, wait_for
from support.lmstudio import FakeLMStudio, reply
from support.state import entries as state_entries

from vaultbrain.brain import Brain
from vaultbrain.capture import resolution
from vaultbrain.capture.inbox_pass import apply_gestures
from vaultbrain.capture.review import STATE
from vaultbrain.capture.review_queue import ReviewQueue
from vaultbrain.capture.trust import summary

NOTE = "Brain/Needs Review.md"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "Vault"
    run(root, "init")
    run(root, "settings", "set", "inbox_settle_seconds", "0")
    # the LLM's reading decides here; the pair's arbiter: tests/system/test_classify_pair.py
    run(root, "settings", "set", "second_opinion", "false")
    return root


def capture(vault: Path, lm: FakeLMStudio, text: str, dests: list[dict], conf: float) -> dict:
    lm.responder = lambda body: reply(dests, conf, "because")
    return run_json(vault, "capture", text)


def review_text(vault: Path) -> str:
    return (vault / NOTE).read_text()


def edit_item(vault: Path, cid: str, fn) -> None:
    lines = review_text(vault).splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.rstrip().endswith(f"^vbr-{cid}"):
            lines[i] = fn(line)
    (vault / NOTE).write_text("".join(lines))


def apply(vault: Path) -> None:
    ReviewQueue(Brain(vault)).refresh(force=True)


@pytest.fixture
def queued(vault: Path, lmstudio: FakeLMStudio) -> dict[str, dict]:
    out = {
        "low": capture(
            vault,
            lmstudio,
            "the sky is blue",
            [{"type": "unknown", "title": "", "fields": {}}],
            0.2,
        ),
        "low2": capture(
            vault,
            lmstudio,
            "Garden planner",
            [{"type": "idea", "title": "Garden planner", "fields": {}}],
            0.3,
        ),
        "sugg": capture(
            vault,
            lmstudio,
            "Idea: bee hotel",
            [{"type": "idea", "title": "Bee hotel", "fields": {}}],
            0.6,
        ),
    }
    apply(vault)
    return out


def test_the_note_lists_three_sections_with_the_details(vault: Path, queued: dict) -> None:
    text = review_text(vault)
    data = frontmatter(vault / NOTE)
    assert (
        data["type"] == "vaultbrain-review"
        and data["needs_decision_count"] == 2
        and data["suggestions_count"] == 1
    )
    assert "## Thoughts that need a decision" in text and "## Suggestions to confirm" in text
    assert "## Sync conflicts" in text and "tick the box" in text and "→ project" in text
    line = next(x for x in text.splitlines() if x.endswith(f"^vbr-{queued['sugg']['id']}"))
    assert "Idea: bee hotel" in line and "[[Ideas/Bee hotel|Bee hotel]]" in line
    assert "0.60 by lmstudio:test-model" in line and "because" in line
    assert (
        json.loads(run(vault, "review", "list", "--json").output)["suggestions"][0]["id"]
        == queued["sugg"]["id"]
    )


def test_tick_accepts_the_suggestion(vault: Path, queued: dict) -> None:
    cid = queued["sugg"]["id"]
    edit_item(vault, cid, lambda line: line.replace("- [ ]", "- [x]", 1))
    apply(vault)
    assert "confirmed" not in frontmatter(vault / "Ideas/Bee hotel.md")
    assert f"^vbr-{cid}" not in review_text(vault)
    assert (
        f"- [x] Idea: bee hotel → [[Ideas/Bee hotel|Bee hotel]] ^vb-{cid}"
        in (vault / "Inbox.md").read_text()
    )


def test_tick_on_a_low_confidence_suggestion_files_it(vault: Path, queued: dict) -> None:
    cid = queued["low2"]["id"]
    edit_item(vault, cid, lambda line: line.replace("- [ ]", "- [x]", 1))
    apply(vault)
    assert (vault / "Ideas/Garden planner.md").is_file()
    assert run_json(vault, "inbox", "--status", "filed")[0]["id"] == cid


def test_arrow_chooses_a_type(vault: Path, queued: dict) -> None:
    cid = queued["low"]["id"]
    edit_item(vault, cid, lambda line: line.replace(f" ^vbr-{cid}", f" → project ^vbr-{cid}"))
    apply(vault)
    assert (vault / "Projects/The sky is blue.md").is_file()
    assert f"^vbr-{cid}" not in review_text(vault)
    assert run_json(vault, "db", "show", "project", "The sky is blue")["classified_by"] == "person"


def test_strike_or_delete_dismisses(vault: Path, queued: dict) -> None:
    low, sugg = queued["low"]["id"], queued["sugg"]["id"]
    edit_item(vault, low, lambda line: re.sub(r"\*\*(.*?)\*\*", r"~~\1~~", line))
    edit_item(vault, sugg, lambda line: "")
    apply(vault)
    statuses = {c["id"]: c["status"] for c in run_json(vault, "inbox")}
    assert statuses[low] == "dismissed" and statuses[sugg] == "dismissed"
    assert not (vault / "Ideas/Bee hotel.md").exists()
    assert frontmatter(vault / "Brain/Archive/Bee hotel.md")["archived"] is True


def test_two_drawings_in_one_second_are_never_read_as_a_deletion(vault: Path, queued: dict) -> None:
    """Needs Review drawn twice within a second (a command's redraw right after the
    daemon's): the second drawing has a stamp of its own, so a reader that meets it before
    its state is kept (another process reading between the two writes, or this one stopped
    there) finds no drawing of that stamp, and takes no missing item for a deletion."""
    cid = queued["sugg"]["id"]
    brain = Brain(vault, clock=lambda: dt.datetime(2031, 1, 2, 3, 4, 5))
    queue = ReviewQueue(brain)
    queue.write(force=True)  # drawn with the suggestion
    first = str(frontmatter(vault / NOTE)["updated"])
    kept = brain.store.read_json(STATE)
    resolution.confirm(brain, cid)  # filed: the next drawing leaves it out
    assert queue.write(force=True)  # the same second by the clock
    second = str(frontmatter(vault / NOTE)["updated"])
    assert f"^vbr-{cid}" not in review_text(vault) and second > first
    brain.store.write_json(STATE, kept)  # the second drawing's state not kept (yet)
    assert apply_gestures(brain, now=True) == []
    assert {c["id"]: c["status"] for c in run_json(vault, "inbox")}[cid] == "filed"
    assert (vault / "Ideas/Bee hotel.md").is_file()
    # A drawing in a later second that changes nothing is no write (issue 44 item 2); one
    # that changes something takes that second, as ever.
    later = Brain(vault, clock=lambda: dt.datetime(2031, 1, 2, 3, 4, 9))
    assert not ReviewQueue(later).write(force=True)
    assert str(frontmatter(vault / NOTE)["updated"]) == second
    resolution.dismiss(later, queued["low"]["id"])
    assert ReviewQueue(later).write(force=True)
    assert str(frontmatter(vault / NOTE)["updated"]) == "2031-01-02T03:04:09"


def test_a_line_it_cannot_understand_stays_with_a_note(vault: Path, queued: dict) -> None:
    cid = queued["low"]["id"]
    edit_item(vault, cid, lambda line: line.replace(f" ^vbr-{cid}", f" → recipe ^vbr-{cid}"))
    apply(vault)
    line = next(x for x in review_text(vault).splitlines() if x.endswith(f"^vbr-{cid}"))
    assert "⚠" in line and "recipe" in line and "not a type" in line


def test_cli_twins(vault: Path, queued: dict) -> None:
    run(vault, "review", "confirm", queued["sugg"]["id"])
    doc = run_json(
        vault,
        "review",
        "resolve",
        queued["low"]["id"],
        "admin",
        "--set",
        "priority=high",
        "--title",
        "Look up",
    )
    assert doc["status"] == "filed" and doc["destinations"][0]["path"] == "Admin/Look up.md"
    assert frontmatter(vault / "Admin/Look up.md")["priority"] == "high"
    assert run(vault, "review", "resolve", queued["low2"]["id"], "recipe", ok=False).exit_code == 1
    left = run_json(vault, "review", "list")
    assert [r["id"] for r in left["needs_decision"]] == [queued["low2"]["id"]] and left[
        "suggestions"
    ] == []
    assert queued["low"]["id"] not in review_text(vault)


def _refiled_note(path: Path) -> str:
    text = path.read_text()
    text = re.sub(r"^(id|created|updated): .*$", r"\1: X", text, flags=re.M)
    text = re.sub(r"\^vb-[a-z0-9]+", "^vb-X", text)
    return re.sub(
        r"re-filed from \[\[Brain/Archive/[^|]+\|",
        "re-filed from [[ARCHIVE|",
        re.sub(r"- \d{4}-\d\d-\d\d ", "- D ", text),
    )


def test_fix_from_the_cli_and_from_the_vault_agree(tmp_path: Path, lmstudio: FakeLMStudio) -> None:
    results = []
    for how in ("cli", "vault"):
        root = tmp_path / how
        run(root, "init")
        dests = [
            {
                "type": "person",
                "title": "Sarah",
                "fields": {"contact": "s@x.org", "topics": ["bees"]},
            },
            {"type": "admin", "title": "Call Sarah", "fields": {}},
        ]
        doc = capture(root, lmstudio, "Call Sarah about bees", dests, 0.9)
        rec = run_json(root, "db", "show", "person", "Sarah")
        if how == "cli":
            run(root, "fix", rec["id"], "project", "--note", "Sarah is the project")
        else:
            note = root / "People/Sarah.md"
            note.write_text(note.read_text().replace("type: person", "type: project"))
            run(root, "daemon", "--once")
        new = root / "Projects/Sarah.md"
        assert new.is_file() and not (root / "People/Sarah.md").exists()
        archived = frontmatter(root / "Brain/Archive/Sarah.md")
        assert archived["archived"] is True and archived["replaced_by"] == "[[Projects/Sarah]]"
        data = frontmatter(new)
        assert data["type"] == "project" and data["name"] == "Sarah" and data["status"] == "planned"
        assert "contact: s@x.org" in new.read_text() and "topics: bees" in new.read_text()
        admin = frontmatter(root / "Admin/Call Sarah.md")
        assert "[[Projects/Sarah|Sarah]]" in admin["related"]
        assert "[[Projects/Sarah|Sarah]]" in (root / "Inbox.md").read_text()
        assert [c["status"] for c in run_json(root, "inbox") if c["id"] == doc["id"]] == [
            "corrected"
        ]
        audit = state_entries(root / ".vaultbrain")
        assert any(e["kind"] == "correction" and e["to"] == "project" for e in audit)
        results.append(
            _refiled_note(new).replace("\n> [!note] Re-filed\n> Sarah is the project\n", "")
        )
    assert results[0] == results[1]


def test_corrections_teach_the_classifier(vault: Path, lmstudio: FakeLMStudio) -> None:
    doc = capture(
        vault,
        lmstudio,
        "Phoenix launch planning with the team",
        [{"type": "idea", "title": "Phoenix launch", "fields": {}}],
        0.9,
    )
    rec = run_json(vault, "db", "show", "idea", "Phoenix launch")
    run(vault, "fix", rec["id"], "project")
    for i in range(30):  # many unrelated corrections: the prompt stays bounded
        c = capture(
            vault,
            lmstudio,
            f"unrelated errand number {i}",
            [{"type": "idea", "title": f"Errand {i}", "fields": {}}],
            0.9,
        )
        run(
            vault,
            "fix",
            c["destinations"][0]["path"]
            and run_json(vault, "db", "show", "idea", f"Errand {i}")["id"],
            "admin",
        )
    capture(
        vault,
        lmstudio,
        "Phoenix launch review next week",
        [{"type": "project", "title": "Phoenix launch", "fields": {}}],
        0.9,
    )
    system = lmstudio.requests[-1]["messages"][0]["content"]
    assert (
        '"Phoenix launch planning with the team" was filed as idea; the person corrected it to project'
        in system
    )
    assert system.count("the person corrected it to") <= 8
    assert doc["id"]


def vault_files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` (dot-folders too): its bytes and its mtime."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_trust_summary_is_a_read_that_writes_nothing(vault: Path, lmstudio: FakeLMStudio) -> None:
    capture(vault, lmstudio, "a thought", [{"type": "idea", "title": "T0", "fields": {}}], 0.95)
    capture(vault, lmstudio, "nothing", [{"type": "unknown", "title": "", "fields": {}}], 0.1)
    before = vault_files(vault)
    text = run(vault, "trust", "--summary").output
    doc = run_json(vault, "trust", "--summary")
    assert vault_files(vault) == before  # no file added, changed or touched
    assert text.startswith(f"{doc['captures']} captures;") and doc["captures"] == 2
    # The note is written on request (and by the daemon), with the same numbers.
    assert "wrote Brain/Trust.md" in run(vault, "trust", "--write-note").output
    assert "| 0.9–1.0 | 1 | 0 | 0% |" in (vault / "Brain/Trust.md").read_text()
    assert "up to date: Brain/Trust.md" in run(vault, "trust", "--write-note").output


def test_trust_trail_and_calibration(vault: Path, lmstudio: FakeLMStudio) -> None:
    for i, conf in enumerate([0.95, 0.92, 0.85, 0.65]):
        capture(
            vault,
            lmstudio,
            f"thought {i}",
            [{"type": "idea", "title": f"T{i}", "fields": {}}],
            conf,
        )
    capture(vault, lmstudio, "nothing", [{"type": "unknown", "title": "", "fields": {}}], 0.1)
    run(vault, "fix", run_json(vault, "db", "show", "idea", "T1")["id"], "admin")
    s = summary(Brain(vault))
    assert s["captures"] == 5 and s["by_status"] == {
        "filed": 2,
        "corrected": 1,
        "suggested": 1,
        "needs_review": 1,
    }
    bands = {b["band"]: b for b in s["calibration"]}
    assert bands["0.9–1.0"] == {
        "band": "0.9–1.0",
        "filed": 2,
        "corrected": 1,
        "corrected_share": 0.5,
    }
    assert bands["0.8–0.9"]["filed"] == 1 and bands["0.8–0.9"]["corrected_share"] == 0.0
    assert bands["0.6–0.7"]["filed"] == 1
    assert s["correction_rate"]["idea"] == 0.25 and s["filing_rate"] == 0.8
    run(vault, "trust", "--write-note")
    trust = (vault / "Brain/Trust.md").read_text()
    assert "| 0.9–1.0 | 2 | 1 | 50% |" in trust and "| idea | 4 | 1 | 25% |" in trust
    (vault / "Ideas/T3.md").unlink()
    run(vault, "reindex")
    events = run_json(vault, "trust", "--limit", "100")
    kinds = {e["kind"] for e in events}
    assert {"classification", "correction", "sync"} <= kinds
    cls = next(e for e in events if e["kind"] == "classification")
    for key in (
        "input",
        "prompt_template",
        "prompt_hash",
        "pack",
        "model",
        "raw",
        "parsed",
        "dropped",
        "confidence",
        "reasoning",
        "timings",
        "tokens",
    ):
        assert key in cls, key
    assert all(
        e["kind"] == "correction" or "idea" in json.dumps(e) or "admin" in json.dumps(e)
        for e in run_json(vault, "trust", "--type", "admin")
    )
    assert run_json(vault, "trust", "--status", "needs_review")[0]["input"] == "nothing"
    assert run(vault, "trust", "--since", "yesterday", ok=False).exit_code == 1


def test_gestures_with_the_daemon_running(
    vault: Path, lmstudio: FakeLMStudio, tmp_path: Path
) -> None:
    doc = capture(
        vault,
        lmstudio,
        "Idea: bee hotel",
        [{"type": "idea", "title": "Bee hotel", "fields": {}}],
        0.6,
    )
    d = DaemonProcess(vault, tmp_path / "d.log").start()
    try:
        d.wait_ready()
        wait_for(lambda: (vault / NOTE).exists() and doc["id"] in review_text(vault), 20, d.log)
        edit_item(vault, doc["id"], lambda line: line.replace("- [ ]", "- [x]", 1))
        wait_for(lambda: doc["id"] not in review_text(vault), 20, d.log)
        wait_for(lambda: "confirmed" not in frontmatter(vault / "Ideas/Bee hotel.md"), 20, d.log)
        assert d.stop() == 0
    finally:
        if d.alive():
            d.kill9()
