"""Which files of a vault are notes, and how a walk finds them.

What vaultbrain never reads or writes (:func:`is_ignored`: dot-folders, conflict copies
sync tools leave, iCloud placeholders), the walks below a folder, and the hash that decides
whether a note changed.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from vaultbrain.patterns import LazyPattern

# Syncthing, Nextcloud/ownCloud, Dropbox ("… (Jane's conflicted copy 2026-01-01).md"),
# iCloud placeholders.
_CONFLICT_PATTERNS = ("*.sync-conflict-*", "*(conflict*", "*conflicted copy*", "*.icloud")
_CONFLICT_RE = LazyPattern("|".join(fnmatch.translate(p) for p in _CONFLICT_PATTERNS))


def content_hash(data: str | bytes) -> str:
    """SHA-256 of a note's bytes; decides "changed", mtime and size only say where to look."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return hashlib.sha256(data).hexdigest()


_STRAY = LazyPattern("[\udc80-\udcff]")


def has_stray_bytes(text: str) -> bool:
    """Whether ``text`` holds bytes that are not UTF-8, as a note in ``Vault.keeps_bytes``
    is read (surrogateescape): such text cannot be stored as text (JSON, SQLite)."""
    return _STRAY.search(text) is not None


def is_ignored(rel: str) -> bool:
    """True for paths vaultbrain never reads as notes and never writes.

    Dot-folders and dot-files (``.obsidian``, ``.trash``, ``.git``, the state dir, our temp
    files), iCloud placeholders and the copies sync tools leave on a conflict.
    """
    # (the parts PurePosixPath would give, without building one: a scan asks for every note)
    parts = [p for p in rel.split("/") if p and p != "."]
    for part in parts:
        if part.startswith("."):
            return True
    name = parts[-1] if parts else ""
    return _CONFLICT_RE.match(name.lower()) is not None


def iter_md(start: Path | str, prefix: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every Markdown note below ``start`` that is not ignored: (its path relative to the
    vault, with ``prefix`` before it, and its directory entry). Never follows a symlinked
    folder (a loop or a link out of the vault stays unread)."""
    # (_walk_rel's walk, written out: one generator where two cost a tenth of a warm
    # reindex of 10,000 notes)
    stack = [(os.fspath(start), prefix)]
    conflict = _CONFLICT_RE.match
    while stack:
        current, rel_dir = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not name.startswith("."):
                        stack.append((entry.path, rel_dir + name + "/"))
                    continue
                low = name.lower()
                if (
                    not low.endswith(".md")
                    or name.startswith(".")
                    or ("conflict" in low and conflict(low))
                    or not entry.is_file(follow_symlinks=False)
                ):
                    continue
            except OSError:
                continue
            yield rel_dir + name, entry


def list_folder(path: str) -> tuple[list[str], list[str]]:
    """The notes directly in the folder at ``path`` as :func:`iter_md` finds them (their
    names), and the folders it would walk into; ([], []) when it cannot be listed."""
    notes: list[str] = []
    folders: list[str] = []
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except OSError:
        return notes, folders
    # (a folder of 4,000 notes is listed again after each capture that adds one: the usual
    # entry, a note, costs one test of its name and one of its type)
    add_note, add_folder, conflict = notes.append, folders.append, _CONFLICT_RE.match
    for entry in entries:
        name = entry.name
        try:
            if name[-3:].lower() == ".md" and entry.is_file(follow_symlinks=False):
                low = name.lower()
                if name[0] != "." and not ("conflict" in low and conflict(low)):
                    add_note(name)
            elif name[0] != "." and entry.is_dir(follow_symlinks=False):
                add_folder(name)
        except OSError:
            continue
    return notes, folders


def _walk(start: Path, hidden_files: bool = False) -> Iterator[os.DirEntry[str]]:
    """Every entry below ``start`` (see :func:`_walk_rel`)."""
    for _, entry in _walk_rel(start, "", hidden_files):
        yield entry


def _through_symlink(root: str, parts: tuple[str, ...]) -> bool:
    """True when an existing component of ``root``/``parts`` below ``root`` is a symlink:
    one lstat per component down to the first that does not exist, instead of a realpath
    of the whole path (a dozen system calls and a Python loop, on every note written)."""
    path = root
    for part in parts:
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            return False  # missing (or a file's "child"): nothing below it exists
        if stat.S_ISLNK(mode):
            return True
    return False


def _walk_rel(
    start: Path, prefix: str = "", hidden_files: bool = False
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry below ``start`` with its path relative to it (``prefix`` before it), built
    as the walk goes down. Never enters dot-folders or follows symlinked ones (a loop, or a
    link out of the vault, stays unread); dot-files only with ``hidden_files``."""
    stack = [(os.fspath(start), prefix)]
    while stack:
        current, rel_dir = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            hidden = name.startswith(".")
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not hidden:
                        stack.append((entry.path, rel_dir + name + "/"))
                    continue
            except OSError:
                continue
            if hidden and not hidden_files:
                continue
            yield rel_dir + name, entry
