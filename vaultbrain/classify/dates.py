"""Due dates in thoughts, in English, German, French, Spanish and Portuguese, and in the
shorthand people type on phones ("thurs", "tmrw", "by the 15th", "end of q2", "eom").

A small parser of our own: dateparser covers far more than an inbox line needs and costs a
third of a second to import, which the capture command's cold start cannot afford. Each kind
of phrase is one pattern and one resolver; :func:`find_date` takes the phrase that starts
first (the longest, when two start at the same word) and returns it with the words that
named it, cue included ("by Friday", "am Dienstag"), so a title can leave them out.

Conventions, as most people mean them: "next Tuesday" (and "nächsten Dienstag", "mardi
prochain") is the coming Tuesday; a day of the month or a date that has passed this year is
the next one; "end of q2" is 30 June, or next year's once this year's has passed; "next week"
is a week from today.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable

from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.tasks import days_in_month

# -- words ---------------------------------------------------------------------------------
_DAYS = {
    0: "monday montag lundi lunes segunda-feira",
    1: "tuesday dienstag mardi martes terça-feira terca-feira",
    2: "wednesday mittwoch mercredi miércoles miercoles quarta-feira",
    3: "thursday donnerstag jeudi jueves quinta-feira",
    4: "friday freitag vendredi viernes sexta-feira",
    5: "saturday samstag sonnabend samedi sábado sabado",
    6: "sunday sonntag dimanche domingo",
}
WEEKDAYS = {w: i for i, words in _DAYS.items() for w in words.split()}
# Abbreviations that are no other word: a date alone ("dentist thurs 3pm").
_SAFE_ABBR = {"tue": 1, "tues": 1, "weds": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
# Abbreviations that are also words ("mon" is French for "my", "sat", "sun", "wed", "do",
# "so", "quinta" a farm): a date only after a cue ("on sat", "bis Fr.", "na quinta").
_CUED_ABBR = {"mon": 0, "wed": 2, "sat": 5, "sun": 6}
_CUED_ABBR |= {"mo": 0, "di": 1, "mi": 2, "do": 3, "fr": 4, "sa": 5, "so": 6}  # German, with a dot
_CUED_ABBR |= {"segunda": 0, "terça": 1, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4}
WEEKDAY_ABBR = {**_SAFE_ABBR, **_CUED_ABBR}
_MONTHS_BY_NUMBER = {
    1: "january jan januar jänner janvier enero janeiro",
    2: "february feb februar février fevrier febrero fevereiro",
    3: "march mar märz maerz mars marzo março marco",
    4: "april apr avril abril",
    5: "may mai mayo maio",
    6: "june jun juni juin junio junho",
    7: "july jul juli juillet julio julho",
    8: "august aug août aout agosto",
    9: "september sep sept septembre septiembre setiembre setembro",
    10: "october oct oktober okt octobre octubre outubro",
    11: "november nov novembre noviembre novembro",
    12: "december dec dezember dez décembre decembre diciembre dezembro",
}
MONTHS = {w: n for n, words in _MONTHS_BY_NUMBER.items() for w in words.split()}
# the first two words of each month are English: "january jan"
_ENGLISH_MONTHS = {w for n in range(1, 13) for w in _MONTHS_BY_NUMBER[n].split()[:2]} | {"sept"}
_NUMBERS = {
    1: "a an one ein eine einen einem einer un une um uma",
    2: "two couple zwei deux dos dois duas",
    3: "three few drei trois tres três",
    4: "four vier quatre cuatro quatro",
    5: "five fünf cinq cinco",
    6: "six sechs seis",
    7: "seven sieben sept siete sete",
    8: "eight acht huit ocho oito",
    9: "nine neun neuf nueve nove",
    10: "ten zehn dix diez dez",
    11: "eleven elf onze once",
    12: "twelve zwölf douze doce",
    15: "fifteen quinze quince",
}
NUMBERS = {w: n for n, words in _NUMBERS.items() for w in words.split()}
# unit word -> days (a month is counted in months: 30 stands for "one month")
_UNITS = {
    1: "day days tag tage tagen jour jours día días dia dias",
    7: "week weeks woche wochen semaine semaines semana semanas",
    14: "fortnight fortnights",
    30: "month months monat monate monaten mois mes meses mês",
}
UNITS = {w: n for n, words in _UNITS.items() for w in words.split()}


def _alt(words: Iterable[str]) -> str:
    """A regex alternation of words, the longest first (so "thurs" is not read as "thu")."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_W = r"(?<![\w'’-])"  # a word starts here (an apostrophe or hyphen joins words: "c'mon")
_E = r"(?![\w'’])"  # and ends here
_DAY = _alt(WEEKDAYS)
_SAFE = _alt(_SAFE_ABBR)
_CUED = _alt(_CUED_ABBR)
_MONTH = _alt(MONTHS)
_NUM = _alt(NUMBERS)
_UNIT = _alt(UNITS)
_ORD = r"(?:st|nd|rd|th|er|re|º|ª|o|a|\.)"  # 1st, 1er, 1º, 1. (German)
# Cues before a weekday or a date: "on", "by", "next", "am", "bis", "nächsten", "ce", "el"…
_CUE_EN = r"next|this|coming|on|by|before|until|till|til|due|from|for|after|this coming"
_CUE_DE = r"am|bis|ab|nächsten|nächste|nächster|naechsten|kommenden|kommender|diesen|bis zum|bis spätestens"
_CUE_FR = r"ce|le|d'ici|d’ici|avant|jusqu'à|jusqu’à|dès|pour"
_CUE_ES = r"el|este|esta|el próximo|el proximo|la próxima|hasta el|antes del|para el|el día"
_CUE_PT = r"na|no|até|ate|próxima|proxima|próximo|proximo|nesta|neste|esta|este|de"
_CUE = "|".join(
    sorted(
        {*"|".join([_CUE_EN, _CUE_DE, _CUE_FR, _CUE_ES, _CUE_PT]).split("|")}, key=len, reverse=True
    )
)
_NEXT_AFTER = r"prochain|prochaine|que viene|que vem"  # "mardi prochain", "el martes que viene"

# -- patterns: (kind, regex) ----------------------------------------------------------------
_RAW: list[tuple[str, str]] = [
    ("iso", r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    # 15.3. / 15.03.2027 / 15/03/2027 (day first, as in Europe; a month over 12 swaps them)
    ("numeric", r"(?<![\d.,/])(\d{1,2})([./])(\d{1,2})(?:[./](\d{4}|\d{2})\b|\.(?!\d))"),
    (
        "relative",
        _W
        + r"(?:(?:the\s+)?day\s+after\s+tomorrow|übermorgen|uebermorgen|après-demain|apres-demain"
        r"|pasado\s+mañana|pasado\s+manana|depois\s+de\s+amanhã|depois\s+de\s+amanha)" + _E,
    ),
    (
        "relative",
        _W + r"(?:today|tonight|this\s+(?:morning|afternoon|evening)|eod|end\s+of\s+(?:the\s+)?day"
        r"|cob|close\s+of\s+business|heute(?:\s+abend)?|aujourd'hui|aujourd’hui|ce\s+soir"
        r"|hoy|esta\s+noche|hoje|esta\s+noite)" + _E,
    ),
    (
        "relative",
        _W + r"(?:tomorrow|tmrw|tmr|tmrow|tmw|2moro|2morrow|2mrw|tomoz|morgen|demain"
        r"|mañana|manana|amanhã|amanha)" + _E,
    ),
    (
        "weekend",
        _W + r"(?:(?:this|next|the|on\s+the|over\s+the|am|nächstes|ce|le|este|el|neste|no)\s+)?"
        r"(?:weekend|wochenende|week-end|weekend|fin\s+de\s+semana|fim\s+de\s+semana)" + _E,
    ),
    (
        "eow",
        _W + r"(?:(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?week|eow|this\s+week"
        r"|(?:bis\s+)?ende\s+der\s+woche|diese\s+woche|(?:en\s+)?fin\s+de\s+(?:la\s+)?semaine"
        r"|cette\s+semaine|esta\s+semana|(?:a\s+)?finales\s+de\s+(?:la\s+)?semana|esta\s+semana"
        r"|fim\s+da\s+semana|nesta\s+semana)" + _E,
    ),
    (
        "eom",
        _W + r"(?:(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?month|eom|this\s+month"
        r"|(?:bis\s+)?(?:zum\s+)?(?:ende\s+des\s+monats|monatsende|ende\s+(?:des\s+)?monat)"
        r"|(?:à\s+la\s+|en\s+|d'ici\s+(?:la\s+)?)?fin\s+(?:de|du)\s+mois|ce\s+mois-ci"
        r"|(?:a\s+)?(?:fin|finales)\s+de(?:l)?\s+mes|este\s+mes|(?:até\s+o\s+)?fim\s+do\s+mês)"
        + _E,
    ),
    (
        "eoy",
        _W + r"(?:(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?year|eoy|jahresende"
        r"|ende\s+des\s+jahres|fin\s+d'année|fin\s+de\s+l'année|fin\s+de\s+año|fim\s+do\s+ano)"
        + _E,
    ),
    (
        "quarter",
        _W
        + r"(?:(?:(?:by|before|due)\s+(?:the\s+)?(?:end\s+of\s+)?|(?:the\s+)?end\s+of\s+(?:the\s+)?"
        r"|(?:bis\s+)?ende\s+)(q[1-4]|this\s+quarter|quarter)|(eoq))" + _E,
    ),
    (
        "nextweek",
        _W + r"(?:next\s+week|nächste\s+woche|naechste\s+woche|kommende\s+woche"
        r"|la\s+semaine\s+prochaine|la\s+semana\s+que\s+viene|la\s+próxima\s+semana"
        r"|la\s+proxima\s+semana|(?:a\s+|na\s+)?semana\s+que\s+vem|(?:a\s+|na\s+)?próxima\s+semana)"
        + _E,
    ),
    (
        "nextmonth",
        _W + r"(?:next\s+month|nächsten\s+monat|naechsten\s+monat|le\s+mois\s+prochain"
        r"|el\s+mes\s+que\s+viene|el\s+próximo\s+mes|el\s+proximo\s+mes|(?:o\s+)?mês\s+que\s+vem"
        r"|(?:o\s+)?próximo\s+mês)" + _E,
    ),
    (
        "nextyear",
        _W + r"(?:next\s+year|nächstes\s+jahr|l'année\s+prochaine|el\s+año\s+que\s+viene)" + _E,
    ),
    (
        "in",
        _W + r"(?:in|within|dans|en|dentro\s+de|em|daqui\s+a)\s+(?:(?:a|an)\s+)?"
        rf"(\d{{1,3}}|{_NUM})\s+(?:of\s+)?({_UNIT})" + _E,
    ),
    ("in_one", _W + rf"(?:in|within)\s+a\s+({_UNIT})" + _E),
    # "by the 15th", "on the 3rd", "am 15.", "le 1er", "el 15", "avant le 15", "bis zum 3."
    (
        "monthday",
        _W + r"(?:(?:by|on|before|until|till|due|for|from|after)\s+the|the|bis\s+zum|bis|am|zum"
        r"|avant\s+le|le|d'ici\s+le|jusqu'au|el|antes\s+del|hasta\s+el|para\s+el|no\s+dia|até\s+o\s+dia|dia)"
        r"\s+(\d{1,2})(?:st|nd|rd|th|er|º|\.)?(?![\d.,:/])" + _E,
    ),
    (
        "weekday",
        _W + rf"(?:({_CUE})\s+)?({_DAY}|{_SAFE})(?:\s+(?:{_NEXT_AFTER}))?" + _E + r"\.?",
    ),
    (
        "weekday_cued",
        _W + rf"({_CUE})\s+({_CUED})(?:\.|" + _E + r")(?:\s+(?:{_NEXT_AFTER})" + _E + ")?",
    ),
    (
        "dmy",
        _W + rf"(?:(?:by|on|before|until|le|el|am|bis\s+zum|bis|avant\s+le|no\s+dia|dia)\s+)?"
        rf"(\d{{1,2}})(?:{_ORD})?\s+(?:of\s+|de\s+)?({_MONTH})\.?(?:,?\s+(?:de\s+)?(\d{{4}}))?"
        + _E,
    ),
    (
        "mdy",
        _W + rf"(?:(?:by|on|before|until)\s+)?({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?"
        rf"(?:,?\s+(\d{{4}}))?(?![\d:])" + _E,
    ),
    (
        "month_end",
        _W
        + rf"(?:(?:by\s+)?(?:the\s+)?end\s+of|ende|fin|fin\s+de|finales\s+de|fim\s+de)\s+({_MONTH})"
        + _E,
    ),
]
_TOKEN = LazyPattern(r"[^\W_]+")
_ESCAPE = LazyPattern(r"\\.")
_WORD = LazyPattern(r"[^\W_]+(?:['’][^\W_]+)*")  # "c'mon" is one word


# Words in many patterns that name no date by themselves ("the", "by", "am", "le"): every
# match has a word that is not one of these, or a digit.
_GENERIC = frozenset(
    "the a an of by on in to this next end for from until till til before after due at am bis "
    "zum ab le la el de del au aux en em no na o que coming d ici jusqu à para hasta antes dès "
    "pour ce cette este esta neste nesta s t st nd rd th er re within dans dentro daqui".split()
)


def _literals(pattern: str) -> frozenset[str]:
    """The words a pattern spells out that name a date: a text with none of them (and, for
    a pattern with digits, no digit) cannot match it."""
    words = {w.lower() for w in _TOKEN.findall(_ESCAPE.sub(" ", pattern)) if not w.isdigit()}
    if "q" in words:
        words |= {"q1", "q2", "q3", "q4"}
    return frozenset(words - _GENERIC)


# Compiled on first use, and only for a text that could match: one with a pattern's words,
# or for the patterns of digits alone, the digits' shape (a cheap check). A cold ``capture``
# compiles the one or two it needs, not all twenty (some 70 ms of regex compilation).
_SHAPES = {
    "iso": LazyPattern(r"\d{4}-\d\d-\d\d"),
    "numeric": LazyPattern(r"\d[./]\d"),
    # an ordinal ("the 15th", "am 15.", "le 1er"), or a day number after "le", "el", "dia"
    "monthday": LazyPattern(r"\d(?:st|nd|rd|th|er|º|\.)|\b(?:le|el|dia|del|au)\s+\d", re.I),
}
_MONTHDAY_CUES = frozenset(
    "the by on am bis zum le el dia avant antes hasta para jusqu ici até no o due from after "
    "before until till for".split()
)
_TRIGGERS = [(kind, raw, _literals(raw), _SHAPES.get(kind)) for kind, raw in _RAW]


@functools.cache
def _compiled(raw: str) -> re.Pattern[str]:
    return re.compile(raw, re.I)


def _candidates(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The patterns ``text`` could match, by its words (and the shape of its digits)."""
    words = set(_TOKEN.findall(text.lower()))
    out = []
    for kind, raw, lits, shape in _TRIGGERS:
        if shape is not None:
            if not shape.search(text):
                continue
            if kind == "monthday" and words.isdisjoint(_MONTHDAY_CUES):
                continue
        elif words.isdisjoint(lits):
            continue
        out.append((kind, _compiled(raw)))
    return out


# Words after which "morgen"/"mañana" is the morning, not tomorrow ("heute Morgen", "por la
# mañana"), and nouns after which an ordinal is no day of the month ("the 3rd floor").
_MORNING_BEFORE = {"heute", "gestern", "guten", "am", "jeden", "diesen", "den", "einen", "vom"}
_MORNING_BEFORE |= {"la", "esta", "cada", "una", "toda", "las", "mañana", "manana"}
_NOT_A_DAY_AFTER = LazyPattern(
    r"\s+(?:floor|time|times|grade|place|anniversary|birthday|edition|round|century|gear|step"
    r"|attempt|draft|version|chapter|row|try|year|stock|stockwerk|etage|étage|piso|andar|klasse"
    r"|of\s+(?!" + _MONTH + r"))\b",
    re.I,
)


def _add_months(d: dt.date, n: int) -> dt.date:
    month = d.month - 1 + n
    year = d.year + month // 12
    month = month % 12 + 1
    day = min(d.day, days_in_month(year, month))
    return dt.date(year, month, day)


def _safe_date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _month_end(y: int, m: int) -> dt.date:
    return dt.date(y, m, days_in_month(y, m))


def _ahead(today: dt.date, weekday: int) -> dt.date:
    """The coming ``weekday`` (a week ahead when it is today)."""
    return today + dt.timedelta(days=(weekday - today.weekday()) % 7 or 7)


def _this_or_next_year(today: dt.date, month: int, day: int) -> dt.date | None:
    d = _safe_date(today.year, month, day)
    if d is not None and d < today:
        d = _safe_date(today.year + 1, month, day)
    return d


def _before(text: str, start: int) -> str:
    """The word just before ``start``, lowercased."""
    words = text[:start].split()
    return words[-1].lower() if words else ""


# -- resolvers: (match, today, whole text) -> date or None ----------------------------------
def _iso(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def _numeric(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    a, b, year = int(m.group(1)), int(m.group(3)), m.group(4)
    if m.group(2) == "/" and not year:
        return None  # "3/4" is as often a fraction or a score as a date
    day, month = (a, b) if b <= 12 else (b, a)
    if not 1 <= month <= 12:
        return None
    if year:
        y = int(year) + (2000 if len(year) == 2 else 0)
        return _safe_date(y, month, day)
    return _this_or_next_year(today, month, day)


def _relative(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    word = m.group(0).lower()
    if word in ("morgen", "mañana", "manana") and _before(text, m.start()) in _MORNING_BEFORE:
        return None
    if m.group(0) == "Morgen" and m.start() > 0:
        return None  # a German noun mid-sentence: the morning ("am Morgen" is caught above)
    if re.match(r"(?:the\s+)?day\s+after|über|ueber|après|apres|pasado|depois", word):
        return today + dt.timedelta(days=2)
    if re.match(r"tom|tm|2m|morgen|demain|mañana|manana|amanh", word):
        return today + dt.timedelta(days=1)
    return today


def _weekend(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return today if today.weekday() >= 5 else _ahead(today, 5)


def _eow(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return today + dt.timedelta(days=(4 - today.weekday()) % 7)


def _eom(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return _month_end(today.year, today.month)


def _eoy(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return dt.date(today.year, 12, 31)


def _quarter(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    q = (m.group(1) or m.group(2) or "").lower()
    n = int(q[1]) if q[:1] == "q" and q[1:2].isdigit() else (today.month - 1) // 3 + 1
    end = _month_end(today.year, 3 * n)
    return end if end >= today else _month_end(today.year + 1, 3 * n)


def _nextweek(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return today + dt.timedelta(days=7)


def _nextmonth(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return _add_months(today, 1)


def _nextyear(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    return _add_months(today, 12)


def _in(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    raw = m.group(1).lower()
    n = int(raw) if raw.isdigit() else NUMBERS.get(raw, 1)
    unit = UNITS[m.group(2).lower()]
    if unit == 30:
        return _add_months(today, n)
    if unit == 1 and n in (8, 15) and m.group(2).lower() == "jours":
        n -= 1  # "dans huit jours" is a week, "dans quinze jours" a fortnight
    return today + dt.timedelta(days=unit * n)


def _in_one(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    unit = UNITS[m.group(1).lower()]
    return _add_months(today, 1) if unit == 30 else today + dt.timedelta(days=unit)


def _monthday(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    day = int(m.group(1))
    rest = text[m.end() :]
    if not 1 <= day <= 31 or _NOT_A_DAY_AFTER.match(rest):
        return None
    if re.match(rf"\s*(?:of\s+|de\s+)?(?:{_MONTH})\b", rest, re.I):
        return None  # "the 15th of March": the whole date is the "dmy" pattern's
    bare = m.group(0).lower().split()[0]
    if bare in ("le", "el", "the", "am", "dia", "zum", "bis") and not re.search(
        r"(?:st|nd|rd|th|er|º|\.)$", m.group(0)
    ):
        if bare in ("the", "am", "zum", "bis"):
            return None  # "the 15" is a count; "am 15" without the dot is not German for a date
    for month in (today.month, today.month % 12 + 1, (today.month + 1) % 12 + 1):
        year = today.year + (month < today.month)
        d = _safe_date(year, month, day)
        if d is not None and d >= today:
            return d
    return None


def _weekday(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    word = m.group(2).lower()
    target = WEEKDAYS.get(word, _SAFE_ABBR.get(word))
    return None if target is None else _ahead(today, target)


def _weekday_cued(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    word = m.group(2).lower()
    if len(word) == 2 and not m.group(0).rstrip().endswith("."):
        return None  # German two-letter days need their dot: "bis Fr." (not "bis so")
    cue = m.group(1).lower()
    if word in ("segunda", "terça", "terca", "quarta", "quinta", "sexta") and cue not in (
        "na",
        "até",
        "ate",
        "próxima",
        "proxima",
        "nesta",
        "esta",
    ):
        return None
    if word in ("mon", "wed", "sat", "sun") and cue not in _CUE_EN.split("|"):
        return None
    return _ahead(today, _CUED_ABBR[word])


def _dmy(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    day, month, year = int(m.group(1)), MONTHS[m.group(2).lower()], m.group(3)
    return _safe_date(int(year), month, day) if year else _this_or_next_year(today, month, day)


def _mdy(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    word = m.group(1).lower()
    if word not in _ENGLISH_MONTHS:
        return None  # "März 15" is not how German, French or Spanish write a date
    if word in ("may", "mar") and not re.search(r"\d(?:st|nd|rd|th)|^\S*[A-Z]", m.group(0)):
        return None  # "we may 2 …": a month when written as one (capitalised, or "may 3rd")
    month, day, year = MONTHS[word], int(m.group(2)), m.group(3)
    return _safe_date(int(year), month, day) if year else _this_or_next_year(today, month, day)


def _month_end_of(m: re.Match[str], today: dt.date, text: str) -> dt.date | None:
    month = MONTHS[m.group(1).lower()]
    end = _month_end(today.year, month)
    return end if end >= today else _month_end(today.year + 1, month)


_RESOLVE: dict[str, Callable[[re.Match[str], dt.date, str], dt.date | None]] = {
    "iso": _iso,
    "numeric": _numeric,
    "relative": _relative,
    "weekend": _weekend,
    "eow": _eow,
    "eom": _eom,
    "eoy": _eoy,
    "quarter": _quarter,
    "nextweek": _nextweek,
    "nextmonth": _nextmonth,
    "nextyear": _nextyear,
    "in": _in,
    "in_one": _in_one,
    "monthday": _monthday,
    "weekday": _weekday,
    "weekday_cued": _weekday_cued,
    "dmy": _dmy,
    "mdy": _mdy,
    "month_end": _month_end_of,
}


def mentions_date(text: str) -> bool:
    """Whether ``text`` has anything like a date phrase: one search, for a classifier's hint
    (an abbreviation counts here even where :func:`find_date` wants a cue)."""
    if not set(_WORD.findall(text.lower())).isdisjoint(("mon", "wed", "sat", "sun")):
        return True
    return any(p.search(text) for _, p in _candidates(text))


def find_date(text: str, today: dt.date) -> tuple[dt.date, str] | None:
    """The first date the text names, resolved against ``today``, with the words that named
    it (the earliest phrase; at one position the longest)."""
    best: tuple[int, int, dt.date, str] | None = None
    for kind, pattern in _candidates(text):
        for m in pattern.finditer(text):
            if best is not None and m.start() > best[0]:
                break
            d = _RESOLVE[kind](m, today, text)
            if d is None:
                continue
            words = m.group(0).strip().rstrip(".") if not _keeps_dot(kind, m) else m.group(0)
            start = m.start()
            cue = _LEAD_CUE.search(text, 0, start)
            if cue is not None:  # "by eow", "bis morgen": the cue goes with the date
                start, words = cue.start(), text[cue.start() : start] + words
            key = (start, -(m.end() - start))
            if best is None or key < (best[0], -best[1]):
                best = (start, m.end() - start, d, words.strip())
            break
    return (best[2], best[3]) if best else None


_LEAD_CUE = LazyPattern(
    r"(?<![\w'’])(?:by|before|until|till|due|on|bis|vor|avant|jusqu'à|antes\s+de|hasta|até)\s+$",
    re.I,
)


def _keeps_dot(kind: str, m: re.Match[str]) -> bool:
    """A German date keeps its dots ("15.3.", "am 15."), a sentence's full stop goes."""
    return kind in ("numeric", "monthday") or (kind == "dmy" and "." in m.group(0)[:4])
