"""One count of the vault, the same in every command (``init``, ``reindex``, ``doctor``,
``schema review-orphans``): the person's notes, which are every Markdown note vaultbrain reads
but the inbox, vaultbrain's own folders (``Brain/``, the YouTube and IdeaLoom folders) and
templates (found by folder: a count reads no note).

Among them, a README, an ``index`` note or a folder note (named like its folder, as the
Folder Notes plugins make them) says what a folder holds: it is counted, but it is never a
record, whatever folder it is in (``People/README.md`` is no person).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

INDEX_NAMES = frozenset({"readme", "index", "_index"})


def index_note(rel: str) -> bool:
    """Whether the note at ``rel`` is a README, an index note or its folder's folder note."""
    folder, _, name = rel.rpartition("/")
    stem = name[:-3] if name.lower().endswith(".md") else name
    low = stem.strip().lower()
    if low in INDEX_NAMES:
        return True
    return bool(folder) and low == folder.rsplit("/", 1)[-1].strip().lower()


def own_prefixes(folders: Iterable[str]) -> tuple[str, ...]:
    """vaultbrain's own folders as lower-case path prefixes (``brain/``)."""
    return tuple(f.lower().strip("/") + "/" for f in folders if f.strip("/"))


def counter(
    inbox: str, own: Iterable[str], template: Callable[[str], bool]
) -> Callable[[str], bool]:
    """Whether a note path is one of the person's notes (see the module's doc)."""
    prefixes = own_prefixes(own)
    inbox_low = inbox.lower()

    def counted(rel: str) -> bool:
        low = rel.lower()
        return low != inbox_low and not low.startswith(prefixes) and not template(rel)

    return counted
