"""Takes end to end: the LLM path against the loopback LM Studio server, the offline
fallback when no server answers, the ``## Takes`` section on vaultbrain's own notes only,
never extracting the same text twice, filters, and takes keyed by the pack identity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import frontmatter, run, run_json
from support.state import lines as state_lines

PACK = ("--schema-pack", "vaultbrain-recommended")


def _write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, "utf-8")


def _own_person(vault: Path, name: str) -> None:
    _write(
        vault,
        f"People/{name}.md",
        f"---\ntype: person\nid: {name.lower()}01\nname: {name}\n"
        f'source: "[[Inbox#^vb-{name.lower()}]]"\nclassified_by: heuristic\n---\n'
        f"# {name}\n\n## Log\n- 2026-01-02 met\n",
    )


MEETING = (
    "---\ntype: meeting\ntitle: Launch review\ndate: {day}\n---\n"
    "We went over the launch plan. Sarah thinks the launch slips to May.\n"
)


def _responder(request: dict[str, Any]) -> str:
    prompt = request["messages"][-1]["content"]
    takes = []
    if "launch slips" in prompt:
        takes.append({"kind": "take", "holder": "Sarah", "text": "The launch slips to May"})
    if "budget doubles" in prompt:
        takes.append({"kind": "bet", "holder": "Tom", "text": "The budget doubles next year"})
    return json.dumps({"takes": takes})


def test_llm_takes_land_in_the_holders_own_note_once(vault: Path, lmstudio: Any) -> None:
    lmstudio.responder = _responder
    run(vault, "init")
    _own_person(vault, "Sarah")
    hand_made = MEETING.format(day="2026-11-30")
    _write(vault, "Meetings/Launch review.md", hand_made)

    doc = run_json(vault, *PACK, "takes")
    assert doc["extracted"]["methods"] == {"llm": 1}
    assert [(t["kind"], t["holder"], t["text"]) for t in doc["takes"]] == [
        ("take", "Sarah", "The launch slips to May")
    ]
    take = doc["takes"][0]
    assert take["holder_note"] == "People/Sarah.md" and take["shown_in"] == "People/Sarah.md"
    assert take["source"] == "Meetings/Launch review.md" and take["date"] == "2026-11-30"
    sent = lmstudio.requests[-1]
    assert sent["response_format"]["json_schema"]["name"] == "takes"
    assert "Sarah thinks the launch slips to May" in sent["messages"][-1]["content"]

    sarah = (vault / "People/Sarah.md").read_text("utf-8")
    assert sarah.endswith(
        "## Takes\n- take (2026-11-30): Sarah: The launch slips to May · "
        "[[Meetings/Launch review|Launch review]]\n"
    )
    assert frontmatter(vault / "People/Sarah.md")["name"] == "Sarah"
    assert (vault / "Meetings/Launch review.md").read_text("utf-8") == hand_made

    calls = len(lmstudio.requests)
    again = run_json(vault, *PACK, "takes")
    assert len(lmstudio.requests) == calls  # the same text is never extracted twice
    assert again["extracted"]["skipped"] == again["extracted"]["sources"]
    assert len(again["takes"]) == 1
    assert (vault / "People/Sarah.md").read_text("utf-8") == sarah

    _write(
        vault,
        "Meetings/Launch review.md",
        hand_made + "Tom reckons the budget doubles next year.\n",
    )
    third = run_json(vault, *PACK, "takes")
    assert len(lmstudio.requests) == calls + 1
    assert third["extracted"]["takes"] == 1  # the old take is not stored twice
    assert {t["kind"] for t in third["takes"]} == {"take", "bet"}
    bets = run_json(vault, *PACK, "takes", "--kind", "bet", "--no-extract")["takes"]
    assert [(t["holder"], t["holder_note"], t["shown_in"]) for t in bets] == [("Tom", None, None)]
    by_sarah = run_json(vault, *PACK, "takes", "--holder", "sarah", "--no-extract")["takes"]
    assert [t["text"] for t in by_sarah] == ["The launch slips to May"]

    trail = [json.loads(line) for line in state_lines(vault / ".vaultbrain") if '"takes"' in line]
    assert trail and all(e["kind"] == "takes" and e.get("raw") for e in trail)

    # under another pack the same rows are not read (meetings are not even a type there)
    assert run_json(vault, "takes", "--no-extract")["takes"] == []


def test_offline_fallback_finds_the_obvious_forms_in_notes_and_captures(vault: Path) -> None:
    run(vault, "init")
    _own_person(vault, "Sarah")
    _write(vault, "Meetings/Old review.md", MEETING.format(day="2025-01-10"))
    run(vault, "capture", "Omar bets the shed is finished by June")
    doc = run_json(vault, *PACK, "takes")
    assert doc["extracted"]["methods"] == {"fallback": 2}
    got = {(t["kind"], t["holder"], t["text"]) for t in doc["takes"]}
    assert got == {
        ("take", "Sarah", "the launch slips to May."),
        ("bet", "Omar", "the shed is finished by June"),
    }
    capture = next(t for t in doc["takes"] if t["kind"] == "bet")
    assert capture["source"].startswith("capture:") and capture["shown_in"] is None
    assert "## Takes" in (vault / "People/Sarah.md").read_text("utf-8")
    recent = run_json(vault, *PACK, "takes", "--since", "30d", "--no-extract")["takes"]
    assert [t["kind"] for t in recent] == ["bet"]  # the meeting is dated 2025
    out = run(vault, *PACK, "takes", "--kind", "opinion", ok=False)
    assert out.exit_code == 1 and "takes kinds are fact, take, bet, hunch" in out.output
