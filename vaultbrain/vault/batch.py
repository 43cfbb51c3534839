"""Many notes edited at once, with one flush to disk for all of them (``Vault.edit_many``).

Each note is read, built (``build(rel, note)``) and swapped in compare-and-swap exactly as
:meth:`Vault.edit <vaultbrain.vault.files.Vault.edit>` does; only the durability is batched:
every new text goes to its temp file, the file system is synced once (``syncfs``), then each
is swapped in (a note that changed since it was read gets a plain ``edit``), and each folder
is synced once. On a disk where an fsync costs 10 ms, 12,000 notes took two minutes of
fsyncs alone. Freeing the files swapped out waits on the file system's journal (3 ms a file
on a busy disk), so ``workers`` threads swap side by side; the temp files are made one after
another (made side by side in one folder they wait on its lock, and took three times as
long: the folders are taken side by side). ``vaultbrain adopt --apply`` writes its notes
this way.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from vaultbrain.errors import ConflictError, StorageError, UserError
from vaultbrain.vault.atomic import fsync_dir, read_all, sync_files, unlink_quietly, write_temp

if TYPE_CHECKING:
    from vaultbrain.vault.files import Edit, NoteFile, Vault


def edit_many(
    vault: Vault,
    rels: list[str],
    build: Callable[[str, NoteFile | None], str | None],
    workers: int,
    edit_type: type[Edit],  # (the class, handed in: files.py imports this module)
    pool: Executor | None = None,
) -> dict[str, Edit | UserError]:
    """Each note's Edit (with the note read back once written), or the UserError that left
    it as it was. ``pool``: ``workers`` threads the caller keeps for batch after batch
    (started afresh for each, threads took a tenth of the time on a busy machine)."""
    if pool is None:
        with ThreadPoolExecutor(workers) as own:
            return edit_many(vault, rels, build, workers, edit_type, own)
    out: dict[str, Edit | UserError] = {}
    built: list[tuple[str, NoteFile, str, Path]] = []
    temps: dict[str, Path] = {}
    folders: set[Path] = set()
    try:
        for rel in rels:
            try:
                path = vault.resolve(rel)
                try:
                    note: NoteFile | None = vault._read(rel, path)  # noqa: SLF001
                except FileNotFoundError:
                    note = None
                text = build(rel, note)
            except UserError as exc:
                out[rel] = exc
                continue
            except OSError as exc:
                out[rel] = StorageError.from_os(exc, rel)
                continue
            if text is None or note is None or text == note.text:
                if note is None and text is not None:
                    try:
                        out[rel] = vault.edit(rel, functools.partial(build, rel))
                    except UserError as exc:
                        out[rel] = exc
                else:
                    out[rel] = edit_type(note, note.text if note else None, None, False)
                continue
            built.append((rel, note, text, path))

        def make_temps(items: list[tuple[str, NoteFile, str, Path]]) -> None:
            for rel, _note, text, path in items:
                try:
                    data = text.encode("utf-8", "surrogateescape")
                    temps[rel] = write_temp(path, data, durable=False)
                except OSError as exc:
                    out[rel] = StorageError.from_os(exc, rel)

        # The temp files of one folder are made one after another (made side by side in one
        # folder they wait on its lock, and took three times as long), those of different
        # folders side by side: making a file is the file system's work, on a processor.
        by_folder: dict[Path, list[tuple[str, NoteFile, str, Path]]] = {}
        for item in built:
            by_folder.setdefault(item[3].parent, []).append(item)
        if len(by_folder) > 1:
            groups = list(by_folder.values())
            n = min(workers, len(groups))

            def temps_of(k: int) -> None:
                for group in groups[k::n]:
                    make_temps(group)

            list(pool.map(temps_of, range(n)))
        else:
            make_temps(built)
        todo = [item for item in built if item[0] in temps]
        if not todo:
            return out
        sync_files(vault.root, list(temps.values()))

        def swap(item: tuple[str, NoteFile, str, Path]) -> None:
            rel, note, text, path = item
            tmp = temps.pop(rel, None)  # taken over by _replace: swapped in or removed
            if tmp is None:
                return
            looked: list[os.stat_result] = []  # the note's, when it held just what was written

            def holds(path: Path, data: bytes) -> bool:
                # The last look of the swap is the read-back too (it was a second open and
                # read of every note). Its status is taken before its bytes: a save after
                # the look leaves the note looking changed to the next scan.
                try:
                    fd = os.open(path, os.O_RDONLY)
                except FileNotFoundError:
                    return True  # deleted since: nothing of ours to put back
                try:
                    st, now = os.fstat(fd), read_all(fd)
                finally:
                    os.close(fd)
                if now == data and st.st_size == len(data):
                    looked.append(st)
                return now.startswith(data)

            try:
                digest = vault._replace(
                    rel, text, note.hash, prepared=tmp, sync_dir=False, path=path, holds=holds
                )
                out[rel] = edit_type(
                    note, text, digest, True, _after(vault, note, path, text, digest, looked)
                )
                folders.add(path.parent)
            except ConflictError:
                try:
                    out[rel] = vault.edit(rel, lambda n: build(rel, n))
                except UserError as exc:
                    out[rel] = exc
            except UserError as exc:
                out[rel] = exc
            except OSError as exc:
                out[rel] = StorageError.from_os(exc, rel)

        def swap_all(items: list[tuple[str, NoteFile, str, Path]]) -> None:
            for item in items:
                swap(item)

        n = max(1, min(workers, len(todo)))
        list(pool.map(swap_all, [todo[i::n] for i in range(n)]))
    finally:
        for tmp in list(temps.values()):  # (interrupted: temps not swapped in go)
            unlink_quietly(tmp)
        for folder in folders:
            fsync_dir(folder)
    return out


def _after(
    vault: Vault, before: NoteFile, path: Path, text: str, digest: str, looked: list[os.stat_result]
) -> NoteFile | None:
    """The note as it is once ``text`` (hashing to ``digest``) was swapped in over ``before``:
    as the swap's last look found it, holding just that, else read again (lines added after
    it since, or a late save carried over)."""
    rel = before.rel
    if looked:
        st = looked[-1]
        # (the class of the note read: files.py imports this module, not the other way)
        return type(before)(
            rel, text, digest, st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns
        )
    try:
        return vault._read(rel, path)  # noqa: SLF001
    except (UserError, FileNotFoundError):
        return None
