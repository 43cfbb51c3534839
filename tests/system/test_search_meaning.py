"""Search by meaning through the CLI on temp vaults, against a real HTTP embedding server on
127.0.0.1 (tests/support/embedserver.py: hashed words and trigrams, so texts sharing word
stems are near): vectors stored, redone only for changed text, dropped with the note,
fused with keywords; and every way the server can fail leaves keyword search as it was.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import run, run_json
from support.embedserver import HashEmbedServer

from vaultbrain.store import Store

NOTES = {
    "Ideas/Beekeeping.md": "---\ntype: idea\ntitle: Beekeeping\n---\n# Beekeeping\n\n"
    "Keeping honey bees at the end of the garden.\n\n## Hives\n\n"
    "Two wooden hives near the apple trees, painted white.\n",
    "Ideas/Tomatoes.md": "# Tomatoes\n\nGrowing tomatoes in the greenhouse this summer.\n",
    "Admin/Taxes.md": "# Taxes\n\nFile the tax return before April.\n",
    "References/Kubernetes.md": "# Kubernetes\n\nPods, deployments and a cluster at work.\n",
}


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> Iterator[HashEmbedServer]:
    server = HashEmbedServer().start()
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", server.url)
    try:
        yield server
    finally:
        server.stop()


def _vault(root: Path) -> Path:
    run(root, "init")
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return root


def _status(vault: Path) -> dict:
    return run_json(vault, "embed", "--status")


def _embedded(vault: Path) -> dict:
    return json.loads(run(vault, "embed", "--json").stdout)


def test_hybrid_finds_by_meaning_what_keywords_miss_and_is_the_default_once_embedded(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    before = run_json(vault, "search", "beekeeper")
    assert (before["mode"], before["results"]) == ("keyword", []), "no note has that word"
    doc = _embedded(vault)
    assert doc["notes"] >= len(NOTES) and doc["pending"] == 0
    assert doc["model"] == "hash-embed:256"
    after = run_json(vault, "search", "beekeeper")
    assert after["mode"] == "hybrid" and after["note"] is None
    assert after["results"][0]["path"] == "Ideas/Beekeeping.md"
    assert after["results"][0]["matched"] == ["meaning"]
    # both lists agree on a note with the word: it comes first, found both ways
    both = run_json(vault, "search", "tomatoes greenhouse")
    assert both["results"][0]["path"] == "Ideas/Tomatoes.md"
    assert both["results"][0]["matched"] == ["keyword", "meaning"]
    # the unrelated notes are not answers merely for being least far
    assert "Admin/Taxes.md" not in [r["path"] for r in after["results"]]
    semantic = run_json(vault, "search", "--mode", "semantic", "hives")
    assert semantic["mode"] == "semantic"
    assert semantic["results"][0]["path"] == "Ideas/Beekeeping.md"
    assert "Hives" in semantic["results"][0]["snippet"], "the chunk under its heading"
    keyword = run_json(vault, "search", "--mode", "keyword", "beekeeper")
    assert keyword["results"] == []
    text = run(vault, "search", "beekeeper").output
    assert "Ideas/Beekeeping.md" in text


def test_related_lists_the_nearest_notes_without_asking_the_server(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    (vault / "Ideas/Honey.md").write_text("# Honey\n\nHoney from our bees and hives.\n", "utf-8")
    _embedded(vault)
    calls = embedder.calls
    doc = run_json(vault, "related", "Beekeeping")
    assert doc["note"] == "Ideas/Beekeeping.md"
    paths = [r["path"] for r in doc["results"]]
    assert paths[0] == "Ideas/Honey.md" and "Ideas/Beekeeping.md" not in paths
    assert embedder.calls == calls, "related uses the note's own vectors"
    missing = run(vault, "related", "No such note", ok=False)
    assert missing.exit_code == 1 and "no note named" in missing.output


def test_only_changed_text_is_embedded_again_and_a_deleted_note_loses_its_vectors(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    _embedded(vault)
    total = _status(vault)
    embedder.texts.clear()
    note = vault / "Ideas/Beekeeping.md"
    # one section changed: only its chunk is sent
    note.write_text(note.read_text("utf-8").replace("painted white", "painted blue"), "utf-8")
    doc = _embedded(vault)
    assert doc["notes"] == 1 and doc["embedded"] == 1 and doc["reused"] >= 1
    assert len(embedder.texts) == 1 and "painted blue" in embedder.texts[0]
    assert run_json(vault, "search", "--mode", "semantic", "painted blue")["results"]
    # touched, not changed: nothing sent
    embedder.texts.clear()
    os.utime(note, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert _embedded(vault)["embedded"] == 0 and embedder.texts == []
    # moved: its vectors are copied, not asked for again
    (vault / "Work").mkdir()
    os.replace(vault / "References/Kubernetes.md", vault / "Work/Kubernetes.md")
    doc = _embedded(vault)
    assert embedder.texts == [] and doc["dropped"] == 1 and doc["notes"] == 1
    # deleted: gone from the vectors and from every result
    (vault / "Ideas/Tomatoes.md").unlink()
    doc = _embedded(vault)
    assert doc["dropped"] == 1
    after = _status(vault)
    assert after["notes"] == total["notes"] - 1
    assert after["chunks"] < total["chunks"]
    found = run_json(vault, "search", "--mode", "semantic", "tomatoes greenhouse")
    assert "Ideas/Tomatoes.md" not in [r["path"] for r in found["results"]]


def test_the_archive_is_never_embedded_searched_or_related(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    (vault / "Brain/Archive").mkdir(parents=True)
    (vault / "Brain/Archive/Old bees.md").write_text(
        "---\narchived: true\n---\n# Old bees\n\nBeekeeping honey bees hives, dismissed.\n",
        "utf-8",
    )
    _embedded(vault)
    assert not [t for t in embedder.texts if "dismissed" in t]
    for mode in ("keyword", "semantic", "hybrid"):
        doc = run_json(vault, "search", "--mode", mode, "bees")
        assert doc["results"], mode
        assert not [r for r in doc["results"] if r["path"].startswith("Brain/Archive/")], mode
    rel = run_json(vault, "related", "Beekeeping")
    assert not [r for r in rel["results"] if r["path"].startswith("Brain/Archive/")]
    # a note moved into the archive loses its vectors
    os.replace(vault / "Ideas/Tomatoes.md", vault / "Brain/Archive/Tomatoes.md")
    assert _embedded(vault)["dropped"] == 1


def test_with_no_server_search_is_keyword_search_as_before(vault: Path) -> None:
    _vault(vault)  # VAULTBRAIN_ENDPOINT: nothing listens (tests/conftest.py)
    doc = run_json(vault, "search", "bees")
    assert doc["mode"] == "keyword" and doc["results"][0]["path"] == "Ideas/Beekeeping.md"
    hybrid = run(vault, "search", "--mode", "hybrid", "bees")
    assert "Ideas/Beekeeping.md" in hybrid.output
    assert "keyword results only" in hybrid.output  # (CliRunner mixes stderr in)
    semantic = run(vault, "search", "--mode", "semantic", "bees", ok=False)
    assert semantic.exit_code == 1 and "no search by meaning" in semantic.output
    failed = run(vault, "embed", ok=False)
    assert failed.exit_code == 1 and "cannot reach" in failed.output
    assert "Traceback" not in failed.output
    doctor = run(vault, "doctor", ok=False).output
    assert "search stays by keywords" in doctor


@pytest.mark.parametrize(
    ("mode", "said"),
    [("no_embeddings", "started without embeddings"), ("not_found", "serves no /embeddings")],
)
def test_a_server_that_will_not_embed_is_asked_once_and_said_once(
    vault: Path, embedder: HashEmbedServer, mode: str, said: str
) -> None:
    _vault(vault)
    embedder.mode = mode
    first = run(vault, "embed", ok=False)
    assert first.exit_code == 1 and said in first.output
    posts = embedder.posts
    assert posts >= 1
    again = run(vault, "embed", ok=False)
    assert said in again.output and embedder.posts == posts, "the refusal is remembered"
    doc = run_json(vault, "search", "bees")
    assert doc["mode"] == "keyword" and doc["results"]
    hybrid = run_json(vault, "search", "--mode", "hybrid", "bees")
    assert said in hybrid["note"] and hybrid["results"]
    memory = Store(vault / ".vaultbrain").read_json("embedding-forms.json")
    (entry,) = memory["entries"].values()
    assert entry["form"] is None and said in entry["why"]


def test_a_server_that_pools_nothing_or_takes_one_string_is_negotiated_and_remembered(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    embedder.mode = "string_only"
    doc = _embedded(vault)
    assert doc["notes"] >= len(NOTES)
    memory = Store(vault / ".vaultbrain").read_json("embedding-forms.json")
    (entry,) = memory["entries"].values()
    assert entry["form"] == "openai_single" and entry["dim"] == 256
    assert run_json(vault, "search", "--mode", "semantic", "beekeeper")["results"]


def test_per_token_vectors_are_mean_pooled_and_doctor_says_so(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    embedder.mode = "per_token"
    doctor = run(vault, "doctor", ok=False).output
    assert "mean-pooled here" in doctor and "hash-embed embeds (256 numbers" in doctor
    _embedded(vault)
    doc = run_json(vault, "search", "--mode", "semantic", "beekeeper")
    assert doc["results"][0]["path"] == "Ideas/Beekeeping.md"


def test_another_model_means_every_note_is_embedded_again(
    vault: Path, embedder: HashEmbedServer
) -> None:
    _vault(vault)
    first = _embedded(vault)
    run(vault, "settings", "set", "embedding_model", "other-embed")
    embedder.texts.clear()
    doc = _embedded(vault)
    assert doc["model"] == "other-embed:256" and doc["notes"] == first["notes"]
    assert len(embedder.texts) >= len(NOTES)
    run(vault, "settings", "set", "embedding_model", "off")
    off = run_json(vault, "search", "beekeeper")
    assert off["mode"] == "keyword", "off: keyword search, the vectors unused"
    assert "search by meaning is off" in run(vault, "embed", ok=False).output


@pytest.mark.parametrize(
    "query",
    ['"', "NEAR(", "*", 'bees" OR "taxes', "title:bees", "bees AND", "(((", "-bees", "^bees"],
)
def test_fts_syntax_in_a_query_is_words_or_nothing_never_an_error(
    vault: Path, embedder: HashEmbedServer, query: str
) -> None:
    _vault(vault)
    _embedded(vault)
    for mode in ("keyword", "hybrid", "semantic"):
        result = run(vault, "search", "--json", "--mode", mode, "--", query, ok=False)
        assert "Traceback" not in result.output
        if result.exit_code == 0:
            assert json.loads(result.output)["mode"] == mode
        else:
            assert result.exit_code == 1 and "no words" in result.output, (mode, result.output)


def test_the_daemon_embeds_in_the_background_follows_edits_and_deletes(
    vault: Path, embedder: HashEmbedServer, daemon
) -> None:
    from support.daemon import wait_for

    _vault(vault)
    run(vault, "search", "bees")  # builds the graph index, which the daemon keeps in step
    d = daemon().start()
    d.wait_ready()
    wait_for(lambda: _status(vault)["notes"] >= len(NOTES), 30, d.log)
    assert "search by meaning: embedding with hash-embed:256" in d.output()
    note = vault / "Ideas/Tomatoes.md"
    note.write_text("# Tomatoes\n\nA trellis of cherry tomatoes by the shed.\n", "utf-8")

    def semantic_top(query: str) -> str | None:
        rows = run_json(vault, "search", "--mode", "semantic", query)["results"]
        return rows[0]["path"] if rows else None

    wait_for(lambda: any("trellis" in t for t in embedder.texts), 30, d.log)
    assert semantic_top("trellis cherry") == "Ideas/Tomatoes.md"
    count = _status(vault)["notes"]
    note.unlink()
    wait_for(lambda: _status(vault)["notes"] == count - 1, 30, d.log)
    assert d.stop() == 0
    assert "Traceback" not in d.output()


def test_the_daemon_says_once_that_search_by_meaning_is_unavailable(
    vault: Path, embedder: HashEmbedServer, daemon
) -> None:
    from support.daemon import wait_for

    _vault(vault)
    run(vault, "search", "bees")
    embedder.mode = "no_embeddings"
    d = daemon().start()
    d.wait_ready()
    wait_for(lambda: "search by meaning unavailable" in d.output(), 30, d.log)
    (vault / "Ideas/More.md").write_text("# More\n\nMore bees.\n", "utf-8")
    time.sleep(3)  # a few of the hook's looks later
    assert d.output().count("search by meaning unavailable") == 1
    assert embedder.posts == 2, "two forms tried once; the refusal is then remembered"
    assert run_json(vault, "search", "bees")["mode"] == "keyword"
    assert d.stop() == 0


def test_whoknows_never_names_an_archived_expert(vault: Path) -> None:
    run(vault, "init")
    for folder, name in (("People", "Ada Beck"), ("Brain/Archive", "Old Beck")):
        (vault / folder).mkdir(parents=True, exist_ok=True)
        (vault / f"{folder}/{name}.md").write_text(
            f"---\ntype: person\nname: {name}\ntopics:\n  - beekeeping\n---\nKeeps hives.\n",
            "utf-8",
        )
    (vault / "Projects").mkdir(exist_ok=True)
    (vault / "Projects/Bees.md").write_text(
        "# Bees\n\nBeekeeping with [[Old Beck]] and [[Ada Beck]].\n", "utf-8"
    )
    doc = run_json(vault, "whoknows", "beekeeping")
    assert [r["title"] for r in doc["results"]] == ["Ada Beck"]
