"""The state dir is the person's alone: folders 0700, files 0600 (issue 47), made so when
the store first opens it and corrected, with one log line, on one made before."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from vaultbrain.errors import StorageError

log = logging.getLogger("vaultbrain.store")
DIR_MODE = 0o700
FILE_MODE = 0o600
_checked: set[str] = set()  # state dirs whose modes this process has looked at


def private_dir(root: Path) -> None:
    """Make ``root`` (and its missing parents' last level) a private folder, and on the first
    call for it in this process correct what in it others could read."""
    try:
        root.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    except OSError as exc:
        raise StorageError.from_os(exc, f"the state dir {root}") from exc
    key = str(root)
    if key in _checked:
        return
    from vaultbrain.store.legacy import old_files

    # Said when it holds what a person wrote (the records of an older vaultbrain, or a
    # database made readable by hand); files other parts make as they go, quietly.
    held = any(_loose(root / n) for n in ("state.db", *old_files(root)))
    fixed = make_private(root)
    _checked.add(key)
    if fixed:
        (log.warning if held else log.debug)(
            "state dir %s: %d files and folders others could read made private (0700/0600)",
            root,
            fixed,
        )


def _loose(path: Path) -> bool:
    try:
        return bool(stat.S_IMODE(os.lstat(path).st_mode) & 0o077)
    except OSError:
        return False


def make_private(root: Path) -> int:
    """Folders 0700 and files 0600 under ``root`` (itself included; sockets and links left
    alone); how many were changed."""
    fixed = 0
    for here, dirs, files in os.walk(root):
        for name, mode in [(here, DIR_MODE), *((os.path.join(here, f), FILE_MODE) for f in files)]:
            try:
                st = os.lstat(name)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode) or stat.S_ISSOCK(st.st_mode):
                continue
            if stat.S_IMODE(st.st_mode) & 0o077:
                try:
                    os.chmod(name, stat.S_IMODE(st.st_mode) & ~0o077 | (mode & 0o700))
                except OSError:
                    continue
                fixed += 1
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(here, d))]
    return fixed
