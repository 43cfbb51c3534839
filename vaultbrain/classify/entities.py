"""People in a thought, for the embedded classifier (``classify/embedded.py``).

People: whole names (``Liam O'Brien``, ``José Álvarez``, ``Anneke van der Berg``,
``Jean-Luc``, ``Dr. Okafor``), every one a thought names ("Priya and Marco"), lowercase ones
where a cue says a person follows ("lunch w priya"), and the vault's own records: a person
named by full name, alias or (when exactly one fits) first name links to that record, and a
name the vault knows as something else (a game, a place, a project) is not a person.

The titles are cut by ``classify/phrases.py``; the record names and the words around a name
are in ``classify/mentions.py``.
"""

from __future__ import annotations

import re
from collections.abc import Container

from vaultbrain.classify.mentions import (
    COMMON,
    CUES,
    HONORIFICS,
    JOINS,
    WEAK_CUES,
    KnownNames,
    PersonMention,
    capitalised,
    titlecase_name,
)
from vaultbrain.classify.namerun import (
    ARROW_GAP,
    POSSESSIVE,
    bare_word,
    calendar,
    capital_names,
    cue_before,
    cue_run,
    described,
    extend_name,
    firm_pair,
    full_pair,
    handle,
    identifier,
    is_cue,
    lower_pair,
    shop,
    short_name,
    shorthand,
    shouted,
    told,
    turkish_place,
    unlink,
)
from vaultbrain.classify.namewords import (
    AFTER_TITLES,
    ARTICLES,
    BUYING_VERBS,
    CAPITAL_TITLES,
    DETERMINERS,
    FAMILY,
    FAR_TITLES,
    FOREIGN_AUXILIARIES,
    GERMAN_NOUN_ENDINGS,
    KIN_TITLES,
    LOCATIVES,
    MONTH_NAMES,
    NAME_WORDS,
    NICKNAMES,
    NOT_BEFORE_NAME,
    PERSON_VERBS,
    RETAIL_VERBS,
    ROMAN_HINDI,
    TITLE_MODIFIERS,
    TITLES,
    WEAK_VERBS,
    compound,
    ends_in_place_cue,
    everyday_word,
    foreign_word,
    given_name,
    hyphen_name,
    is_german,
    mixed_function_words,
    only_a_name,
    only_a_word,
    surname,
)
from vaultbrain.classify.placewords import (
    ERRAND_VERBS,
    LOANWORDS,
    VIET_LOCATIVES,
    VIETNAMESE,
    no_one,
    owned,
    street,
    viet_title,
    vietnamese,
)
from vaultbrain.patterns import LazyPattern

_TOKEN = LazyPattern(r"[^\W\d_](?:[\w'’\-]*[^\W_])?\.?|[,&+]|w/")


def find_people(
    text: str, common: Container[str], known: KnownNames | None = None
) -> list[PersonMention]:
    """Every person ``text`` names, in order, each once. ``common``: words that are not names
    when capitalised (the corpus vocabulary). The context decides for a name that is also a
    word ("ask Will", "June says", but "in June", "will it rain"), a capitalised word after
    "moved to" or "lives in" is a place, and in a German thought a capitalised noun ("der
    Steuerberater") is no one."""
    known = known or KnownNames()
    if shouted(text):  # "CALL DEREK ABOUT THE QUOTE": read as lower case, on the same evidence
        text = text.lower()
    else:
        text = capital_names(text)  # "met PIOTR WIŚNIEWSKI": a name in capitals, read as one
    text = unlink(text, known)
    spans = list(_TOKEN.finditer(text))
    toks = [m.group(0) for m in spans]
    out: list[PersonMention] = []
    seen: set[str] = set()
    german = is_german(toks)
    hindi = sum(1 for t in toks if t.lower() in ROMAN_HINDI) >= 2  # "ko call karna"
    function = mixed_function_words({t.lower() for t in toks})  # "leo nimechoka sana"
    viet = vietnamese({t.lower() for t in toks})  # "gọi cho chị Hoa"
    function |= VIETNAMESE if viet else frozenset()
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
        if w in COMMON or w in CUES or w in JOINS or hindi and w in ROMAN_HINDI or w in function:
            return True
        if w in LOANWORDS:  # "wahala everywhere today", "nomikai on kinyoubi"
            return True
        if w in common:  # but a given name no English word is ("tomasz"): a name
            return w in NAME_WORDS or not given_name(w) or everyday_word(w)
        return only_a_word(w, context) and not known.person(word)

    def ambiguous(low: str) -> bool:
        """A given name that is also a word ("will", "mark", "oliver"): a name by context."""
        return low in NAME_WORDS or given_name(low) and ordinary(low)

    def shop_or_place(k: int) -> bool:
        """ "from Greggs", "at Wickes", "to Screwfix", "a McDonald's": a capitalised word after
        these that is no given name or surname is a shop or a place, not someone."""
        if k == 0:
            return False
        low = bare_word(toks[k]).lower()
        prev_low = toks[k - 1].lower()
        if known.person(bare_word(toks[k])):
            return False
        if capitalised(toks[k - 1]) and not sentence_start(k) and shop_or_place(k - 1):
            return True  # "at Harvey Norman": the shop's second word
        if prev_low in ("and", "or", "&"):  # "at Harvey Norman and Dick Smith": two shops
            j = k - 2
            while j >= 0 and capitalised(toks[j]):
                j -= 1
            return k - 1 > j + 1 > 0 and shop_or_place(j + 1)
        # "São Paulo", "New York", "Big Mac": after a capitalised word that is only a word
        if (
            not sentence_start(k - 1)
            and not sentence_start(k)
            and capitalised(toks[k - 1])
            and only_a_word(bare_word(toks[k - 1]).lower())
        ):
            return True
        if prev_low in ("at", "via", "from") and any(
            t.lower() in (RETAIL_VERBS if prev_low != "from" else BUYING_VERBS) for t in toks[:k]
        ):
            return True  # "book the tables at Nando's", "buy the wardrobe from Argos"
        if given_name(low):
            return False
        # "grab some snags from Coles", "pop into Bunnings" (not "ran into Cressida")
        if prev_low in ("at", "from", "into") and any(t.lower() in ERRAND_VERBS for t in toks):
            return True
        if prev_low not in ("at", "from", "a", "an", "the", "in", "via"):
            return False
        return not surname(low)

    def after_article(k: int) -> bool:
        """A capitalised word after an article ("the Hendry job", "wegen dem Carport", "el
        Prado"): a thing, a place or a firm that the word names, not someone addressed by
        name (an honorific opens a name before this is asked)."""
        return k > 0 and toks[k - 1].lower() in ARTICLES and not known.person(bare_word(toks[k]))

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
        if POSSESSIVE.search(toks[k]) or nxt in PERSON_VERBS and nxt not in WEAK_VERBS:
            return True
        if described(toks, k):  # "Hunter our drummer broke his wrist"
            return True
        if nxt in AFTER_TITLES and capitalised(toks[k]):
            return True  # "Tanaka san called": a name, its title after it
        if nxt == "from" and k + 2 < len(toks) and toks[k + 2].lower() in ("the", "next", "work"):
            return True
        if nxt in FOREIGN_AUXILIARIES and k + 2 < len(toks) and capitalised(toks[k]):
            if foreign_word(toks[k + 2].lower()):  # "Thibault a trouvé": a verb of theirs
                return True
        return (
            nxt in ("and", "&", "und", "et", "y", "e")
            and k + 2 < len(toks)
            and (toks[k + 2] in ("I", "me") or capitalised(toks[k + 2]))
        ) or lower_pair(toks, k, common)  # "ruth and tevita are moving in"

    def said_of(k: int) -> bool:
        """Something is said of token ``k``: it is a subject, or a surname of the lists that
        opens the line before "is" or "has" ("mei is moving", "chen has the keys")."""
        if subject(k) or told(toks, k):
            return True
        return k == 0 and following(k) in WEAK_VERBS and surname(bare_word(toks[k]).lower())

    def appositive(k: int) -> bool:
        """ "Gwilym the contractor says": a name, who they are, then what they do."""
        return following(k) == "the" and any(
            toks[j].lower() in PERSON_VERBS and toks[j].lower() not in WEAK_VERBS
            for j in range(k + 3, min(k + 5, len(toks)))
        )

    def name_word(k: int) -> bool:
        """A capitalised given name that is also a word, where the context makes it a name."""
        low = bare_word(toks[k]).lower()
        if not ambiguous(low):
            return False
        if k and toks[k - 1].lower() in NOT_BEFORE_NAME:
            return False
        if k and toks[k - 1].lower() in LOCATIVES and toks[k - 1].lower() in function:
            return False  # "sa Sunday": a time
        if german and not sentence_start(k) and not is_cue(toks[k - 1]):
            return False  # "einen neuen Job": in German every noun has a capital
        if low in MONTH_NAMES and re.compile(r"\s*\d").match(text[spans[k].end() :]):
            return False  # "June 3": a date
        if sentence_start(k):
            # "Pearl is ninety", "Lily got in": a weak verb leaves it to the model
            return subject(k) or following(k) in WEAK_VERBS or full_pair(toks, k)
        return True

    def could_be_named(k: int) -> bool:
        """A capitalised token is a name by its words: a given name that is also a word where
        the context says so, or no word at all (a capitalised rare English word mid-sentence,
        "Cressida", is no word), or one of a pair of names, or the object of a contact verb
        ("call Kwame") that the corpus does not know as a word."""
        low = bare_word(toks[k]).lower()
        if full_pair(toks, k):
            return True
        if ambiguous(low):
            return name_word(k)
        said = 2 if subject(k) else 1 if not sentence_start(k) else 0
        if not ordinary(bare_word(toks[k]), said) and not noun(k):
            return True
        return (
            k > 0
            and is_cue(toks[k - 1])
            and low not in common
            and low not in COMMON
            and not (foreign_word(low) and not stray(low))  # "w Krakowie" in a Polish thought
        )

    def place(k: int) -> bool:
        """ "moved to Busan", "lives in Leeds", "back from Lagos": a place, not a person."""
        if turkish_place(toks[k], dative=False):
            return True  # "Ankara'da", "Londra'dan" (but "Ahmet'e sor": ask Ahmet)
        if k and toks[k - 1].lower() in LOCATIVES and toks[k - 1].lower() in function:
            return True  # "nurse na sa London": in London
        if k and toks[k - 1].lower() in VIET_LOCATIVES:
            return True  # "ở Hà Nội": in Hanoi
        if k and capitalised(toks[k - 1]) and not sentence_start(k) and place(k - 1):
            return True  # "to New York", "ở Hà Nội": the place's second word
        head = text[max(0, spans[k].start() - 40) : spans[k].start()]
        return not POSSESSIVE.search(toks[k]) and ends_in_place_cue(head)

    def noun(k: int) -> bool:
        """In a German thought, a capitalised noun: a known ending, or a compound of a word."""
        if not german:
            return False
        low = bare_word(toks[k]).lower()
        if low.endswith(GERMAN_NOUN_ENDINGS):
            return True
        return len(low) >= 8 and any(
            low[j:] in common for j in range(3, len(low) - 3) if len(low) - j >= 4
        )

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
        elif not any(capitalised(w) for w in words):
            name = titlecase_name(name)
            if evidence == "guess":
                lower_guesses.append(name.lower())
        elif evidence not in ("capitalised", "guess", "cue-lower"):
            capital_found.append(name)
        key = (record or name).lower()
        if key not in seen:
            seen.add(key)
            out.append(PersonMention(name, record, evidence))

    lower_guesses: list[str] = []  # names guessed from a word typed in lower case
    capital_found: list[str] = []  # names typed with capitals, on evidence
    i = 0
    prev = ""
    taken = 0  # the tokens before this are part of a name found already
    while i < len(toks):
        tok = toks[i]
        low = bare_word(tok).lower()
        if (
            tok.islower()
            and low not in HONORIFICS
            and low not in NAME_WORDS
            and not (low in FAMILY and low not in common)  # "papa anrufen"
            # after a cue, or said of ("sanjay's", "bex has"), a rare word may be a name
            and ordinary(low, 2 if POSSESSIVE.search(tok) or said_of(i) else int(is_cue(prev)))
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
        opens = (
            low in HONORIFICS
            or viet_title(low, viet)  # "chị Hoa", "anh Minh"
            or (
                low in CAPITAL_TITLES and capitalised(tok) and not sentence_start(i)  # "si Ate Joy"
            )
            or (
                low in TITLE_MODIFIERS  # "Charge Nurse Kowalski", "Head Chef Rossi"
                and capitalised(tok)
                and i + 1 < len(toks)
                and capitalised(toks[i + 1])
                and bare_word(toks[i + 1]).lower() in TITLES
            )
        )
        if (
            opens
            and capitalised(tok)
            and given_name(low)
            and i + 1 < len(toks)
            and not capitalised(toks[i + 1])
        ):
            opens = False  # "quedar con Lola para": a given name, not the title it also is
        if opens and i + 1 < len(toks) and toks[i + 1] not in JOINS:
            j = i + 1
            while (
                j + 1 < len(toks)
                and bare_word(toks[j]).lower() in HONORIFICS
                and capitalised(toks[j])
            ):
                j += 1  # "Staff Nurse", "Frau Dr."
            nxt = bare_word(toks[j])
            after = nxt.lower()  # "frau koch", "mrs chen": a surname after a title
            if (
                (
                    capitalised(nxt)
                    or not ordinary(nxt, 2 if low in KIN_TITLES else 0)  # "uncle segun"
                    or surname(after)
                    or given_name(after)
                )
                and after not in JOINS | COMMON | CUES | function  # "nurse na": a particle
                and not (
                    after in PERSON_VERBS and not capitalised(nxt)  # "prof said", "mr said"
                )
                and (capitalised(nxt) or low not in FAR_TITLES or given_name(after))
            ):
                words = [t.rstrip(".") + ("." if t.endswith(".") else "") for t in toks[i:j]]
                words.append(nxt)
                evidence = "honorific"
                i = j + 1
        if words:
            pass
        elif (
            low in FAMILY
            and (i == 0 or is_cue(prev) or prev in WEAK_CUES or prev in JOINS)
            and not (i + 1 < len(toks) and capitalised(toks[i + 1]))
        ):
            words = [bare_word(tok)]  # "ring mum", "get gran a charger": someone, not a word
            evidence = "family"
            i += 1
        elif (run := cue_run(toks, i)) > i:
            words, evidence, i = [bare_word(t) for t in toks[i:run]], "cue", run  # "Te Rangi"
        elif (
            capitalised(tok)
            and not shorthand(low)
            and not calendar(toks, i)
            and not after_article(i)
            and could_be_named(i)
            # "Recycle the old laptops", "Bake a cake": a sentence's first word before "the"
            # is its verb, unless it is someone's name
            and not (
                sentence_start(i)
                and following(i) in DETERMINERS
                and not given_name(low)
                and not appositive(i)
            )
            and not identifier(tok)
            and not firm_pair(toks, i)  # "a Ben & Jerry's style": a firm
            and not (
                compound(low) and not given_name(low) and not full_pair(toks, i)
            )  # "Zahnarzttermin"
            and not shop_or_place(i)
            and not street(toks, i)  # "14 Jackson Road", "Chelsea Road refurb"
            and not known.other_type(bare_word(tok))
            # CAF, MOT: no name; but a given name in capitals after a contact word is one
            and not (len(low) > 1 and tok.isupper() and not (is_cue(prev) and given_name(low)))
            and not (shop(toks, i) and not known.person(bare_word(tok)))  # "a McDonald's": a shop
            and not place(i)
            # "my mum's Toyota Corolla", "Sarah's Kindle": what someone has, not someone
            and not (i > 0 and POSSESSIVE.search(toks[i - 1]) and not name_word(i))
        ):
            words = [bare_word(tok)]
            # "Teodora leads the rollout", "ask Will", "review Marek's PR"
            said = sentence_start(i) or POSSESSIVE.search(tok) and given_name(low)
            if said and (subject(i) or appositive(i)) or ambiguous(low):
                evidence = "subject"  # "Teodora leads the rollout", "ask Will"
            i += 1
        elif (
            tok.islower()
            and (is_cue(prev) or prev in JOINS and out and out[-1].evidence != "guess")
            and (
                not ordinary(bare_word(tok), 1)
                # after "and" or a comma, a word is one of a list of names only right after
                # a name ("Priya, marco and sam", but "anrufen, sie hat Geburtstag")
                and (is_cue(prev) or taken == i - 1 or only_a_name(bare_word(tok).lower()))
                or bare_word(tok) in NAME_WORDS
                and prev != "and"
                or is_cue(prev)
                and stray(bare_word(tok).lower())
            )
            and (len(bare_word(tok)) > 2 or is_cue(prev) and short_name(tok))  # "w/ jo"
        ):
            words = [bare_word(tok)]
            # "coffee w priya": a name if the model agrees; a given name that is no word
            # ("txt wendell") is one on this evidence alone
            # ("txt wendell"), or a given name no everyday word is after a contact verb
            # ("txt wendy") is one on this evidence alone
            bare = bare_word(tok).lower()
            named = (
                only_a_name(bare) or is_cue(prev) and given_name(bare) and not everyday_word(bare)
            )
            evidence = "cue" if named else "cue-lower"
            i += 1
        elif known.person(bare_word(tok)) and (capitalised(tok) or not ordinary(bare_word(tok))):
            words = [bare_word(tok)]
            i += 1
        elif (
            tok.islower()
            and not shorthand(low)
            and (i == 0 or prev in WEAK_CUES or told(toks, i) or handle(text, spans[i].start()))
            and (
                not ordinary(bare_word(tok), 2 if (i == 0 or told(toks, i)) and said_of(i) else 0)
                or i == 0
                and given_name(low)
                and subject(i)
            )
            and not is_cue(tok)  # "rmind dotty": a cue typed in a hurry, no name
            and len(bare_word(tok)) > 2
            and (bare_word(tok).isalpha() or hyphen_name(low))  # "ji-woo", not "pop-up"
        ):
            # "lucía works at the hospital": a name only if the model says a person is named;
            # on better evidence when something is said of it ("santiago teaches…")
            words = [bare_word(tok)]
            strong = i == 0 and subject(i) or POSSESSIVE.search(tok) or told(toks, i)
            strong = strong or handle(text, spans[i].start())  # "@dana ptal": addressed
            evidence = "subject" if strong else "guess"
            if evidence == "guess" and only_a_name(bare_word(tok).lower()) and subject(i):
                evidence = "subject"  # "moritz is organising the reunion"
            i += 1
        elif (
            tok.islower()
            and POSSESSIVE.search(tok)
            and not ordinary(bare_word(tok), 2)
            and not shop(toks, i)  # "the tailor's", "her nonna's ragù": no one of the person's own
            and len(bare_word(tok)) > 2
            and bare_word(tok).isalpha()
        ):
            words = [bare_word(tok)]  # "sign imogen's card": someone's
            evidence = "subject"
            i += 1
        if not words:
            prev = tok.lower()
            i += 1
            continue
        # A name does not run on across an arrow ("ping Bob → Kiln": Bob, then a project).
        stop = next((k for k in range(i, len(toks)) if ARROW_GAP.search(before(k))), len(toks))
        i = extend_name(toks[:stop], i, words, evidence, ordinary, known)
        if i < stop and toks[i] in AFTER_TITLES and any(capitalised(w) for w in words):
            words.append(toks[i])  # "Mori sensei", "Tanaka san": the title after the name
            i += 1
        # "Dinner with Ada Lovelace": a given name before the name is its first name, even a
        # given name that is also a word ("with Rosa Parks", "Will Byers")
        if (
            words
            and capitalised(words[0])
            and start > taken
            and capitalised(toks[start - 1])
            and (
                given_name(bare_word(toks[start - 1]).lower())
                # "Tupac Quispe": before a surname, a capitalised word no everyday English
                # word is ("Tupac", but "Ask Quispe", "Thank Okafor") is the first name
                or len(words) == 1
                and surname(words[0].lower())
                and not everyday_word(bare_word(toks[start - 1]).lower())
                and not is_cue(toks[start - 1])
                and not shorthand(bare_word(toks[start - 1]).lower())
            )
            and bare_word(toks[start - 1]).lower() not in COMMON | CUES | HONORIFICS
            and not POSSESSIVE.search(toks[start - 1])
            and not identifier(toks[start - 1])
        ):
            start -= 1
            words.insert(0, bare_word(toks[start]))
            if evidence in ("capitalised", "guess"):
                evidence = "fullname"
        if (
            words
            and capitalised(words[0])
            and start > taken
            and bare_word(toks[start - 1]).lower() in NICKNAMES
            and capitalised(toks[start - 1])
            and given_name(words[0].lower())
        ):
            start -= 1  # "Big Steve at the scrapyard": his nickname, whole
            words.insert(0, bare_word(toks[start]))
        if evidence == "capitalised" and start > 0 and cue_before(toks, start):
            evidence = "cue"
        if evidence in ("capitalised", "guess") and start > 0 and toks[start - 1] in JOINS and out:
            # "Priya and marco", but not "Mr Chaudhry from the cash and carry"
            evidence = "cue" if out[-1].strong and taken == start - 1 else evidence
        if start > 2 and toks[start - 1].lower() in ("called", "named") and owned(toks, start - 2):
            taken, prev = i, ""
            continue  # "a husky called Luna": a pet's name or a thing's
        if no_one(toks, start, i):
            taken, prev = i, ""
            continue  # a street, a brand, a pet, a town ("a Ted Baker gift card")
        if evidence == "capitalised" and sum(1 for w in words if capitalised(w)) >= 2:
            evidence = "fullname"  # "Kalani Kahale": two names together are someone
        if (
            evidence in ("guess", "cue-lower")
            and len(words) >= 2
            and not any(capitalised(w) for w in words)
            and surname(words[-1].lower())
        ):
            evidence = "fullname"  # "abena mensah", "remind chidi okeke": the surname says so
        emit(words, evidence)
        taken = i
        prev = ""
    # "mpigie Mama Wanjiku": who capitalises one name capitalises the others, so a word
    # guessed a name in lower case is a word (a verb of another language); so is one of no
    # given name in a Tagalog or Swahili line ("pupunta ako sa")
    drop = {g for g in lower_guesses if capital_found or function and not given_name(g)}
    if drop:
        return [m for m in out if m.record or m.name.lower() not in drop]
    return out
