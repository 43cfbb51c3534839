"""The pattern classifier that came before the learned one (``classify/embedded.py``): kept as
the baseline ``bench/bench_classifier.py`` measures against, and for its patterns (actions,
project phrases, idea cues, status words), which the embedded classifier reuses for titles
and fields.

It recognises people (capitalised names after met/with/call/email/ask/tell…, and names of
people already in the vault), action items with due dates, project language, idea phrasing
and bare URLs. Its confidence stays below ``auto_confidence``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from vaultbrain.classify.dates import find_date
from vaultbrain.classify.phrases import protect, unprotect
from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.typed import drop_dangling

CLASSIFIED_BY = "heuristic"
_NAME = r"[A-Z][a-zà-ÿ'’\-]+(?:\s+[A-Z][a-zà-ÿ'’\-]+)?"
_PERSON_CUES = LazyPattern(
    r"\b(?i:met|meet(?:ing)?(?: with)?|with|call(?:ed)?|phone(?:d)?|email(?:ed)?|e-mail(?:ed)?|"
    r"ask(?:ed)?|tell|told|text(?:ed)?|ping(?:ed)?|remind|thank(?:ed)?|saw|see|visit(?:ed)?|"
    r"spoke (?:to|with)|talk(?:ed)? (?:to|with)|message(?:d)?|invite(?:d)?|introduce(?:d)?|"
    r"lunch with|coffee with|dinner with|send(?: it)? to|give(?: it)? to|write to|hear from)\s+("
    + _NAME
    + r")"
)
_NOT_NAMES = {
    "I",
    "The",
    "A",
    "An",
    "This",
    "That",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Today",
    "Tomorrow",
    "Next",
    "Project",
    "Team",
    "Everyone",
    "My",
    "Our",
    "Me",
    "Him",
    "Her",
    "Them",
    "It",
    "We",
    "You",
    "Mom",
    "Dad",
    "Google",
    "Zoom",
    "Slack",
    "Obsidian",
}
_ACTION = LazyPattern(
    r"\b(?:i\s+)?(?:need(?:s)? to|have to|has to|must|should|remember to|don'?t forget to|"
    r"remind me to|todo:?|to-?do:?|gotta|got to)\s+(?P<act>[^.!?;\n]+)",
    re.I,
)
_IMPERATIVE = LazyPattern(
    r"^(?P<act>(?:call|email|e-mail|pay|buy|book|renew|schedule|send|submit|file|cancel|fix|"
    r"pick up|return|order|write|review|finish|prepare|check|sign|text|reply to|follow up|"
    r"ask|tell|remind|clean|update|register|apply|print|post|mail|ship)\b[^.!?;\n]*)",
    re.I,
)
_PROJECT = [
    LazyPattern(r"\b(?:the|a|our|my|this|that)\s+((?:[\w\-]+\s+){0,3}?)project\b", re.I),
    LazyPattern(r"\b(?i:project)\s+([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,3})"),
    LazyPattern(r"\b([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2})\s+project\b"),
]
_IDEA = LazyPattern(
    r"^\s*(?:idea\s*[:\-–—]\s*|what if\s+|how about\s+|maybe (?:we|i) could\s+|"
    r"it would be (?:cool|nice|great) (?:to|if)\s+|shower thought:?\s*)(?P<idea>.+)",
    re.I,
)
_URL = LazyPattern(r"^<?(https?://[^\s<>]+)>?$")
_URGENT = LazyPattern(r"\b(?:urgent|asap|important|critical|high priority)\b", re.I)
_LOW = LazyPattern(r"\b(?:someday|eventually|low priority|whenever)\b", re.I)
_STATUS = {
    "active": LazyPattern(r"\b(?:working on|started|kick(?:ed)? off|in progress)\b", re.I),
    "completed": LazyPattern(r"\b(?:finished|shipped|completed|launched|wrapped up)\b", re.I),
    "on-hold": LazyPattern(r"\b(?:paused|on hold|postponed)\b", re.I),
}


def _cap(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def one_liner(thought: str) -> str:
    """An idea's one-liner: the thought without its cue (``Idea:``, ``shower thought:``)."""
    m = _IDEA.match(thought)
    text = (
        m.group("idea")
        if m and thought[: m.start("idea")].strip().lower().startswith(("idea", "shower"))
        else thought
    )
    return _cap(" ".join(text.split()))[:200]


def _clean_action(act: str, date_words: str | None) -> str:
    act = act.strip()
    if date_words:
        act = re.sub(
            r"\s*\b(?:by|on|before|until|till|due)?\s*" + re.escape(date_words) + r"\b",
            "",
            act,
            flags=re.I,
        )
    act = re.sub(r"[\s,]+(?:asap|urgent(?:ly)?|important|high priority)\b", "", act, flags=re.I)
    act = re.sub(r"^(?:i\s+)?(?:need to|have to|must|should)\s+", "", act, flags=re.I)
    # "Book the car service for next Tuesday" without its date: not "… service for".
    return drop_dangling(re.sub(r"\s+", " ", act).strip(" ,-"))


def classify_heuristic(
    text: str,
    today: dt.date,
    known: list[dict[str, Any]] | None = None,
    max_confidence: float = 0.75,
) -> Classification:
    thought = text.strip()
    url = _URL.match(thought)
    if url:
        return Classification(
            [Destination("link", url.group(1), {"url": url.group(1)})],
            min(0.7, max_confidence),
            "A bare URL: saved as a link",
            CLASSIFIED_BY,
        )
    # A period inside "Dr. Müller", "€84.20", "v2.1" or "e.g." ends no sentence: hidden from
    # the patterns below (which stop at one), put back in what they return.
    result = _classify(protect(thought), today, known, max_confidence)
    result.destinations = [
        replace(d, title=unprotect(d.title), fields={k: _restore(v) for k, v in d.fields.items()})
        for d in result.destinations
    ]
    result.reasoning = unprotect(result.reasoning)
    return result


def _restore(value: Any) -> Any:
    if isinstance(value, str):
        return unprotect(value)
    if isinstance(value, list):
        return [_restore(x) for x in value]
    return value


def _classify(
    thought: str, today: dt.date, known: list[dict[str, Any]] | None, max_confidence: float
) -> Classification:
    dests: list[Destination] = []
    reasons: list[str] = []
    signals = 0

    idea = _IDEA.match(thought)
    if idea:
        cue = thought[: idea.start("idea")].strip()
        body = idea.group("idea").strip().rstrip(".!?")
        if cue.lower().startswith(("what if", "how about")):
            body = f"{cue} {body}"
        title = _cap(" ".join(body.split()[:10]))
        dests.append(
            Destination("idea", title, {"one_liner": one_liner(thought), "maturity": "raw"})
        )
        reasons.append("idea phrasing")
        signals += 2

    people: list[str] = []
    for k in known or []:
        if k.get("type") == "person":
            people.append(k["title"])
    for m in _PERSON_CUES.finditer(thought):
        name = m.group(1).strip()
        first = name.split()[0]
        if first in _NOT_NAMES:
            continue
        if name.split()[-1] in _NOT_NAMES:
            name = first
        if not any(name.lower() == p.lower() for p in people):
            people.append(name)
    projects: list[str] = []
    for k in known or []:
        if k.get("type") == "project":
            projects.append(k["title"])
    for pattern in _PROJECT:
        for m in pattern.finditer(thought):
            words = m.group(1).strip()
            if not words:
                continue
            title = _cap(f"{words} project" if pattern is _PROJECT[0] else words)
            if title.lower() in ("project", "the project"):
                continue
            if not any(title.lower() == p.lower() for p in projects):
                projects.append(title)
        if projects:
            break

    found = find_date(thought, today)
    due, date_words = (found[0].isoformat(), found[1]) if found else (None, None)
    action = None
    acted = _ACTION.search(thought) or _IMPERATIVE.match(thought)
    if acted:
        action = _clean_action(acted.group("act"), date_words)
        if re.fullmatch(
            r"(?:follow up|call|email|e-mail|text|ping|message|remind|thank)", action, re.I
        ):
            if people:
                verb = action.lower()
                action = (
                    f"{verb} with {people[0]}" if verb == "follow up" else f"{verb} {people[0]}"
                )
        action = _cap(action)[:120] if action else None

    for name in people:
        fields: dict[str, Any] = {}
        if action and "follow" in action.lower():
            fu = "Follow up" + (f" {date_words}" if date_words else "")
            fields["follow_ups"] = [fu]
        dests.append(Destination("person", name, fields))
        signals += 1
    if people:
        reasons.append("mentions " + ", ".join(people))
    for title in projects:
        fields = {"status": "planned"}
        for status, pat in _STATUS.items():
            if pat.search(thought):
                fields["status"] = status
        dests.append(Destination("project", title, fields))
        signals += 1
    if projects:
        reasons.append("project context")
    if action:
        fields = {"status": "open"}
        if due:
            fields["due"] = due
        if _URGENT.search(thought):
            fields["priority"] = "high"
        elif _LOW.search(thought):
            fields["priority"] = "low"
        dests.append(Destination("admin", action, fields))
        reasons.append("an action item" + (f" due {due}" if due else ""))
        signals += 1

    if not dests:
        return Classification(
            [Destination(UNKNOWN, _cap(" ".join(thought.split()[:8])), {})],
            0.3,
            "No person, project, idea or action recognised",
            CLASSIFIED_BY,
        )
    confidence = min(max_confidence, 0.5 + 0.07 * signals)
    return Classification(
        dests, round(confidence, 2), "Heuristic: " + "; ".join(reasons), CLASSIFIED_BY
    )
