"""Titles from a thought: a short whole phrase of it, never cut mid-word, inside a name, or at a
period that is not a sentence end (``Dr. Müller``, ``€84.20``, ``v2.1``, ``e.g.``), and never
inside the person's Markdown (a code span, math, a link, a URL: ``renew the `ssl → cert```).
:func:`protect` stands such a period in for another mark while a text is cut, and
:func:`vaultbrain.vault.inline.shield` every character of such a span; a title made loses the
Markdown's marks and keeps its words."""

from __future__ import annotations

import re

from vaultbrain.classify.mentions import PARTICLES, capitalised
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inline import plain_words, shield, unshield

# A period inside one of these, or between two digits, does not end a sentence.
ABBREVIATIONS = set(
    "dr mr mrs ms mx prof st jr sr sra mme mlle e.g i.e eg ie etc vs approx no nr ca incl mt "
    "dept min max tel str bzw usw z.b ggf".split()
)
DOT = "\u2024"  # ONE DOT LEADER: stands in for a period that must not split a sentence


def protect(text: str) -> str:
    """``text`` with every period that does not end a sentence replaced by :data:`DOT`."""

    def abbrev(m: re.Match[str]) -> str:
        word = m.group(1)
        return word + DOT if word.lower().replace(DOT, ".") in ABBREVIATIONS else m.group(0)

    text = re.compile(r"(?<=\d)\.(?=\d)").sub(DOT, text)  # 84.20, v2.1
    text = re.compile(r"\b([A-Za-z])\.(?=[A-Za-z]\.)").sub(r"\1" + DOT, text)  # e.g. / i.e. / z.B.
    text = re.compile(r"(?<![\w.])((?:[A-Za-z]" + DOT + r")*[A-Za-z]+)\.").sub(abbrev, text)
    return re.compile(r"\b(\w)\.(?=\s+[A-Z])").sub(r"\1" + DOT, text)  # an initial: "J. Smith"


def unprotect(text: str) -> str:
    return text.replace(DOT, ".")


# Clause boundaries; "re:" ("lunch with Priya re: the podcast") names the subject, not one.
_CUT_BEFORE = LazyPattern(r"\s+(?:[-–—:;|]|→|=>)\s+|(?<!\b[Rr]e)[:;]\s+|,\s+|\s*[.!?]+(?:\s+|$)")
_TRAILING = {"the", "a", "an", "to", "and", "or", "of", "for", "with", "about", "in", "on"}
_TRAILING |= {"at", "by", "from", "my", "our", "re", "w", "&", "+", "is", "are", "be"}
_TRAILING |= {"before", "after", "until", "till", "due", "via"}


def phrase(text: str, max_words: int = 10, min_words: int = 2) -> str:
    """A short whole phrase from the start of ``text``: up to its first clause boundary if that
    comes soon enough, else ``max_words`` words and then the rest of a name it is inside."""
    # Each span of the person's Markdown is one word here, cut nowhere inside (shielded: a
    # text already shielded by :func:`vaultbrain.vault.inline.shown_words` stays so).
    guarded = protect(shield(" ".join(text.split())))
    for m in _CUT_BEFORE.finditer(guarded):
        head = guarded[: m.start()]
        n = len(head.split())
        if n >= min_words and n <= max_words:
            return _tidy(head)
        if n > max_words:
            break
    words = guarded.split()
    if len(words) <= max_words:
        return _tidy(guarded)
    cut = max_words

    # never end inside a name ("the Council of Nicaea", "Anneke van der Berg"): take the whole
    # name if it is short, else stop before it
    def joins(k: int) -> bool:
        if k >= len(words):
            return False
        w = words[k]
        if capitalised(w):
            return True
        return w.lower() in PARTICLES | {"of"} and k + 1 < len(words) and capitalised(words[k + 1])

    if joins(cut) and (capitalised(words[cut - 1]) or capitalised(words[cut])):
        start = cut
        while (
            start > 0
            and capitalised(words[start - 1])
            or (
                start > 1
                and words[start - 1].lower() in PARTICLES | {"of"}
                and capitalised(words[start - 2])
            )
        ):
            start -= 1
        end = cut
        while joins(end):
            end += 1
        if end - cut <= 4:
            cut = end
        elif start > min_words:
            cut = start
    kept = words[:cut]
    while len(kept) > min_words and kept[-1].lower().strip(",") in _TRAILING:
        kept.pop()
    return _tidy(" ".join(kept))


def _tidy(text: str) -> str:
    # The Markdown's marks go, its words stay: a ``~~`` or a backtick left in a title would be
    # read again in vaultbrain's links to the note and in Obsidian's.
    text = plain_words(unshield(unprotect(text))).strip(" ,;:-–—|")
    text = (
        text.rstrip(".!?")
        if not re.compile(r"\b(?:e\.g|i\.e|etc|[A-Z][a-z]?)\.$").search(text)
        else text
    )
    return text[:1].upper() + text[1:] if text else text
