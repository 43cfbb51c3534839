"""Type names for what ``schema detect`` finds: a folder's name made a type's (``Books`` ->
``book``), or the vault's own word for a kind (``type: Permanent Note`` -> ``permanent-note``),
in the vault's own letters."""

from __future__ import annotations

import unicodedata


def slug_for(folder: str) -> str:
    """A type name for a folder, as a person would write it: its last part, lower case,
    hyphenated, in the vault's own letters (``Bücher`` -> ``bücher``, ``Книги`` ->
    ``книги``), a leading number (``00 Home``, ``1-Projects``, ``01.2 Reading``) dropped, and
    an English plural last word made singular where that is a word (``Books`` -> ``book``,
    ``Daily Notes`` -> ``daily-note``; ``Physics``, ``Windows``, ``LifeOS`` stay as they
    are; two things named together stay plural: ``Files and folders`` ->
    ``files-and-folders``). A name of digits alone (``2024``) takes its parent folder's name
    before it."""
    parts = [p for p in folder.strip("/").split("/") if p]
    last = parts[-1] if parts else ""
    words = name_words(last)
    while words and words[0].isdigit():
        words = words[1:]  # a number prefix orders folders; it is no part of a name
    if not words:
        parent = slug_for("/".join(parts[:-1])) if len(parts) > 1 else ""
        digits = "-".join(name_words(last))
        name = f"{parent}-{digits}" if parent and parent != "note" and digits else parent
        if not name:
            return f"t-{digits}"[:64] if digits else "note"
        return name[:64]
    if not _CONJUNCTIONS.intersection(words):  # "files and folders" names two things
        words[-1] = _singular(words[-1])
    name = "-".join(words)
    if not name[0].isalpha():
        name = "t-" + name
    return name[:64]


def type_slug(word: str) -> str:
    """A type name for a kind the vault names itself (``type: Permanent Note`` ->
    ``permanent-note``): its words, lower case, hyphenated, never made singular."""
    words = name_words(word)
    name = "-".join(words) or "note"
    if not name[0].isalpha():
        name = "t-" + name
    return name[:64]


def singular_name(name: str) -> str:
    head, _, last = name.rpartition("-")
    return (head + "-" if head else "") + _singular(last)


def name_words(text: str) -> list[str]:
    """The words of a name, lower case, in its own letters (marks of a script kept)."""
    text = unicodedata.normalize("NFC", text).lower()
    out, word = [], []
    for ch in text:
        if ch.isalnum() or unicodedata.category(ch).startswith("M"):
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


def ascii_fold(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


_CONJUNCTIONS = frozenset({"and", "or", "und", "et", "y", "e", "n"})
# Words ending in s that are not plurals (or whose singular is not what the folder means).
_NOT_PLURAL = frozenset(
    "news series species means windows canvas atlas alias bias chaos kudos lens "
    "analytics ethics mathematics maths physics economics politics statistics logistics "
    "graphics linguistics robotics genetics electronics athletics dynamics metrics "
    "ops devops macos ios lifeos os sas aws dns gps css js ts api apis".split()
)


def _singular(word: str) -> str:
    if not word.isascii():
        return word  # (English plurals only: another language's word stays as it is)
    if word in _NOT_PLURAL or word.endswith(("ics", "ss", "us", "is", "os", "as")):
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes", "zzes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s"):
        return word[:-1]
    return word
