"""`vaultbrain tend` on a real vault: duplicates proposed, merges accepted through Needs Review
leave no dangling link, rejections stay rejected, a second run proposes nothing new."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.brains import new_brain
from tests.support.cli import run, run_json
from vaultbrain.brain import Brain
from vaultbrain.graph.extract import WIKILINK, base_key, link_key, note_key


def _note(vault: Path, rel: str, props: dict[str, object], body: str = "") -> None:
    lines = ["---"]
    for k, v in props.items():
        if isinstance(v, list):
            lines.append(f"{k}:")
            lines += [f'  - "{x}"' if "[[" in str(x) else f"  - {x}" for x in v]
        else:
            lines.append(f'{k}: "{v}"' if "[[" in str(v) else f"{k}: {v}")
    lines.append("---")
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n" + body, "utf-8")


def _planted(tmp_path: Path) -> Path:
    vault = tmp_path / "v"
    vault.mkdir()
    new_brain(vault)
    _note(vault, "People/Sam.md", {"type": "person", "name": "Sam"}, "Met at the fair.\n")
    _note(
        vault,
        "People/Sam Ortiz.md",
        {"type": "person", "name": "Sam Ortiz", "contact": "sam@ortiz.net"},
        "Runs the bakery.\n",
    )
    _note(vault, "People/Dana Wu.md", {"type": "person", "name": "Dana Wu", "aliases": ["DW"]})
    _note(vault, "People/DW.md", {"type": "person", "name": "DW"}, "Dana's notes.\n")
    _note(
        vault, "People/Lee Park.md", {"type": "person", "name": "Lee Park", "contact": "lee@p.io"}
    )
    _note(vault, "People/L. Park.md", {"type": "person", "name": "L. Park", "contact": "LEE@p.io"})
    # Distinct people who share first names: never merged.
    for first in ("Alex", "Maria"):
        for last in ("Kim", "Stone", "Novak", "Berg"):
            _note(vault, f"People/{first} {last}.md", {"type": "person", "name": f"{first} {last}"})
    _note(vault, "People/Alex.md", {"type": "person", "name": "Alex"})  # which Alex? unclear
    _note(
        vault,
        "Projects/Website redesign.md",
        {
            "type": "project",
            "name": "Website redesign",
            "people": ["[[People/Sam Ortiz|Sam Ortiz]]"],
        },
    )
    _note(
        vault,
        "Projects/The website redesign project.md",
        {
            "type": "project",
            "name": "The website redesign project",
            "people": ["[[People/Sam Ortiz|Sam Ortiz]]"],
        },
        "Started in spring.\n",
    )
    _note(
        vault,
        "Projects/Garden.md",
        {"type": "project", "name": "Garden", "people": ["[[People/Alex Kim|Alex Kim]]"]},
    )
    _note(
        vault,
        "Projects/Gardens.md",
        {"type": "project", "name": "Gardens", "people": ["[[People/Maria Novak|Maria Novak]]"]},
    )
    (vault / "Journal.md").write_text(
        "Lunch with [[Sam]] and [[People/Sam|old Sam]], then [[Sam#Notes]]; ![[DW]]\n"
        "Also [[The website redesign project]] and [[Lee Park]].\n",
        "utf-8",
    )
    return vault


def _pairs(vault: Path) -> set[tuple[str, str]]:
    rows = run_json(vault, "tend", "list")
    return {(r["other"], r["keep"]) for r in rows}


def _dangling(vault: Path) -> list[str]:
    """Every wiki link in the vault that resolves to no note (as Obsidian resolves them)."""
    notes = [
        p.relative_to(vault).as_posix()
        for p in vault.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(vault).parts)
    ]
    keys = {note_key(r) for r in notes} | {base_key(r) for r in notes}
    bad = []
    for rel in notes:
        for target, _ in WIKILINK.findall((vault / rel).read_text("utf-8")):
            key = link_key(target)
            if key and key not in keys and not key.startswith("brain/"):
                bad.append(f"{rel}: [[{target}]]")
    return bad


def test_tend_proposes_the_planted_duplicates_and_no_false_ones(tmp_path: Path) -> None:
    vault = _planted(tmp_path)
    out = run_json(vault, "tend", "--phase", "consolidate")
    assert out["path"] == f"Brain/Tending/{out['date']}.md"
    assert _pairs(vault) == {
        ("People/Sam.md", "People/Sam Ortiz.md"),
        ("People/DW.md", "People/Dana Wu.md"),
        ("People/L. Park.md", "People/Lee Park.md"),
        ("Projects/Website redesign.md", "Projects/The website redesign project.md"),
    }
    review = (vault / "Brain/Needs Review.md").read_text("utf-8")
    assert "## Possible duplicates" in review
    assert review.count("^vbm-") == 4
    report = (vault / out["path"]).read_text("utf-8")
    assert "[[People/Sam|Sam]] into [[People/Sam Ortiz|Sam Ortiz]]" in report
    # A second run proposes nothing new, and writes the same report.
    before = report
    again = run_json(vault, "tend", "--phase", "consolidate")
    assert again["phases"]["consolidate"]["proposed"] == []
    assert len(again["phases"]["consolidate"]["waiting"]) == 4
    assert (vault / out["path"]).read_text("utf-8") == before


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    vault = _planted(tmp_path)
    out = run_json(vault, "tend", "--dry-run", "--phase", "consolidate")
    assert len(out["phases"]["consolidate"]["proposed"]) == 4
    assert not (vault / "Brain/Tending").exists()
    assert run_json(vault, "tend", "list") == []


def test_accepting_every_merge_leaves_no_dangling_link(tmp_path: Path) -> None:
    vault = _planted(tmp_path)
    run(vault, "tend", "--phase", "consolidate")
    ids = [r["id"] for r in run_json(vault, "tend", "list")]
    run(vault, "tend", "accept", *ids)
    assert _dangling(vault) == []
    assert not (vault / "People/Sam.md").exists()
    assert (vault / "Brain/Archive/Sam.md").exists()
    kept = (vault / "People/Sam Ortiz.md").read_text("utf-8")
    assert "Met at the fair." in kept and "Runs the bakery." in kept
    assert "  - Sam\n" in kept  # the short name is an alias of the kept note
    journal = (vault / "Journal.md").read_text("utf-8")
    assert "[[People/Sam Ortiz|Sam]]" in journal
    assert "[[People/Sam Ortiz|old Sam]]" in journal
    assert "[[People/Sam Ortiz#Notes]]" in journal
    assert "![[People/Dana Wu|DW]]" in journal
    assert "[[Projects/The website redesign project]]" in journal or (
        "[[The website redesign project]]" in journal
    )
    project = (vault / "Projects/The website redesign project.md").read_text("utf-8")
    assert project.count("[[People/Sam Ortiz|Sam Ortiz]]") == 1  # the union, not twice
    assert run_json(vault, "tend", "list") == []
    # Nothing is proposed again for the notes that are now one.
    again = run_json(vault, "tend", "--phase", "consolidate")
    assert again["phases"]["consolidate"]["proposed"] == []


def test_a_tick_in_needs_review_merges_and_a_strike_rejects_for_good(tmp_path: Path) -> None:
    vault = _planted(tmp_path)
    run(vault, "tend", "--phase", "consolidate")
    rows = {r["other"]: r["id"] for r in run_json(vault, "tend", "list")}
    note = vault / "Brain/Needs Review.md"
    text = note.read_text("utf-8")
    sam, dw = rows["People/Sam.md"], rows["People/DW.md"]
    text = re.sub(rf"- \[ \] (.*\^vbm-{sam})", r"- [x] \1", text)
    text = re.sub(rf"- \[ \] (.*\^vbm-{dw})", r"- [-] \1", text)
    note.write_text(text, "utf-8")
    run(vault, "tend", "list")  # a command reads the person's gestures now
    assert not (vault / "People/Sam.md").exists()
    assert (vault / "People/DW.md").exists()
    decided = {r["id"]: r["status"] for r in run_json(vault, "tend", "list", "--all")}
    assert decided[sam] == "accepted" and decided[dw] == "rejected"
    after = note.read_text("utf-8")
    assert f"^vbm-{sam}" not in after and f"^vbm-{dw}" not in after
    again = run_json(vault, "tend", "--phase", "consolidate")
    assert again["phases"]["consolidate"]["proposed"] == []
    assert _dangling(vault) == []


def test_undo_puts_the_note_back(tmp_path: Path) -> None:
    vault = _planted(tmp_path)
    run(vault, "tend", "--phase", "consolidate")
    rows = {r["other"]: r["id"] for r in run_json(vault, "tend", "list")}
    before = (vault / "People/Sam Ortiz.md").read_text("utf-8")
    run(vault, "tend", "accept", rows["People/Sam.md"])
    run(vault, "tend", "undo", rows["People/Sam.md"])
    assert (vault / "People/Sam.md").exists()
    assert (vault / "People/Sam Ortiz.md").read_text("utf-8") == before
    assert _dangling(vault) == []


def test_drift_and_the_morning_report(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    new_brain(vault)
    _note(
        vault,
        "Admin/Renew passport.md",
        {"type": "admin", "title": "Renew passport", "due": "2020-01-10", "status": "open"},
        "- [ ] Renew passport 📅 2020-01-10\n",
    )
    _note(
        vault,
        "Admin/Pay rent.md",
        {"type": "admin", "title": "Pay rent", "due": "2020-01-01", "status": "done"},
    )
    _note(
        vault,
        "Projects/Old shed.md",
        {"type": "project", "name": "Old shed", "status": "active", "created": "2020-02-01"},
    )
    _note(
        vault,
        "People/Ann Lee.md",
        {"type": "person", "name": "Ann Lee", "follow_ups": ["Send the deck 2020-03-01"]},
    )
    out = run_json(vault, "tend", "--phase", "drift")
    drift = out["phases"]["drift"]
    assert [r["note"] for r in drift["overdue"]] == ["Admin/Renew passport.md"]
    assert [r["note"] for r in drift["stale"]] == ["Projects/Old shed.md"]
    assert [r["text"] for r in drift["follow_ups"]] == ["Send the deck 2020-03-01"]
    report = (vault / out["path"]).read_text("utf-8")
    assert "[[Admin/Renew passport|Renew passport]], due 2020-01-10" in report
    assert "[[Projects/Old shed|Old shed]]" in report
    assert "Send the deck" in report
    assert report.startswith("---\ntype: vaultbrain-tending\n")


def test_every_phase_runs_and_reports(tmp_path: Path) -> None:
    vault = _planted(tmp_path)
    out = run_json(vault, "tend")
    assert set(out["phases"]) == {
        "consolidate",
        "drift",
        "backlinks",
        "takes",
        "enrich",
        "embed",
        "orphans",
        "schema",
    }
    failed = {k: v for k, v in out["phases"].items() if v["status"] != "ok"}
    assert failed == {}
    text = run(vault, "tend", "--dry-run").output
    assert "consolidate: 0 new merge proposals, 4 waiting" in text
    assert json.loads(json.dumps(out))["trigger"] == "cli"


def test_unknown_phase_is_a_usage_error(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    Brain(vault)
    new_brain(vault)
    result = run(vault, "tend", "--phase", "nope", ok=False)
    assert result.exit_code == 2


def test_the_digest_links_the_morning_report_and_the_follow_ups_due(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    new_brain(vault)
    _note(
        vault,
        "People/Ann Lee.md",
        {"type": "person", "name": "Ann Lee", "follow_ups": ["Send the deck 2020-03-01"]},
    )
    out = run_json(vault, "tend", "--phase", "drift")
    run(vault, "digest", "run", "--date", out["date"])
    digest = (vault / f"Brain/Digests/{out['date']}.md").read_text("utf-8")
    assert f"[[Brain/Tending/{out['date']}|morning report]]" in digest
    assert "[[People/Ann Lee|Ann Lee]]: Send the deck 2020-03-01" in digest
    assert digest.index("## Tending") < digest.index("## Needs review")


def test_takes_whose_date_has_come_are_graded_in_needs_review(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    new_brain(vault)
    run(vault, "capture", "Sam bets the bakery opens by 2020-05-01")
    run(vault, "capture", "Sam suspects the rent goes up by 2020-06-01")
    out = run_json(vault, "tend", "--phase", "takes")
    takes = out["phases"]["takes"]
    assert takes["status"] == "ok", takes
    assert takes["due_count"] == 2
    note = vault / "Brain/Needs Review.md"
    text = note.read_text("utf-8")
    assert "## Takes to grade" in text and text.count("^vbg-") == 2
    lines = [ln for ln in text.splitlines() if "^vbg-" in ln]
    bakery = next(ln for ln in lines if "bakery" in ln)
    rent = next(ln for ln in lines if "rent" in ln)
    text = text.replace(bakery, bakery.replace("- [ ]", "- [x]", 1))
    text = text.replace(rent, rent.replace(" ^vbg-", " → unclear ^vbg-", 1))
    note.write_text(text, "utf-8")
    run(vault, "tend", "list")  # reads the gestures
    after = note.read_text("utf-8")
    assert "^vbg-" not in after
    card = (vault / "Brain/Scorecards/Sam.md").read_text("utf-8")
    assert "1 right, 0 wrong, 1 unclear (100% came true)" in card
    assert "| bet | 1 | 0 | 0 | 100% |" in card
    again = run_json(vault, "tend", "--phase", "takes")
    assert again["phases"]["takes"]["due_count"] == 0  # asked once


def test_schema_suggestions_when_a_folder_grew_a_new_kind(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    new_brain(vault)
    for i in range(6):
        _note(
            vault,
            f"Recipes/Soup {i}.md",
            {"type": "recipe", "cuisine": "thai", "serves": i + 2},
            "Boil.\n",
        )
    first = run_json(vault, "tend", "--phase", "schema")["phases"]["schema"]
    assert [c["folder"] for c in first["candidates"]] == ["Recipes"]
    again = run_json(vault, "tend", "--phase", "schema")["phases"]["schema"]
    assert again["candidates"] == [] and "grew" in again["skipped"]
    _note(vault, "Recipes/Soup 9.md", {"type": "recipe", "cuisine": "lao", "serves": 2})
    grown = run_json(vault, "tend", "--phase", "schema")["phases"]["schema"]
    assert "skipped" not in grown
