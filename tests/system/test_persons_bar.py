"""The person's bar (classify/reliability.py ``bar``): with no LLM, a type whose suggestions
the person keeps confirming unchanged earns filing alone in this vault, shown in ``trust
--summary``; corrections take it away again."""

from __future__ import annotations

from pathlib import Path

from support.cli import run, run_json

# Ideas the embedded classifier, on a fresh vault, reads as ideas below the bar (0.5-0.8): it
# is deterministic, so these stay suggestions from one run to the next.
IDEAS = [
    "repair workshop for old radios",
    "perhaps a swap shop for toys",
    "free museum days newsletter",
    "maybe learn the cello",
    "board game for beekeepers",
]


def capture(vault: Path, text: str) -> dict:
    return run_json(vault, "capture", text)


def bar(vault: Path) -> dict:
    return run_json(vault, "trust", "--summary")["reliability"]["person_bar"]


def test_a_type_the_person_keeps_confirming_earns_filing_alone_and_corrections_undo_it(
    vault: Path,
) -> None:
    run(vault, "init")
    run(vault, "settings", "set", "provider", "heuristic")
    first = [capture(vault, t) for t in IDEAS]
    assert [c["status"] for c in first] == ["suggested"] * 5  # the embedded guess
    assert run(vault, "review", "confirm", "--all", "--type", "idea").exit_code == 0
    assert bar(vault)["idea"] == {"confirmed": 5, "corrected": 0, "auto_filing": "earned"}
    assert "idea: you confirmed 5 unchanged" in run(vault, "trust", "--summary").output

    earned = capture(vault, "repair evening for old lamps")  # a suggestion on a fresh vault
    assert earned["status"] == "filed"  # the same kind of guess, filed alone now

    # the person corrects two of them: the type loses filing alone
    for c in (earned, capture(vault, "idea: a map of quiet cafes for working")):
        record = run_json(vault, "db", "show", "idea", c["destinations"][0]["title"])
        run(vault, "fix", record["id"], "admin")
    assert bar(vault)["idea"]["auto_filing"] != "earned"
    again = capture(vault, "maybe a pottery evening class")  # filed alone before
    assert again["status"] == "suggested"
    assert "the person's bar: idea keeps being corrected" in again["reasoning"]  # said why
