"""People and titles in a thought, for the embedded classifier (``classify/embedded.py``).

People: whole names (``Liam O'Brien``, ``José Álvarez``, ``Anneke van der Berg``,
``Jean-Luc``, ``Dr. Okafor``), every one a thought names ("Priya and Marco"), lowercase ones
where a cue says a person follows ("lunch w priya"), and the vault's own records: a person
named by full name, alias or (when exactly one fits) first name links to that record, and a
name the vault knows as something else (a game, a place, a project) is not a person.

Titles: a short whole phrase of the thought, never cut mid-word, inside a name, or at a period
that is not a sentence end (``Dr. Müller``, ``€84.20``, ``v2.1``, ``e.g.``).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import Any

# A period inside one of these, or between two digits, does not end a sentence.
ABBREVIATIONS = {
    "dr",
    "mr",
    "mrs",
    "ms",
    "mx",
    "prof",
    "st",
    "jr",
    "sr",
    "sra",
    "mme",
    "mlle",
    "e.g",
    "i.e",
    "eg",
    "ie",
    "etc",
    "vs",
    "approx",
    "no",
    "nr",
    "ca",
    "incl",
    "mt",
    "dept",
    "min",
    "max",
    "tel",
    "str",
    "bzw",
    "usw",
    "z.b",
    "ggf",
}
DOT = "\u2024"  # ONE DOT LEADER: stands in for a period that must not split a sentence
HONORIFICS = {"dr", "mr", "mrs", "ms", "mx", "prof", "st", "herr", "frau", "mme", "sra", "señora"}
HONORIFICS |= {"señor", "sr", "dott", "doktor", "madame", "monsieur"}
# family words that open a name as a title does ("uncle ray", "tante Inge")
HONORIFICS |= {"uncle", "aunt", "auntie", "cousin", "onkel", "tante", "tío", "tía", "oncle"}
PARTICLES = {"van", "der", "den", "de", "la", "le", "du", "del", "della", "da", "di", "von"}
PARTICLES |= {"zu", "ter", "ten", "bin", "ibn", "al", "el", "dos", "das", "des", "y", "st"}
# Words after which a lowercase word is someone's name ("coffee w priya", "call marco").
CUES = {"with", "w", "w/", "met", "meet", "call", "called", "ring", "text", "texted", "email"}
CUES |= {"emailed", "ask", "asked", "tell", "told", "ping", "pinged", "remind", "thank"}
CUES |= {"invite", "visit", "visited", "saw", "see", "dm", "message", "messaged", "phone"}
CUES |= {"mit", "avec", "con", "llamar", "appeler", "anrufen", "fragen"}
_JOIN = {"and", "&", "+", ",", "und", "et", "y", "e"}
# Words after which a lowercase unknown word may be a name, if the model thinks so.
WEAK_CUES = {"send", "get", "for", "to", "from", "sign", "help", "pay", "give", "buy", "by"}
WEAK_CUES |= {"and", "&", "+", "envoyer", "mandar", "preguntar", "demander", "rappeler", "a", "à"}
# Capitalised words that open sentences and name no one, beyond what the corpus shows.
COMMON = {
    "i",
    "the",
    "a",
    "an",
    "this",
    "that",
    "my",
    "our",
    "we",
    "you",
    "he",
    "she",
    "they",
    "it",
    "me",
    "him",
    "her",
    "them",
    "is",
    "are",
    "re",
    "fwd",
    "fw",
    "todo",
    "ok",
    "okay",
    "hi",
    "hey",
    "yes",
    "no",
    "thanks",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "today",
    "tomorrow",
    "tonight",
    "next",
    "project",
    "team",
    "everyone",
    "google",
    "zoom",
    "slack",
    "obsidian",
    "idea",
    "note",
    "urgent",
    "asap",
    "important",
}
_TOKEN = re.compile(r"[^\W\d_](?:[\w'’\-]*[^\W_])?\.?|[,&+]|w/")
_POSSESSIVE = re.compile(r"['’]s$")


def protect(text: str) -> str:
    """``text`` with every period that does not end a sentence replaced by :data:`DOT`."""

    def abbrev(m: re.Match[str]) -> str:
        word = m.group(1)
        return word + DOT if word.lower().replace(DOT, ".") in ABBREVIATIONS else m.group(0)

    text = re.sub(r"(?<=\d)\.(?=\d)", DOT, text)  # 84.20, v2.1
    text = re.sub(r"\b([A-Za-z])\.(?=[A-Za-z]\.)", r"\1" + DOT, text)  # e.g. / i.e. / z.B.
    text = re.sub(r"(?<![\w.])((?:[A-Za-z]" + DOT + r")*[A-Za-z]+)\.", abbrev, text)
    text = re.sub(r"\b(\w)\.(?=\s+[A-Z])", r"\1" + DOT, text)  # an initial: "J. Smith"
    return text


def unprotect(text: str) -> str:
    return text.replace(DOT, ".")


def titlecase_name(name: str) -> str:
    """A lowercase-typed name as a record title: ``liam o'brien`` → ``Liam O'Brien``."""
    parts = []
    for i, word in enumerate(name.split()):
        if i and word.lower() in PARTICLES:
            parts.append(word.lower())
            continue
        word = re.sub(r"(^|[-])(\w)", lambda m: m.group(1) + m.group(2).upper(), word)
        word = re.sub(r"^(\w['’])(\w)", lambda m: m.group(1) + m.group(2).upper(), word)
        parts.append(word)
    return " ".join(parts)


@dataclass
class PersonMention:
    """A person a thought names: as written, and the vault record it links to, if any."""

    name: str
    record: str | None = None
    evidence: str = "capitalised"  # known | honorific | cue | cue-lower | capitalised | guess

    @property
    def title(self) -> str:
        return self.record or self.name

    @property
    def strong(self) -> bool:
        return self.evidence not in ("capitalised", "guess", "cue-lower")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "record": self.record, "evidence": self.evidence}


@dataclass
class KnownNames:
    """What the vault calls its records: full names and aliases by type, and first names of
    people (to link "priya" to ``Priya Shah`` when she is the only Priya)."""

    names: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # lower -> {(type, title)}
    first: dict[str, set[str]] = field(default_factory=dict)  # lower first name -> {title}

    def add(self, type_name: str, title: str, aliases: Iterable[str] = ()) -> None:
        for key in [title, *aliases]:
            key = str(key).strip()
            if key:
                self.names.setdefault(key.lower(), set()).add((type_name, title))
        if type_name == "person" and title.split():
            first = title.split()[0].lower().rstrip(".")
            if first not in HONORIFICS:
                self.first.setdefault(first, set()).add(title)

    def remove(self, type_name: str, title: str, aliases: Iterable[str] = ()) -> None:
        for key in [title, *aliases]:
            bucket = self.names.get(str(key).strip().lower())
            if bucket:
                bucket.discard((type_name, title))
                if not bucket:
                    del self.names[str(key).strip().lower()]
        if type_name == "person" and title.split():
            bucket2 = self.first.get(title.split()[0].lower().rstrip("."))
            if bucket2:
                bucket2.discard(title)

    @classmethod
    def from_known(cls, known: Iterable[dict[str, Any]]) -> KnownNames:
        out = cls()
        for k in known:
            out.add(str(k.get("type", "")), str(k.get("title", "")), k.get("aliases") or [])
        return out

    def person(self, name: str) -> str | None:
        """The person record this name (full, alias, or a first name only one person has)
        stands for."""
        low = name.lower()
        found = self.names.get(low)
        if found is None and low.rstrip(".") not in self.first:
            return None  # the usual case, kept cheap: most words name nobody
        hits = {t for ty, t in found or () if ty == "person"}
        if len(hits) == 1:
            return next(iter(hits))
        if not hits and len(name.split()) == 1:
            firsts = self.first.get(name.lower().rstrip("."), set())
            if len(firsts) == 1:
                return next(iter(firsts))
        return None

    def other_type(self, name: str) -> str | None:
        """The type of a non-person record with this name (``Catan`` the game), if any."""
        found = self.names.get(name.lower())
        if not found:
            return None
        types = {ty for ty, _ in found}
        if types and "person" not in types:
            return sorted(types)[0]
        return None


def _bare(tok: str) -> str:
    return _POSSESSIVE.sub("", tok.rstrip(".")).rstrip(".")


def _is_cap(tok: str) -> bool:
    return tok[:1].isupper()


def find_people(
    text: str, common: Container[str], known: KnownNames | None = None
) -> list[PersonMention]:
    """Every person ``text`` names, in order, each once. ``common``: words that are not names
    when capitalised (the corpus vocabulary)."""
    known = known or KnownNames()
    toks = [m.group(0) for m in _TOKEN.finditer(text)]
    out: list[PersonMention] = []
    seen: set[str] = set()

    def ordinary(word: str) -> bool:
        w = word.lower()
        return w in common or w in COMMON or w in CUES or w in _JOIN

    def emit(words: list[str], evidence: str) -> None:
        if not words:
            return
        name = " ".join(words)
        if known.other_type(name) or known.other_type(words[-1]) and len(words) == 1:
            return  # the vault knows this name as a game, a place, a project
        record = known.person(name)
        if record is None and len(words) > 1 and words[0].lower().rstrip(".") in HONORIFICS:
            record = known.person(" ".join(words[1:]))
        if record is not None:
            evidence = "known"
        elif not any(_is_cap(w) for w in words):
            name = titlecase_name(name)
        key = (record or name).lower()
        if key not in seen:
            seen.add(key)
            out.append(PersonMention(name, record, evidence))

    i = 0
    prev = ""
    while i < len(toks):
        tok = toks[i]
        low = _bare(tok).lower()
        if tok.islower() and low not in HONORIFICS and ordinary(low):
            prev = tok  # an ordinary word (most of them): no name starts here
            i += 1
            continue
        # A name opened by an honorific ("Dr. Okafor", "mrs chen") or in capitals.
        start = i
        words: list[str] = []
        evidence = "capitalised"
        if low in HONORIFICS and i + 1 < len(toks) and toks[i + 1] not in _JOIN:
            nxt = _bare(toks[i + 1])
            if _is_cap(nxt) or not ordinary(nxt):
                words = [tok.rstrip(".") + ("." if tok.endswith(".") else ""), nxt]
                evidence = "honorific"
                i += 2
        elif (
            _is_cap(tok)
            and not ordinary(_bare(tok))
            and not known.other_type(_bare(tok))
            and not (len(_bare(tok)) > 1 and _bare(tok).isupper())  # CAF, MOT: not a name
        ):
            words = [_bare(tok)]
            i += 1
        elif (
            tok.islower()
            and (prev in CUES or prev in _JOIN and out and out[-1].evidence != "guess")
            and not ordinary(_bare(tok))
            and len(_bare(tok)) > 2
        ):
            words = [_bare(tok)]
            evidence = "cue-lower"  # "coffee w priya": a name if the model agrees
            i += 1
        elif known.person(_bare(tok)) and (_is_cap(tok) or not ordinary(_bare(tok))):
            words = [_bare(tok)]
            i += 1
        elif (
            tok.islower()
            and (i == 0 or prev in WEAK_CUES)
            and not ordinary(_bare(tok))
            and len(_bare(tok)) > 2
            and _bare(tok).isalpha()
        ):
            # "lucía works at the hospital": a name only if the model says a person is named
            words = [_bare(tok)]
            evidence = "guess"
            i += 1
        if not words:
            prev = tok.lower()
            i += 1
            continue
        # Extend the name: more capitalised words, particles before one, an apostrophe name.
        while i < len(toks) and not _POSSESSIVE.search(toks[i - 1]):
            nxt = toks[i]
            if nxt.lower() in PARTICLES and i + 1 < len(toks):
                j = i
                while j < len(toks) and toks[j].lower() in PARTICLES:
                    j += 1
                if j < len(toks) and _is_cap(toks[j]) and not ordinary(_bare(toks[j])):
                    words += [*toks[i:j], _bare(toks[j])]
                    i = j + 1
                    continue
                break
            bare = _bare(nxt)
            if nxt[:1].isalpha() and (
                _is_cap(nxt)
                and not ordinary(bare)
                or evidence == "cue-lower"
                and not ordinary(bare)
            ):
                if evidence == "cue-lower" and not _is_cap(nxt) and known.person(" ".join(words)):
                    break
                words.append(bare)
                i += 1
                continue
            break
        if evidence == "capitalised" and start > 0 and toks[start - 1].lower() in CUES:
            evidence = "cue"
        if evidence in ("capitalised", "guess") and start > 0 and toks[start - 1] in _JOIN and out:
            evidence = "cue" if out[-1].strong else evidence
        emit(words, evidence)
        prev = ""
    return out


# Clause boundaries; "re:" ("lunch with Priya re: the podcast") names the subject, not one.
_CUT_BEFORE = re.compile(r"\s+(?:[-–—:;|]|→|=>)\s+|(?<!\b[Rr]e)[:;]\s+|,\s+|\s*[.!?]+(?:\s+|$)")
_TRAILING = {"the", "a", "an", "to", "and", "or", "of", "for", "with", "about", "in", "on"}
_TRAILING |= {"at", "by", "from", "my", "our", "re", "w", "&", "+", "is", "are", "be"}
_TRAILING |= {"before", "after", "until", "till", "due", "via"}


def phrase(text: str, max_words: int = 10, min_words: int = 2) -> str:
    """A short whole phrase from the start of ``text``: up to its first clause boundary if that
    comes soon enough, else ``max_words`` words and then the rest of a name it is inside."""
    guarded = protect(" ".join(text.split()))
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
        if _is_cap(w):
            return True
        return w.lower() in PARTICLES | {"of"} and k + 1 < len(words) and _is_cap(words[k + 1])

    if joins(cut) and (_is_cap(words[cut - 1]) or _is_cap(words[cut])):
        start = cut
        while (
            start > 0
            and _is_cap(words[start - 1])
            or (
                start > 1
                and words[start - 1].lower() in PARTICLES | {"of"}
                and _is_cap(words[start - 2])
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
    head = words[:cut]
    while len(head) > min_words and head[-1].lower().strip(",") in _TRAILING:
        head.pop()
    return _tidy(" ".join(head))


def _tidy(text: str) -> str:
    text = unprotect(text).strip(" ,;:-–—|")
    text = (
        text.rstrip(".!?") if not re.search(r"\b(?:e\.g|i\.e|etc|[A-Z][a-z]?)\.$", text) else text
    )
    return text[:1].upper() + text[1:] if text else text
