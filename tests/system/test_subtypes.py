"""gbrain's `subtypes:` applied (issue 30): `schema active --path` reports type and subtype,
a note vaultbrain writes gets both, `bundle: true` is honoured, and a gbrain pack that does
not say how paths match matches them as gbrain does, anywhere in the path."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.packs.packkit import write_pack
from support.cli import frontmatter, run, run_json

GB_PACK = """\
api_version: gbrain-schema-pack-v1
name: gb-media
version: 1.0.0
extends: null
page_types:
  - name: person
    primitive: entity
    path_prefixes: [people/]
    expert_routing: true
  - name: media
    primitive: media
    path_prefixes: [videos/, books/, media/]
    subtypes:
      - name: video
        when: {path_pattern: "^videos/"}
      - name: book
        when: {path_pattern: "^books/"}
    fields:
      title: {type: text, required: true}
  - name: tweet
    primitive: media
    path_prefixes: [tweets/]
    subtypes:
      - name: single
        when: {frontmatter_field: thread_length, frontmatter_value: 1}
      - name: bundle
        when: {frontmatter_field: bundle, frontmatter_value: true}
"""


@pytest.fixture
def gb_vault(vault: Path, env_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")
    write_pack(env_home, "gb-media", GB_PACK)
    run(vault, "init")
    run(vault, "schema", "use", "gb-media")
    return vault


def _active(vault: Path, rel: str) -> tuple[str | None, str | None]:
    doc = run_json(vault, "schema", "active", "--path", rel)
    return doc["type"], doc["subtype"]


def test_schema_active_reports_type_and_subtype(gb_vault: Path) -> None:
    assert _active(gb_vault, "videos/Intro.md") == ("media", "video")
    assert _active(gb_vault, "books/Dune.md") == ("media", "book")
    assert _active(gb_vault, "media/Clip.md") == ("media", None)
    # no path_match in a gbrain pack: its prefixes match anywhere, as in gbrain
    assert _active(gb_vault, "Archive/2024/videos/Old.md") == ("media", None)
    assert _active(gb_vault, "work/people/Ann.md") == ("person", None)
    assert _active(gb_vault, "multimedia/x.md") == (None, None)  # whole folder names only
    text = run(gb_vault, "schema", "active", "--path", "videos/Intro.md").output
    assert "videos/Intro.md: media (subtype video)" in text


def test_bundle_true_in_a_note_is_its_subtype(gb_vault: Path) -> None:
    tweets = gb_vault / "tweets"
    tweets.mkdir()
    (tweets / "a.md").write_text("---\nbundle: true\n---\nA thread.\n")
    (tweets / "b.md").write_text("---\nthread_length: 1\n---\nOne tweet.\n")
    (tweets / "c.md").write_text("---\nthread_length: true\nbundle: 1\n---\nNeither.\n")
    assert _active(gb_vault, "tweets/a.md") == ("tweet", "bundle")
    assert _active(gb_vault, "tweets/b.md") == ("tweet", "single")
    assert _active(gb_vault, "tweets/c.md") == ("tweet", None)  # true is not 1, 1 not true


def test_a_note_vaultbrain_writes_gets_type_and_subtype(gb_vault: Path) -> None:
    run(gb_vault, "db", "add", "media", "--set", "title=Intro")
    fm = frontmatter(gb_vault / "videos/Intro.md")
    assert (fm["type"], fm["subtype"]) == ("media", "video")
    text = (gb_vault / "videos/Intro.md").read_text()
    assert text.startswith("---\ntype: media\nsubtype: video\n")  # the subtype right after the type
    record = run_json(gb_vault, "db", "show", "media", "Intro")
    assert record["subtype"] == "video" and "subtype" not in record["fields"]


def test_adopting_a_hand_made_note_adds_its_subtype(gb_vault: Path) -> None:
    (gb_vault / "books").mkdir()
    (gb_vault / "books/Dune.md").write_text("---\ntitle: Dune\n---\nSand.\n")
    (gb_vault / "books/Emma.md").write_text("---\ntitle: Emma\nsubtype: novel\n---\n")
    run(gb_vault, "reindex")
    planned = {a["path"]: a for a in run_json(gb_vault, "adopt", "--dry-run")}
    assert planned["books/Dune.md"]["changes"]["subtype"] == "book"
    assert planned["books/Dune.md"]["actions"]["subtype"] == "add"
    assert planned["books/Emma.md"]["conflict"]  # her own word for it stays
    run(gb_vault, "adopt", "--apply")
    fm = frontmatter(gb_vault / "books/Dune.md")
    assert (fm["type"], fm["subtype"], fm["title"]) == ("media", "book", "Dune")
    assert frontmatter(gb_vault / "books/Emma.md") == {"title": "Emma", "subtype": "novel"}
