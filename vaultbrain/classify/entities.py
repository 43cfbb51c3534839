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
from collections.abc import Container, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify.namewords import (
    FAMILY,
    GERMAN_NOUN_ENDINGS,
    MONTH_NAMES,
    NAME_WORDS,
    NICKNAMES,
    NOT_BEFORE_NAME,
    OTHERS,
    PERSON_VERBS,
    TITLE_MODIFIERS,
    TITLES,
    WEAK_VERBS,
    compound,
    ends_in_place_cue,
    everyday_word,
    foreign_word,
    given_name,
    is_german,
    one_vowel_more,
    only_a_name,
    only_a_word,
    surname,
)
from vaultbrain.patterns import LazyPattern

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
PARTICLES |= {"los", "las", "do", "ní", "nic", "ap", "af", "av", "op", "degli", "dei", "vom"}
HONORIFICS |= TITLES
# Words after which a lowercase word is someone's name ("coffee w priya", "call marco").
CUES = {"with", "w", "w/", "met", "meet", "call", "called", "ring", "text", "texted", "email"}
CUES |= {"txt", "msg", "tel", "rang", "phoned", "whatsapp", "send", "give", "pay", "help"}
CUES |= {"emailed", "ask", "asked", "tell", "told", "ping", "pinged", "remind", "thank"}
CUES |= {"invite", "visit", "visited", "saw", "see", "dm", "message", "messaged", "phone"}
CUES |= {"mit", "avec", "con", "llamar", "appeler", "anrufen", "fragen"}
_JOIN = {"and", "&", "+", ",", "und", "et", "y", "e"}
# Words after which a lowercase unknown word may be a name, if the model thinks so.
WEAK_CUES = {"get", "for", "to", "from", "sign", "buy", "by"}
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
_HUMPS = re.compile(r"[a-z\u00df-\u00ff][A-Z\u00c0-\u00de]")  # a capital inside a word: "KeyError"
# names with a capital inside: McDonald, MacAllister, DeShawn, LaToya, DiCaprio, VanDyke
_NAME_PREFIX = re.compile(r"^(?:Mc|Mac|De|Di|Da|Du|La|Le|Van|Von|Fitz|St|O'|D')[A-Z][a-z]")
_DETERMINERS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that"}
_DETERMINERS |= {"these", "those", "some", "all", "any", "every", "de", "het", "een", "il", "la"}
_DETERMINERS |= {"le", "les", "un", "una", "uno", "der", "die", "das", "den", "dem", "ein", "eine"}
_TOKEN = LazyPattern(r"[^\W\d_](?:[\w'’\-]*[^\W_])?\.?|[,&+]|w/")
_POSSESSIVE = LazyPattern(r"['’]s$")


def protect(text: str) -> str:
    """``text`` with every period that does not end a sentence replaced by :data:`DOT`."""

    def abbrev(m: re.Match[str]) -> str:
        word = m.group(1)
        return word + DOT if word.lower().replace(DOT, ".") in ABBREVIATIONS else m.group(0)

    text = re.compile(r"(?<=\d)\.(?=\d)").sub(DOT, text)  # 84.20, v2.1
    text = re.compile(r"\b([A-Za-z])\.(?=[A-Za-z]\.)").sub(r"\1" + DOT, text)  # e.g. / i.e. / z.B.
    text = re.compile(r"(?<![\w.])((?:[A-Za-z]" + DOT + r")*[A-Za-z]+)\.").sub(abbrev, text)
    text = re.compile(r"\b(\w)\.(?=\s+[A-Z])").sub(r"\1" + DOT, text)  # an initial: "J. Smith"
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
        word = re.compile(r"(^|[-])(\w)").sub(lambda m: m.group(1) + m.group(2).upper(), word)
        word = re.compile(r"^(\w['’])(\w)").sub(lambda m: m.group(1) + m.group(2).upper(), word)
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

    names: MutableMapping[str, set[tuple[str, str]]] = field(
        default_factory=dict
    )  # lower -> {(type, title)}
    first: MutableMapping[str, set[str]] = field(
        default_factory=dict
    )  # lower first name -> {title}

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
    when capitalised (the corpus vocabulary). The context decides for a name that is also a
    word ("ask Will", "June says", but "in June", "will it rain"), a capitalised word after
    "moved to" or "lives in" is a place, and in a German thought a capitalised noun ("der
    Steuerberater") is no one."""
    known = known or KnownNames()
    text = _unlink(text, known)
    spans = list(_TOKEN.finditer(text))
    toks = [m.group(0) for m in spans]
    out: list[PersonMention] = []
    seen: set[str] = set()
    german = is_german(toks)
    # the words of another language the thought has ("pracuje", "teraz"): in an English
    # thought a word only another language writes, after a contact verb, is a name ("ring
    # gaz", "msg jas"); in a Polish one it is a word ("w Krakowie": in Kraków)
    # (counted only when a word after a contact verb asks: the lists load on first use)
    foreign: list[str] = []
    counted: list[bool] = []

    def foreign_words() -> list[str]:
        if not counted:
            foreign.extend(t.lower() for t in toks if len(t) > 2 and foreign_word(t.lower()))
            counted.append(True)
        return foreign

    def stray(low: str) -> bool:
        """A word only another language writes, in a thought of no other language."""
        if low in common or not foreign_word(low):
            return False
        words = foreign_words()
        return len(words) - words.count(low) < 2

    def ordinary(word: str, context: int = 0) -> bool:
        """A word, not a name: the corpus's or an everyday one, or a frequent word in one of
        the languages people write that is no one's given name ("Paint", "Boots", "Bellen");
        never a given name that is no everyday word ("tomasz"). ``context``: how strongly
        the words around say a person is meant (:func:`~.namewords.only_a_word`)."""
        w = word.lower()
        if w in COMMON or w in CUES or w in _JOIN:
            return True
        if w in common:  # but a given name no English word is ("tomasz"): a name
            return w in NAME_WORDS or not given_name(w) or everyday_word(w)
        return only_a_word(w, context) and not known.person(word)

    def ambiguous(low: str) -> bool:
        """A given name that is also a word ("will", "mark", "oliver"): a name by context."""
        return low in NAME_WORDS or given_name(low) and ordinary(low)

    def identifier(tok: str) -> bool:
        """A name in code, not a person's: ``ValueError``, ``getUser``, ``csv_importer``, ``v2``
        (but ``McDonald``, ``O'Brien``, ``DeShawn``, ``LaToya`` are names)."""
        if any(c.isdigit() or c == "_" for c in tok):
            return True
        bare = _bare(tok)
        humps = _HUMPS.findall(bare)
        return len(humps) > 1 or bool(humps) and not _NAME_PREFIX.match(bare)

    def shop_or_place(k: int) -> bool:
        """ "from Greggs", "at Wickes", "to Screwfix", "a McDonald's": a capitalised word after
        these that is no given name or surname is a shop or a place, not someone."""
        if k == 0:
            return False
        low = _bare(toks[k]).lower()
        prev_low = toks[k - 1].lower()
        if known.person(_bare(toks[k])):
            return False
        # "São Paulo", "New York", "Big Mac": after a capitalised word that is only a word
        if (
            not sentence_start(k - 1)
            and not sentence_start(k)
            and _is_cap(toks[k - 1])
            and only_a_word(_bare(toks[k - 1]).lower())
        ):
            return True
        if given_name(low):
            return False
        if prev_low not in ("at", "from", "a", "an", "the", "in", "via"):
            return False
        return not surname(low)

    def before(k: int) -> str:
        """The text between the previous token and token ``k``."""
        return text[spans[k - 1].end() if k else 0 : spans[k].start()]

    def sentence_start(k: int) -> bool:
        return k == 0 or bool(re.compile(r"[.!?:;\n]|\s[-–—]\s").search(before(k)))

    def following(k: int) -> str:
        return toks[k + 1].lower() if k + 1 < len(toks) else ""

    def subject(k: int) -> bool:
        """Token ``k`` is the subject of something people do ("Teodora leads", "Rose needs",
        "June says", "Daisy's dog", "Bill from next door", "Hope and Faith")."""
        nxt = following(k)
        if _POSSESSIVE.search(toks[k]) or nxt in PERSON_VERBS and nxt not in WEAK_VERBS:
            return True
        if nxt == "from" and k + 2 < len(toks) and toks[k + 2].lower() in ("the", "next", "work"):
            return True
        return (
            nxt in ("and", "&", "und", "et", "y", "e")
            and k + 2 < len(toks)
            and (toks[k + 2] in ("I", "me") or _is_cap(toks[k + 2]))
        )

    def name_word(k: int) -> bool:
        """A capitalised given name that is also a word, where the context makes it a name."""
        low = _bare(toks[k]).lower()
        if not ambiguous(low):
            return False
        if k and toks[k - 1].lower() in NOT_BEFORE_NAME:
            return False
        if german and not sentence_start(k) and not is_cue(toks[k - 1]):
            return False  # "einen neuen Job": in German every noun has a capital
        if low in MONTH_NAMES and re.compile(r"\s*\d").match(text[spans[k].end() :]):
            return False  # "June 3": a date
        if sentence_start(k):
            # "Pearl is ninety", "Lily got in": a weak verb leaves it to the model
            return subject(k) or following(k) in WEAK_VERBS or pair(k)
        return True

    def could_be_named(k: int) -> bool:
        """A capitalised token is a name by its words: a given name that is also a word where
        the context says so, or no word at all (a capitalised rare English word mid-sentence,
        "Cressida", is no word), or one of a pair of names, or the object of a contact verb
        ("call Kwame") that the corpus does not know as a word."""
        low = _bare(toks[k]).lower()
        if pair(k):
            return True
        if ambiguous(low):
            return name_word(k)
        said = 2 if subject(k) else 1 if not sentence_start(k) else 0
        if not ordinary(_bare(toks[k]), said) and not noun(k):
            return True
        return (
            k > 0
            and is_cue(toks[k - 1])
            and low not in common
            and low not in COMMON
            and not (foreign_word(low) and not stray(low))  # "w Krakowie" in a Polish thought
        )

    def pair(k: int) -> bool:
        """Token ``k`` and the next are a given name and a surname, or a surname and a given
        name ("Mei Lin", "Chen Jia", "Grace Hopper"): a full name, wherever it stands."""
        if k + 1 >= len(toks) or not _is_cap(toks[k + 1]) or _POSSESSIVE.search(toks[k]):
            return False
        a, b = _bare(toks[k]).lower(), _bare(toks[k + 1]).lower()
        if {a, b} & (COMMON | CUES | HONORIFICS) or identifier(toks[k]) or identifier(toks[k + 1]):
            return False
        return (given_name(a) or surname(a)) and (given_name(b) or surname(b))

    def shop(k: int) -> bool:
        """A possessive after an article or someone else's ("a McDonald's", "at the
        tailor's", "her nonna's ragù"): a shop, a trade or another person's relative."""
        return bool(_POSSESSIVE.search(toks[k])) and k > 0 and toks[k - 1].lower() in OTHERS

    def place(k: int) -> bool:
        """ "moved to Busan", "lives in Leeds", "back from Lagos": a place, not a person."""
        head = text[max(0, spans[k].start() - 40) : spans[k].start()]
        return not _POSSESSIVE.search(toks[k]) and ends_in_place_cue(head)

    def noun(k: int) -> bool:
        """In a German thought, a capitalised noun: a known ending, or a compound of a word."""
        if not german:
            return False
        low = _bare(toks[k]).lower()
        if low.endswith(GERMAN_NOUN_ENDINGS):
            return True
        return len(low) >= 8 and any(
            low[j:] in common for j in range(3, len(low) - 3) if len(low) - j >= 4
        )

    def is_cue(word: str) -> bool:
        w = word.lower()
        return w in CUES or len(w) >= 3 and any(v in CUES for v in one_vowel_more(w))

    def emit(words: list[str], evidence: str) -> None:
        if not words:
            return
        name = " ".join(words)
        if known.other_type(name) or known.other_type(words[-1]) and len(words) == 1:
            return  # the vault knows this name as a game, a place, a project
        record = known.person(name)
        if record is None and len(words) > 1 and words[0].lower().rstrip(".") in HONORIFICS:
            record = known.person(
                " ".join(w for w in words if w.lower().rstrip(".") not in HONORIFICS)
            )
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
    taken = 0  # the tokens before this are part of a name found already
    while i < len(toks):
        tok = toks[i]
        low = _bare(tok).lower()
        if (
            tok.islower()
            and low not in HONORIFICS
            and low not in NAME_WORDS
            and not (low in FAMILY and low not in common)  # "papa anrufen"
            # after a cue, or said of ("sanjay's", "bex has"), a rare word may be a name
            and ordinary(low, 2 if _POSSESSIVE.search(tok) or subject(i) else int(is_cue(prev)))
            and not (is_cue(prev) and stray(low))
            and not (i == 0 and given_name(low) and subject(i))  # "raj wants in"
        ):
            prev = tok  # an ordinary word (most of them): no name starts here
            i += 1
            continue
        # A name opened by an honorific ("Dr. Okafor", "mrs chen", "Staff Nurse Okoro").
        start = i
        words: list[str] = []
        evidence = "capitalised"
        opens = low in HONORIFICS or (
            low in TITLE_MODIFIERS  # "Charge Nurse Kowalski", "Head Chef Rossi"
            and _is_cap(tok)
            and i + 1 < len(toks)
            and _is_cap(toks[i + 1])
            and _bare(toks[i + 1]).lower() in TITLES
        )
        if opens and i + 1 < len(toks) and toks[i + 1] not in _JOIN:
            j = i + 1
            while j + 1 < len(toks) and _bare(toks[j]).lower() in HONORIFICS and _is_cap(toks[j]):
                j += 1  # "Staff Nurse", "Frau Dr."
            nxt = _bare(toks[j])
            after = nxt.lower()  # "frau koch", "mrs chen": a surname after a title
            if (
                _is_cap(nxt) or not ordinary(nxt) or surname(after) or given_name(after)
            ) and after not in _JOIN | COMMON | CUES:
                words = [t.rstrip(".") + ("." if t.endswith(".") else "") for t in toks[i:j]]
                words.append(nxt)
                evidence = "honorific"
                i = j + 1
        if words:
            pass
        elif (
            low in FAMILY
            and (i == 0 or is_cue(prev) or prev in WEAK_CUES or prev in _JOIN)
            and not (i + 1 < len(toks) and _is_cap(toks[i + 1]))
        ):
            words = [_bare(tok)]  # "ring mum", "get gran a charger": someone, not a word
            evidence = "family"
            i += 1
        elif (
            _is_cap(tok)
            and could_be_named(i)
            # "Recycle the old laptops", "Bake a cake": a sentence's first word before "the"
            # is its verb, unless it is someone's name
            and not (sentence_start(i) and following(i) in _DETERMINERS and not given_name(low))
            and not identifier(tok)
            and not (compound(low) and not given_name(low) and not pair(i))  # "Zahnarzttermin"
            and not shop_or_place(i)
            and not known.other_type(_bare(tok))
            and not (len(_bare(tok)) > 1 and _bare(tok).isupper())  # CAF, MOT: not a name
            and not (shop(i) and not known.person(_bare(tok)))  # "a McDonald's": a shop
            and not place(i)
            # "my mum's Toyota Corolla", "Sarah's Kindle": what someone has, not someone
            and not (i > 0 and _POSSESSIVE.search(toks[i - 1]) and not name_word(i))
        ):
            words = [_bare(tok)]
            # "Teodora leads the rollout", "ask Will", "review Marek's PR"
            said = sentence_start(i) or _POSSESSIVE.search(tok) and given_name(low)
            if said and subject(i) or ambiguous(low):
                evidence = "subject"  # "Teodora leads the rollout", "ask Will"
            i += 1
        elif (
            tok.islower()
            and (is_cue(prev) or prev in _JOIN and out and out[-1].evidence != "guess")
            and (
                not ordinary(_bare(tok), 1)
                # after "and" or a comma, a word is one of a list of names only right after
                # a name ("Priya, marco and sam", but "anrufen, sie hat Geburtstag")
                and (is_cue(prev) or taken == i - 1 or only_a_name(_bare(tok).lower()))
                or _bare(tok) in NAME_WORDS
                and prev != "and"
                or is_cue(prev)
                and stray(_bare(tok).lower())
            )
            and len(_bare(tok)) > 2
        ):
            words = [_bare(tok)]
            # "coffee w priya": a name if the model agrees; a given name that is no word
            # ("txt wendell") is one on this evidence alone
            # ("txt wendell"), or a given name no everyday word is after a contact verb
            # ("txt wendy") is one on this evidence alone
            bare = _bare(tok).lower()
            named = (
                only_a_name(bare) or is_cue(prev) and given_name(bare) and not everyday_word(bare)
            )
            evidence = "cue" if named else "cue-lower"
            i += 1
        elif known.person(_bare(tok)) and (_is_cap(tok) or not ordinary(_bare(tok))):
            words = [_bare(tok)]
            i += 1
        elif (
            tok.islower()
            and (i == 0 or prev in WEAK_CUES)
            and (
                not ordinary(_bare(tok), 2 if i == 0 and subject(i) else 0)
                or i == 0
                and given_name(low)
                and subject(i)
            )
            and not is_cue(tok)  # "rmind dotty": a cue typed in a hurry, no name
            and len(_bare(tok)) > 2
            and _bare(tok).isalpha()
        ):
            # "lucía works at the hospital": a name only if the model says a person is named;
            # on better evidence when something is said of it ("santiago teaches…")
            words = [_bare(tok)]
            strong = i == 0 and subject(i) or _POSSESSIVE.search(tok)
            evidence = "subject" if strong else "guess"
            if evidence == "guess" and only_a_name(_bare(tok).lower()) and subject(i):
                evidence = "subject"  # "moritz is organising the reunion"
            i += 1
        elif (
            tok.islower()
            and _POSSESSIVE.search(tok)
            and not ordinary(_bare(tok), 2)
            and not shop(i)  # "the tailor's", "her nonna's ragù": no one of the person's own
            and len(_bare(tok)) > 2
            and _bare(tok).isalpha()
        ):
            words = [_bare(tok)]  # "sign imogen's card": someone's
            evidence = "subject"
            i += 1
        if not words:
            prev = tok.lower()
            i += 1
            continue
        # A name does not run on across an arrow ("ping Bob → Kiln": Bob, then a project).
        stop = next((k for k in range(i, len(toks)) if _ARROW_GAP.search(before(k))), len(toks))
        i = _extend(toks[:stop], i, words, evidence, ordinary, known)
        # "Dinner with Ada Lovelace": a given name before the name is its first name, even a
        # given name that is also a word ("with Rosa Parks", "Will Byers")
        if (
            words
            and _is_cap(words[0])
            and start > taken
            and _is_cap(toks[start - 1])
            and given_name(_bare(toks[start - 1]).lower())
            and _bare(toks[start - 1]).lower() not in COMMON | CUES | HONORIFICS
            and not _POSSESSIVE.search(toks[start - 1])
            and not identifier(toks[start - 1])
        ):
            start -= 1
            words.insert(0, _bare(toks[start]))
            if evidence in ("capitalised", "guess"):
                evidence = "fullname"
        if (
            words
            and _is_cap(words[0])
            and start > taken
            and _bare(toks[start - 1]).lower() in NICKNAMES
            and _is_cap(toks[start - 1])
            and given_name(words[0].lower())
        ):
            start -= 1  # "Big Steve at the scrapyard": his nickname, whole
            words.insert(0, _bare(toks[start]))
        if evidence == "capitalised" and start > 0 and is_cue(toks[start - 1]):
            evidence = "cue"
        if evidence in ("capitalised", "guess") and start > 0 and toks[start - 1] in _JOIN and out:
            evidence = "cue" if out[-1].strong else evidence
        if evidence == "capitalised" and sum(1 for w in words if _is_cap(w)) >= 2:
            evidence = "fullname"  # "Kalani Kahale": two names together are someone
        emit(words, evidence)
        taken = i
        prev = ""
    return out


_WIKILINK = LazyPattern(r"\[\[([^\[\]|#]+)([^\[\]]*)\]\]")


def _unlink(text: str, known: KnownNames) -> str:
    """``text`` with the words of each ``[[link]]`` that names no person lowercased: a link
    names a note, and "[[Council Tax]]" or "[[Crafts]]" is no one. A link is a person's when
    the vault knows it as one or it has a person's shape (a given name and a surname, or a
    given name that is no word: "[[Rohan Mehta]]", "[[Thandiwe]]")."""
    if "[[" not in text:
        return text

    def sub(m: re.Match[str]) -> str:
        return m.group(0) if _person_shaped(m.group(1).strip(), known) else m.group(0).lower()

    return _WIKILINK.sub(sub, text)


def _person_shaped(target: str, known: KnownNames) -> bool:
    if known.person(target):
        return True
    if known.other_type(target):
        return False
    words = target.split()
    if not 1 <= len(words) <= 5 or not _is_cap(words[0]) or not _is_cap(words[-1]):
        return False
    lows = [w.lower() for w in words]
    if len(words) == 1:
        return given_name(lows[0]) and not everyday_word(lows[0])
    if any(w in COMMON or w in HONORIFICS for w in lows[1:]):
        return False
    first = lows[0]
    if first in HONORIFICS:  # "[[Dr Mensah]]"
        return True
    last = lows[-1]
    return given_name(first) and (surname(last) or given_name(last) or not everyday_word(last))


_ARROW_GAP = LazyPattern(r"→|->|=>")
_PARTICLE_JOINED = LazyPattern(r"^(?:al|el|ul|ad|ud|bin|ibn|abu|d|de|di|da|du|van|von)[-'’][A-Z]")


def _extend(
    toks: list[str],
    i: int,
    words: list[str],
    evidence: str,
    ordinary: Any,
    known: KnownNames,
) -> int:
    """Extend a name from token ``i``: more capitalised words, particles before one ("van der
    Berg", "de la Cruz"), a joined particle ("al-Hassan", "d'Arcy"), a surname that is also a
    word after a first name ("Ji-woo Park", "Peter Rose"). Returns the next token's index."""
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
        if _PARTICLE_JOINED.match(nxt):
            words.append(bare)
            i += 1
            continue
        if nxt[:1].isalpha() and (
            _is_cap(nxt) and not ordinary(bare) or evidence == "cue-lower" and not ordinary(bare)
        ):
            if evidence == "cue-lower" and not _is_cap(nxt) and known.person(" ".join(words)):
                break
            words.append(bare)
            i += 1
            continue
        if (
            _is_cap(nxt)
            and _is_cap(words[-1])
            and (surname(bare.lower()) or given_name(bare.lower()))
            and bare.lower() not in COMMON | CUES | HONORIFICS
            and not _POSSESSIVE.search(words[-1])
        ):
            words.append(bare)  # "Mei Lin", "Zhang Min", "Rosa Parks": a name's second part
            i += 1
            continue
        if (
            _is_cap(nxt)
            and _is_cap(words[-1])
            and bare.lower() not in COMMON
            and bare.lower() not in CUES
            and bare.lower() not in HONORIFICS
            and not bare.isupper()
            and not (i + 1 < len(toks) and _is_cap(toks[i + 1]))
            and not ordinary(words[-1])
        ):
            words.append(bare)  # a surname that is also a word
            i += 1
        break
    return i


# Clause boundaries; "re:" ("lunch with Priya re: the podcast") names the subject, not one.
_CUT_BEFORE = LazyPattern(r"\s+(?:[-–—:;|]|→|=>)\s+|(?<!\b[Rr]e)[:;]\s+|,\s+|\s*[.!?]+(?:\s+|$)")
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
    kept = words[:cut]
    while len(kept) > min_words and kept[-1].lower().strip(",") in _TRAILING:
        kept.pop()
    return _tidy(" ".join(kept))


def _tidy(text: str) -> str:
    text = unprotect(text).strip(" ,;:-–—|")
    text = (
        text.rstrip(".!?")
        if not re.compile(r"\b(?:e\.g|i\.e|etc|[A-Z][a-z]?)\.$").search(text)
        else text
    )
    return text[:1].upper() + text[1:] if text else text
