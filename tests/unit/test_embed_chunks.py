"""Chunks by heading (graph/embed.py) and the fusion of two rankings (graph/search.py)."""

from __future__ import annotations

from vaultbrain.graph.embed import MAX_CHUNK_CHARS, MAX_CHUNKS, chunk_note
from vaultbrain.graph.search import fuse


def test_a_note_is_cut_at_its_headings_with_the_path_of_headings_above() -> None:
    body = (
        "Intro line.\n\n# Garden\n\nBees and hives.\n\n## Shed\n\nTools.\n\n"
        "```\n# not a heading\n```\n\n# Money\n\nBudget.\n"
    )
    chunks = chunk_note("Home", "type idea", body)
    assert [c.heading for c in chunks] == ["", "Garden", "Garden › Shed", "Money"]
    assert chunks[0].text == "Home\ntype idea\nIntro line."
    assert chunks[2].text.startswith("Home\nGarden › Shed\nTools.")
    assert "# not a heading" in chunks[2].text, "a fenced line is text, not a heading"
    assert all(c.text.startswith("Home") for c in chunks), "each chunk says whose it is"
    assert len({c.hash for c in chunks}) == len(chunks)


def test_an_empty_note_is_its_title_and_a_heading_without_text_is_no_chunk() -> None:
    (only,) = chunk_note("Empty", "", "# Empty\n")
    assert only.text == "Empty" and only.preview == "Empty"
    assert chunk_note("", "", "") == []


def test_long_sections_are_cut_at_paragraphs_and_a_note_has_few_chunks() -> None:
    para = ("word " * 100).strip()
    long = "\n\n".join([para] * 10)
    chunks = chunk_note("T", "", f"# A\n\n{long}\n")
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHUNK_CHARS + len("T\nA\n") for c in chunks)
    huge = "\n".join(f"# H{i}\n\ntext {i}" for i in range(100))
    assert len(chunk_note("T", "", huge)) == MAX_CHUNKS
    one_line = chunk_note("T", "", "x" * (MAX_CHUNK_CHARS * 3))
    assert len(one_line) == 3


def test_unchanged_sections_keep_their_hash_when_another_changes() -> None:
    a = chunk_note("T", "", "# A\n\none\n\n# B\n\ntwo\n")
    b = chunk_note("T", "", "# A\n\none\n\n# B\n\ntwo, edited\n")
    assert a[0].hash == b[0].hash and a[1].hash != b[1].hash


def _row(path: str, **kw: object) -> dict:
    return {"path": path, "type": None, "title": path, "score": 1.0, "snippet": "", **kw}


def _near(path: str, sim: float) -> dict:
    return {
        "path": path,
        "type": None,
        "title": path,
        "similarity": sim,
        "heading": "",
        "preview": "p",
    }


def test_fusion_ranks_what_both_lists_agree_on_first_and_drops_far_meaning_hits() -> None:
    keyword = [_row("a"), _row("b"), _row("c")]
    meaning = [_near("b", 0.9), _near("d", 0.8), _near("a", 0.5), _near("far", 0.3)]
    out = fuse(keyword, meaning, 10)
    paths = [r["path"] for r in out]
    assert paths[:2] == ["b", "a"]
    assert "d" in paths and "far" not in paths, "below half the best similarity"
    by = {r["path"]: r for r in out}
    assert by["b"]["matched"] == ["keyword", "meaning"] and by["d"]["matched"] == ["meaning"]
    assert by["b"]["snippet"] == "p", "a keyword row without a snippet takes the chunk's"
    assert len(fuse(keyword, meaning, 2)) == 2
    assert [r["path"] for r in fuse([], [_near("x", -0.1)], 5)] == []
