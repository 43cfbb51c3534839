"""Word lists the person finder (``classify/entities.py``) reads a thought's context with.

- :data:`NAME_WORDS`: given names that are also words (a month, a modal verb, a flower, a
  bill): a person where the context says so ("ask Will", "June says", "Rose's recipe"), a
  word elsewhere ("in June", "will it rain", "the bill").
- :data:`PERSON_VERBS`: what people do, said of a subject: a capitalised word before one of
  these is someone ("Teodora leads the rollout", "Jürgen arbeitet", "Rocío empieza").
- :data:`TITLES`: words that open a name as "Dr." does, in the jobs and languages thoughts
  come in ("Sister Adaeze", "Judge Whitlock", "Oma Hildegard", "Dona Amélia").
- :data:`NOT_BEFORE_NAME`: words after which a name-word is a word ("the", "in", "early").
- :func:`ends_in_place_cue` (:func:`place_cues`): phrases after which a capitalised word is
  a place ("moved to", "lives in", "back from").
- :func:`given_name`, :func:`surname`, :func:`frequent_word`: three word lists shipped under
  ``corpus/`` (made by ``bench/build_wordlists.py``): given names and surnames of 80-odd
  locales (Faker's person providers, MIT) and the words people write most in fourteen
  languages, English apart and in two tiers (wordfreq's lists, CC-BY-SA 4.0). A frequent word that is no given name
  ("Paint", "Boots", "Bellen", "anxious") is never a name on its own; a given name that is
  no frequent word ("wendell", "Thandiwe") is one even in lower case. Each list is read on
  first use and kept as one sorted string (a binary search finds a word): about 2 MB for
  the four instead of some 15 MB as Python sets.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from vaultbrain.resources import data_dir

NAME_WORDS = frozenset(
    """
    will may june april august summer autumn winter
    rose lily daisy iris ivy holly hazel heather violet jasmine poppy fern willow olive
    ruby pearl crystal amber jade opal coral saffron clover blossom
    grace hope faith joy charity patience mercy constance prudence verity honor
    bill mark jack frank pat sue drew rob bob ray dawn sky robin hunter penny angel sunny
    rock sterling chase chip bud art guy gene don dean rusty sandy earl miles wade cliff
    glen dale brook river storm rain ash bay reed forest honey ginger misty star destiny
    harmony melody liberty trinity victor hank buck sonny neil carol noel christian
    """.split()
)
# months (and "may") are dates after these, and before a day number
MONTH_NAMES = frozenset({"may", "june", "april", "august"})


# articles of the languages people write (not "a", "de", "la", "le": a preposition or part
# of a name in one of them: "llamar a Carmen", "Anneke de Vries", "Marine Le Pen")
ARTICLES = frozenset(
    "the an der die das dem den des ein eine einen einem einer het el los las il lo gli "
    "un una une uno".split()
)
CALENDAR_NAMES = MONTH_NAMES | {"easter", "christmas", "whitsun", "pentecost"}
TIME_PREPOSITIONS = frozenset("for to till until from through over since around".split())
DETERMINERS = {"the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that"}
DETERMINERS |= {"these", "those", "some", "all", "any", "every", "de", "het", "een", "il", "la"}
DETERMINERS |= {"le", "les", "un", "una", "uno", "der", "die", "das", "den", "dem", "ein", "eine"}
# what stands between a contact verb and its object in the languages people write
LINKERS = frozenset("to para pra a à al o la".split())
KNOW = frozenset({"know", "no", "knw"})  # "let dayo know", and dictation's homophones

PERSON_VERBS = frozenset(
    """
    says said told tells asked asks wants wanted needs needed thinks thought reckons reckoned
    knows knew loves loved likes liked hates hated works worked lives lived moved moves
    has had got gets called calls rang texted emailed sent sends mentioned suggested
    recommended invited invites offered agreed promised owes owed plays played teaches taught
    coaches coached runs ran leads led manages managed starts started joined left retired
    visited visits cooked cooks makes made bought buys gave gives lent lends borrowed fixed
    fixes helped helps won lost turned speaks spoke studies studied writes wrote paints
    painted sings sang dances danced surfs swims drives drove organises organized organised
    charges charged collects builds built restores repairs translated translates volunteers
    coordinates handles handled founded owns owned runs married divorced pitched emails
    phoned replied replies confirmed cancelled booked hosts hosted brought brings is was
    sagt sagte hat hatte arbeitet wohnt kommt kam spielt fragt fragte braucht will wollte
    kennt liebt unterrichtet fährt macht baut leitet
    dit disait travaille habite vient veut joue connaît aime cherche commence fait
    dice dijo tiene trabaja vive viene quiere juega empieza conoce sabe llama llamó
    vuelve volvió llega llegó sale salió
    va revient arrive rentre part
    diz disse tem trabalha mora vem quer joga começou começa voltou mudou conhece sabe
    volta chega
    """.split()
)
# verbs so general that a word before them is as likely a thing ("Kubernetes is down")
WEAK_VERBS = frozenset({"is", "was", "has", "had", "got", "gets", "runs", "ran", "ist", "hat"})

TITLES = frozenset(
    """
    sister judge matron councillor councilor coach father pastor rabbi imam reverend rev
    captain capt sergeant sgt officer dame sir lady lord nurse staff
    nana nan nanna granny gran grandma grandpa grandad granddad grandmother grandfather
    oma opa mamie papy papi mamé abuela abuelo abuelita abuelito avó avô vovó vovô
    tia tio tía tío tata dona don doña señora señor senhora senhor frau herr
    fräulein madame monsieur mme mlle mister miss missus mr mrs ms mx dr prof st
    uncle aunt auntie aunty cousin onkel tante oncle zio zia professor
    mama baba bibi babu mzee tita tito kuya lola lolo manang manong sheikh ustaz
    """.split()
)
# titles that are no word of their own when typed in lower case: the word after one is a
# name unless it is an everyday word ("uncle segun", "dr okafor", but "dr appointment")
KIN_TITLES = frozenset(
    """
    uncle aunt auntie aunty cousin onkel tante oncle zio zia tia tio tía tío dr mr mrs ms mx
    prof professor pastor nana nanna granny grandma grandpa grandad granddad abuela abuelo
    """.split()
)
# the titles above from cultures the word lists know least: before a word in lower case,
# a title only if that word is a given name ("baba ganoush" is a dish, "mama Wanjiru" someone)
FAR_TITLES = frozenset(
    "mama baba bibi babu mzee tita tito kuya lola lolo manang manong sheikh ustaz".split()
)
# titles that are also an everyday word ("ate": a Tagalog elder sister, and the past of
# "eat"): a title only capitalised inside a sentence before a capitalised name ("si Ate Joy")
CAPITAL_TITLES = frozenset({"ate"})
# titles written after the name, in lower case ("Mori sensei", "Tanaka san", "Sharma ji"):
# part of the name, as "uncle" is before one
AFTER_TITLES = frozenset("sensei senpai sama san kun ji sahib saheb".split())

# words that open a title as "Charge" opens "Charge Nurse Kowalski" ("Senior Partner",
# "Head Chef", "Detective Sergeant")
TITLE_MODIFIERS = frozenset(
    """
    charge senior junior head chief deputy staff district practice police detective ward
    lance petty vice assistant associate managing principal executive sous master
    """.split()
)
# a nickname's first word, part of the name it opens ("Big Steve", "Little Jo", "Wee Davie")
NICKNAMES = frozenset("big little lil wee young old auld".split())
# the relatives of someone else ("her nonna's ragù", "his gran"): no one of the person's own
OTHERS = frozenset("his her their your its the a an".split())

# family words that are someone on their own ("ring mum", "get gran a charger")
FAMILY = frozenset(
    """
    mum mom mam mummy mommy dad daddy gran granny nan nana nanna grandma grandpa grandad
    granddad oma opa omi opi mama papa mutti vati mamie papy abuela abuelo abuelita
    abuelito avó avô vovó vovô
    """.split()
)

# Hindi and Urdu written in Latin letters (no wordfreq list has them): postpositions,
# pronouns, auxiliaries, the commonest verbs and adverbs. In a line with two of them or
# more, none is a name ("Rohan bhaiya ko call karna", "aaj ka din"); English spellings of
# the same letters ("to", "me", "is", "main", "par") are left out.
ROMAN_HINDI = frozenset(
    """
    hai hain tha thi thay ho hoga hogi hoge hua hui hue ka ki ke ko se mein mai pe aur
    bhi nahi nahin nai kya kyun kyu kaise kab kahan yeh ye woh wo vo iss uss mera meri mere
    tera teri tere apna apni apne hum tum aap unka unki unke uska uski uske karna karni
    karne karo karenge kiya kiye raha rahi rahe gaya gayi gaye aaj kal abhi bahut bohot
    bohat thoda zyada yaar yar accha acha achha theek thik chalo bas sab kuch koi jab tab
    agar lekin phir toh hota hoti wala wali wale jaana jana jaldi baad pehle saath liye
    lena dena bolna bolo batana batao milna chahiye sakta sakti
    """.split()
)
# Tagalog and Swahili mixed with English (Taglish, Sheng): markers, pronouns, particles,
# conjunctions and the commonest adverbs. As with Hindi, in a line with two different ones
# none is a name ("leo nimechoka sana": today I'm very tired; "si Ate Joy ay nurse na"),
# and a name after a marker stays one ("ni Lola Remy"). English words are left out ("at",
# "may"), and so are words a Romance line has twice ("la", "ya").
TAGALOG = frozenset(
    """
    ang ng mga sa si ni kay sina nina kina na ay ko mo niya namin natin nila ako ikaw siya
    kami tayo sila po ba pa naman lang din rin daw raw nga yung iyong ito iyan iyon dito
    diyan doon hindi oo wala mag bago kasi pero tapos talaga sobra ngayon bukas kahapon
    salamat
    """.split()
)
SWAHILI = frozenset(
    """
    na ni wa za kwa vya sana leo kesho jana sasa hapa huko pale mimi wewe yeye sisi wao
    lakini kama pia bado hii hiyo ile huyu yule kwenye nini gani wapi lini ndiyo hapana
    asante habari nzuri sawa pole karibu tafadhali kuhusu mpaka hadi baada kabla
    """.split()
)
# Tagalog's "sa" (in, at, to): a capitalised word after it is a place or a time ("sa
# London", "sa Sunday"), in a Tagalog line
LOCATIVES = frozenset({"sa"})


def mixed_function_words(words: set[str]) -> frozenset[str]:
    """The Tagalog and Swahili function words that are no names in a line of these
    lowercase ``words``: those of each language it has two different ones of."""
    out: frozenset[str] = frozenset()
    for lang in (TAGALOG, SWAHILI):
        if len(words & lang) >= 2:
            out |= lang
    return out


# auxiliaries of the other languages thoughts come in, before a verb of theirs: a name
# before one is its subject ("Thibault a trouvé", "Rodrigo vai casar", "Lucía ha dicho")
FOREIGN_AUXILIARIES = frozenset(
    "a est va ha han está esta estão vai foi tem è sta heeft gaat wird ist hat".split()
)

# what is done at a shop, a restaurant or a firm: a name after "at" or "via" in a line with
# one of these is the place ("book the tables at Nando's", "ship the returns via Evri"), and
# after "from" in a line with a buying verb ("buy the wardrobe from Argos"); "dinner at
# Yara's", "borrow the tent from Robin", "met via Kate" name someone
BUYING_VERBS = frozenset("buy buying bought order ordering ordered purchase purchased".split())
RETAIL_VERBS = BUYING_VERBS | frozenset(
    "book booked reserve reserved return returned ship shipped shop refund exchange price".split()
)

# nouns of people that no agent ending (-er, -ist, -ian) shows: "a guy called Dave" names
# someone, "a husky called Luna" a pet
PERSON_NOUNS = frozenset(
    """
    guy bloke man woman lady girl boy lad lass chap fella dude kid child baby son daughter
    nephew niece cousin friend mate colleague neighbour neighbor someone person gentleman
    student client boss coach nurse vet chef husband wife girlfriend boyfriend partner
    """.split()
)

NOT_BEFORE_NAME = frozenset(
    """
    the a an in by until till since of early late mid next last this before after during
    end every each per our my your their his her its that these those on at from
    whether if when
    """.split()
)

_PLACE_CUES = (
    r"(?:\b(?:mov(?:e|ed|es|ing)|go(?:ing|es)?|went|fl(?:y|ew|ying)|travel\w*|trip|back|"
    r"driv(?:e|ing)|drove|relocat\w*|holiday|visit(?:ing)?|days?\s+in|week\s+in|"
    r"flights?|coach|train|bus|ferry)"
    r"(?:\s+(?:up|down|over|out|back|across))?\s+to"
    # "coach from Victoria to Bristol", "flights from Lagos"
    r"|\b(?:coach|train|bus|ferry|flights?)\s+from(?:\s+\S+\s+to)?"
    r"|\b(?:in|near|around|outside|inside)"
    r"|\b(?:based|born|living|lives|live|works?|working|studying|studies|stays?|staying)\s+in"
    r"|\b(?:back|is|'s|am|are|was|were|came|comes?|flew|moved|originally|just|returned)\s+from"
    r"|\b(?:nach|aus|en|au|aux|em)"
    # a move in the Romance languages: "se muda a", "mudou-se para", "déménage à"
    r"|\b(?:mud\w*|déménag\w*|vai|vou|voy|fue|foi|viaj\w*|volv\w*|trasfer\w*|trasloc\w*)"
    r"(?:-se)?\s+(?:a|à|para|pra)"
    r")\s*$"
)


@functools.cache
def place_cues() -> re.Pattern[str]:
    """Compiled on first use: a cold process that meets no capitalised word never needs it."""
    return re.compile(_PLACE_CUES, re.I)


# The last word of each cue above. A text that ends in none of them cannot match, and needs
# no pattern: compiling it is a few ms of a cold capture, whose name most often follows
# "with" or "met". What re.I matches to "i" and casefold() does not: the dotted and the
# dotless capital I (every other letter of these words casefolds as re.I matches it).
_CUE_ENDS: tuple[str, ...] = ("to", "in", "near", "around", "outside", "inside", "from")
_CUE_ENDS += ("nach", "aus", "en", "au", "aux", "em", "a", "à", "para", "pra")
_DOTLESS = str.maketrans({"\u0130": "i", "\u0131": "i"})


def ends_in_place_cue(text: str) -> bool:
    """``text`` ends in a phrase after which a capitalised word is a place ("moved to ",
    "lives in ", "back from "): :func:`place_cues`, compiled only when it could match."""
    tail = text.rstrip().translate(_DOTLESS).casefold()
    return tail.endswith(_CUE_ENDS) and place_cues().search(text) is not None


# nouns of other languages that are capitalised, or endings no name has ("-ung", "-heit")
GERMAN_STOPWORDS = frozenset(
    "der die das und ist nicht ein eine einen mit für bis am zum zur im vom beim auf aus bei "
    "dem den des wegen noch schon auch sich hat habe heute morgen".split()
)
GERMAN_NOUN_ENDINGS = (
    "ung",
    "heit",
    "keit",
    "schaft",
    "tion",
    "ität",
    "nis",
    "tum",
    "termin",
    "vertrag",
    "rechnung",
    "berater",
    "ende",
    "chen",
    "lein",
    "amt",
    "arzt",
    "geld",
    "gebühr",
    "versicherung",
    "erklärung",
    "antrag",
    "steuer",
    "wagen",
    "haus",
    "platz",
    "straße",
)


def is_german(toks: list[str]) -> bool:
    lows = [t.lower() for t in toks]
    german = sum(1 for t in lows if t in GERMAN_STOPWORDS)
    return german >= 1 and german >= sum(1 for t in lows if t in ENGLISH_STOPWORDS)


ENGLISH_STOPWORDS = frozenset("the and is to of for with on at my by this that it".split())


def one_vowel_more(word: str) -> list[str]:
    """``word`` with one vowel put back ("rmind" → "remind"): phone typing drops them."""
    return [word[:k] + v + word[k:] for k in range(len(word) + 1) for v in "aeiou"]


# -- the shipped word lists ----------------------------------------------------------------
class SortedWords:
    """A sorted word list, one word a line, kept as its UTF-8 bytes (whose order is the
    words' order): ``word in words`` is a binary search over the bytes themselves, which
    needs no table of the lines built first (a cold capture reads a few words of lists of
    50,000) and is compact where a set of 100,000 strings is not."""

    def __init__(self, data: bytes) -> None:
        # the lists are written sorted, after a header of "#" lines: no copy is sorted here
        start = 0
        while data.startswith(b"#", start):
            nl = data.find(b"\n", start)
            start = len(data) if nl < 0 else nl + 1
        self._data = data[start:].rstrip(b"\n")

    def __len__(self) -> int:
        return self._data.count(b"\n") + 1 if self._data else 0

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word or "\n" in word:
            return False
        key, data = word.encode("utf-8"), self._data
        lo, hi = 0, len(data)  # the lines that start in [lo, hi) are left; lo starts one
        while lo < hi:
            mid = (lo + hi) // 2
            start = max(lo, data.rfind(b"\n", lo, mid) + 1)  # the line holding mid
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            line = data[start:end]
            if line == key:
                return True
            if line < key:
                lo = end + 1
            else:
                hi = start
        return False


@functools.cache
def word_list(name: str) -> SortedWords:
    """One of the shipped lists (``given-names``, ``surnames``, ``common-words``), read on
    first use; empty when the file is missing."""
    path = data_dir("corpus") / f"{name}.txt"
    try:
        return SortedWords(path.read_bytes())
    except OSError:
        return SortedWords(b"")


# letters NFKD does not split into a base letter and a mark ("ł" is no "l" with an accent)
_UNSPLIT = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ı": "i", "ß": "ss", "æ": "ae", "œ": "oe"})


def folded(word: str) -> str:
    """``word`` without its accents, as the lists' romanised names are written
    ("małgorzata" → "malgorzata", "yılmaz" → "yilmaz", "oisín" → "oisin")."""
    bare = unicodedata.normalize("NFKD", word.translate(_UNSPLIT))
    return "".join(ch for ch in bare if not unicodedata.combining(ch))


def given_name(word: str) -> bool:
    """A given name in some locale (``word`` lowercase; with or without its accents, as
    Faker's romanised lists write many: "Małgorzata" is there as "malgorzata")."""
    names = word_list("given-names")
    return word in names or not word.isascii() and folded(word) in names


def surname(word: str) -> bool:
    names = word_list("surnames")
    return word in names or not word.isascii() and folded(word) in names


def foreign_word(word: str) -> bool:
    """A frequent word of one of the lists' other languages that English writes rarely if at
    all ("pracuje", "teraz", "gaz", "jas")."""
    return word in word_list("common-words") and word not in word_list("common-words-en")


def everyday_word(word: str) -> bool:
    """A word written ten times per million English words or more ("will", "love", "john"):
    a given name that is one of these is a name only by context."""
    return word in word_list("everyday-words-en")


def frequent_word(word: str, rare: bool = True) -> bool:
    """A word of one of the lists' languages, written once per million words or more;
    ``rare``: English down to one in three million words too ("cellist", but "suki")."""
    if word in word_list("common-words-en") or word in word_list("common-words"):
        return True
    return rare and word in word_list("rare-words-en")


def compound(word: str) -> bool:
    """A long word made of two frequent ones ("zahnarzttermin", "marathonvorbereitung",
    "belastingaangifte"), as Dutch and German nouns are: no name."""
    if len(word) < 9:
        return False
    for j in range(4, len(word) - 3):
        head, tail = word[:j], word[j:]
        if frequent_word(tail) and (frequent_word(head) or frequent_word(head.rstrip("s"))):
            return True
    return False


def only_a_word(word: str, context: int = 0) -> bool:
    """A frequent word that is no one's given name ("paint", "boots", "bellen", "anxious"):
    not a name unless a title, the vault or a full name says so. ``context``: 1 when a cue
    says a person may be meant ("tell suki"): rare English words may be names then; 2 when
    something is said of them ("sanjay's", "raj wants"): any but everyday English words."""
    if given_name(word):
        return False
    if context == 1 and surname(word) and not everyday_word(word) and not foreign_word(word):
        return False  # "call nguyen", "remind okafor": a surname no everyday word is
    if context >= 2:
        return everyday_word(word)
    return frequent_word(word, rare=not context)


def only_a_name(word: str) -> bool:
    """A given name that is no frequent word ("wendell", "thandiwe", "moritz"): a name even
    typed in lower case."""
    return word not in NAME_WORDS and given_name(word) and not frequent_word(word)


# a syllable of Korean as names romanise it, by the Revised Romanization or the older
# spellings ("ji", "woo", "yeon", "hyun", "young", "hee")
_SYLLABLE = re.compile(
    r"(?:kk|tt|pp|ss|jj|ch|[gkndtrlmbpsjh])?"
    r"(?:yae|wae|yeo|woo|yoo|you|ae|ya|eo|ye|wa|oe|yo|oo|wo|we|wi|yu|eu|ui|ee|[aeiou])(?:ng|[knlmpt])?"
)


def hyphen_name(word: str) -> bool:
    """A hyphenated given name (``word`` lowercase): given names joined ("jean-luc",
    "anna-lena") or two romanised Korean syllables, not both everyday words ("ji-woo",
    "so-yeon", but "pop-up", "go-kart", "follow-up", "co-op" are words)."""
    parts = word.split("-")
    if len(parts) < 2 or not all(parts):
        return False
    if all(given_name(p) for p in parts):
        return True
    return (
        len(parts) == 2
        and all(_SYLLABLE.fullmatch(p) for p in parts)
        and not all(everyday_word(p) for p in parts)
    )
