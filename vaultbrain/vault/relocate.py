"""Moving an in-vault ``.vaultbrain/`` out to the per-user state folder (issue 15).

Where a state dir lives is decided by :mod:`vaultbrain.vault.statedir`; this module moves
one, and sits above both it and :class:`~vaultbrain.vault.files.Vault` (the move writes
``vault_id:`` into vaultbrain.yml by compare-and-swap).

The move loses nothing even when killed at any instant: on one filesystem it is a single
``rename``; across filesystems the folder is copied beside its new place, synced to disk,
every file read back and compared, the copy renamed into place in one step (with a note of
what it was copied from), and only then the old folder renamed to ``.vaultbrain.moved-away``
and deleted. A run that finds a half-made copy deletes it and starts again; one that finds
the copy in place and the old folder unchanged finishes the deletion. Nothing is left in
the vault for Obsidian Sync, iCloud or Syncthing to carry.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from vaultbrain.errors import UserError
from vaultbrain.vault import yml
from vaultbrain.vault.atomic import fsync_dir
from vaultbrain.vault.files import Vault
from vaultbrain.vault.statedir import (
    IN_VAULT,
    MOVED_AWAY,
    MOVED_FROM,
    in_vault_pinned,
    per_user_state_dir,
    vault_id,
    written_vault_id,
)


class StateDirBusy(UserError):
    """Another vaultbrain process holds the state dir: it is not moved now."""


@dataclass(frozen=True)
class Moved:
    source: Path
    target: Path
    how: str  # "renamed" (one filesystem), "copied" (verified, then the old one deleted),
    # "finished" (an interrupted move completed), "nothing" (no in-vault state dir)

    def describe(self) -> str:
        if self.how == "nothing":
            return f"nothing to move: {self.source} does not exist; the state dir is {self.target}"
        what = {
            "renamed": "moved",
            "copied": "copied, checked file by file, and removed from the vault",
            "finished": "the interrupted move is finished",
        }[self.how]
        return f"{self.source} -> {self.target}: {what}"


def manifest(folder: Path) -> dict[str, list[object]]:
    """Every file under ``folder`` (relative path -> [size, sha256], a link -> its target):
    what a copy must equal before the original goes."""
    out: dict[str, list[object]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if Path(dirpath, d).is_symlink()]:
            path = Path(dirpath) / name
            rel = path.relative_to(folder).as_posix()
            if rel in (MOVED_FROM, "daemon.lock", "store.lock"):
                continue  # the note of a move; locks hold no data (flock is the lock)
            if path.is_symlink():
                out[rel] = ["link", os.readlink(path)]
                continue
            digest = hashlib.sha256()
            fd = os.open(path, os.O_RDONLY)
            try:
                while chunk := os.read(fd, 1 << 20):
                    digest.update(chunk)
            finally:
                os.close(fd)
            out[rel] = [path.stat().st_size, digest.hexdigest()]
    return out


def _digest(files: dict[str, list[object]]) -> str:
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


class _Held:
    """The old state dir's daemon lock and store lock, taken without waiting: a daemon or a
    command writing to it means the move is not safe now."""

    def __init__(self, folder: Path) -> None:
        import fcntl  # POSIX, as the locks it tests (vaultbrain/daemon/lock.py, store/store.py)

        self.fds: list[int] = []
        # (the store's write mutex is a flock of the state dir itself)
        for name, who in (("daemon.lock", "a vaultbrain daemon"), ("", "a command")):
            if name:
                fd = os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o600)
            else:
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                self.release()
                raise StateDirBusy(
                    f"{who} is using {folder}; it is moved when nothing uses it "
                    "(stop the daemon, then `vaultbrain statedir move`)"
                ) from None
            self.fds.append(fd)

    def release(self) -> None:
        while self.fds:
            os.close(self.fds.pop())  # closing drops the flock


def _remove_old(root: Path, legacy: Path) -> None:
    """Take the old folder out of the vault: one rename (so the vault is clean at once and a
    kill leaves only a folder a later run deletes), then delete it."""
    away = root / MOVED_AWAY
    if away.exists():
        shutil.rmtree(away)
    os.rename(legacy, away)
    fsync_dir(root)
    shutil.rmtree(away)


def move_state_dir(root: Path, *, copy: bool = False) -> Moved:
    """Move ``<vault>/.vaultbrain`` to the per-user state folder (see the module docstring);
    ``copy`` takes the copying way even on one filesystem. StateDirBusy when another
    vaultbrain process holds it; UserError when the per-user folder already holds another
    state dir (then nothing is touched)."""
    root = Path(root).expanduser().resolve()
    legacy = root / IN_VAULT
    if legacy.is_dir():
        _ensure_vault_id(root)
    target = per_user_state_dir(root)
    if not legacy.is_dir():
        if (root / MOVED_AWAY).exists() and target.is_dir():
            shutil.rmtree(root / MOVED_AWAY)  # a move killed while deleting the old folder
            return Moved(legacy, target, "finished")
        return Moved(legacy, target, "nothing")
    held = _Held(legacy)
    try:
        return _move(root, legacy, target, copy)
    finally:
        held.release()


def _move(root: Path, legacy: Path, target: Path, copy: bool) -> Moved:
    if target.is_dir():
        note = _moved_from(target)
        if note is None or note.get("from") != str(legacy):
            if any(target.iterdir()):
                raise UserError(
                    f"{target} already holds a state dir for this vault, so {legacy} is not "
                    "moved over it; keep one: remove the other, or pass --state-dir"
                )
            target.rmdir()
        elif note.get("manifest") == _digest(manifest(legacy)):
            # The copy was complete and the old folder is as it was copied: only its
            # deletion was left (the copy may have been used since; it is the newer one).
            _remove_old(root, legacy)
            return Moved(legacy, target, "finished")
        elif note.get("manifest") == _digest(manifest(target)):
            shutil.rmtree(target)  # an untouched copy of what the old folder was: redo it
        else:
            raise UserError(
                f"{legacy} and {target} have both changed since {target} was copied from "
                "the other; nothing is moved: keep one (remove the other) or pass --state-dir"
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    if not copy:
        try:
            os.rename(legacy, target)  # one step: nothing can be half moved
            fsync_dir(target.parent)
            fsync_dir(root)
            return Moved(legacy, target, "renamed")
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
    staging = target.parent / f".{target.name}.partial"
    if staging.exists():
        shutil.rmtree(staging)  # a copy a killed move left half made
    shutil.copytree(legacy, staging, symlinks=True)
    if hasattr(os, "sync"):
        os.sync()  # the copy is on disk before the original can go (once, not per file)
    files = manifest(legacy)
    if manifest(staging) != files:
        shutil.rmtree(staging)
        raise UserError(f"the copy of {legacy} did not read back the same; nothing was moved")
    moved_from = json.dumps({"from": str(legacy), "manifest": _digest(files)})
    fd = os.open(staging / MOVED_FROM, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, moved_from.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(staging)
    os.rename(staging, target)  # the complete copy appears in one step
    fsync_dir(target.parent)
    _remove_old(root, legacy)
    return Moved(legacy, target, "copied")


def _moved_from(target: Path) -> dict[str, object] | None:
    try:
        doc = json.loads((target / MOVED_FROM).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _ensure_vault_id(root: Path) -> None:
    """Write ``vault_id:`` into vaultbrain.yml if it is not there: the moved state dir is
    found by it, so it must not change when the vault's path does."""
    if written_vault_id(root) is not None:
        return
    vault = Vault(root, root / IN_VAULT)
    yml.edit(
        vault,
        lambda text: (
            None
            if re.search(r"^vault_id:", text, re.M)
            else yml.with_key(text, "vault_id", vault_id(root))
        ),
    )


def move_at_start(root: Path) -> Moved | None:
    """The daemon's start: move ``<vault>/.vaultbrain`` out when that is safe (no other
    vaultbrain process holds it), finish a move a kill interrupted; otherwise leave it, in
    use where it is, and say why in the log. None when there is nothing to do."""
    log = logging.getLogger("vaultbrain.daemon")
    root = Path(root).expanduser().resolve()
    legacy = root / IN_VAULT
    if in_vault_pinned() or not (legacy.is_dir() or (root / MOVED_AWAY).exists()):
        return None
    mine = per_user_state_dir(root)
    if legacy.is_dir() and mine.is_dir():
        note = _moved_from(mine)
        if note is None or note.get("from") != str(legacy):
            return None  # not this machine's move: doctor says what it is
    try:
        moved = move_state_dir(root)
    except StateDirBusy as exc:
        log.warning("the state dir stays in the vault for now: %s", exc)
        return None
    except (UserError, OSError) as exc:
        log.warning("the state dir is not moved out of the vault (%s); it is used where it is", exc)
        return None
    log.info("state dir: %s", moved.describe())
    return moved
