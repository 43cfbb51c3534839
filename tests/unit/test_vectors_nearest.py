"""The nearest notes by meaning, in one long-lived process (the MCP server, a daemon): the
chunk rows looked up widen until enough notes are found, and the kept map of the vector
file follows the file as it grows, is rewritten in place, or is replaced.

Against the real hashing embedding server (tests/support/embedserver.py) on 127.0.0.1.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.brains import new_brain
from support.embedserver import HashEmbedServer

from vaultbrain.brain import Brain
from vaultbrain.classify.embeddings import EmbeddingClient
from vaultbrain.graph import graph_of
from vaultbrain.graph.embed import embed_all
from vaultbrain.graph.index import GraphIndex
from vaultbrain.graph.search import find


@pytest.fixture
def brain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Brain]:
    server = HashEmbedServer().start()
    monkeypatch.setenv("VAULTBRAIN_ENDPOINT", server.url)
    try:
        made = new_brain(tmp_path)
        made.settings.set("provider", "lmstudio")
        yield made.refresh()
    finally:
        server.stop()


def _write(brain: Brain, rel: str, text: str) -> None:
    path = brain.vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _follow(graph: GraphIndex, brain: Brain, rel: str) -> None:
    path = brain.vault.root / rel
    if path.exists():
        st = path.stat()
        graph.note_changed(rel, path.read_text("utf-8"), st.st_mtime_ns, st.st_size)
    else:
        graph.note_changed(rel, None)


def _embedded(brain: Brain) -> tuple[GraphIndex, EmbeddingClient]:
    """The vault's search index built and every note embedded."""
    graph = graph_of(brain)
    graph.rebuild(brain.vault)
    client = EmbeddingClient.from_settings(brain.settings, brain.state_dir)
    assert client is not None
    embed_all(graph, client)
    return graph, client


def _semantic(graph: GraphIndex, client: EmbeddingClient, query: str, limit: int) -> list[str]:
    doc = find(graph, client, query, "semantic", None, limit)
    assert doc["mode"] == "semantic", doc["note"]
    return [r["path"] for r in doc["results"]]


def test_notes_of_many_near_chunks_do_not_crowd_out_the_others(brain: Brain) -> None:
    sections = "".join(
        f"## Hive {i}\n\nHoney bees of hive {i} swarm in May.\n\n" for i in range(30)
    )
    _write(brain, "Ideas/Bees.md", f"# Bees\n\n{sections}")
    _write(brain, "Ideas/More bees.md", f"# More bees\n\n{sections}")
    _write(brain, "Ideas/Swarms.md", "# Swarms\n\nA swarm in May is worth a load of hay.\n")
    graph, client = _embedded(brain)
    query = "honey bees of hive swarm in May"
    # The two notes' 48 chunks (alike but for a number) are all nearer than the third
    # note's one: the third is still listed, after them
    found = _semantic(graph, client, query, 3)
    assert found[:2] in (
        ["Ideas/Bees.md", "Ideas/More bees.md"],
        ["Ideas/More bees.md", "Ideas/Bees.md"],
    )
    assert found[2:] == ["Ideas/Swarms.md"], found


def test_the_kept_vector_map_follows_the_file_in_one_process(brain: Brain) -> None:
    _write(brain, "Ideas/Honey.md", "# Honey\n\nHoney from the bees of the hive.\n")
    _write(brain, "Admin/Taxes.md", "# Taxes\n\nFile the tax return before April.\n")
    graph, client = _embedded(brain)
    assert _semantic(graph, client, "mead wine", 1) != ["Ideas/Mead.md"]

    _write(brain, "Ideas/Mead.md", "# Mead\n\nMead is a wine made of honey.\n")  # the file grows
    _follow(graph, brain, "Ideas/Mead.md")
    embed_all(graph, client)
    assert _semantic(graph, client, "mead wine", 1) == ["Ideas/Mead.md"]

    os.remove(brain.vault.root / "Ideas/Mead.md")  # its slot freed
    _follow(graph, brain, "Ideas/Mead.md")
    embed_all(graph, client)
    _write(brain, "Ideas/Kites.md", "# Kites\n\nFlying kites on the windy beach.\n")  # reused
    _follow(graph, brain, "Ideas/Kites.md")
    embed_all(graph, client)
    assert "Ideas/Mead.md" not in _semantic(graph, client, "mead wine", 5)
    assert _semantic(graph, client, "kites beach windy", 1) == ["Ideas/Kites.md"]
