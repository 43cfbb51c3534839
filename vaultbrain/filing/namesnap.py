"""The vault's name index kept in the state dir (``names.snap``), brought up to date by what
changed since it was kept instead of a walk of the whole vault.

A cold ``vaultbrain capture`` on 10,000 notes spent a third of its time building the name
index (vaultbrain/filing/names.py): a walk of every folder, and for each note a lookup of
its record. The snapshot holds the index (each note's names and kind), every folder the walk
entered with its ``mtime`` and the notes it held, and the store's version of each collection
the records' names were read at. A later process checks what can have changed since:

- a note added, removed or renamed (here or by another device's sync) changes its folder's
  ``mtime``: each folder is ``stat``-ed, and one that changed is listed again (a new folder
  is walked); a folder modified in the last seconds is listed again regardless (a change in
  the same tick as the listing would not show in its ``mtime``);
- a note that is no record has its names read from its content, which changes no folder:
  each such note is ``stat``-ed, and read again when its ``mtime`` or size changed, as the
  walk does;
- a record's names are the store's: the records changed since (the collections' index log,
  read from where the snapshot had read it) are looked up again, at their old and new paths.

A snapshot that is missing, torn, of another vault, pack or template set, or older than a
fold of a collection's index log is not used: the vault is walked, and the snapshot kept
anew. Only the state dir is written.
"""

from __future__ import annotations

import os
import stat
import time
from typing import TYPE_CHECKING, Any

from vaultbrain.store.snap import Blob, KeyedRows, pack_rows, read_snap, write_snap
from vaultbrain.vault.paths import list_folder

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.index import RecordIndex
    from vaultbrain.filing.names import NameIndex

SNAP_FILE = "names.snap"
_VERSION = 1
# A folder whose mtime is this recent is listed again by the next process: a note added in
# the same tick as the listing (or within a coarse filesystem's 2 s) would not show.
_RACY_NS = 3_000_000_000
# Notes looked at again (and store changes taken in) past a snapshot before a process keeps
# a new one: fewer cost less than writing 10,000 entries.
KEEP_AFTER = 24
# Notes in folders listed again whose listing a new snapshot would let the next process trust
# (a folder of 4,000 notes costs a cold capture a few milliseconds each time it is listed).
KEEP_AFTER_LISTED = 1000


def snap_key(brain: Brain) -> list[Any]:
    """What a snapshot's notes and names depend on besides the files: the vault, the packs
    (the record collections), the inbox note and the template folders (skipped)."""
    t = brain.templates
    return [
        _VERSION,
        str(brain.vault.root),
        brain.pack_key,
        brain.inbox_rel.lower(),
        list(t._configured),
        list(t._placeholder_folders),
    ]


def walk(root: str, start: str = "", now: int | None = None) -> dict[str, list[Any]]:
    """Every folder below ``start`` that a walk of notes enters (vaultbrain/vault/paths.py's
    :func:`iter_md`): folder ("" for the root) -> [its ``mtime`` (None when too recent to
    trust), the names of the notes directly in it]. The ``mtime`` is taken before the
    folder is listed: a change while it is listed shows next time."""
    now = time.time_ns() if now is None else now
    out: dict[str, list[Any]] = {}
    stack = [start]
    while stack:
        folder = stack.pop()
        path = os.path.join(root, folder) if folder else root
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue
        notes, subfolders = list_folder(path)
        out[folder] = [_trusted(st.st_mtime_ns, now), notes]
        stack.extend(f"{folder}/{s}" if folder else s for s in subfolders)
    return out


def _trusted(mtime: int, now: int) -> int | None:
    return None if abs(now - mtime) < _RACY_NS else mtime


def notes_in(notes: list[str] | bytes) -> list[str]:
    """A folder's notes as :func:`walk` lists them, or as a snapshot keeps them: one string
    of bytes, decoded only for a folder that changed (10,000 names are not built for each
    process to look at the folders' mtimes)."""
    if isinstance(notes, bytes):
        return notes.decode("utf-8", "surrogatepass").split("\x00") if notes else []
    return notes


def _packed(notes: list[str] | bytes) -> bytes:
    if isinstance(notes, bytes):
        return notes
    return "\x00".join(notes).encode("utf-8", "surrogatepass")


def rel_of(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def folder_changes(
    root: str, dirs: dict[str, list[Any]]
) -> tuple[dict[str, list[Any]], set[str], set[str]]:
    """The folders as they are now, and the notes added and removed since ``dirs`` (a
    snapshot's): only folders whose ``mtime`` changed are listed again, and folders new
    since are walked."""
    now = time.time_ns()
    fresh: dict[str, list[Any]] = {}
    added: set[str] = set()
    removed: set[str] = set()
    for folder, (mtime, notes) in dirs.items():
        path = os.path.join(root, folder) if folder else root
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        if st is None or not stat.S_ISDIR(st.st_mode):  # gone (or no folder any more)
            removed.update(rel_of(folder, n) for n in notes_in(notes))
            continue
        if mtime is not None and st.st_mtime_ns == mtime:
            fresh[folder] = [mtime, notes]
            continue
        now_notes, subfolders = list_folder(path)
        fresh[folder] = [_trusted(st.st_mtime_ns, now), now_notes]
        before, after = set(notes_in(notes)), set(now_notes)
        added.update(rel_of(folder, n) for n in after - before)
        removed.update(rel_of(folder, n) for n in before - after)
        for sub in subfolders:
            sub_rel = rel_of(folder, sub)
            if sub_rel not in dirs:
                new = walk(root, sub_rel, now)
                fresh.update(new)
                added.update(rel_of(f, n) for f, (_, names) in new.items() for n in names)
    removed -= added  # (a folder gone, and one of its notes listed again under its name)
    return fresh, added, removed


def store_changes(records: RecordIndex, versions: dict[str, Any]) -> list[tuple[str, str]] | None:
    """(collection, id) of the records changed in the store since ``versions`` (a
    snapshot's), or None when that cannot be told (a log folded since, a collection new)."""
    changed: list[tuple[str, str]] = []
    for name in records.collections:
        if name not in versions:
            return None
        ids = records.store.collection(name).ids_changed_since(versions[name])
        if ids is None:
            return None
        changed.extend((name, rid) for rid in ids)
    return changed


def load(brain: Brain) -> dict[str, Any] | None:
    """The snapshot kept for this vault, pack and template set (its rows as a
    :class:`NameTable`), or None."""
    snap = read_snap(brain.state_dir / SNAP_FILE)
    if snap is None or snap.get("key") != snap_key(brain):
        return None
    try:
        if not all(isinstance(snap[k], dict) for k in ("versions", "dirs", "others")):
            return None
        snap["table"] = NameTable(snap["rows"], snap["starts"], snap.get("sample"))
        snap["table"].others = snap["others"]
    except (KeyError, TypeError, ValueError):
        return None
    return snap


def keep(
    brain: Brain, versions: dict[str, Any], dirs: dict[str, list[Any]], index: NameIndex
) -> None:
    """Keep ``index`` with the folders and the store ``versions`` it is true for: its rows
    (name, basename or alias, note) sorted by name, and the entries of the notes that are no
    record (a record's entry is made from the store when asked)."""
    rows: list[bytes] = []
    base, void = index._base, index._void
    if base is not None:
        rows += [row for row, rel in base.all_rows() if rel not in void]
    for table, mark in ((index.basenames, "b"), (index.aliases, "a")):
        for key, rels in table.items():
            rows += [_row(key, mark, rel) for rel in rels]
    if any(row.count(b"\x00") != 2 for row in rows) or any(
        "\x00" in n for _, notes in dirs.values() if isinstance(notes, list) for n in notes
    ):
        return  # (a name holding a NUL: no snapshot, the vault is walked)
    packed, starts, sample = pack_rows(rows)
    doc = {
        "key": snap_key(brain),
        "versions": versions,
        "dirs": {folder: [mtime, _packed(notes)] for folder, (mtime, notes) in dirs.items()},
        "others": index.known_notes(),
        "rows": packed,
        "starts": starts,
        "sample": sample,
    }
    write_snap(brain.state_dir / SNAP_FILE, doc)


def _row(key: str, mark: str, rel: str) -> bytes:
    return f"{key}\x00{mark}\x00{rel}".encode("utf-8", "surrogatepass")


class NameTable(KeyedRows):
    """The rows of a kept index (``name NUL mark NUL note``), sorted by name, in one bytes
    object: a name's rows are found by bisection and decoded alone (a cold process reads
    20,000 rows as one string of bytes instead of building 20,000 lists)."""

    def __init__(
        self, rows: bytes | Blob, starts: bytes | Blob, sample: list[bytes] | None = None
    ) -> None:
        super().__init__(rows, starts, sample)
        self.others: dict[str, list[Any]] = {}

    def _decoded(self, i: int) -> tuple[str, str, str]:
        key, mark, rel = self._row(i).decode("utf-8", "surrogatepass").split("\x00")
        return key, mark, rel

    def rows(self, key: str) -> list[tuple[str, str]]:
        """(``b`` for a basename or ``a``, note) of each row named exactly ``key``."""
        want = key.encode("utf-8", "surrogatepass") + b"\x00"
        out = []
        i = self._first(want)
        while i < len(self) and self._row(i).startswith(want):
            out.append(self._decoded(i)[1:])
            i += 1
        return out

    def prefixed(self, prefix: str) -> list[str]:
        """The notes of the rows whose name starts with ``prefix``."""
        want = prefix.encode("utf-8", "surrogatepass")
        out = []
        i = self._first(want)
        while i < len(self) and self._key(i).startswith(want):
            out.append(self._decoded(i)[2])
            i += 1
        return out

    def all_rows(self) -> list[tuple[bytes, str]]:
        """Every row as kept, with its note."""
        out = []
        for i in range(len(self)):
            row = self._row(i)
            out.append((row, row[row.rindex(b"\x00") + 1 :].decode("utf-8", "surrogatepass")))
        return out
