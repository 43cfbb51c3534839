"""Who a thought names and what the vault calls its records: :class:`PersonMention`,
:class:`KnownNames`, and the words around a name (honorifics and titles before one, particles
inside one, cues after which a lowercase word is one, common words that are none)."""

from __future__ import annotations

import re
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify.namewords import (
    TITLES,
)

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
CUES |= {"ligar", "telefonar", "chiamare", "telefonare"}
JOINS = {"and", "&", "+", ",", "und", "et", "y", "e"}
# Words after which a lowercase unknown word may be a name, if the model thinks so.
WEAK_CUES = {"get", "for", "to", "from", "sign", "buy", "by"}
WEAK_CUES |= {"and", "&", "+", "envoyer", "mandar", "preguntar", "demander", "rappeler", "a", "à"}
# Capitalised words that open sentences and name no one, beyond what the corpus shows.
COMMON = set(
    "i the a an this that my our we you he she they it me him her them is are re fwd fw todo "
    "ok okay hi hey yes no thanks monday tuesday wednesday thursday friday saturday sunday "
    "january february march april may june july august september october november december "
    "today tomorrow tonight next project team everyone google zoom slack obsidian idea note "
    "urgent asap important".split()
)


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


def capitalised(tok: str) -> bool:
    """Whether a token opens with a capital letter."""
    return tok[:1].isupper()
