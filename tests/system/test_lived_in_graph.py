"""The graph commands on a lived-in vault (issue 30): `Brain/Archive/` is never an answer of
whoknows, search, takes or enrich; whoknows counts a person once; `links NAME` names every
note NAME could be; enrich fills a field only from text about the note's own subject, never
a date it cannot justify, and writes only vaultbrain's own notes unless --apply-to-mine."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import frontmatter, run, run_json
from support.lived_in import lived_in_shapes

EXTRA = {
    # Bob's note is hand-made; it mentions Ann's address, never his own.
    "People/Bob Ray.md": "---\nname: Bob Ray\n---\nMet Ann at the fair; Ann's email is "
    "ann@example.com.\n",
    "People/Ann Other.md": "---\nname: Ann Other\n---\nWrites at ann@example.com.\n",
    # A daily note (named by its date) links Bob on a line holding that date.
    "Daily/2026-11-05.md": "- 2026-11-05 call with [[Bob Ray]] about the fence\n",
    # A linking note that states no date at all (its mtime is today's).
    "Notes/Fence.md": "The fence plan, with [[Bob Ray]] (no date anywhere).\n",
    # One person, two notes: the second knows her full name as an alias.
    "People/KK.md": "---\naliases:\n  - Kira Kube\n---\nThe kubernetes operator.\n",
    "Brain/Archive/Meetings/Old standup.md": "---\ntype: meeting\narchived: true\n---\n"
    "Dan thinks kubernetes is overkill.\n",
}


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    root = tmp_path / "Vault"
    lived_in_shapes(root)
    for rel, text in EXTRA.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    run(root, "init")
    run(root, "reindex")
    return root


def test_whoknows_skips_the_archive_and_counts_a_person_once(vault: Path) -> None:
    found = run_json(vault, "whoknows", "kubernetes")["results"]
    paths = [r["path"] for r in found]
    assert not [p for p in paths if p.startswith("Brain/Archive/")]
    kira = [p for p in paths if p in ("People/Kira Kube.md", "People/KK.md")]
    assert len(kira) == 1, paths  # one person, whichever of her notes stands for her
    hits = [r["path"] for r in run_json(vault, "search", "kubernetes")["results"]]
    assert hits and not [p for p in hits if p.startswith("Brain/Archive/")]


def test_takes_skip_the_archive(vault: Path) -> None:
    run(vault, "schema", "use", "vaultbrain-recommended")
    takes = run_json(vault, "takes", "--offline")["takes"]
    assert not [t for t in takes if t["source"].startswith("Brain/Archive/")], takes


def test_links_names_every_note_a_name_could_be(vault: Path) -> None:
    result = run(vault, "links", "facturaia", ok=False)
    assert result.exit_code == 1
    assert "Clients/FacturaIA.md" in result.output and "Projects/FacturaIA.md" in result.output
    assert "give the path of one" in result.output
    assert run(vault, "links", "Projects/FacturaIA.md").exit_code == 0


def test_enrich_takes_only_what_is_about_the_subject(vault: Path) -> None:
    bob_before = (vault / "People/Bob Ray.md").read_bytes()
    dry = run_json(vault, "enrich", "person", "--dry-run")["changes"]
    by_path = {r["path"]: r for r in dry}
    bob = by_path.get("People/Bob Ray.md", {"fields": {}})["fields"]
    assert "contact" not in bob, bob  # Ann's address, and a date, are not Bob's contact
    assert bob["last_interaction"] == {
        "value": "2026-11-05",
        "from": ["Daily/2026-11-05.md: named by its date"],
    }
    ann = by_path["People/Ann Other.md"]["fields"]
    assert ann["contact"]["value"] == "ann@example.com"
    assert ann["contact"]["from"] == ["People/Ann Other.md: Writes at ann@example.com."]
    for row in dry:  # no date nobody wrote (the linking notes' mtime is today)
        for name, p in row["fields"].items():
            assert "today" not in str(p["from"]), (row["path"], name, p)
    assert all(r["mine"] for r in dry)  # every person note here is hand-made
    text = run(vault, "enrich", "person", "--dry-run").output
    assert "People/Bob Ray.md: would fill (your note: only with --apply-to-mine)" in text
    assert "from Daily/2026-11-05.md: named by its date" in text

    done = run_json(vault, "enrich", "person")["changes"]
    assert done and not [r for r in done if r["written"]]
    assert (vault / "People/Bob Ray.md").read_bytes() == bob_before
    run(vault, "enrich", "person", "Bob Ray", "--apply-to-mine")
    fm = frontmatter(vault / "People/Bob Ray.md")
    assert fm["last_interaction"] == "2026-11-05" and "contact" not in fm
