"""Safe paths, ignore rules and the only code that writes into the vault (:class:`Vault`).

Every write is atomic (a temp file in the same folder, fsync, ``os.replace``: see
``vaultbrain/vault/atomic.py``) and, for a note that already exists, compare-and-swap against
the hash of the text that was read. New notes are created with ``os.link`` so an existing file
is never clobbered. Own writes are remembered by hash so the watcher can tell them from the
person's.
"""

from __future__ import annotations

import atexit
import errno
import os
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from vaultbrain.errors import (
    ConflictError,
    StorageError,
    UnsafePathError,
    UserError,
    VaultbrainError,
)
from vaultbrain.vault.atomic import (
    SwapUndone,
    copy_mode,
    fsync_dir,
    read_all,
    settled,
    swap_in,
    sweep_leftovers,
    unlink_quietly,
    write_all,
    write_new,
    write_temp,
)
from vaultbrain.vault.late import Displaced, LateWrites, joined, new_lines
from vaultbrain.vault.own import OWN_WRITES, OwnWrites  # noqa: F401 (where callers look)
from vaultbrain.vault.paths import (  # noqa: F401 (the walks, where callers look for them)
    _through_symlink,
    _walk,
    content_hash,
    has_stray_bytes,
    is_ignored,
    iter_md,
)

if TYPE_CHECKING:
    from concurrent.futures import Executor

# The one retry policy of compare-and-swap edits: a note that changes under us this many
# times in a row is being edited right now, and the work is better retried on a later pass.
EDIT_ATTEMPTS = 20
# A note past this size is not read (a pasted video, a database dump named .md): reading it
# whole, hashing and parsing it at every change would stall the daemon.
MAX_NOTE_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class NoteFile:
    """A note as read: its path relative to the vault, its text and the hash of its bytes."""

    rel: str
    text: str
    hash: str
    mtime_ns: int
    size: int
    ino: int = 0
    ctime_ns: int = 0


@dataclass(frozen=True)
class Edit:
    """What :meth:`Vault.edit` did: the note it built from, and what is on disk now."""

    before: NoteFile | None  # the note as read by the attempt that went through
    text: str | None  # the note's text now (None: there is no note)
    hash: str | None
    written: bool
    after: NoteFile | None = None  # (edit_many) the note read back once written


_VAULTS: weakref.WeakSet[Vault] = weakref.WeakSet()


@atexit.register
def _last_look() -> None:
    """As a process ends: what was written late into the files its swaps displaced."""
    for vault in list(_VAULTS):
        try:
            vault.catch_late_writes(final=True)
        except Exception:  # (nothing left to tell it to)
            pass


def _still_holds(path: Path, data: bytes) -> bool:
    """Whether the note still begins with what was just written (lines added are fine)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(data)).startswith(data)
    except FileNotFoundError:
        return True  # deleted since: nothing of ours to put back


class Vault:
    """One Obsidian vault on disk."""

    def __init__(self, root: Path | str, state_dir: Path | str | None = None) -> None:
        self.root = Path(root).expanduser().resolve()
        from vaultbrain.vault.statedir import resolve_state_dir

        self.state_dir = resolve_state_dir(self.root, state_dir)
        self.own = OwnWrites()  # what vaultbrain last wrote to a note (vault/own.py)
        # Notes whose last vaultbrain write every vaultbrain process should know of (the
        # inbox: a note nobody but vaultbrain touched since needs no settle time).
        self.shared_own: set[str] = set()
        # Notes read even when some of their bytes are not UTF-8 (the inbox: one stray byte
        # must not stop every other line). Those bytes are read with surrogateescape and
        # written back exactly as they were; any other such note is unreadable, never written.
        self.keeps_bytes: set[str] = set()
        self.late = LateWrites()  # files our swaps displaced, watched for a late write
        _VAULTS.add(self)
        # Which vault this is (its id and where it lives), settled before anything is
        # written: a copy of a vault gets its own id and state dir (vault/identity.py).
        from vaultbrain.vault.identity import settle

        identity = settle(self, state_dir or os.environ.get("VAULTBRAIN_STATE_DIR"))
        self.vault_id, self.state_dir = identity.id, identity.state_dir
        self.identity_notice = identity.notice

    # -- paths ---------------------------------------------------------------------------
    def resolve(self, rel: str | PurePosixPath) -> Path:
        """The absolute path of ``rel``, refused if it would lead outside the vault."""
        rel = str(rel)
        if not rel or "\x00" in rel:
            raise UnsafePathError(f"not a usable vault path: {rel!r}")
        # A backslash is an ordinary character in a file name on Linux and macOS.
        p = PurePosixPath(rel if os.sep == "/" else rel.replace("\\", "/"))
        if p.is_absolute() or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
            raise UnsafePathError(f"absolute paths are not allowed in the vault: {rel}")
        if any(part == ".." for part in p.parts):
            raise UnsafePathError(f"'..' is not allowed in a vault path: {rel}")
        target = self.root.joinpath(*p.parts)
        if not _through_symlink(str(self.root), p.parts):
            return target  # (the root is a real path: so is every path below it)
        # Symlinks may point anywhere; what matters is where the nearest existing ancestor
        # really is. A link leading out of the vault is refused.
        probe = target
        while not os.path.lexists(probe) and probe != self.root:
            probe = probe.parent
        real = Path(os.path.realpath(probe))
        if real != self.root and self.root not in real.parents:
            raise UnsafePathError(f"{rel} leads outside the vault (through a symlink)")
        return target

    def rel(self, path: Path | str) -> str:
        return Path(path).resolve().relative_to(self.root).as_posix()

    def exists(self, rel: str) -> bool:
        return self.resolve(rel).is_file()

    def iter_notes(self, folder: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
        """Every Markdown note below ``folder`` that is not ignored: (its path relative to the
        vault, its directory entry).

        Does not follow symlinked folders (a loop or a link out of the vault stays unread).
        """
        start = self.resolve(folder) if folder else self.root
        prefix = PurePosixPath(folder).as_posix().strip("/") + "/" if folder else ""
        return iter_md(start, prefix)

    def sweep_temp_files(self, older_than: float = 3600.0) -> int:
        """Remove temp files a killed process left behind (never a note: only our own names).

        A temp name carries its writer's pid: one whose writer is gone is removed at once;
        any other only once it is ``older_than`` seconds old (:func:`sweep_leftovers`)."""
        return len(sweep_leftovers(self.root, self.state_dir, older_than).removed)

    # -- reading -------------------------------------------------------------------------
    def read(self, rel: str, entry: os.DirEntry[str] | None = None) -> NoteFile:
        """Read a note. Raises UserError when it is unreadable or not text.

        ``entry``: the note's directory entry as :meth:`iter_notes` found it (a regular file reached without
        following a symlink), so the path needs no resolving.
        """
        # (a scan's directory entry is read by its path string: no Path to build, and it
        # knows whether it is a symlink without a system call)
        path: str | Path = entry.path if entry is not None else self.resolve(rel)
        return self._read(rel, path, entry)

    def _read(self, rel: str, path: str | Path, entry: os.DirEntry[str] | None = None) -> NoteFile:
        """:meth:`read` of a note whose path is resolved already."""
        try:
            if entry.is_symlink() if entry is not None else Path(path).is_symlink():
                # A symlinked note is read only if it stays inside the vault.
                real = Path(os.path.realpath(path))
                if self.root not in real.parents:
                    raise UnsafePathError(f"{rel} is a symlink leading outside the vault")
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if st.st_size > MAX_NOTE_BYTES:
                    raise UserError(
                        f"{rel} is too large to read as a note ({st.st_size // 2**20} MB; "
                        f"the limit is {MAX_NOTE_BYTES // 2**20} MB); left as it is"
                    )
                data = fh.read()
        except FileNotFoundError:
            raise
        except IsADirectoryError as exc:
            raise UserError(f"{rel} is a folder, not a note") from exc
        except PermissionError as exc:
            raise UserError(f"{rel} cannot be read (permission denied)") from exc
        except OSError as exc:
            raise UserError(f"{rel} cannot be read: {exc.strerror}") from exc
        # A few NUL bytes (pasted from a PDF) leave a note a note; NULs making up a real
        # share of the bytes mean a binary file with a .md name.
        if b"\x00" in data and data.count(b"\x00") * 100 > len(data):
            raise UserError(f"{rel} holds binary data, not Markdown text; left as it is")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if rel not in self.keeps_bytes:
                raise UserError(
                    f"{rel} is not UTF-8 text (byte {exc.start}); left as it is"
                ) from exc
            text = data.decode("utf-8", "surrogateescape")
        return NoteFile(
            rel, text, content_hash(data), st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns
        )

    def try_read(self, rel: str) -> NoteFile | None:
        try:
            return self.read(rel)
        except FileNotFoundError:
            return None

    def current_hash(self, rel: str) -> str | None:
        try:
            with open(self.resolve(rel), "rb") as fh:
                return content_hash(fh.read())
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise UserError(f"{rel} cannot be read: {exc.strerror}") from exc

    # -- writing -------------------------------------------------------------------------
    def create(self, rel: str, text: str) -> str:
        """Create a new note; refuses (FileExistsError) if anything is already there."""
        try:
            return self._create(rel, text)
        except (FileExistsError, ConflictError, UnsafePathError):
            raise
        except OSError as exc:
            raise StorageError.from_os(exc, rel) from exc

    def _create(self, rel: str, text: str) -> str:
        path = self.resolve(rel)
        data = text.encode("utf-8", "surrogateescape")  # (bytes kept)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.resolve(rel)  # the folders just made must not have led anywhere else
        tmp = write_temp(path, data)
        left: Path | None = tmp  # (removed at the end unless it became the note)
        try:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
                if os.path.lexists(path):
                    raise FileExistsError(errno.EEXIST, "exists", str(path)) from exc
                os.replace(tmp, path)
                left = None
        finally:
            if left is not None:
                unlink_quietly(left)
        fsync_dir(path.parent)
        digest = content_hash(data)
        self._remember(rel, digest)
        return digest

    def replace(self, rel: str, text: str, expected_hash: str | None) -> str:
        """Compare-and-swap (see :meth:`_replace`); a refused disk write is a StorageError."""
        try:
            return self._replace(rel, text, expected_hash)
        except (ConflictError, UnsafePathError):
            raise
        except OSError as exc:
            raise StorageError.from_os(exc, rel) from exc

    def _replace(
        self,
        rel: str,
        text: str,
        expected_hash: str | None,
        prepared: Path | None = None,
        sync_dir: bool = True,
        path: Path | None = None,
        holds: Callable[[Path, bytes], bool] = _still_holds,
    ) -> str:
        """Compare-and-swap: write ``text`` only if the note still hashes to ``expected_hash``.

        ``expected_hash=None`` means "the note must not exist". Raises ConflictError when the
        note changed since it was read, so the caller re-reads and recomputes. ``prepared``: a
        durable temp file already holding ``text`` (taken over: swapped in or removed);
        ``sync_dir`` False: the caller syncs the folder (see :meth:`edit_many`); ``path``: the
        note's, resolved already; ``holds``: the last look, whether the note still begins with
        what was written (edit_many's keeps what it read, the note as it is now).
        """
        if expected_hash is None:
            try:
                return self.create(rel, text)
            except FileExistsError as exc:
                raise ConflictError(f"{rel} appeared while it was being written") from exc
        path = path or self.resolve(rel)
        data = text.encode("utf-8", "surrogateescape")  # (bytes kept)
        digest = content_hash(data)
        # The temp file is written (and fsynced) before the note is read, so nothing slow
        # stands between the check and the swap.
        tmp: Path | None = prepared
        if digest != expected_hash and tmp is None:
            try:
                tmp = write_temp(path, data)
            except FileNotFoundError as exc:  # its folder is gone
                raise ConflictError(f"{rel} was removed since it was read") from exc
        undone: SwapUndone | None = None
        late_found: list[tuple[Displaced, bytes]] = []
        try:
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError as exc:
                raise ConflictError(f"{rel} was removed since it was read") from exc
            try:
                seen = read_all(fd)
                if content_hash(seen) != expected_hash:
                    raise ConflictError(f"{rel} changed since it was read")
                if digest == expected_hash:
                    return digest
                assert tmp is not None
                copy_mode(path, tmp)
                try:
                    swap_in(tmp, path, fd, seen, data)
                except SwapUndone as exc:
                    undone = exc
                else:
                    tmp = None
                    late = self._late_writes(fd, seen)
                    # The displaced file stays watched a while (see vaultbrain/vault/late.py).
                    late_found = self.late.keep(rel, fd, seen if late is None else late, digest)
                    fd = -1
            finally:
                if fd >= 0:
                    os.close(fd)
        finally:
            if tmp is not None:
                unlink_quietly(tmp)
        if undone is not None:
            if undone.stray:
                # Written into our file in the moment it stood at the note's path (an append
                # landing right after the swap): carried into the note that is back.
                self._carry_over(rel, data, undone.stray, digest)
            raise undone
        if sync_dir:
            fsync_dir(path.parent)
        self._remember(rel, digest)
        self._carry_late(late_found)
        if late is not None:
            self._carry_over(rel, seen, late, digest)
        elif not holds(path, data):
            # An editor that read the note before the swap saved its text over ours (an
            # in-place rewrite or a rename): our change is gone, so it is made again.
            raise ConflictError(f"{rel} was saved over while it was being written")
        return digest

    @staticmethod
    def _late_writes(fd: int, seen: bytes) -> bytes | None:
        """What an editor that opened the note just before the swap wrote into the old file
        by now (None: nothing). A truncated or rewritten file is waited on until it settles.
        A writer that writes later is caught by the watch on the displaced file (late.py): no
        second look a moment later here, which cost every write 2 ms of sleep."""
        after = read_all(fd)
        if after == seen:
            return None
        if not after.startswith(seen):
            after = settled(fd, after)
        return None if after == seen else after

    def _carry_over(self, rel: str, seen: bytes, late: bytes, digest: str) -> None:
        """Put an editor's late save, which landed in the swapped-out file, into the note.

        Added lines are appended to whatever the note holds now, by compare-and-swap (an
        O_APPEND write could be overwritten by an editor truncating and rewriting the note at
        that moment). A rewrite wins over our text, which the caller then builds again."""
        if late.startswith(seen):
            extra = late[len(seen) :]
            added = extra.decode("utf-8", "surrogateescape")
            try:
                # (a note deleted since takes its lines with it)
                self.edit(rel, lambda now: None if now is None else now.text + added)
            except UserError:
                # The note keeps changing: appending at least keeps the lines.
                self._append_bytes(self.resolve(rel), extra)
            self._disown(rel)  # the person's lines: the watcher must read them
            return
        self._replace(rel, late.decode("utf-8", "surrogateescape"), digest)
        raise ConflictError(f"{rel} was rewritten while it was being written")

    def catch_late_writes(self, final: bool = False) -> list[str]:
        """Carry into their notes what was written into the files our swaps displaced since
        the last look (an appender or an editor that opened a note just before we replaced
        it); the notes carried into. ``final``: the last look (a command or the daemon
        ends), after which nothing is watched (a displaced file held open keeps its disk
        space, and keeps a file system from being remounted read-only)."""
        if not self.late:
            return []
        carried = self._carry_late(self.late.released() + self.late.look(final))
        if final:
            if carried:  # the carries' own swaps displaced files too
                carried += self._carry_late(self.late.look(final=True))
            self.late.close()
        return carried

    def _carry_late(self, found: list[tuple[Displaced, bytes]]) -> list[str]:
        carried = []
        for entry, after in found:
            try:
                self._carry_displaced(entry, after)
            except (VaultbrainError, OSError):
                # The note keeps changing, or is gone: the lines are at least kept at its end.
                lines = new_lines(after.decode("utf-8", "surrogateescape"), entry.seen, "")
                try:
                    self._append_bytes(
                        self.resolve(entry.rel), lines.encode("utf-8", "surrogateescape")
                    )
                except (VaultbrainError, OSError):
                    continue
            self._disown(entry.rel)  # the person's text: the watcher must read it
            carried.append(entry.rel)
        return carried

    def _carry_displaced(self, entry: Displaced, after: bytes) -> None:
        """Put a late write into the note: lines appended go after what the note holds now;
        a rewrite (an editor's save built on the text before ours) wins while the note is
        still what we wrote, and otherwise adds the lines it has that the note lacks."""
        if entry.seen.prefix_of(after):
            added = after[entry.seen.size :].decode("utf-8", "surrogateescape")
            self.edit(entry.rel, lambda now: None if now is None else joined(now.text, added))
            return
        text = after.decode("utf-8", "surrogateescape")
        try:
            self._replace(entry.rel, text, entry.ours)
            return
        except ConflictError:
            pass

        def add_new(now: NoteFile | None) -> str | None:
            lines = new_lines(text, entry.seen, now.text) if now is not None else ""
            return joined(now.text, lines) if now is not None and lines else None

        self.edit(entry.rel, add_new)

    def _disown(self, rel: str) -> None:
        """The note as it is now is not (only) our write."""
        self.own.forget(rel, shared=rel in self.shared_own)

    def edit(self, rel: str, build: Callable[[NoteFile | None], str | None]) -> Edit:
        """Compare-and-swap edit, the one way notes are changed: read the note, ``build`` its
        new text from what was read (None: leave it as it is; a note that does not exist is
        passed as None and created if ``build`` returns text), swap it in only if the note is
        still what was read; otherwise start again from a fresh read.

        ``build`` must compute from its argument alone, so a retry never writes stale text.
        A note that keeps changing is a UserError: the caller's work is retried later.
        """
        for attempt in range(EDIT_ATTEMPTS):
            note = self.try_read(rel)
            text = build(note)
            if text is None or (note is not None and text == note.text):
                return Edit(note, note.text if note else None, note.hash if note else None, False)
            try:
                digest = self.replace(rel, text, note.hash if note is not None else None)
            except ConflictError:
                if attempt >= 3:
                    time.sleep(min(0.05, 0.002 * attempt))  # an editor mid-save: let it finish
                continue
            return Edit(note, text, digest, True)
        raise UserError(f"{rel} keeps changing; it will be written on a later pass")

    def edit_many(
        self,
        rels: list[str],
        build: Callable[[str, NoteFile | None], str | None],
        workers: int = 4,
        pool: Executor | None = None,
    ) -> dict[str, Edit | UserError]:
        """:meth:`edit` for many notes with one flush to disk for all of them (see
        :func:`vaultbrain.vault.batch.edit_many`; ``pool``: threads of the caller's)."""
        from vaultbrain.vault.batch import edit_many

        return edit_many(self, rels, build, workers, Edit, pool)

    def _append_bytes(self, path: Path, extra: bytes) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            write_all(fd, extra)
            os.fsync(fd)
        finally:
            os.close(fd)

    def move(self, src: str, dst: str) -> None:
        """Rename a note without clobbering whatever is at ``dst``."""
        s, d = self.resolve(src), self.resolve(dst)
        try:
            d.parent.mkdir(parents=True, exist_ok=True)
            os.link(s, d)
            os.unlink(s)
        except FileExistsError:
            raise
        except OSError as exc:
            raise StorageError.from_os(exc, dst) from exc
        fsync_dir(d.parent)

    def trash(self, rel: str, day: str) -> str:
        """Move a note out of the vault into the state dir's ``trash/<day>/`` (recoverable;
        never a dot-folder of the vault, which vaultbrain does not write). Returns where it
        went, relative to the state dir; a name already there gets " (2)", " (3)"…"""
        src = self.resolve(rel)
        folder, _, name = rel.rpartition("/")
        stem = name[:-3] if name.lower().endswith(".md") else name
        n = 1
        while True:
            candidate = name if n == 1 else f"{stem} ({n}).md"
            dest_rel = "/".join(p for p in ("trash", day, folder, candidate) if p)
            dest = self.state_dir / dest_rel
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(src, dest)
                except OSError as exc:
                    if exc.errno != errno.EXDEV:
                        raise
                    write_new(dest, src.read_bytes())  # a state dir on another filesystem
            except FileExistsError:
                n += 1
                continue
            except OSError as exc:
                raise StorageError.from_os(exc, rel) from exc
            break
        try:
            os.unlink(src)
        except OSError as exc:
            raise StorageError.from_os(exc, rel) from exc
        fsync_dir(src.parent)
        return dest_rel

    # -- own writes (vault/own.py) -------------------------------------------------------
    def _remember(self, rel: str, digest: str) -> None:
        self.own.remember(rel, digest, shared=rel in self.shared_own)

    def is_own_write(self, rel: str, digest: str | None) -> bool:
        return self.own.is_own(rel, digest)

    def last_written_by_vaultbrain(self, rel: str) -> bool:
        """True when the note is as a vaultbrain process (this or another) last wrote it:
        nobody has edited it since. Only for the notes in :attr:`shared_own`."""
        return self.own.last_written(rel, self.current_hash(rel))
