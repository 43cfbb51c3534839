"""enrich: empty declared fields of enrichable records filled from the vault (contact,
last interaction, topics), a dry run that writes nothing, nothing a person wrote replaced,
and every value in the audit trail with where it came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import frontmatter, run, run_json
from support.state import lines as state_lines


def _write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, "utf-8")


def _meeting(vault: Path, title: str, day: str, person: str, body: str, tags: list[str]) -> None:
    tag_lines = "".join(f"  - {t}\n" for t in tags)
    _write(
        vault,
        f"Meetings/{title}.md",
        f"---\ntype: meeting\ntitle: {title}\ndate: {day}\ntags:\n{tag_lines}"
        f'attendees:\n  - "[[People/{person}|{person}]]"\n---\n{body}\n',
    )


def test_enrich_fills_only_empty_fields_and_says_where_from(vault: Path) -> None:
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    sarah = (
        "---\ntype: person\nname: Sarah\ncontext: Met at the allotment; "
        "I wrote this myself\n---\n# Sarah\n"
    )
    _write(vault, "People/Sarah.md", sarah)
    _write(
        vault,
        "People/Tom.md",
        "---\ntype: person\nname: Tom\ncontact: tom@old.example\n---\nTom. tom@new.example\n",
    )
    _meeting(
        vault,
        "Seed swap",
        "2026-10-01",
        "Sarah",
        "Sarah says her address is sarah@example.com now.\nBob is bob@example.com.",
        ["garden"],
    )
    _meeting(
        vault,
        "Hive day",
        "2026-11-20",
        "Sarah",
        "Write to Sarah at sarah@example.com about the bees.",
        ["garden", "bees"],
    )
    _meeting(vault, "Tom chat", "2026-11-01", "Tom", "Tom at tom@new.example.", ["music"])

    dry = run_json(vault, "enrich", "person", "--dry-run")
    assert (vault / "People/Sarah.md").read_text("utf-8") == sarah
    by_path = {r["path"]: r for r in dry["changes"]}
    fields = by_path["People/Sarah.md"]["fields"]
    assert fields["contact"]["value"] == "sarah@example.com"
    assert fields["contact"]["from"][0].startswith("Meetings/")
    assert fields["last_interaction"] == {
        "value": "2026-11-20",
        "from": ["Meetings/Hive day.md: date: 2026-11-20"],
    }
    assert fields["topics"]["value"] == ["garden"]
    assert "context" not in fields  # a person wrote it
    assert "contact" not in by_path.get("People/Tom.md", {"fields": {}})["fields"]

    # Sarah's note is hers: written only when she says so
    held = run_json(vault, "enrich", "person", "Sarah")
    assert [(r["path"], r["mine"], r["written"]) for r in held["changes"]] == [
        ("People/Sarah.md", True, False)
    ]
    assert (vault / "People/Sarah.md").read_text("utf-8") == sarah
    done = run_json(vault, "enrich", "person", "Sarah", "--apply-to-mine")
    assert [(r["path"], r["written"]) for r in done["changes"]] == [("People/Sarah.md", True)]
    fm = frontmatter(vault / "People/Sarah.md")
    assert fm["contact"] == "sarah@example.com"
    assert fm["last_interaction"] == "2026-11-20"
    assert fm["topics"] == ["garden"]
    assert fm["context"] == "Met at the allotment; I wrote this myself"
    assert (vault / "People/Sarah.md").read_text("utf-8").endswith("---\n# Sarah\n")
    trail = [json.loads(line) for line in state_lines(vault / ".vaultbrain") if '"enrich"' in line]
    assert {e["field"] for e in trail} == {"contact", "last_interaction", "topics"}
    assert all(e["from"] and e["path"] == "People/Sarah.md" for e in trail)

    again = run(vault, "enrich", "person", "Sarah", "--apply-to-mine").output
    assert "nothing to fill" in again
    assert frontmatter(vault / "People/Tom.md")["contact"] == "tom@old.example"
    bad = run(vault, "enrich", "meeting", ok=False)
    assert bad.exit_code == 1 and "not enrichable" in bad.output


def test_enrich_llm_summarises_context_from_the_lines_that_name_the_record(
    vault: Path, lmstudio: Any
) -> None:
    def responder(request: dict[str, Any]) -> str:
        prompt = request["messages"][-1]["content"]
        assert "Sarah brought seeds" in prompt and "Bob is bob@example.com" not in prompt
        return json.dumps({"context": "Gardening friend who swaps seeds."})

    lmstudio.responder = responder
    run(vault, "init")
    run(vault, "schema", "use", "vaultbrain-recommended")
    _write(vault, "People/Sarah.md", "---\ntype: person\nname: Sarah\n---\n# Sarah\n")
    _meeting(
        vault,
        "Seed swap",
        "2026-10-01",
        "Sarah",
        "Sarah brought seeds.\nBob is bob@example.com.",
        ["garden"],
    )
    dry = run_json(vault, "enrich", "person", "Sarah", "--llm", "--dry-run")
    assert dry["changes"][0]["fields"]["context"] == {
        "value": "Gardening friend who swaps seeds.",
        "from": ["Meetings/Seed swap.md"],
    }
    assert "context" not in frontmatter(vault / "People/Sarah.md")
    run(vault, "enrich", "person", "Sarah", "--llm", "--apply-to-mine")
    assert frontmatter(vault / "People/Sarah.md")["context"] == "Gardening friend who swaps seeds."
    assert lmstudio.requests[-1]["response_format"]["json_schema"]["name"] == "context"
    calls = len(lmstudio.requests)
    again = run(vault, "enrich", "person", "Sarah", "--llm", "--apply-to-mine").output
    assert "nothing to fill" in again
    assert len(lmstudio.requests) == calls  # a filled context is not asked for again
