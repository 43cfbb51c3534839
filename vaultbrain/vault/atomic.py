"""Atomic file writes, the one place bytes reach the disk.

A write goes to a fresh temp file in the same folder (``TEMP_PREFIX``, which the watcher and
the vault walk ignore), is fsynced, and is renamed over its target. :func:`swap_in` is the
last step of a note's compare-and-swap (``Vault.replace`` in ``vaultbrain/vault/files.py``):
on Linux it exchanges the files and swaps back if an editor saved in between. Every write
passes through :func:`write_all` (``_os_write``: the seam tests use to make a disk full or
read-only). State-dir files use :func:`atomic_write_file` (no compare-and-swap: only
vaultbrain edits them).

A process killed mid-write (``kill -9``, a power cut) leaves its temp file behind. Whoever
comes next removes it (:func:`sweep_leftovers`): every command that opens the vault, and
the daemon as it starts. A temp file whose writer is gone, or older than
:data:`LEFTOVER_AGE` whatever its writer, is vaultbrain's own garbage (the note it was
for is whole: the rename never happened, or it did and the temp holds the older text).
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultbrain.errors import ConflictError, StorageError
from vaultbrain.procs import pid_alive

TEMP_PREFIX = ".vb-tmp-"
_TAG = os.urandom(4).hex()  # (what secrets.token_hex gives, without importing secrets)
_COUNT = itertools.count()


def atomic_write_file(
    path: Path, data: str | bytes, tmp_dir: Path | None = None, durable: bool = True
) -> None:
    """Atomic write of a state-dir file; a refused disk write is a StorageError."""
    try:
        _atomic_write_file(path, data, tmp_dir, durable)
    except OSError as exc:
        raise StorageError.from_os(exc, str(path)) from exc


def _atomic_write_file(
    path: Path, data: str | bytes, tmp_dir: Path | None = None, durable: bool = True
) -> None:
    """Atomic write for state-dir files (no compare-and-swap: only vaultbrain edits them).

    ``tmp_dir`` (same filesystem) keeps temp files out of deep folders, so a sweep after a
    crash need not walk every record folder.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if tmp_dir is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(write_temp(path, data, None, durable), path)
        return
    # The temp goes to ``tmp_dir`` (a store collection's folder) and the file to a folder
    # of its own that may not exist yet (a new record): folders are made only when a write
    # finds them missing, so a reindex writing 10,000 records does not ask for each.
    try:
        tmp = write_temp(path, data, tmp_dir, durable)
    except FileNotFoundError:
        tmp_dir.mkdir(parents=True, exist_ok=True)
        tmp = write_temp(path, data, tmp_dir, durable)
    try:
        try:
            os.replace(tmp, path)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, path)
    except BaseException:
        unlink_quietly(tmp)
        raise


def write_temp(path: Path, data: bytes, tmp_dir: Path | None = None, durable: bool = True) -> Path:
    """Write ``data`` to a fresh temp file beside ``path`` (or in ``tmp_dir``) and fsync it."""
    # (a random tag per process and a count: a random name per file asked the system for
    # random bytes each time; O_EXCL refuses a name taken all the same)
    tmp = (tmp_dir or path.parent) / f"{TEMP_PREFIX}{os.getpid()}-{_TAG}{next(_COUNT):x}"
    write_new(tmp, data, durable)
    return tmp


def write_new(path: Path, data: bytes, durable: bool = True) -> None:
    """Write a file that must not exist yet; on any failure nothing of it is left."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        write_all(fd, data)
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        unlink_quietly(path)
        raise
    os.close(fd)


_RENAME_EXCHANGE = 2
_renameat2: Any = None


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    global _renameat2
    if not sys.platform.startswith("linux"):
        return False
    if _renameat2 is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fn = libc.renameat2
            fn.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]
            _renameat2 = fn
        except (OSError, AttributeError):
            _renameat2 = False
    if not _renameat2:
        return False
    at_fdcwd = -100
    rc = _renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), str(b))


class SwapUndone(ConflictError):
    """The swap was taken back (the note moved on between the check and the swap).
    ``stray``: what our file held when it came back, when something was written into it in
    the moment it stood at the note's path (empty otherwise): the caller carries it over."""

    def __init__(self, message: str, stray: bytes = b"") -> None:
        super().__init__(message)
        self.stray = stray


def swap_in(tmp: Path, path: Path, fd: int, seen: bytes, data: bytes) -> None:
    """Put ``tmp`` (holding ``data``) at ``path`` only if ``path`` is still the file read
    through ``fd``, and still holds ``seen``.

    An editor's save landing between the check and the swap would otherwise be silently
    replaced: an atomic save (a temp renamed over the note) brings another file, an in-place
    save (truncate and rewrite, or an append) changes the bytes of this one. With
    RENAME_EXCHANGE the displaced file is in hand after the swap: if it is not the one that
    was read, or its bytes moved on, it is swapped back and the write becomes a conflict
    (:class:`SwapUndone`, with whatever was written into our file in the moment it stood at
    the note's path). Elsewhere: a last check of the inode and the bytes, then a rename.
    """
    expected_ino = os.fstat(fd).st_ino
    # A save that already landed is refused before anything is shown at ``path``: the
    # exchange below puts our text there for a moment, and an editor that reads the note in
    # that moment builds its next save on text that is about to be taken back.
    if os.lstat(path).st_ino != expected_ino:
        raise ConflictError(f"{path.name} was replaced while it was being written")
    if _exchange(tmp, path):
        ours = os.lstat(path).st_ino
        if os.lstat(tmp).st_ino != expected_ino or read_all(fd) != seen:
            stray = b""
            # Only our own file is taken back: a save renamed over it since is the newest
            # text and stays (the displaced file is older than it).
            if os.lstat(path).st_ino == ours:
                _exchange(tmp, path)
                with open(tmp, "rb") as back:
                    now = back.read()
                stray = b"" if now == data else now
            raise SwapUndone(f"{path.name} was saved while it was being written", stray)
        unlink_quietly(tmp)
        return
    if os.lstat(path).st_ino != expected_ino or read_all(fd) != seen:
        raise ConflictError(f"{path.name} was saved while it was being written")
    os.replace(tmp, path)


LEFTOVER_AGE = 60.0  # seconds: a temp file this old is left over, whoever wrote it
SWEEP_ENTRIES = 200_000  # directory entries a sweep looks at, at most (10,000 notes: 5 ms)


@dataclass
class Swept:
    """What a sweep for leftover temp files did: removed, and could not remove (with why)."""

    removed: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)  # "path (why)"


def sweep_leftovers(
    root: Path,
    state_dir: Path | None = None,
    older_than: float = LEFTOVER_AGE,
    limit: int = SWEEP_ENTRIES,
) -> Swept:
    """Remove the temp files killed vaultbrain processes left in the vault's folders and the
    state dir (never anything but our own names: ``TEMP_PREFIX``, a regular file): those
    whose writer is gone, and any older than ``older_than`` seconds. One walk of the folders
    (names only, as the directory gives them: no note is opened or stat'ed), no dot-folder
    entered, no symlink followed; at most ``limit`` entries looked at."""
    out = Swept()
    cutoff = time.time() - older_than
    seen = 0

    def consider(entry: os.DirEntry[str]) -> None:
        try:
            if not entry.is_file(follow_symlinks=False):
                return
            if writer_alive(entry.name) and entry.stat(follow_symlinks=False).st_mtime > cutoff:
                return  # (being written right now)
            os.unlink(entry.path)
            out.removed.append(entry.path)
        except FileNotFoundError:
            return  # (its writer finished it meanwhile)
        except OSError as exc:
            out.stuck.append(f"{entry.path} ({exc.strerror or exc})")

    stack = [os.fspath(root)]
    while stack and seen < limit:
        try:
            with os.scandir(stack.pop()) as it:
                entries = list(it)
        except OSError:
            continue
        seen += len(entries)
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                if name.startswith(TEMP_PREFIX):
                    consider(entry)
                continue  # (a dot-folder: never written into, never entered)
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
            except OSError:
                continue
    if state_dir is not None:
        # The state dir: its top level and each collection's folder (where records' temps go).
        folders = [os.fspath(state_dir)]
        try:
            with os.scandir(state_dir) as it:
                folders += [e.path for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            folders = []
        for folder in folders:
            try:
                with os.scandir(folder) as it:
                    for entry in it:
                        if entry.name.startswith(TEMP_PREFIX):
                            consider(entry)
            except OSError:
                continue
    return out


def leftovers_line(root: Path, state_dir: Path | None) -> str | None:
    """:func:`sweep_leftovers` as a command does it before its work: the one line it says
    when it removed something, or None."""
    swept = sweep_leftovers(root, state_dir)
    if not swept.removed:
        return None
    n = len(swept.removed)
    where = os.path.relpath(swept.removed[0], root) if n == 1 else f"{n} files"
    return (
        f"removed {n} temp file{'s' if n != 1 else ''} ({TEMP_PREFIX}*) an interrupted "
        f"vaultbrain write left behind ({where}); every note is whole"
    )


def writer_alive(temp_name: str) -> bool:
    """Whether the process a temp file's name names still runs (a zombie, killed and not yet
    reaped, does not: it will never finish the write)."""
    pid_text = temp_name[len(TEMP_PREFIX) :].split("-", 1)[0]
    if not (pid_text.isdigit() and pid_alive(int(pid_text))):
        return False
    try:
        with open(f"/proc/{pid_text}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[-1].split()[:1]
    except OSError:
        return True  # (no /proc: macOS; alive as far as can be told)
    return state != [b"Z"]


# The write seam: every byte vaultbrain writes to a note or a state file goes through here.
_os_write = os.write  # tests give it a budget to make the disk full (tests/reliability)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (a short write is carried on)."""
    view = memoryview(data)
    while view:
        n = _os_write(fd, view)
        view = view[n:]


def settled(fd: int, current: bytes, limit: float = 2.0, quiet: float = 0.05) -> bytes:
    """The file's bytes once a writer has left it alone for ``quiet`` seconds (an emptied file
    is waited on for the whole ``limit``, as a save usually follows its truncation)."""
    deadline = time.monotonic() + limit
    changed_at = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.01)
        now = read_all(fd)
        if now != current:
            current, changed_at = now, time.monotonic()
        elif current and time.monotonic() - changed_at >= quiet:
            break
    return current


def read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        chunks.append(chunk)
        offset += len(chunk)
        if len(chunk) < 1 << 20:  # (a regular file reads short only at its end)
            return b"".join(chunks)


def copy_mode(src: Path, dst: Path) -> None:
    try:
        mode = os.stat(src).st_mode & 0o7777
        # (most notes have a temp file's mode already: a change of mode writes the inode)
        if os.stat(dst).st_mode & 0o7777 != mode:
            os.chmod(dst, mode)
    except OSError:
        pass


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_syncfs: Any = None


def sync_files(folder: Path, paths: list[Path]) -> None:
    """Make the files at ``paths`` (all on ``folder``'s file system) durable: one ``syncfs``
    of that file system on Linux (one journal commit, where an fsync each costs one commit
    per file), else an fsync each."""
    global _syncfs
    if _syncfs is None:
        _syncfs = False
        if sys.platform.startswith("linux"):
            try:
                fn = ctypes.CDLL(None, use_errno=True).syncfs
                fn.argtypes = [ctypes.c_int]
                _syncfs = fn
            except (OSError, AttributeError):
                pass
    if _syncfs:
        fd = os.open(folder, os.O_RDONLY)
        try:
            if _syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
