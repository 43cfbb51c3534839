"""The shape of a person's name, for the person finder (``classify/entities.py``): a name
extended over the words after its first (more capitalised words, particles: "van der Berg",
a joined particle: "al-Hassan", a surname that is also a word: "Ji-woo Park", a name typed
in lower case: "abena mensah"), a line in capitals read as lower case, and the ``[[links]]``
that have a person's shape."""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

from vaultbrain.classify.mentions import (
    COMMON,
    CUES,
    HONORIFICS,
    JOINS,
    PARTICLES,
    KnownNames,
    capitalised,
)
from vaultbrain.classify.namewords import (
    CALENDAR_NAMES,
    KNOW,
    LINKERS,
    OTHERS,
    PERSON_NOUNS,
    PERSON_VERBS,
    TIME_PREPOSITIONS,
    WEAK_VERBS,
    everyday_word,
    foreign_word,
    frequent_word,
    given_name,
    one_vowel_more,
    only_a_word,
    surname,
)
from vaultbrain.patterns import LazyPattern

POSSESSIVE = LazyPattern(r"['’]s$")


# a Turkish case ending, written after an apostrophe on a proper name ("Zeynep'in",
# "Ahmet'e", "Ankara'da", "Elif'le")
_TURKISH_CASE = LazyPattern(r"(?<=[^\W\d_])['’](?:n?[iıuü]n|y?[iıuü]|y?[ea]|[dt][ea]n?|y?l[ea])$")


_TURKISH_PLACE = LazyPattern(r"(?<=[^\W\d_])['’](?:[dt][ea]n?)$")
_TURKISH_DATIVE = LazyPattern(r"(?<=[^\W\d_])['’]y?[ea]$")


def turkish_place(tok: str, dative: bool = True) -> bool:
    """A capitalised word with a Turkish ending of place: "in", "from" and (``dative``) "to"
    ("Ankara'da", "Londra'dan", "İzmir'e"): a place, or the end of the phrase it closes."""
    if not tok[:1].isupper():
        return False
    return _TURKISH_PLACE.search(tok) is not None or dative and bool(_TURKISH_DATIVE.search(tok))


def bare_word(tok: str) -> str:
    """A token without its trailing dot, its possessive "'s" and, on a capitalised word, a
    Turkish case ending."""
    word = POSSESSIVE.sub("", tok.rstrip(".")).rstrip(".")
    if word[:1].isupper() and ("'" in word or "’" in word):
        word = _TURKISH_CASE.sub("", word)
    return word


ARROW_GAP = LazyPattern(r"→|->|=>")

_HUMPS = LazyPattern(r"[a-z\u00df-\u00ff][A-Z\u00c0-\u00de]")  # a capital inside: "KeyError"
# names with a capital inside: McDonald, MacAllister, DeShawn, LaToya, DiCaprio, VanDyke
_NAME_PREFIX = LazyPattern(r"^(?:Mc|Mac|De|Di|Da|Du|La|Le|Van|Von|Fitz|St|O'|D')[A-Z][a-z]")


def identifier(tok: str) -> bool:
    """A name in code, not a person's: ``ValueError``, ``getUser``, ``csv_importer``, ``v2``
    (but ``McDonald``, ``O'Brien``, ``DeShawn``, ``LaToya`` are names)."""
    if any(c.isdigit() or c == "_" for c in tok):
        return True
    bare = bare_word(tok)
    humps = _HUMPS.findall(bare)
    return len(humps) > 1 or bool(humps) and not _NAME_PREFIX.match(bare)


_PARTICLE_JOINED = LazyPattern(r"^(?:al|el|ul|ad|ud|bin|ibn|abu|d|de|di|da|du|van|von)[-'’][A-Z]")
# the same in a name typed in lower case ("mohammed al-rashid", "omar bin-laden"); no "d'",
# "de-" nor "di-", which English writes ("d'you", "de-ice")
_PARTICLE_LOWER = LazyPattern(r"^(?:al|el|ul|ad|ud|bin|ibn|abu)-[^\W\d_]{3,}$")


def extend_name(
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
    while i < len(toks) and not POSSESSIVE.search(toks[i - 1]):
        nxt = toks[i]
        if turkish_place(nxt):
            break  # "Emre İzmir'e taşındı": Emre, moved to İzmir
        end = toks[i - 1]  # "for Monzo. Never share it": a sentence ends ("J. Smith" does not)
        if end.endswith(".") and len(end) > 2 and end[:-1].lower() not in HONORIFICS:
            break
        lower = not any(capitalised(w) for w in words)  # "abena mensah", "nguyen van an"
        if nxt.lower() in PARTICLES and i + 1 < len(toks):
            j = i
            while j < len(toks) and toks[j].lower() in PARTICLES:
                j += 1
            if j < len(toks) and (
                capitalised(toks[j])
                and not ordinary(bare_word(toks[j]))
                or lower
                and toks[j].islower()
                and given_name(bare_word(toks[j]))
            ):
                words += [*toks[i:j], bare_word(toks[j])]
                i = j + 1
                continue
            break
        bare = bare_word(nxt)
        if lower and nxt.islower() and second_part(toks, i, ordinary):
            words.append(bare)  # "send arjun mehta the", "xiaoling chen is", "ji-woo park joined"
            i += 1
            continue
        if _PARTICLE_JOINED.match(nxt) or lower and _PARTICLE_LOWER.match(nxt):
            words.append(bare)
            i += 1
            continue
        if capitalised(nxt) and lower and evidence == "guess":
            break  # "wetin Chinedu": who capitalises a name capitalises all of it
        if nxt[:1].isalpha() and (
            capitalised(nxt)
            and not ordinary(bare)
            or evidence == "cue-lower"
            and not ordinary(bare)
        ):
            if evidence == "cue-lower" and not capitalised(nxt) and known.person(" ".join(words)):
                break
            words.append(bare)
            i += 1
            continue
        if (
            capitalised(nxt)
            and capitalised(words[-1])
            and (surname(bare.lower()) or given_name(bare.lower()))
            and bare.lower() not in COMMON | CUES | HONORIFICS
            and not POSSESSIVE.search(words[-1])
        ):
            words.append(bare)  # "Mei Lin", "Zhang Min", "Rosa Parks": a name's second part
            i += 1
            continue
        if (
            capitalised(nxt)
            and capitalised(words[-1])
            and bare.lower() not in COMMON
            and bare.lower() not in CUES
            and bare.lower() not in HONORIFICS
            and not bare.isupper()
            and not (i + 1 < len(toks) and capitalised(toks[i + 1]))
            and not ordinary(words[-1])
        ):
            words.append(bare)  # a surname that is also a word
            i += 1
        break
    return i


_NO_VOWEL = LazyPattern(r"[aeiouyäöüåæøœàáâãèéêëìíîïòóôõùúûıiw]", re.I)


def shorthand(low: str) -> bool:
    """A word with no vowel ("chk", "pls", "txt", "dlvrd"): shorthand, no one's name."""
    return len(low) > 1 and not _NO_VOWEL.search(low)


def is_cue(word: str) -> bool:
    """A word after which a lowercase word is someone's name ("call", "w/"), or one of them
    typed in a hurry with a vowel left out ("cll", "rmnd")."""
    w = word.lower()
    return w in CUES or len(w) >= 3 and any(v in CUES for v in one_vowel_more(w))


_FIRM_ARTICLES = frozenset({"a", "an", "the"})


def firm_pair(toks: list[str], k: int) -> bool:
    """Token ``k`` is one of two names joined by "&" after an article, the last with its
    possessive ("a Ben & Jerry's style", "the Marks & Spencer's one"): a firm, no one."""

    def pair_at(j: int) -> bool:
        return (
            0 < j
            and j + 2 < len(toks)
            and toks[j - 1].lower() in _FIRM_ARTICLES
            and toks[j + 1] in ("&", "+")
            and capitalised(toks[j])
            and capitalised(toks[j + 2])
            and bool(POSSESSIVE.search(toks[j + 2]))
        )

    return pair_at(k) or pair_at(k - 2)


def cue_run(toks: list[str], i: int) -> int:
    """After a contact word, two to four capitalised words whose last is a surname or given
    name and none a word of a sentence's start, a title or a cue ("send Te Rangi Walker
    the photos", "ring Ngozi Adaeze Okafor"): a full name, the index after it (else ``i``)."""
    if i == 0 or not is_cue(toks[i - 1]):
        return i
    j = i
    while j < len(toks) and j - i < 4 and capitalised(toks[j]) and toks[j][1:].islower():
        low = toks[j].lower()
        if low in COMMON | CUES | HONORIFICS or POSSESSIVE.search(toks[j]):
            break
        j += 1
    while j > i + 1 and not (surname(toks[j - 1].lower()) or given_name(toks[j - 1].lower())):
        j -= 1
    return j if j > i + 1 else i


def short_name(word: str) -> bool:
    """A given name of two letters ("jo", "ed", "al"), after a contact verb: no pronoun
    nor article that the lists hold as a name too ("us", "my", "an", "le")."""
    low = word.lower()
    return len(low) == 2 and low.isalpha() and given_name(low) and low not in _NOT_SHORT_NAMES


_NOT_SHORT_NAMES = COMMON | {"us", "le", "el", "la", "de", "ma", "pa", "ya", "yo", "ur"}


def handle(text: str, start: int) -> bool:
    """The word at ``start`` is a chat handle ("@dana ptal", "cc @marco"): an "@" before
    it that opens a word, not an email address's."""
    return text[start - 1 : start] == "@" and (start < 2 or text[start - 2].isspace())


def second_part(toks: list[str], i: int, ordinary: Any) -> bool:
    """Token ``i``, after a name typed in lower case, is the name's next part: a surname or
    given name of the lists that is no everyday word ("mensah", "chen", "maría josé"), a
    word of no list that is no frequent word either where a name's end follows ("mehta" in
    "send arjun mehta the"); an everyday word that is a surname ("park") only when
    something is said of the whole ("ji-woo park joined")."""
    word = bare_word(toks[i])
    low = word.lower()
    if len(low) < 2 or low in COMMON | CUES | HONORIFICS | PERSON_VERBS | JOINS:
        return False
    if not low.replace("-", "").replace("'", "").replace("’", "").isalpha():
        return False
    after = toks[i + 1].lower() if i + 1 < len(toks) else ""
    listed = surname(low) or given_name(low)
    if listed and not ordinary(word, 2) and not foreign_word(low):
        return True  # no everyday word, nor one of the corpus's ("aus" in "frau becker aus")
    if listed and after in PERSON_VERBS and after not in WEAK_VERBS:
        return True
    # a word of no list where a name's end follows: "send arjun mehta the", not "ring ahmed
    # tonite"
    return (
        len(low) > 2
        and after in _AFTER_NAME | PERSON_VERBS
        and (listed or not frequent_word(low, rare=False) and bool(_VOWEL.search(low)))
        and not ordinary(word, 1)
    )


# what follows a name in a sentence: an article (the name was an object), a preposition, a
# conjunction or a verb
_AFTER_NAME = frozenset(
    "the a an about re for to on at in with from and & , is was has had will can".split()
)


_VOWEL = LazyPattern(r"[aeiouy]")
_LETTERS = LazyPattern(r"[^\W\d_]{2,}")


def shouted(text: str) -> bool:
    """A line typed in capitals throughout ("CALL DEREK ABOUT THE QUOTE"): its case says
    nothing of which words are names, so it is read as if typed in lower case (three words
    or more: "MOT", "RSVP Sam" are no shouting)."""
    words = _LETTERS.findall(text)
    return len(words) >= 3 and all(w.isupper() for w in words)


_CAPITALS_RUN = LazyPattern(r"\b[^\W\d_]{2,}(?:[ \t]+[^\W\d_]{2,})+\b")


def capital_names(text: str) -> str:
    """``text`` with each name typed in capitals inside a line that is not ("met PIOTR
    WIŚNIEWSKI at the fair", "ring HANNAH BERGSTRÖM") written as a name is: two words in
    capitals or more, a given name first and a given name or surname next, each word read
    by Unicode case (``str.isupper``), whatever its alphabet. An acronym is no given name
    ("NHS GP", "CNC work"), and stays as written."""
    if not any(c.isupper() for c in text[1:]):
        return text

    def sub(m: re.Match[str]) -> str:
        words = m.group(0).split()
        k = 0
        out: list[str] = []
        while k < len(words):
            a = words[k]
            b = words[k + 1] if k + 1 < len(words) else ""
            if (
                a.isupper()
                and b.isupper()
                and given_name(a.lower())
                and (surname(b.lower()) or given_name(b.lower()) or _unlisted_name(b.lower()))
            ):
                run = [a.capitalize(), b.capitalize()]
                k += 2
                while k < len(words) and words[k].isupper() and surname(words[k].lower()):
                    run.append(words[k].capitalize())
                    k += 1
                out += run
                continue
            out.append(a)
            k += 1
        return m.group(0) if out == words else " ".join(out)

    return _CAPITALS_RUN.sub(sub, text)


def _unlisted_name(word: str) -> bool:
    """A surname of no list that is no word either ("wiśniewski", "bergström"): long enough
    and voiced to be no acronym, no word of the corpus's nor a frequent one."""
    return (
        len(word) > 3
        and _VOWEL.search(word) is not None
        and word not in COMMON | CUES | HONORIFICS
        and not frequent_word(word)
    )


_WIKILINK = LazyPattern(r"\[\[([^\[\]|#]+)([^\[\]]*)\]\]")


def unlink(text: str, known: KnownNames) -> str:
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
    if not 1 <= len(words) <= 5 or not capitalised(words[0]) or not capitalised(words[-1]):
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


def calendar(toks: list[str], k: int) -> bool:
    """A month or a feast after a preposition ("for August", "to Easter", "till May"): a
    time, not the person the word may also name."""
    low = bare_word(toks[k]).lower()
    return low in CALENDAR_NAMES and k > 0 and toks[k - 1].lower() in TIME_PREPOSITIONS


def told(toks: list[str], k: int) -> bool:
    """ "let dayo know", "let dayo no" (dictation's homophone): told something."""
    return 0 < k < len(toks) - 1 and toks[k - 1].lower() == "let" and toks[k + 1].lower() in KNOW


def cue_before(toks: list[str], k: int) -> bool:
    """A contact verb before token ``k``, or before the preposition and article its
    object takes ("call Kwame", "ligar para a Joana", "talk to Sam")."""
    j = k - 1
    while j > 0 and k - j <= 2 and toks[j].lower() in LINKERS:
        j -= 1
    return is_cue(toks[j])


def full_pair(toks: list[str], k: int) -> bool:
    """Token ``k`` and the next are a given name and a surname, or a surname and a given
    name ("Mei Lin", "Chen Jia", "Grace Hopper"): a full name, wherever it stands."""
    if k + 1 >= len(toks) or not capitalised(toks[k + 1]) or POSSESSIVE.search(toks[k]):
        return False
    a, b = bare_word(toks[k]).lower(), bare_word(toks[k + 1]).lower()
    if {a, b} & (COMMON | CUES | HONORIFICS) or identifier(toks[k]) or identifier(toks[k + 1]):
        return False
    return (given_name(a) or surname(a)) and (given_name(b) or surname(b))


# what a couple does, after "x and y" opening a line: "are having a baby", "have moved"
_COUPLE_VERBS = frozenset("are were have had got paid moved".split())


def lower_pair(toks: list[str], k: int, common: Container[str]) -> bool:
    """A line opens with two lowercase names joined by "and": two words no English writes
    often, before what people do ("sione and tevita are moving"); not two things ("eggs and
    milk are low")."""
    if k or len(toks) < 4 or toks[1] != "and" or not (toks[0].islower() and toks[2].islower()):
        return False
    a, b = bare_word(toks[0]), bare_word(toks[2])
    rare = not any(everyday_word(w) or w in common for w in (a, b))
    return rare and not only_a_word(b) and (toks[3] in _COUPLE_VERBS or toks[3] in PERSON_VERBS)


def described(toks: list[str], k: int) -> bool:
    """A given name, then who they are to the writer ("Hunter our drummer", "Tomasz my
    landlord"): someone, said of before what they did."""
    if k + 2 >= len(toks) or toks[k + 1].lower() not in ("our", "my") or not capitalised(toks[k]):
        return False
    noun = toks[k + 2].lower()
    who = noun in PERSON_NOUNS or noun.endswith(("er", "ist", "lord", "man", "woman"))
    return who and given_name(bare_word(toks[k]).lower())


def shop(toks: list[str], k: int) -> bool:
    """A possessive after an article or someone else's ("a McDonald's", "at the tailor's",
    "her nonna's ragù"): a shop, a trade or another person's relative."""
    return bool(POSSESSIVE.search(toks[k])) and k > 0 and toks[k - 1].lower() in OTHERS
