"""The name index a process keeps in the state dir (vaultbrain/filing/namesnap.py): the next
process takes it, and sees what another device's sync did since (notes added, renamed,
deleted, their aliases edited) and what the store changed; a torn snapshot is a walk."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from support.brains import new_brain

from vaultbrain.brain import Brain
from vaultbrain.filing import names, namesnap

AN_HOUR = 3600 * 10**9


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _age_folders(root: Path, ago_ns: int) -> None:
    """Every folder's mtime set in the past: a snapshot trusts it (a folder changed in the
    last seconds is listed again regardless, which would hide a missed change)."""
    then = time.time_ns() - ago_ns
    for folder, subfolders, _ in os.walk(root):
        subfolders[:] = [s for s in subfolders if not s.startswith(".")]
        os.utime(folder, ns=(then, then))


@pytest.fixture
def root(vault: Path) -> Path:
    brain = new_brain(vault)
    _write(vault, "References/Plato.md", "plain\n")
    _write(vault, "People/Ada Lovelace.md", "---\naliases: [Countess]\n---\n")
    _write(vault, "Notes/Loose.md", "---\naliases: [Loose end]\n---\n")
    _write(vault, "Philosophy/Socrates.md", "---\naliases: [Gadfly]\n---\n")
    _age_folders(vault, AN_HOUR)
    names.note_names(brain)  # walked, and kept
    assert (brain.state_dir / namesnap.SNAP_FILE).is_file()
    return vault


def _next_process(root: Path) -> names.NameIndex:
    index = names.note_names(Brain(root))
    assert index._base is not None  # the kept index, not a walk
    return index


def test_the_next_process_takes_the_kept_index(root: Path) -> None:
    index = _next_process(root)
    assert index.lookup("plato") == ["References/Plato.md"]
    assert index.lookup("countess") == ["People/Ada Lovelace.md"]
    assert index.by_first_name("ada") == ["People/Ada Lovelace.md"]


def test_notes_another_device_added_renamed_or_deleted_are_seen(root: Path) -> None:
    _write(root, "References/Hypatia.md", "---\naliases: [Hypatia of Alexandria]\n---\n")
    os.rename(root / "Notes/Loose.md", root / "Notes/Tight.md")
    (root / "People/Ada Lovelace.md").unlink()
    os.makedirs(root / "Archive/Old")
    _write(root, "Archive/Old/Diogenes.md", "in a barrel\n")
    # (the sync was a while ago: the folders' mtimes alone tell what changed)
    _age_folders(root, AN_HOUR // 2)
    index = _next_process(root)
    assert index.lookup("hypatia") == ["References/Hypatia.md"]
    assert index.lookup("hypatia of alexandria") == ["References/Hypatia.md"]
    assert index.lookup("loose") == [] and index.lookup("tight") == ["Notes/Tight.md"]
    assert index.lookup("loose end") == ["Notes/Tight.md"]
    assert index.lookup("ada lovelace") == [] and index.lookup("countess") == []
    assert index.by_first_name("ada") == []
    assert index.lookup("diogenes") == ["Archive/Old/Diogenes.md"]


def test_aliases_another_device_edited_are_seen(root: Path) -> None:
    # An edit in place changes no folder: the note's own mtime and size say it changed.
    _write(root, "Philosophy/Socrates.md", "---\naliases: [Teacher of Plato]\n---\n")
    _age_folders(root, AN_HOUR)  # (the folder exactly as the snapshot saw it)
    index = _next_process(root)
    assert index.lookup("gadfly") == []
    assert index.lookup("teacher of plato") == ["Philosophy/Socrates.md"]


def test_a_folder_seen_changing_is_listed_again_whatever_its_mtime(tmp_path: Path) -> None:
    _write(tmp_path, "Notes/A.md", "a\n")
    dirs = namesnap.walk(str(tmp_path))
    assert dirs["Notes"][0] is None  # changed in the last seconds: its mtime not trusted
    st = os.stat(tmp_path / "Notes")
    _write(tmp_path, "Notes/B.md", "b\n")
    # a change its mtime does not show (a filesystem with coarse times, the same tick)
    os.utime(tmp_path / "Notes", ns=(st.st_atime_ns, st.st_mtime_ns))
    fresh, added, removed = namesnap.folder_changes(str(tmp_path), dirs)
    assert added == {"Notes/B.md"} and removed == set()
    assert sorted(fresh["Notes"][1]) == ["A.md", "B.md"]


def test_records_the_store_changed_since_are_looked_up_again(root: Path) -> None:
    from vaultbrain.capture.pipeline import capture

    done = capture(Brain(root), "Grace Hopper (aka Amazing Grace) fixed the compiler today")
    rel = next(d.path for d in done.destinations if d.path.startswith("People/"))
    index = _next_process(root)
    assert index.lookup(rel.rsplit("/", 1)[-1][:-3]) == [rel]
    assert index.by_first_name("grace") == [rel]


def test_a_torn_snapshot_is_a_walk(root: Path) -> None:
    brain = Brain(root)
    snap = brain.state_dir / namesnap.SNAP_FILE
    for bad in (snap.read_bytes()[:100], b"", b"vbsnap2 nonsense"):
        snap.write_bytes(bad)
        index = names.note_names(Brain(root))
        assert index.lookup("plato") == ["References/Plato.md"]
        assert index.lookup("countess") == ["People/Ada Lovelace.md"]
    assert _next_process(root).lookup("gadfly") == ["Philosophy/Socrates.md"]  # kept anew


def test_a_walk_after_the_kept_index_reads_no_unchanged_note_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that took the kept index and walks later (a refresh, a lost event) has the
    snapshot's entries to go by: only a note changed since is read."""
    brain = Brain(root)
    assert names.note_names(brain)._base is not None
    _write(root, "Notes/Loose.md", "---\naliases: [Loose thread]\n---\n")
    read: list[str] = []
    real = names._read_frontmatter
    monkeypatch.setattr(
        names, "_read_frontmatter", lambda b, r, *a: read.append(r) or real(b, r, *a)
    )
    brain.refresh()  # a new unit of work: walked, with what the index knew
    index = names.note_names(brain)
    assert read == ["Notes/Loose.md"]
    assert index.lookup("loose thread") == ["Notes/Loose.md"]
    assert index.lookup("gadfly") == ["Philosophy/Socrates.md"]


def test_a_large_folder_kept_too_recent_to_trust_is_listed_once_more_only(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder modified in the seconds before the snapshot was kept is listed again by the
    next process, whatever its mtime; once it has been still long enough, the process that
    lists it keeps the snapshot anew (when the folder is large), so later ones trust it."""
    brain = new_brain(vault)
    big = vault / "Library"
    big.mkdir()
    for i in range(namesnap.KEEP_AFTER_LISTED + 5):
        (big / f"Book {i}.md").write_text("plain\n", "utf-8")
    _age_folders(vault, AN_HOUR)
    now = time.time_ns()
    os.utime(big, ns=(now, now))  # (just changed: the walk cannot trust its mtime)
    names.note_names(brain)
    snap = brain.state_dir / namesnap.SNAP_FILE
    assert namesnap.load(Brain(vault))["dirs"]["Library"][0] is None
    listed: list[str] = []
    real = namesnap.list_folder

    def counting(path: str) -> tuple[list[str], list[str]]:
        listed.append(os.path.relpath(path, vault))
        return real(path)

    monkeypatch.setattr(namesnap, "list_folder", counting)
    then = time.time_ns() - AN_HOUR
    os.utime(big, ns=(then, then))  # (still since: its mtime can be trusted now)
    kept = snap.stat().st_mtime_ns
    index = _next_process(vault)
    assert "Library" in listed and snap.stat().st_mtime_ns != kept  # listed, kept anew
    assert index.lookup("book 7") == ["Library/Book 7.md"]
    assert namesnap.load(Brain(vault))["dirs"]["Library"][0] is not None
    listed.clear()
    index = _next_process(vault)
    assert "Library" not in listed  # trusted: not listed again
    assert index.lookup("book 1004") == ["Library/Book 1004.md"]


def test_a_small_folder_listed_again_does_not_keep_the_snapshot_anew(vault: Path) -> None:
    brain = new_brain(vault)
    _write(vault, "Notes/One.md", "plain\n")
    _age_folders(vault, AN_HOUR)
    now = time.time_ns()
    os.utime(vault / "Notes", ns=(now, now))
    names.note_names(brain)
    snap = brain.state_dir / namesnap.SNAP_FILE
    then = time.time_ns() - AN_HOUR
    os.utime(vault / "Notes", ns=(then, then))
    kept = snap.stat().st_mtime_ns
    assert _next_process(vault).lookup("one") == ["Notes/One.md"]
    assert snap.stat().st_mtime_ns == kept  # (listing it again costs less than keeping)


def test_a_damaged_names_snapshot_stops_a_command_with_one_line_and_the_next_walks(
    vault: Path,
) -> None:
    """The kept rows are read a chunk at a time, each checked as it is first read: a chunk a
    disk lost stops the lookup with a one-line error and sets the snapshot aside; the next
    lookup (this process or the next) walks the vault."""
    from vaultbrain.errors import StorageError
    from vaultbrain.store import snap as snapmod

    brain = new_brain(vault)
    for i in range(3000):
        _write(vault, f"Library/Book {i}.md", "plain\n")
    _age_folders(vault, AN_HOUR)
    names.note_names(brain)
    path = brain.state_dir / namesnap.SNAP_FILE
    again = Brain(vault)
    index = names.note_names(again)
    assert index._base is not None
    data = bytearray(path.read_bytes())
    data[-30000:] = b"\x00" * 30000  # (the disk lost the end of the rows)
    path.write_bytes(bytes(data))
    with pytest.raises(StorageError, match="was damaged"):
        for i in range(2999, 0, -7):  # (lookups over the rows, until one meets the loss)
            assert index.lookup(f"book {i}") == [f"Library/Book {i}.md"]
    assert not path.exists()  # set aside
    again.refresh()
    walked = names.note_names(again)
    assert walked._base is None and walked.lookup("book 2998") == ["Library/Book 2998.md"]
    assert snapmod.damages() >= 1
