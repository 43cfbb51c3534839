"""Every note's name in the vault: basenames and ``aliases``, for linking what already exists.

Before a capture creates ``People/Steph Ango.md`` it asks here whether a note called "Steph
Ango" (its file name or one of its aliases, any case) exists anywhere, records or not; if one
does, the thought links to that note instead, so no ``[[Steph Ango]]`` link in the vault ever
becomes ambiguous. Template folders, the inbox note and vaultbrain's own ``Brain/`` notes are
not names a thought links to.

Built cheaply: a walk of the vault's folders (``stat`` only); a note's aliases are read from
its frontmatter only when its (mtime, size) differ from the cache kept in the state dir
(``names-cache.json`` in ``state.db``), so a second build reads no notes that did not change. A process that
watches the vault (the daemon) walks once, then keeps the index by its file events
(:func:`follow`, :func:`touched`): a burst of captures on 10,000 notes walks nothing.

:func:`free_path` is the name a new note gets in its type's folder when nothing holds it yet
(a capture's plan, vaultbrain/capture/plan.py and write.py; ``vaultbrain db add``,
vaultbrain/filing/db.py).
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError, VaultbrainError
from vaultbrain.filing.index import records
from vaultbrain.filing.namekeys import first_keys, fold_fast, name_keys
from vaultbrain.filing.records import link_to
from vaultbrain.filing.stored_names import StoredNames, record_names_of, stored_names
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.names import fold, kind_of_words, sanitize_filename, unique_name
from vaultbrain.vault.note import parse_note
from vaultbrain.vault.paths import list_folder

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs import PageType

CACHE_FILE = "names-cache.json"
OWN_FOLDER = "Brain/"
# Only the head of a note is read for its aliases: frontmatter sits at the top (the first
# 4 KB hold it almost always; a longer one is read on to 64 KB).
HEAD_START = 4096
HEAD_BYTES = 64 * 1024


@dataclass
class NameIndex:
    """Folded name -> the notes it names (vault-relative paths): by basename, and by alias or
    ``name:`` property; for a full name (``Jane Doe``), also by its first name. Each note
    also has a kind: "person", "other" (the vault says it is a company, a tool, an idea…:
    by its ``type:``, tags or folder) or "" (it does not say)."""

    basenames: dict[str, list[str]] = field(default_factory=dict)
    aliases: dict[str, list[str]] = field(default_factory=dict)
    # rel -> [mtime, size, aliases, other names (``name:``; a record's title), kind]; a kind
    # of None is learnt when first asked (a walk of 10,000 notes reads only the notes whose
    # head names aliases or a name: the kind matters only for the few a name fits)
    entries: dict[str, list[Any]] = field(default_factory=dict)
    read_kind: Any = None  # rel -> kind, for a note whose kind is not known yet
    # A process that does not watch the vault (a cold `vaultbrain capture`): the records'
    # names are asked of the store's ``record_names`` for the keys a question needs, not
    # folded into ``aliases`` for every record (their entries are learnt the same way).
    records: StoredNames | None = None

    def lookup(self, name: str) -> list[str]:
        """Notes named ``name`` (case and accents folded): basename matches first (shortest
        path first), then aliases and ``name:`` properties."""
        key = fold(name)
        by_name = list(self.basenames.get(key, ()))
        by_alias = list(self.aliases.get(key, ()))
        if self.records is not None:
            by_alias += self.records.named(key)
        by_name.sort(key=lambda r: (r.count("/"), len(r), r))
        by_alias = sorted(r for r in by_alias if r not in by_name)
        return by_name + by_alias

    def entry(self, rel: str) -> list[Any] | None:
        found = self.entries.get(rel)
        if found is None and self.records is not None:
            summary = self.records.summary(rel)
            if summary is not None:
                found = self.entries[rel] = [0, 0, *record_names_of(summary)]
        return found

    def prefetch(self, names: list[str]) -> None:
        """The records these names could be, asked of the store at once (one query)."""
        if self.records is not None:
            self.records.prefetch([fold(n) for n in names])

    def by_first_name(self, word: str) -> list[str]:
        """Notes whose name is a full name starting with ``word`` (``jane`` -> Jane Doe),
        but for a note the vault types as something else (a company, a tool)."""
        # Only the names whose folded form starts with the word can fit: those are looked
        # at, not every name (a regular expression on each of 10,000 names per question).
        first = fold(word)
        if not first:
            return []
        near: set[str] = set()
        for table in (self.basenames, self.aliases):
            for key, rels in table.items():
                if key.startswith(first):
                    near.update(rels)
        if self.records is not None:
            near.update(self.records.named_from(first))
        fits = []
        for rel in sorted(near):
            entry = self.entry(rel)
            aliases, names = (entry[2], entry[3]) if entry else ([], [])
            if first in first_keys(rel[rel.rfind("/") + 1 : -3], aliases, names):
                fits.append(rel)
        return [rel for rel in fits if self.kind(rel) != "other"]

    def kind(self, rel: str) -> str:
        """ "person", "other" or "" (see :func:`kind_of_note`)."""
        entry = self.entry(rel)
        if entry is None:
            return ""
        if entry[4] is None:
            entry[4] = self.read_kind(rel) if self.read_kind is not None else ""
        return str(entry[4])

    def known_notes(self) -> dict[str, list[Any]]:
        """The entries of the notes that are no record (a record's are the store's): what a
        walk need not read again while their mtime and size hold."""
        return {rel: e for rel, e in self.entries.items() if e[0]}

    def add(
        self,
        rel: str,
        mtime_ns: int,
        size: int,
        aliases: list[str],
        names: list[str] | None = None,
        kind: str | None = "",
    ) -> None:
        # (the walk's loop: a cold `vaultbrain capture` adds 10,000 notes here)
        names = names or []
        self.entries[rel] = [mtime_ns, size, aliases, names, kind]
        stem = rel[rel.rfind("/") + 1 : -3]
        key = fold_fast(stem)
        same = self.basenames.get(key)
        if same is None:
            self.basenames[key] = [rel]
        else:
            same.append(rel)
        if aliases or names:
            for key in name_keys(aliases, names):
                self.aliases.setdefault(key, []).append(rel)

    def remove(self, rel: str) -> None:
        entry = self.entries.pop(rel, None)
        if entry is None:
            return
        stem = rel.rsplit("/", 1)[-1][:-3]
        names = entry[3] if len(entry) > 3 else []
        keyed = [(self.basenames, fold_fast(stem))]
        keyed += [(self.aliases, k) for k in name_keys(entry[2], names)]
        for table, key in keyed:
            rels = table.get(key)
            if rels and rel in rels:
                rels.remove(rel)
                if not rels:
                    del table[key]


def kind_of_note(rel: str, data: dict[str, Any] | None) -> str:
    """What the vault says a note is: "person", "other" or "" — by its ``type:`` first, then
    its tags, then the folders it sits in."""
    data = data or {}
    declared = data.get("type")
    words = [str(v) for v in (declared if isinstance(declared, list) else [declared]) if v]
    kind = kind_of_words(words)
    if kind:
        return kind
    tags = data.get("tags", data.get("tag"))
    words = [str(t) for t in (tags if isinstance(tags, list) else [tags]) if t]
    kind = kind_of_words([w for t in words for w in t.replace(",", " ").split()])
    if kind:
        return kind
    return kind_of_words(rel.split("/")[:-1])


_built: weakref.WeakKeyDictionary[Any, tuple[int, NameIndex]] = weakref.WeakKeyDictionary()


# Brains whose name index follows file events: the notes touched since it was last brought
# up to date (None: walk again, e.g. after a watcher overflow or a rescan).
_followed: weakref.WeakKeyDictionary[Any, set[str] | None] = weakref.WeakKeyDictionary()
_follow_lock = threading.Lock()
_saved_at: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
_SAVE_EVERY_S = 30.0
_STALE_BEFORE_SAVE = 20  # notes a walk may read again before the cache is written anew


def follow(brain: Brain) -> None:
    """From now on ``brain``'s name index is kept by :func:`touched` (a watching daemon)."""
    with _follow_lock:
        _followed[brain] = None  # the first build walks


def touched(brain: Brain, rel: str) -> None:
    """A file event for the note ``rel`` (created, changed, gone, moved from or to)."""
    with _follow_lock:
        dirty = _followed.get(brain)
        if dirty is not None:
            dirty.add(rel)


def walk_again(brain: Brain) -> None:
    """Events were lost (an overflow, a folder moved): the next build walks the vault."""
    with _follow_lock:
        if brain in _followed:
            _followed[brain] = None


def note_names(brain: Brain) -> NameIndex:
    """The vault's names as of this unit of work: walked once per ``brain.refresh()`` (a
    burst of captures does not walk 10,000 notes each; the daemon refreshes every second),
    and unchanged notes are not read again. A followed brain walks once, then applies the
    notes its events touched."""
    built = _built.get(brain)
    if brain in _followed and built is not None:
        with _follow_lock:
            dirty = _followed.get(brain)
            if dirty is not None:
                _followed[brain] = set()
        if dirty is not None:
            _apply(brain, built[1], dirty)
            return built[1]
    elif built is not None and built[0] == brain.generation:
        return built[1]
    with _follow_lock:
        if brain in _followed:
            _followed[brain] = set()  # events from now on; the walk sees what came before
    previous = built[1] if built is not None else None
    # The cache holds the notes that are not records (a record's aliases are the store's);
    # it is read only when the walk meets such a note.
    old = previous.known_notes() if previous is not None else None
    kept = 0  # the cache's notes the walk found again
    index = NameIndex()
    index.read_kind = _kind_reader(weakref.ref(brain))  # (kept weakly: _built is keyed by it)
    # Not watching the vault (a cold capture asks a few names once): the records' names stay
    # in the store, asked for by key; only their paths are known here. A daemon keeps them all.
    stored = stored_names(brain) if brain not in _followed else None
    stored_ids = stored.ids if stored is not None else {}
    stored_rels = stored.rels if stored is not None else {}
    index.records = stored
    by_path = records(brain).by_path if stored is None else None
    inbox = brain.inbox_rel.lower()
    changed = 0
    root = str(brain.vault.root)
    dirs = _walk(root)
    templates: dict[str, bool] = {}  # per folder: a template folder holds all its notes
    entries, basenames, by_alias = index.entries, index.basenames, index.aliases
    # (one tight loop: a cold `vaultbrain capture` walks 10,000 notes here; what add does,
    # written out)
    inbox_folder, _, inbox_name = inbox.rpartition("/")
    for folder, listed in dirs.items():
        prefix = f"{folder}/" if folder else ""
        if not listed or prefix.startswith(OWN_FOLDER):
            continue
        template = templates.get(folder)
        if template is None:
            template = templates[folder] = brain.templates.holds(prefix + listed[0])
        if template:
            continue
        folder_notes = listed
        if folder.lower() == inbox_folder:
            folder_notes = [n for n in listed if n.lower() != inbox_name]
        if by_path is None:
            # (a cold capture meets 10,000 record notes here: each is a set lookup, a key
            # and a list; the rest, the notes that are no records, go the long way below)
            low_prefix = prefix.lower()
            rest = []
            for name in folder_notes:
                low = low_prefix + name.lower()
                if low in stored_ids:
                    rel = stored_rels[low] = prefix + name
                    key = fold_fast(name[:-3])
                    same = basenames.get(key)
                    if same is None:
                        basenames[key] = [rel]
                    else:
                        same.append(rel)
                else:
                    rest.append(name)
            folder_notes = rest
        for name in folder_notes:
            rel = prefix + name
            hit = by_path(rel) if by_path is not None else None
            if hit is not None and not hit[1].get("deleted"):
                # A record: its names are the store's (kept by the sync, as every other use
                # of a record's names is), so its note needs no stat (a system call per note).
                aliases, others, kind = record_names_of(hit[1])
                entries[rel] = [0, 0, aliases, others, kind]
            else:
                try:
                    st = os.lstat(os.path.join(root, rel))
                except OSError:
                    continue
                mtime, size = st.st_mtime_ns, st.st_size
                if old is None:
                    old = _load(brain)
                cached = old.get(rel)
                if (
                    cached is not None
                    and cached[0] == mtime
                    and cached[1] == size
                    and len(cached) > 4
                ):
                    aliases, others = cached[2], cached[3]
                    entries[rel] = cached
                    kept += 1
                else:
                    aliases, others, read_kind = _read_names(brain, rel, os.path.join(root, rel))
                    entries[rel] = [mtime, size, aliases, others, read_kind]
                    changed += 1
            stem = name[:-3]
            key = fold_fast(stem)
            same = basenames.get(key)
            if same is None:
                basenames[key] = [rel]
            else:
                same.append(rel)
            if aliases or len(others) > 1:
                for key in name_keys(aliases, others):
                    by_alias.setdefault(key, []).append(rel)
            elif others and others[0]:  # (a record's title: _name_keys of one name, written out)
                key = fold_fast(others[0])
                if key:
                    same = by_alias.get(key)
                    if same is None:
                        by_alias[key] = [rel]
                    else:
                        same.append(rel)
    # Saved when it would spare the next process more than a few reads (a capture's own new
    # note is read again by the next one, which costs less than writing 10,000 entries).
    if old is None and brain.store.json_stamp(CACHE_FILE) is not None:
        old = _load(brain)  # every note a record now: the cache's notes are gone
    known = [e for e in (old or {}).values() if e[0]] if old is not None else []
    # (entries of records an older version kept count as stale: the file shrinks to the rest)
    stale = changed + len(known) - kept + (len(old) - len(known) if old else 0)
    if stale and (stale > _STALE_BEFORE_SAVE or not known or brain in _followed):
        _save(brain, {rel: e for rel, e in index.entries.items() if e[0]})
        _saved_at[brain] = time.monotonic()
    _built[brain] = (brain.generation, index)
    return index


def _walk(root: str) -> dict[str, list[str]]:
    """Every folder a walk of notes enters (vaultbrain/vault/paths.py's ``iter_md``):
    folder ("" for the root) -> the names of the notes directly in it."""
    out: dict[str, list[str]] = {}
    stack = [""]
    while stack:
        folder = stack.pop()
        path = os.path.join(root, folder) if folder else root
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        notes, subfolders = list_folder(path)
        out[folder] = notes
        stack.extend(f"{folder}/{s}" if folder else s for s in subfolders)
    return out


def _look_again(
    brain: Brain, index: NameIndex, rels: set[str], dirs: dict[str, list[str]] | None = None
) -> None:
    """Each of ``rels`` as a walk would find it now: gone, a record (its names the store's)
    or a note read again if its mtime or size changed. ``dirs``: the folders as just listed
    (a note not listed is gone); without, each note is looked for (a followed index's)."""
    inbox = brain.inbox_rel.lower()
    by_path = records(brain).by_path
    root = str(brain.vault.root)
    listed: dict[str, set[str]] = {}
    for rel in rels:
        folder, _, name = rel.rpartition("/")
        if dirs is not None:
            names = listed.get(folder)
            if names is None:
                names = listed[folder] = set(dirs.get(folder, ()))
            if name not in names:
                index.remove(rel)
                continue
        if (
            rel.startswith(OWN_FOLDER)
            or rel.lower() == inbox
            or not rel.lower().endswith(".md")
            or brain.templates.holds(rel)
        ):
            index.remove(rel)  # (no name a thought links to: never in the index)
            continue
        try:
            path = os.path.join(root, rel) if dirs is not None else str(brain.vault.resolve(rel))
            st = os.stat(path, follow_symlinks=False)
        except (OSError, VaultbrainError):
            index.remove(rel)
            continue
        hit = by_path(rel)
        if hit is not None and not hit[1].get("deleted"):
            # A record (each capture's new note is one): its names are the store's, as in
            # the walk, so the note is not read and parsed again.
            index.remove(rel)
            index.add(rel, 0, 0, *record_names_of(hit[1]))
            continue
        entry = index.entry(rel)
        if entry and entry[0] == st.st_mtime_ns and entry[1] == st.st_size:
            continue
        index.remove(rel)
        index.add(rel, st.st_mtime_ns, st.st_size, *_read_names(brain, rel, path))


def _apply(brain: Brain, index: NameIndex, dirty: set[str]) -> None:
    """Bring a followed index up to date with the notes its events touched."""
    if not dirty:
        return
    _look_again(brain, index, dirty)
    if time.monotonic() - _saved_at.get(brain, 0.0) > _SAVE_EVERY_S:
        _save(brain, index.known_notes())
        _saved_at[brain] = time.monotonic()


def _kind_reader(ref: weakref.ref[Brain]) -> Any:
    def read_kind(rel: str) -> str:
        brain = ref()
        return kind_of_note(rel, _read_frontmatter(brain, rel)) if brain is not None else ""

    return read_kind


def _read_names(
    brain: Brain, rel: str, path: str | None = None
) -> tuple[list[str], list[str], str | None]:
    """(aliases, other names, kind) of a note that is no record: its ``aliases`` and its
    ``name:`` property; its kind is learnt when first asked (None). ``path``: where a walk
    found it (a regular file reached through no symlink: nothing to resolve)."""
    data = _read_frontmatter(brain, rel, (b"alias", b"name"), path)
    names = []
    own_name = data.get("name")
    if isinstance(own_name, str) and own_name.strip():
        names.append(own_name.strip())
    return _read_aliases(brain, rel, data), names, None


def _read_frontmatter(
    brain: Brain, rel: str, wanted: tuple[bytes, ...] = (), path: str | None = None
) -> dict[str, Any]:
    """A note's properties, read from its head (``wanted``: unless its properties hold none
    of these words, which is seen without parsing them)."""
    try:
        with open(path or brain.vault.resolve(rel), "rb") as fh:
            head = fh.read(HEAD_START)
            if head.startswith(b"---") and len(head) == HEAD_START:
                close = head.find(b"\n---", 3)
                if close < 0:
                    head += fh.read(HEAD_BYTES - HEAD_START)
    except (OSError, VaultbrainError):
        return {}
    if not head.startswith(b"---"):
        return {}
    if wanted:
        close = head.find(b"\n---", 3)
        block = head[: close if close > 0 else len(head)]
        if not any(w in block for w in wanted):
            return {}
    parsed = parse_note(head.decode("utf-8", errors="replace").replace("\x00", ""))
    if parsed.error is not None or not isinstance(parsed.data, dict):
        return {}
    return parsed.data


def _read_aliases(brain: Brain, rel: str, data: dict[str, Any] | None = None) -> list[str]:
    if data is None:
        data = _read_frontmatter(brain, rel)
    raw = data.get("aliases", data.get("alias"))
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        return []
    return [str(a).strip() for a in raw if a is not None and str(a).strip()]


def _load(brain: Brain) -> dict[str, list[Any]]:
    doc = brain.store.read_json(CACHE_FILE)
    notes = doc.get("notes") if isinstance(doc, dict) and doc.get("version") == 2 else None
    return notes if isinstance(notes, dict) else {}


def _save(brain: Brain, entries: dict[str, list[Any]]) -> None:
    try:
        brain.store.write_json(CACHE_FILE, {"version": 2, "notes": entries})
    except StorageError:
        pass  # a cache: the next build reads the notes again


def free_path(brain: Brain, ptype: PageType, title: str, planned: set[str] | None = None) -> str:
    """A path for a new note of ``ptype`` named after ``title`` that nothing occupies (and no
    other op of the same plan takes)."""
    folder = ptype.folder
    stem = sanitize_filename(title)
    taken_by_plan = planned or set()

    def taken(name: str) -> bool:
        rel = f"{folder}/{name}"
        return rel.lower() in taken_by_plan or os.path.lexists(brain.vault.resolve(rel))

    return f"{folder}/{unique_name(stem, taken)}"


def names_to_links(brain: Brain, ptype: PageType, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with each name in a ``link``/``links`` field that names exactly one note of
    the vault (preferring notes of the types the field collects) made a link to that note,
    shown as the name given. Links, URLs and names of no note (or of several) stay."""
    index = None
    out = dict(fields)
    for key, value in fields.items():
        spec = ptype.fields.get(key)
        if spec is None or spec.type not in ("link", "links") or value in (None, "", []):
            continue
        if index is None:
            index = note_names(brain)
        folders = tuple(t.folder + "/" for t in brain.pack.types if spec.collects_type(t.name))
        if isinstance(value, list):
            out[key] = [_linked(index, folders, v) for v in value]
        else:
            out[key] = _linked(index, folders, value)
    return out


def _linked(index: Any, folders: tuple[str, ...], name: Any) -> Any:
    if not isinstance(name, str) or _WIKILINK.match(name) or "://" in name:
        return name
    found = index.lookup(name)
    preferred = [r for r in found if r.startswith(folders)] if folders else []
    pick = preferred if len(preferred) == 1 else found
    return link_to(pick[0], name.strip()) if len(pick) == 1 else name


_WIKILINK = LazyPattern(r"^\[\[[^\]]+\]\]$")
