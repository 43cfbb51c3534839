"""E-mail pasted into the inbox (classify/noise.py's classes of machine text): a signature,
the boilerplate a mail program or a company adds, and a message's headers.

Each is told by its shape, never by a list of lines:

- a **signature** is a valediction, then a name, then fields a signature carries, set off by
  separators (``|``, ``•``, ``–``): a phone number, an address, a job title, a company
  ("Kind regards, Ana Pereira | Practice Manager | 0161 496 0000"); or two labelled contact
  fields ("T: … | E: …"); or a formal valediction and a name and nothing else. "Kind regards
  to Sam when you see him" has no name after the valediction: a thought.
- **boilerplate** is what a program writes, whole: "Sent from my …" and nothing after, a
  confidentiality footer (a message, that it is confidential or privileged, and who it is
  meant for), the lines around a forwarded or quoted message, a newsletter's footer, a
  copyright line.
- **headers** are ``From:``/``To:``/``Cc:`` with an address, ``Sent:``/``Date:`` with a date
  and a time and nothing else, ``Subject: Re: …``, two headers or more on one line, MIME and
  HTTP headers. "From: mum, buy milk" names no address: a thought.
"""

from __future__ import annotations

import re

from vaultbrain.patterns import LazyPattern

_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-ZÀ-Þ][\w'’.-]*(?:\s+[A-ZÀ-Þ][\w'’.-]*){0,3}"
_VALEDICTION = (
    r"(?:(?:kind(?:est)?|best|warm(?:est)?|many|with\s+(?:kind\s+|best\s+)?|all\s+the\s+best"
    r"|with\s+thanks\s+and)?\s*regards|(?:best|warm|kind)\s+wishes|yours\s+(?:sincerely|"
    r"faithfully|truly)|sincerely(?:\s+yours)?|respectfully|many\s+thanks|thanks\s+and\s+regards"
    r"|thank\s+you|thanks|cheers|best|all\s+the\s+best|cordialement|bien\s+à\s+vous"
    r"|mit\s+freundlichen\s+grüßen|(?:viele|liebe|beste)\s+grüße|mfg|(?:un\s+)?saludos?"
    r"(?:\s+cordiales)?|atentamente|cumprimentos|atenciosamente|abraços"
    r"|met\s+vriendelijke\s+groet(?:en)?|(?:hartelijke\s+)?groeten|(?:distinti|cordiali)\s+saluti"
    r"|pozdrawiam|z\s+poważaniem|(?:med\s+)?vänliga\s+hälsningar|med\s+venlig\s+hilsen"
    r"|saygılarımla)"
)
# Valedictions a person also writes in a thought ("thanks Sam for the lift"): a signature
# only with a signature's fields after the name.
_INFORMAL = LazyPattern(r"^\W*(?:thanks|thank\s+you|cheers|best|many\s+thanks)\b", re.I)
_PHONE = r"(?:\+\d{1,3}[\s.-]?)?\(?\d{2,5}\)?(?:[\s.-]?\d{2,5}){2,4}"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_WEB = r"(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|co\.uk|org|net|io|de|fr|nl|es|it|pl)\b"
_TITLE = (
    r"\b(?:manager|director|officer|engineer|consultant|head|lead|partner|assistant|coordinator"
    r"|specialist|analyst|executive|president|vp|ceo|cto|cfo|coo|founder|co-founder|owner"
    r"|associate|advisor|adviser|administrator|developer|designer|accountant|solicitor|attorney"
    r"|lawyer|nurse|professor|lecturer|teacher|agent|representative|supervisor|secretary"
    r"|team|department|dept|ltd|limited|inc|llc|gmbh|plc|llp|s\.?a\.?|b\.?v\.?|group|services"
    r"|solutions|university|council|clinic|hospital|surgery)\b"
)
_FIELD = LazyPattern(
    rf"^(?:(?:[^\W\d]+\.?:?\s*)?{_PHONE}|.*{_EMAIL}.*|.*(?:{_WEB}).*|.*{_TITLE}.*)$", re.I
)
_SEP = LazyPattern(r"\s*(?:[|•·]|(?:^|\s)[–—-]\s)\s*")
_SEP_OR_COMMA = LazyPattern(r"\s*(?:[|•·,]|(?:^|\s)[–—-]\s)\s*")
_NAME_ONLY = LazyPattern(rf"^{_NAME}(?:,?\s+[A-Z][A-Za-z]{{1,4}}\.?)*$")  # "Amara Nwosu, MD"
_CONTACT = LazyPattern(rf"^(?:{_PHONE}|{_EMAIL}|{_WEB})$", re.I)
_TITLED = LazyPattern(_TITLE, re.I)
_SIGNED = LazyPattern(rf"^\W*{_VALEDICTION}\s*[,.!:;–—-]?\s+({_NAME})\s*(.*)$", re.I)
_FORMAL_ALONE = LazyPattern(rf"^\W*{_VALEDICTION}\s*[,.!:;–—-]?\s+{_NAME}\W*$", re.I)
_LABELLED = LazyPattern(
    rf"\b(?:t|tel|telephone|phone|p|m|mob|mobile|cell|f|fax|e|email|e-mail|w|web|website)"
    rf"\s*[:.]\s*(?:{_PHONE}|{_EMAIL}|{_WEB})",
    re.I,
)


_CLOSING = LazyPattern(rf"^\W*{_VALEDICTION}\s*,\s*$|^\W*{_VALEDICTION}\W*$", re.I)


def _signature(text: str) -> bool:
    if _CLOSING.match(text) and (text.rstrip().endswith(",") or not _INFORMAL.match(text)):
        return True  # "Kind regards," alone: the first line of a signature
    m = _SIGNED.match(text)
    if m:
        name, rest = m.group(1), m.group(2).strip()
        if not name[:1].isupper():  # re.I lets "to" through as a name: "regards to Sam"
            return False
        if not rest:
            return _FORMAL_ALONE.match(text) is not None and not _INFORMAL.match(text)
        if not _SEP_OR_COMMA.match(rest):
            return False
        fields = [f for f in _SEP_OR_COMMA.split(rest) if f]
        return bool(fields) and sum(1 for f in fields if _FIELD.match(f)) * 2 >= len(fields)
    # no valediction: a name, then separated fields a signature carries
    parts = [p for p in _SEP.split(text.strip()) if p]
    if len(_LABELLED.findall(text)) >= 2:
        return True
    if len(parts) < 3 or not _NAME_ONLY.match(parts[0]):
        return False
    contact = sum(1 for p in parts[1:] if _CONTACT.match(p))
    titled = sum(1 for p in parts[1:] if _TITLED.search(p))
    return contact >= 1 and contact + titled >= 2


_BOILERPLATE = LazyPattern(
    "|".join(
        (
            # "Sent from my iPhone", "Envoyé de mon iPad", "Get Outlook for Android"
            r"^\W*(?:sent|envoyé|enviado|gesendet|verzonden|inviato|wysłane)\s+(?:from|with|via|"
            r"de|depuis|von|met|desde|da|z)\s+(?:my|mon|ma|mi|meu|minha|meinem|mijn|il\s+mio"
            r"|mojego)?\s*(?:i(?:phone|pad)|android|galaxy|samsung|pixel|huawei|xiaomi|oneplus"
            r"|nokia|blackberry|mobile|phone|smartphone|tablet|device|outlook|mail|gmail|yahoo"
            r"|proton\w*|kindle|surface|windows|mac|macbook|handy|portable|móvil|celular|telefoon)"
            r"\b(?-i:(?:\s+(?:(?:for|on)\s+)?[A-Z0-9][\w.-]*){0,3})\W*$",
            r"^\W*get\s+outlook\s+for\s+(?:ios|android|mac|windows)\W*$",
            # a confidentiality footer: a message, confidential, and who it is meant for
            r"\b(?:e-?mail|message|communication|transmission)s?\b.{0,120}\b(?:confidential|"
            r"privileged)\b.{0,160}\b(?:intended\s+(?:solely|only|exclusively)?\s*for|addressee"
            r"|named\s+recipient|received\s+(?:it|this)[\w\s-]{0,20}\s+in\s+error)",
            r"\bfor\s+the\s+(?:sole|exclusive)\s+use\s+of\s+the\s+(?:intended|named)\s+recipient"
            r"|^\W*(?:confidentiality|privilege[d]?|legal)\s+(?:notice|warning|disclaimer)\s*:\s*\S",
            # a newsletter's links: "Unsubscribe | Manage preferences | View in browser"
            r"(?:^|[|•·]\s*)(?:unsubscribe|view\s+(?:it\s+)?in\s+(?:your\s+)?browser|manage\s+(?:your\s+)?"
            r"(?:preferences|subscription)|update\s+your\s+preferences|privacy\s+policy)\s*[|•·]",
            r"\bif\s+you\s+(?:have\s+)?received\s+this\s+(?:e-?mail|message|communication)\s+in"
            r"\s+error\b",
            r"\bplease\s+consider\s+the\s+environment\s+before\s+printing\b",
            r"\bthis\s+(?:e-?mail|message)\s+(?:has\s+been|was)\s+(?:scanned|checked)\s+(?:for|by)\b",
            # the lines around a forwarded or quoted message
            r"^\W*-{2,}\s*(?:original\s+message|forwarded\s+message)\s*-{2,}\W*$",
            r"^\W*begin\s+forwarded\s+message\s*:?\s*$",
            rf"^\W*on\s+.{{4,80}}(?:\d:\d\d|\d{{4}}).{{0,80}}(?:<{_EMAIL}>|{_EMAIL})?\s*wrote\s*:\s*$",
            # a newsletter's footer
            r"\byou\s+(?:are\s+)?(?:receiv(?:ing|ed))\s+this\s+(?:e-?mail|message|newsletter)"
            r"\s+because\b",
            r"\bif\s+you\s+no\s+longer\s+wish\s+to\s+receive\s+(?:these|this|our)\b",
            r"^\W*(?:view|read)\s+(?:this\s+(?:e-?mail|message|newsletter)|it)\s+in\s+(?:your|a)"
            r"\s+(?:web\s+)?browser\W*$",
            r"^\W*having\s+trouble\s+viewing\s+this\s+(?:e-?mail|message)",
            r"\bthis\s+is\s+an\s+automated\s+(?:e-?mail|message|notification)\b",
            r"\b(?:do\s+not|don't|please\s+don't)\s+reply\s+to\s+this\s+(?:e-?mail|message)[,.]?"
            r"\s+(?:it|this\s+(?:mailbox|address|inbox))\s+is\s+(?:not\s+monitored|unmonitored)",
            # "© 2026 Acme Ltd. All rights reserved."
            r"^\W*(?:©|\(c\)|copyright)\s*(?:©\s*)?(?:\d{4}(?:\s*[-–]\s*\d{4})?)?.{0,80}all\s+"
            r"rights\s+reserved\W*$",
        )
    ),
    re.I,
)

_HEADER_KEYS = r"(?:From|Sent|To|Cc|Bcc|Subject|Date|Reply-To|Importance|Attachments)"
_DATE_TIME = (
    r"(?:(?:mon|tue|wed|thu|fri|sat|sun)\w*,?\s+)?(?:\d{1,2}\s+\w+\s+\d{4}|\w+\s+\d{1,2},?"
    r"\s+\d{4}|\d{4}-\d\d-\d\d|\d{1,2}/\d{1,2}/\d{2,4})(?:\s+(?:at\s+)?\d{1,2}:\d\d(?::\d\d)?"
    r"\s*(?:[ap]\.?m\.?)?(?:\s*[+-]\d{4}|\s+[A-Z]{2,4})?)"  # the time: "Date: 2026-12-01" is a property
)
_HEADERS = LazyPattern(
    "|".join(
        (
            # an address in brackets, or bare after a name (the inbox reads "<a@b.org>" as an
            # autolink and hands on its address)
            rf"^\W*(?:From|To|Cc|Bcc|Reply-To)\s*:\s*(?:[^<>;@]*<{_EMAIL}>|[^<>;@]*{_EMAIL})"
            rf"(?:\s*[;,]\s*(?:[^<>;@]*<{_EMAIL}>|[^<>;@]*{_EMAIL}))*\s*$",
            rf"^\W*(?:From|To|Cc)\s*:\s*[^<>]{{1,60}}\[mailto:{_EMAIL}\]",
            rf"^\W*(?:Sent|Date)\s*:\s*{_DATE_TIME}\s*$",
            r"^\W*Subject\s*:\s*(?:re|fwd?|aw|wg|tr|rv|sv|vs)\s*:\s*\S",
            r"^\W*(?:Content-Type\s*:\s*[\w.+-]+/[\w.+-]+|Content-Transfer-Encoding\s*:\s*"
            r"(?:7bit|8bit|base64|quoted-printable|binary)|MIME-Version\s*:\s*1\.0"
            r"|Message-ID\s*:\s*<\S+>|Return-Path\s*:\s*<\S*>|DKIM-Signature\s*:\s*v=1"
            r"|X-[\w-]+\s*:\s*\S+|User-Agent\s*:\s*\S+/\d|Authorization\s*:\s*(?:Bearer|Basic)\s+\S+"
            r"|Accept(?:-\w+)?\s*:\s*[\w*]+/[\w*+.-]+|Content-Length\s*:\s*\d+\s*$"
            r"|Host\s*:\s*[\w.-]+(?::\d+)?\s*$)",
        )
    ),
    re.I,
)
_KEYS = LazyPattern(rf"(?:^|\s){_HEADER_KEYS}\s*:\s")
_ADDRESS_OR_TIME = LazyPattern(rf"{_EMAIL}|\b\d{{1,2}}:\d\d\b", re.I)


# Cheap looks first, so that a thought compiles none of the patterns above (a capture is a
# process of its own): the words every boilerplate form has one of, the words a signature
# opens with.
_BOILER_CUES = (
    "sent", "envoy", "enviado", "gesendet", "verzonden", "inviato", "wysłane", "outlook",
    "confidential", "privilege", "received", "environment", "message", "forwarded", "wrote",
    "receiving", "wish to receive", "browser", "viewing", "automated", "reply", "reserved",
    "sole use", "exclusive use", "scanned", "checked", "unsubscribe", "preferences", "privacy",
    "notice", "disclaimer", "warning",
)  # fmt: skip
_OPENERS = frozenset(
    "kind kindest best warm warmest many with all regards yours sincerely respectfully thanks "
    "thank cheers cordialement bien mit viele liebe beste mfg un saludos saludo atentamente "
    "cumprimentos atenciosamente abraços met hartelijke groeten distinti cordiali pozdrawiam z "
    "med vänliga saygılarımla".split()
)


def mail_reason(text: str) -> str | None:
    """``"an e-mail signature"``, ``"e-mail boilerplate"`` or ``"an e-mail header"`` for text
    pasted from an e-mail, or None."""
    if ":" in text:
        if _HEADERS.search(text):
            return "an e-mail header"
        keys = {k.strip().rstrip(":").strip().lower() for k in _KEYS.findall(text)}
        if len(keys) >= 3 or (len(keys) >= 2 and _ADDRESS_OR_TIME.search(text)):
            return "an e-mail header"  # "From: Ana <a@x.org> Sent: 3 March 2026 To: …"
    low = text.lower()
    if any(cue in low for cue in _BOILER_CUES) and _BOILERPLATE.search(text):
        return "e-mail boilerplate"
    words = low.lstrip(" -–—*•>").split(None, 1)
    first = words[0].strip(",.!:;") if words else ""
    separated = any(s in text for s in ("|", "•", "·", " – ", " — ", " - ", ":"))
    if (first in _OPENERS or separated) and _signature(text):
        return "an e-mail signature"
    return None
