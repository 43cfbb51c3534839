"""The destinations of an embedded reading: for each type chosen, the title (the task without
its date, a project the thought names or leads with, the idea itself) and the fields the
thought gives that the pack's type declares."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from vaultbrain.classify import heuristic as rules
from vaultbrain.classify.mentions import KnownNames, PersonMention
from vaultbrain.classify.phrases import phrase, protect, unprotect
from vaultbrain.classify.reading import WORDS
from vaultbrain.classify.result import Destination
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.typed import drop_dangling

_IDEA_CUE = LazyPattern(
    r"^\s*(?:(?:[\w-]+\s+){0,2}(?:idea|idee|idée|concept|thought)\s*(?:[:\-–—]|for\b[^:\-–—]{0,30}[:\-–—])\s*"
    r"|shower thought:?\s*|maybe\s+(?=an?\b)|what about\s+)",
    re.I,
)
_LEAD = LazyPattern(
    r"^\s*(?:(?:re|fwd?|todo|to-?do|note|proj(?:ect)?|update on|reminder)\s*[:\-–—]?\s+|[-*•]\s+|\[ ?\]\s+|"
    r"[\U0001F000-\U0001FAFF\u2600-\u27BF]\ufe0f?\s*)+",
    re.I,
)
_ARTICLE = LazyPattern(r"^(?:the|a|an|our|my|this|that)\s+", re.I)
_ABOUT = LazyPattern(r"\b(?:about|re:?|regarding|on)\s+((?:the|our|my)\s+)?(\S.*)$", re.I)
_PROJECT_HEAD = LazyPattern(r"^(.{2,60}?)\s*(?::\s|\s[-–—]\s)")
_FOLLOW_UP = LazyPattern(r"\bfollow(?:\s|-)?up\b", re.I)


def _fit(pack: Any, type_name: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Only fields the pack's type declares, with values that fit them."""
    if pack is None:
        return fields
    ptype = pack.get_type(type_name)
    if ptype is None:
        return {}
    out = {}
    for k, v in fields.items():
        spec = ptype.fields.get(k)
        if spec is not None and spec.coerce(v) == (True, v):
            out[k] = v
    return out


def destinations_for(
    t: str,
    thought: str,
    today: dt.date,
    people: list[PersonMention],
    names: KnownNames,
    due: str | None,
    due_words: str | None,
    pack: Any,
) -> list[Destination]:
    fields: dict[str, Any]
    if t == "person":
        follow = _FOLLOW_UP.search(thought)
        fields = {"follow_ups": ["Follow up" + (f" {due_words}" if due_words else "")]}
        return [
            Destination("person", p.title, _fit(pack, t, fields) if follow else {}) for p in people
        ]
    if t == "admin":
        # A priority only when the thought gives one (no default medium).
        fields = {"status": "open"}
        if due:
            fields["due"] = due
        if rules._URGENT.search(thought):
            fields["priority"] = "high"
        elif rules._LOW.search(thought):
            fields["priority"] = "low"
        return [
            Destination("admin", admin_title(thought, due_words, people), _fit(pack, t, fields))
        ]
    if t == "project":
        fields = {"status": "planned"}
        for status, pat in rules._STATUS.items():
            if pat.search(thought):
                fields["status"] = status
        return [Destination("project", project_title(thought, names), _fit(pack, t, fields))]
    if t == "idea":
        fields = {"one_liner": rules.one_liner(thought), "maturity": "raw"}
        title = named_record("idea", thought, names) or idea_title(thought)
        return [Destination("idea", title, _fit(pack, t, fields))]
    title = named_record(t, thought, names) or phrase(
        _strip_date(_LEAD.sub("", thought), due_words), 10
    )
    return [Destination(t, title, {})]


def _strip_date(text: str, date_words: str | None) -> str:
    if not date_words:
        return text
    pattern = r"\s*\b(?:by|on|before|until|till|due|at)?\s*" + re.escape(date_words) + r"(?!\w)"
    out = re.sub(pattern, " ", text, count=1, flags=re.I)
    # Without its date words a phrase may end on the word that led to them ("for", "by").
    return drop_dangling(" ".join(out.split()).strip(" ,:-–—")) or text


def admin_title(thought: str, due_words: str | None, people: list[PersonMention]) -> str:
    """The task, as a short imperative: what to do, without when."""
    guarded = protect(_LEAD.sub("", thought))
    m = rules._ACTION.search(guarded) or rules._IMPERATIVE.match(guarded)
    if m:
        action = rules._clean_action(unprotect(m.group("act")), due_words)
        if people and re.fullmatch(
            r"(?:follow up|call|email|e-mail|text|ping|message|remind|thank)", action, re.I
        ):
            verb = action.lower()
            action = (
                f"{verb} with {people[0].title}"
                if verb == "follow up"
                else f"{verb} {people[0].title}"
            )
        if action:
            return phrase(action, 10)
    return phrase(_strip_date(unprotect(guarded), due_words), 10)


# Words that say what kind of thing a thought is ("idea: …", "project: …", "todo …"): a
# record titled by one of them (a stray `Ideas/Idea.md`) is not what every such thought names.
_KIND_WORDS = frozenset(
    "idea ideas project projects task tasks todo to-do admin note notes person people".split()
)


def named_record(type_name: str, thought: str, names: KnownNames) -> str | None:
    """The title of a vault record of this type that the thought names (the longest name).
    A name that is only the word for a kind of thing (``Idea``) names nothing."""
    words = WORDS.findall(thought.lower())
    for n in range(6, 0, -1):
        for i in range(len(words) - n + 1):
            key = " ".join(words[i : i + n])
            if n == 1 and (key in _KIND_WORDS or key in (type_name, f"{type_name}s")):
                continue
            for ty, title in sorted(names.names.get(key, ())):
                if ty == type_name:
                    return title
    return None


def project_title(thought: str, names: KnownNames) -> str:
    """A vault project the thought names, else the words it leads with ("Kitchen renovation -
    get three quotes" → ``Kitchen renovation``), else the project phrase."""
    known = named_record("project", thought, names)
    if known:
        return known
    body = _LEAD.sub("", thought)
    guarded = protect(body)
    for pattern in rules._PROJECT:
        m = pattern.search(guarded)
        if m and m.group(1).strip():
            raw = m.group(1).strip()
            title = f"{raw} project" if pattern is rules._PROJECT[0] else raw
            if title.lower() not in ("project", "the project"):
                return rules._cap(unprotect(title))
    head = _PROJECT_HEAD.match(guarded)
    if head and 1 <= len(head.group(1).split()) <= 7:
        return rules._cap(_ARTICLE.sub("", unprotect(head.group(1)).strip()))
    topic = _ABOUT.search(guarded)  # "met with Sarah about the garden" → Garden
    if topic:
        return rules._cap(phrase(unprotect(topic.group(2)), 4, 1))
    return rules._cap(_ARTICLE.sub("", phrase(body, 6)))


def idea_title(thought: str) -> str:
    """The idea itself, whole: without "idea:" in front, a short phrase of it."""
    m = rules._IDEA.match(thought)
    if m:
        cue = thought[: m.start("idea")].strip()
        body = m.group("idea").strip()
        if cue.lower().startswith(("what if", "how about")):
            body = f"{cue} {body}"
    else:
        body = _IDEA_CUE.sub("", _LEAD.sub("", thought), count=1)
    return phrase(body or thought, 12)
