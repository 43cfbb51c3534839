"""The graph index built by a child process beside a first ``reindex`` (vaultbrain.graph.fill):
the same rows as a build in-process, a failed child made good by the parent, an interrupted
reindex leaving no child behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.filing.sync import reindex
from vaultbrain.graph import fill, graph_of
from vaultbrain.graph.index import GraphIndex


def _vault(tmp_path: Path, name: str = "Vault") -> Path:
    root = tmp_path / name
    (root / ".obsidian").mkdir(parents=True)
    (root / "People").mkdir()
    (root / "Notes").mkdir()
    for i in range(30):
        (root / f"People/Person {i}.md").write_text(
            f"---\ntype: person\naliases: [P{i}]\n---\nKnows about topic{i} and [[Notes/n{i}]]\n"
        )
        (root / f"Notes/n{i}.md").write_text(f"note {i} about bees, see [[Person {i}]]\n")
    return root


def _rows(graph: GraphIndex) -> tuple[set, set, set, set]:
    db = graph.db
    notes = {tuple(r) for r in db.execute("SELECT rel, mtime_ns, size, type, title FROM notes")}
    names = {
        tuple(r)
        for r in db.execute("SELECT key, kind, n.rel FROM names JOIN notes n ON n.id = note")
    }
    links = {
        tuple(r)
        for r in db.execute(
            "SELECT n.rel, link_type, key, line FROM links JOIN notes n ON n.id = src"
        )
    }
    fts = {tuple(r) for r in db.execute("SELECT title, body FROM notes_fts")}
    return notes, names, links, fts


def _one_thread() -> None:
    """The filler forks only from a process with one thread: threads an earlier test left
    winding down (a server's handler, an observer being joined) are given a few seconds to
    end before the test decides; one that stays is named in the skip."""
    import threading
    import time

    deadline = time.monotonic() + 10
    while threading.active_count() != 1 and time.monotonic() < deadline:
        for t in threading.enumerate():
            if t is not threading.current_thread():
                t.join(timeout=0.1)
    if threading.active_count() != 1:
        pytest.skip(
            f"the filler forks only from a process with one thread: {threading.enumerate()}"
        )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the filler forks (Linux)")
def test_a_first_reindex_builds_the_index_in_a_child_with_the_rows_of_an_inline_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("the filler forks only on Linux")
    _one_thread()
    started = []
    real = fill.start_filler
    monkeypatch.setattr(
        fill, "start_filler", lambda b, g: started.append(real(b, g)) or started[-1]
    )
    forked = new_brain(_vault(tmp_path, "A"))
    report = reindex(forked)
    assert started == [True] and report.created
    graph = graph_of(forked)
    assert graph.built and graph.filler_pid is None and graph.count() == 61

    monkeypatch.setenv("VAULTBRAIN_GRAPH_FILL", "inline")
    started.clear()
    root_b = _vault(tmp_path, "B")
    for rel in ("People/Person 1.md", "Notes/n1.md"):  # the same stats as in A
        st = os.stat(tmp_path / "A" / rel)
        os.utime(root_b / rel, ns=(st.st_atime_ns, st.st_mtime_ns))
    inline = new_brain(root_b)
    reindex(inline)
    assert started == [False]
    a, b = _rows(graph), _rows(graph_of(inline))
    assert a[1:] == b[1:]  # names, links and text alike
    assert {r[0::3] for r in a[0]} == {r[0::3] for r in b[0]}  # each note typed alike
    assert ("person 1", 1, "People/Person 1.md") in a[1] and ("p1", 2, "People/Person 1.md") in a[1]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the filler forks (Linux)")
def test_a_child_that_fails_leaves_the_build_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _one_thread()
    parent = os.getpid()
    real = GraphIndex.rebuild

    def rebuild_failing_in_the_child(self: GraphIndex, vault, progress=None) -> int:
        if os.getpid() != parent:
            raise OSError("disk full")
        return real(self, vault, progress)

    monkeypatch.setattr(GraphIndex, "rebuild", rebuild_failing_in_the_child)
    brain = new_brain(_vault(tmp_path))
    with caplog.at_level("WARNING"):
        reindex(brain)
    assert "building it here" in caplog.text
    graph = graph_of(brain)
    assert graph.built and graph.count() == 61 and graph.note_id("Person 3") is not None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the filler forks (Linux)")
def test_an_interrupted_reindex_stops_its_child_and_a_rerun_builds_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _one_thread()
    from vaultbrain.filing.sync import NoteSync

    children = []
    real_start = fill.start_filler

    def start(brain, graph) -> bool:
        ok = real_start(brain, graph)
        children.append(graph.filler_pid)
        return ok

    monkeypatch.setattr(fill, "start_filler", start)
    real_sync = NoteSync.sync_path
    seen = []

    def interrupted(self, rel, report=None, entry=None):
        seen.append(rel)
        if len(seen) == 10:
            raise KeyboardInterrupt
        return real_sync(self, rel, report, entry)

    monkeypatch.setattr(NoteSync, "sync_path", interrupted)
    root = _vault(tmp_path)
    brain = new_brain(root)
    with pytest.raises(KeyboardInterrupt):
        reindex(brain)
    assert children and children[0]
    with pytest.raises(ChildProcessError):  # reaped: no child of ours is left
        os.waitpid(children[0], os.WNOHANG)
    assert graph_of(brain).filler_pid is None
    monkeypatch.setattr(NoteSync, "sync_path", real_sync)
    again = new_brain(root)
    reindex(again)
    assert graph_of(again).built and graph_of(again).count() == 61
