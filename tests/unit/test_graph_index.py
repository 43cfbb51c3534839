"""The graph index as a cache of the vault: incremental updates, catch-up by stat, and
one index per pack identity (a row typed under one pack is never served under another,
and switching back needs no eviction)."""

from __future__ import annotations

from pathlib import Path

from vaultbrain.graph import graph_of
from vaultbrain.graph.index import GraphIndex, stat_stamp
from vaultbrain.graph.search import search
from vaultbrain.packs.loader import load_pack
from vaultbrain.vault import Vault


def _vault(tmp_path: Path, notes: dict[str, str]) -> Vault:
    root = tmp_path / "v"
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return Vault(root, tmp_path / "state")


def _open(tmp_path: Path, pack_name: str) -> GraphIndex:
    pack = load_pack(pack_name)
    return GraphIndex(tmp_path / "state", lambda rel: pack, pack.identity)


def test_typing_is_keyed_by_the_pack_identity(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"Meetings/Sync.md": "Talked about bees.\n"})
    rec = _open(tmp_path, "vaultbrain-recommended")
    rec.catch_up(vault)
    assert [r["type"] for r in search(rec, "bees")] == ["meeting"]
    rec.close()

    base = _open(tmp_path, "vaultbrain-base")  # no meeting type here
    assert search(base, "bees") == []  # nothing typed under the other pack is served
    assert base.catch_up(vault) == {"indexed": 1, "dropped": 0}
    assert [r["type"] for r in search(base, "bees")] == [None]
    base.close()

    back = _open(tmp_path, "vaultbrain-recommended")
    assert back.path == rec.path != base.path  # one index per pack identity
    assert [r["type"] for r in search(back, "bees")] == ["meeting"]  # as it was: no eviction
    assert back.catch_up(vault) == {"indexed": 0, "dropped": 0}


def test_catch_up_reads_only_what_changed_and_drops_what_is_gone(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"A.md": "alpha\n", "B.md": "beta\n", "C/D.md": "delta\n"})
    graph = _open(tmp_path, "vaultbrain-base")
    assert graph.catch_up(vault) == {"indexed": 3, "dropped": 0}
    assert graph.catch_up(vault) == {"indexed": 0, "dropped": 0}
    (vault.root / "B.md").write_text("beta gamma\n")
    (vault.root / "C/D.md").unlink()
    assert graph.catch_up(vault) == {"indexed": 1, "dropped": 1}
    assert [r["path"] for r in search(graph, "gamma")] == ["B.md"]
    assert search(graph, "delta") == []


def test_incremental_update_and_removal(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"People/Ada.md": "---\ntype: person\nname: Ada\n---\nbees\n"})
    graph = _open(tmp_path, "vaultbrain-base")
    graph.catch_up(vault)
    graph.note_changed("People/Ada.md", "---\ntype: person\nname: Ada\n---\nwasps\n")
    assert search(graph, "bees") == [] and search(graph, "wasps")[0]["title"] == "Ada"
    graph.note_changed("People/Ada.md", None)
    assert graph.count() == 0 and graph.note_id("Ada") is None


def test_search_ranks_title_over_body_and_never_fails_on_syntax(tmp_path: Path) -> None:
    vault = _vault(
        tmp_path,
        {
            "Notes/Compost.md": "how to turn the heap\n",
            "Notes/Garden.md": "compost goes on the beds in march\n",
        },
    )
    graph = _open(tmp_path, "vaultbrain-base")
    graph.catch_up(vault)
    assert [r["path"] for r in search(graph, "compost")] == ["Notes/Compost.md", "Notes/Garden.md"]
    assert search(graph, 'compost" OR NEAR(') == search(graph, "compost OR near")
    assert search(graph, "beds march")[0]["snippet"] == "compost goes on the **beds** in **march**"


def test_reindex_walks_the_vault_once_and_the_index_follows_what_changed(
    tmp_path: Path, monkeypatch
) -> None:
    """reindex hands its scan's stats to the graph index's catch-up: one walk of the vault,
    and a note changed, added or removed while nothing watched is still caught up."""
    import os

    from support.brains import new_brain

    from vaultbrain.filing.sync import reindex

    root = tmp_path / "Vault"
    (root / ".obsidian").mkdir(parents=True)
    for i in range(5):
        (root / f"Notes/n{i}.md").parent.mkdir(exist_ok=True)
        (root / f"Notes/n{i}.md").write_text(f"note {i} about bees\n")
    brain = new_brain(root)
    reindex(brain)
    graph_of(brain).catch_up(brain.vault)  # built
    (root / "Notes/n1.md").write_text("note 1 now about wasps\n")
    os.utime(root / "Notes/n1.md", ns=(1, 1))  # a stat the index cannot have seen
    (root / "Notes/n2.md").unlink()
    (root / "Notes/n9.md").write_text("a new note about hornets\n")
    walks = []
    real = type(brain.vault).iter_notes
    monkeypatch.setattr(
        type(brain.vault), "iter_notes", lambda self, *a: walks.append(1) or real(self, *a)
    )
    fresh = new_brain(root)
    reindex(fresh)
    assert len(walks) == 1
    graph = graph_of(fresh)

    def paths(word: str) -> set[str]:
        return {hit["rel"] if "rel" in hit else hit["path"] for hit in search(graph, word)}

    assert paths("wasps") == {"Notes/n1.md"} and paths("hornets") == {"Notes/n9.md"}
    assert "Notes/n2.md" not in paths("bees") and "Notes/n0.md" in paths("bees")


def _stats(vault: Vault) -> dict[str, tuple[int, int]]:
    out = {}
    for rel, entry in vault.iter_notes():
        st = entry.stat(follow_symlinks=False)
        out[rel] = (st.st_mtime_ns, st.st_size)
    return out


def test_a_catch_up_from_a_walk_stamps_the_index_and_any_row_change_drops_the_stamp(
    tmp_path: Path,
) -> None:
    vault = _vault(tmp_path, {"A.md": "alpha\n", "B.md": "beta\n"})
    graph = _open(tmp_path, "vaultbrain-base")
    graph.catch_up(vault)
    stats = _stats(vault)
    assert graph.catch_up(vault, stats) == {"indexed": 0, "dropped": 0}
    assert graph._meta("in_step") == stat_stamp(stats)
    # The same walk again: in step without reading a row.
    assert graph.catch_up(vault, stats) == {"indexed": 0, "dropped": 0}

    # A row written by any connection (here a second one, as the daemon's would be)
    # drops the stamp: the next catch-up compares every row again.
    other = _open(tmp_path, "vaultbrain-base")
    (vault.root / "B.md").write_text("beta gamma\n")
    st = (vault.root / "B.md").stat()
    other.note_changed("B.md", "beta gamma\n", st.st_mtime_ns, st.st_size)
    other.close()
    assert graph._meta("in_step") is None
    stats = _stats(vault)
    assert graph.catch_up(vault, stats) == {"indexed": 0, "dropped": 0}  # the row is current
    assert graph._meta("in_step") == stat_stamp(stats)

    # A walk that differs reads what changed and stamps the new walk.
    (vault.root / "A.md").unlink()
    (vault.root / "C.md").write_text("gamma\n")
    stats = _stats(vault)
    assert graph.catch_up(vault, stats) == {"indexed": 1, "dropped": 1}
    assert graph._meta("in_step") == stat_stamp(stats)
    assert sorted(r["path"] for r in search(graph, "gamma")) == ["B.md", "C.md"]


def test_a_note_that_could_not_be_read_leaves_the_index_unstamped(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"A.md": "alpha\n"})
    graph = _open(tmp_path, "vaultbrain-base")
    graph.catch_up(vault)
    (vault.root / "A.md").write_bytes(b"\xff\xfe not text\n")
    stats = _stats(vault)
    assert graph.catch_up(vault, stats) == {"indexed": 0, "dropped": 0}
    assert graph._meta("in_step") is None  # tried again by the next catch-up
    (vault.root / "A.md").write_text("alpha again\n")
    stats = _stats(vault)
    assert graph.catch_up(vault, stats) == {"indexed": 1, "dropped": 0}
    assert [r["path"] for r in search(graph, "again")] == ["A.md"]
