"""File names for notes: the record's title made safe on every platform Obsidian syncs to."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from vaultbrain.patterns import LazyPattern

MAX_CHARS = 120
MAX_BYTES = 240  # leaves room for " (NN).md" under the 255-byte limit of most filesystems
_FORBIDDEN = LazyPattern(r'[\\/:*?"<>|#^\[\]%]')
_BIDI = LazyPattern("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_RESERVED = LazyPattern(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)


def sanitize_filename(title: str) -> str:
    """A file stem for ``title``: forbidden and control characters become ``-``.

    No leading dots (a dot file is hidden, and ignored by vaultbrain), no trailing dots or
    spaces (Windows drops them), no Windows-reserved device names, at most 120 characters
    and 240 UTF-8 bytes, never empty.
    """
    text = unicodedata.normalize("NFC", title)
    text = _BIDI.sub("", text)
    text = re.compile(r"[\t\n\r\v\f]").sub(" ", text)
    text = "".join("-" if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)
    text = _FORBIDDEN.sub("-", text)
    text = re.compile(r"\s+").sub(" ", text).strip()
    text = re.compile(r"-{2,}").sub("-", text)
    text = text.lstrip(".- ")
    text = _truncate(text).rstrip(". ")
    if not text or set(text) <= {"-", " "}:
        text = "Untitled"
    reserved = _RESERVED.match(text)
    if reserved:
        # Windows reserves the device name before any extension too: "nul.txt" -> "nul_.txt"
        stem = reserved.group(1)
        text = f"{stem}_{text[len(stem) :]}"
    return text


def _truncate(text: str) -> str:
    text = text[:MAX_CHARS]
    while len(text.encode("utf-8")) > MAX_BYTES:
        text = text[:-1]
    return text


def unique_name(stem: str, taken: Callable[[str], bool], ext: str = ".md") -> str:
    """``stem.md``, or ``stem (2).md``, ``stem (3).md`` … for the first name not ``taken``."""
    name = f"{stem}{ext}"
    n = 2
    while taken(name):
        name = f"{stem} ({n}){ext}"
        n += 1
    return name


def fold(name: str) -> str:
    """A name as it is matched: accents folded, case folded, spaces collapsed (``Zoë
    Ångström`` and ``zoe  angstrom`` are one name)."""
    if name.isascii():
        return " ".join(name.lower().split())
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


# Words that say what a note is about, in a ``type:``, a tag or a folder name: a person, or
# something a person is not (a company, a tool, an idea). Plurals and singulars alike.
PERSON_WORDS = frozenset(
    "person people persons contact contacts author authors friend friends family "
    "colleague colleagues crm human humans member members teammate teammates "
    "acquaintance acquaintances mentor mentors".split()
)
OTHER_WORDS = frozenset(
    "company companies organization organizations organisation organisations org orgs "
    "business businesses startup startups client-company tool tools app apps application "
    "applications software product products service services plugin plugins theme themes "
    "concept concepts idea ideas algorithm algorithms topic topics project projects place "
    "places city cities country countries book books article articles course courses "
    "framework frameworks library libraries language languages brand brands game games "
    "movie movies film films podcast podcasts protocol protocols technology technologies "
    "tech vendor vendors platform platforms website websites site sites".split()
)


def kind_of_words(words: list[str]) -> str:
    """ "person", "other" or "" for the words a note is typed, tagged or filed by."""
    found = ""
    for word in words:
        key = fold(word).strip("#[]/ ").rsplit("/", 1)[-1]
        if key in PERSON_WORDS:
            return "person"
        if key in OTHER_WORDS:
            found = "other"
    return found
