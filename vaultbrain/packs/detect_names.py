"""Kinds a vault names by file name: one note of one name in each of many folders
(``coding/backend/api/SKILL.md``, ``coding/frontend/auth/SKILL.md``, …), the note a
convention puts in each folder of a kind, of one shape (shared properties or sections).

Its type (``skill``, the name made a type name) takes as its folders the folders that hold
such a note, each only when the note is that folder's own: no other untyped note lies
directly in it, and the notes in its subfolders are another proposal's (a skill's
``references/``). A folder with other loose notes (a skill that also keeps its notes of
work beside its ``SKILL.md``) is left out: typing it by path would make them of the kind
too. A README, an index or folder note, an ``Untitled`` note and a dated name are no kind.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from vaultbrain.packs.signs import Signs, kind_signs
from vaultbrain.packs.survey import NoteTyping

_UNTITLED = re.compile(r"(?i)^(untitled|unbenannt|sans titre|sin título|без названия)( \d+)?$")
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}|^\d{8}")


def stem_of(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def _key(stem: str) -> str:
    return " ".join(unicodedata.normalize("NFC", stem).lower().split())


def name_kinds(
    left: list[NoteTyping],
    everyone: list[NoteTyping],
    taken_prefixes: Iterable[str],
    min_notes: int,
) -> list[tuple[str, list[NoteTyping], list[str]]]:
    """(the file name as spelled, its notes, the folders the kind owns) for each name that
    one note carries in each of ``min_notes`` folders or more whose notes share signs the
    rest of the vault (``everyone``) lacks. ``left``: the notes no other evidence took;
    ``taken_prefixes``: the folders (lower case, with ``/``) other proposals type."""
    taken = tuple(taken_prefixes)
    by_name: dict[str, list[NoteTyping]] = {}
    spelled: dict[str, str] = {}
    for n in left:
        stem = stem_of(n.rel).strip()
        if not n.folder or not stem or _UNTITLED.match(stem) or _DATED.search(stem):
            continue
        if n.rel.lower().startswith(taken):
            continue
        key = _key(stem)
        by_name.setdefault(key, []).append(n)
        spelled.setdefault(key, stem)
    found = []
    signs: Signs | None = None
    for key in sorted(by_name, key=lambda k: (-len(by_name[k]), k)):
        group = by_name[key]
        folders = {n.folder.lower() for n in group}
        if len(folders) < min_notes or len(folders) != len(group):
            continue  # (two of one name in a folder: a copy, no convention)
        signs = signs or Signs(everyone)
        if kind_signs(group, signs, False)[0] is None:
            continue  # notes of one name and nothing in common: no kind
        own = [n.folder for n in group if _its_own(n, left, taken)]
        if len(own) >= min_notes:
            found.append((spelled[key], group, sorted(own, key=str.lower)))
    return found


def _its_own(member: NoteTyping, left: list[NoteTyping], taken: tuple[str, ...]) -> bool:
    """Whether ``member``'s folder holds nothing else a type would reach by its path: no
    other note directly in it, and its subfolders' notes another proposal's."""
    low = member.folder.lower() + "/"
    for n in left:
        if n.rel == member.rel or not n.rel.lower().startswith(low):
            continue
        if n.folder.lower() + "/" == low or not n.rel.lower().startswith(taken):
            return False
    return True
