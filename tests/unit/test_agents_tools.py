"""The MCP tools' answers: bounded so one call never floods an agent, captures shaped as `capture --json` (agents/tools.py)."""

from __future__ import annotations

import json

from vaultbrain.agents.tools import MAX_ANSWER_CHARS, bounded


def test_a_large_answer_is_cut_to_fit_and_says_so() -> None:
    doc = {
        "query": "q",
        "results": [{"path": f"n{i}.md", "snippet": "x" * 1000} for i in range(900)],
    }
    out = bounded(doc)
    assert out["truncated"] is True
    assert len(json.dumps(out)) <= MAX_ANSWER_CHARS
    assert 0 < len(out["results"]) < 900 and out["results"][0]["path"] == "n0.md"


def test_a_small_answer_is_left_as_it_is() -> None:
    doc = {"results": [{"path": "a.md"}]}
    assert bounded(dict(doc)) == doc


def test_one_huge_string_is_cut_too() -> None:
    out = bounded({"text": "y" * (MAX_ANSWER_CHARS * 2)})
    assert out["truncated"] is True and len(json.dumps(out)) <= MAX_ANSWER_CHARS


def test_a_capture_reads_to_an_agent_as_capture_json_shows_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from vaultbrain.agents.tools import capture_doc
    from vaultbrain.brain import Brain
    from vaultbrain.capture.pipeline import capture
    from vaultbrain.cli.core import capture_summary
    from vaultbrain.filing.setup import init_vault

    brain = Brain(tmp_path / "Vault")
    init_vault(brain)
    brain.settings.set("provider", "heuristic")
    brain.refresh()
    record = capture(brain, "Met with Sarah about the garden project").to_record()
    assert record["destinations"], "a capture with destinations, so every field is there"
    assert capture_doc(record) == capture_summary(record)
