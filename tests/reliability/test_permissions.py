"""A read-only vault, a read-only filesystem, and notes or folders without read permission.

We run as root, and root reads and writes through any mode bits, so each command runs under
``setpriv`` without the DAC-override capabilities: then mode bits bind root as they bind
anyone. Every case ends with a clear message (exit 0 with a named problem, or exit 1 with one
``error:`` line) and every file byte-identical.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from faults import make_vault, no_traceback, one_line_error, snapshot, vb
from support.cli import run
from support.state import forget

READERS = [
    ["reindex"],
    ["db", "list", "person"],
    ["db", "show", "person", "Sarah"],
    ["inbox"],
    ["doctor"],
    ["daemon", "--once"],
]


@pytest.fixture
def heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULTBRAIN_PROVIDER", "heuristic")


def seed(vault: Path) -> None:
    run(vault, "db", "add", "person", "--set", "name=Sarah", "--set", "contact=s@example.com")
    run(vault, "capture", "Met with Sarah about the garden")
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Met with Bob about the shed\n")
    os.utime(vault / "Inbox.md", (1, 1))  # long quiet: the line is ready


def chmod_tree(root: Path, remove: int) -> list[tuple[Path, int]]:
    saved = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*filenames, *dirnames, ""]:
            p = Path(dirpath) / name if name else Path(dirpath)
            if p.is_symlink():
                continue
            mode = stat.S_IMODE(p.lstat().st_mode)
            saved.append((p, mode))
    for p, mode in saved:
        os.chmod(p, mode & ~remove)
    return saved


def restore(saved: list[tuple[Path, int]]) -> None:
    for p, mode in reversed(saved):
        os.chmod(p, mode)


def ends_clearly(proc) -> str:
    """Exit 0, or exit 1 with one `error:` line; never a traceback."""
    no_traceback(proc)
    if proc.returncode == 0:
        return ""
    return one_line_error(proc)


@pytest.mark.usefixtures("heuristic")
def test_a_read_only_vault_changes_nothing_and_says_why(
    vault: Path, obey_permissions: list[str]
) -> None:
    seed(vault)
    before = snapshot(vault, skip_state=False)
    saved = chmod_tree(vault, stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    try:
        proc = vb(vault, "capture", "Idea: moss wall", prefix=obey_permissions)
        assert proc.returncode != 0
        for args in READERS:
            vb(vault, *args, prefix=obey_permissions)  # whatever they say, they change nothing
    finally:
        restore(saved)
    after = snapshot(vault, skip_state=False)
    assert before == after


def _read_only_with_state_dir(
    vault: Path, tmp_path: Path, prefix: list[str], hand_made: bool
) -> dict[str, bytes]:
    seed(vault)
    if hand_made:
        (vault / "Ideas/Moss wall.md").write_text("---\ntitle: Moss wall\n---\nby hand\n")
    state = tmp_path / "state"
    state.mkdir()
    before = snapshot(vault)
    saved = chmod_tree(vault, stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    try:
        sd = ["--state-dir", str(state)]
        ends_clearly(vb(vault, *sd, "reindex", prefix=prefix))
        proc = vb(vault, *sd, "db", "list", "person", "--json", prefix=prefix)
        assert proc.returncode == 0, proc.stderr
        assert [r["title"] for r in json.loads(proc.stdout)] == ["Sarah"]
        if hand_made:
            proc = vb(vault, *sd, "db", "list", "idea", "--json", prefix=prefix)
            assert [r["title"] for r in json.loads(proc.stdout)] == ["Moss wall"]
        doctor = vb(vault, *sd, "doctor", prefix=prefix)
        no_traceback(doctor)
        assert "is not writable" in doctor.stdout + doctor.stderr, doctor.stdout
        # `daemon --once` here: see test_a_read_only_vault_is_reported_in_one_line
        vb(vault, *sd, "daemon", "--once", prefix=prefix)
    finally:
        restore(saved)
    assert snapshot(vault) == before
    return before


@pytest.mark.usefixtures("heuristic")
def test_a_read_only_vault_with_a_writable_state_dir_can_be_read_and_indexed(
    vault: Path, tmp_path: Path, obey_permissions: list[str]
) -> None:
    _read_only_with_state_dir(vault, tmp_path, obey_permissions, hand_made=False)


@pytest.mark.usefixtures("heuristic")
def test_a_hand_made_note_in_a_read_only_vault_is_indexed_or_named(
    vault: Path, tmp_path: Path, obey_permissions: list[str]
) -> None:
    _read_only_with_state_dir(vault, tmp_path, obey_permissions, hand_made=True)


@pytest.mark.usefixtures("heuristic")
@pytest.mark.parametrize(
    "args",
    [["capture", "Idea: moss wall"], *(a for a in READERS if a[0] in ("reindex", "daemon"))],
    ids=str,
)
def test_a_read_only_vault_is_reported_in_one_line(
    vault: Path, obey_permissions: list[str], args: list[str]
) -> None:
    seed(vault)
    forget(vault / ".vaultbrain", "notes-cache.json")
    (vault / "Ideas/Moss wall.md").write_text("---\ntitle: Moss wall\n---\nby hand\n")
    saved = chmod_tree(vault, stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    try:
        ends_clearly(vb(vault, *args, prefix=obey_permissions))
    finally:
        restore(saved)


@pytest.mark.usefixtures("heuristic")
def test_a_read_only_filesystem_changes_nothing(small_disk) -> None:
    vault = make_vault(small_disk.root / "Vault")
    seed(vault)
    before = snapshot(vault, skip_state=False)
    small_disk.remount("ro")
    try:
        proc = vb(vault, "capture", "Idea: moss wall")
        assert proc.returncode != 0
        for args in READERS:
            vb(vault, *args)
    finally:
        small_disk.remount("rw")
    assert snapshot(vault, skip_state=False) == before


# -- notes and folders without read permission ---------------------------------------------
@pytest.fixture
def locked_out(vault: Path) -> tuple[Path, list[Path]]:
    run(vault, "db", "add", "person", "--set", "name=Sarah")
    run(vault, "db", "add", "project", "--set", "name=Greenhouse")
    secret = vault / "People/Secret.md"
    secret.write_text("---\nname: Secret\n---\nnobody may read this\n")
    private = vault / "Projects/Private"
    private.mkdir()
    (private / "Hidden plan.md").write_text("---\nname: Hidden plan\n---\n")
    run(vault, "reindex")  # both are records now
    (vault / "Ideas/Unread.md").write_text("---\ntitle: Unread\n---\nnever indexed\n")
    forget(vault / ".vaultbrain", "notes-cache.json")
    return vault, [secret, vault / "Ideas/Unread.md", private]


def test_unreadable_notes_are_named_and_never_tombstoned(
    locked_out: tuple[Path, list[Path]], obey_permissions: list[str]
) -> None:
    vault, paths = locked_out
    before = snapshot(vault)
    modes = [(p, stat.S_IMODE(p.stat().st_mode)) for p in paths[:2]]
    for p, _ in modes:
        os.chmod(p, 0)
    try:
        proc = vb(vault, "reindex", prefix=obey_permissions)
        no_traceback(proc)
        assert "People/Secret.md cannot be read (permission denied)" in proc.stderr, proc.stderr
        assert "Ideas/Unread.md cannot be read (permission denied)" in proc.stderr, proc.stderr
        for args in (["db", "list", "person"], ["db", "show", "person", "Secret"], ["inbox"]):
            p = vb(vault, *args, prefix=obey_permissions)
            assert p.returncode == 0, (args, p.stderr)
        ends_clearly(vb(vault, "doctor", prefix=obey_permissions))
    finally:
        for p, mode in modes:
            os.chmod(p, mode)
    assert snapshot(vault) == before
    people = {r["title"] for r in json.loads(run(vault, "db", "list", "person", "--json").output)}
    assert people == {"Sarah", "Secret"}


def test_an_unreadable_folder_does_not_stop_the_scan(
    locked_out: tuple[Path, list[Path]], obey_permissions: list[str]
) -> None:
    vault, paths = locked_out
    private = paths[2]
    os.chmod(private, 0)
    try:
        proc = vb(vault, "reindex", prefix=obey_permissions)
        no_traceback(proc)
        assert proc.returncode == 0, proc.stderr
        assert "Projects/Private" in proc.stderr
        once = vb(vault, "daemon", "--once", prefix=obey_permissions)
        assert once.returncode == 0, once.stderr
    finally:
        os.chmod(private, 0o755)
    projects = {
        r["title"] for r in json.loads(run(vault, "db", "list", "project", "--json").output)
    }
    assert projects == {"Greenhouse", "Hidden plan"}


def test_an_unreadable_inbox_is_reported_and_left_alone(
    vault: Path, obey_permissions: list[str]
) -> None:
    with open(vault / "Inbox.md", "a", encoding="utf-8") as fh:
        fh.write("- Idea: moss wall\n")
    os.utime(vault / "Inbox.md", (1, 1))
    before = (vault / "Inbox.md").read_bytes()
    os.chmod(vault / "Inbox.md", 0)
    try:
        proc = vb(vault, "daemon", "--once", prefix=obey_permissions)
        no_traceback(proc)
        assert "Inbox.md cannot be read (permission denied)" in proc.stderr
        line = one_line_error(vb(vault, "capture", "Idea: x", prefix=obey_permissions))
        assert "Inbox.md" in line
    finally:
        os.chmod(vault / "Inbox.md", 0o644)
    assert (vault / "Inbox.md").read_bytes() == before
