"""What a person types on a line, read as Obsidian Tasks and Dataview read it, both ways.

:func:`parse_typed` splits a typed thought into its words and the fields Tasks' signifiers
and Dataview's inline fields give it (``water plants 🔁 every week 📅 2026-12-05`` is the
words ``water plants``, due 2026-12-05, recurrence ``every week``). Tasks' emoji fields are
read exactly as Tasks' ``DefaultTaskSerializer`` reads a task's description (from the end,
in any order, an optional U+FE0F after each emoji, any spaces before the value; see
:func:`vaultbrain.vault.tasks.read_fields`); Dataview's ``[key:: value]`` and
``(key:: value)`` are read anywhere on the line, as Dataview's ``extractInlineFields`` does,
with the keys of Tasks' Dataview format (``due``, ``scheduled``, ``start``, ``created``,
``completion``, ``cancelled``, ``priority``, ``repeat``, ``id``, ``dependsOn``,
``onCompletion``) taken as those fields.

:func:`inert` goes the other way: text vaultbrain copies from a thought into another note
(a ``## Log`` bullet, a digest, Needs Review, an inbox suffix) keeps its words but loses what
would make Tasks or Dataview read it as a second task or a field: the signifier emoji
(Dataview reads ``📅 2026-12-05`` anywhere on any list item, Tasks at the end of a task), the
``::`` of an inline field (Dataview reads ``[key:: v]`` anywhere and ``key:: v`` as a whole
line), and a checkbox at its start.

Pure functions, no files. The capture pipeline calls :func:`parse_typed` on a thought before
classifying its words, and :func:`inert` on every piece of a thought it copies.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inline import plain_words, shield, unshield
from vaultbrain.vault.tasks import PRIORITY_EMOJI, read_fields, rule_text

# Tasks' Dataview-format keys (DataviewTaskSerializer's DATAVIEW_SYMBOLS) -> Tasks' names.
_DATAVIEW_KEYS = {
    "due": "due",
    "scheduled": "scheduled",
    "start": "start",
    "created": "created",
    "completion": "done",
    "cancelled": "cancelled",
    "priority": "priority",
    "repeat": "recurrence",
    "id": "id",
    "dependson": "depends_on",
    "oncompletion": "on_completion",
}
DATE_FIELDS = ("due", "scheduled", "start", "created", "done", "cancelled")
_DATE = LazyPattern(r"\d{4}-\d{2}-\d{2}")
_ID = LazyPattern(r"[a-zA-Z0-9_-]+")
_WRAPPERS = {"[": "]", "(": ")"}
# Every emoji Tasks reads as a field (the due and scheduled alternatives, 🏁 included), and
# ⏰, the reminder of Tasks' forks, which Dataview users meet in copied lines too.
_SIGNIFIER = LazyPattern("(?:🔺|⏫|🔼|🔽|⏬|📅|📆|🗓|🛫|⏳|⌛|✅|❌|🔁|🏁|🆔|⛔|➕|⏰)\ufe0f?")
_CHECKBOX_START = LazyPattern(r"^(\s*)\[(.)\]")


@dataclass(frozen=True)
class Typed:
    """A typed thought: its words and the fields its Tasks and Dataview syntax gave.

    ``fields`` uses Tasks' names: ``due``, ``scheduled``, ``start``, ``created``, ``done``,
    ``cancelled`` (ISO dates), ``priority`` (highest | high | medium | low | lowest),
    ``recurrence`` (the rule as Tasks writes it), ``on_completion``, ``id`` (text) and
    ``depends_on`` (a list of ids). ``inline`` holds the other Dataview inline fields, by
    key as typed, their values as text. ``problems`` says what looked like a field but is
    not one Tasks can use (``📅 2026-02-30``): it is out of the words all the same, as Tasks
    takes it out of a description.
    """

    words: str
    fields: dict[str, Any] = field(default_factory=dict)
    inline: dict[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @property
    def tags(self) -> list[str]:
        """The ``#tags`` at the end of the words (Tasks keeps them in a description)."""
        return trailing_tags(self.words)[1]


def parse_typed(text: str) -> Typed:
    """The words of a typed thought and the fields its Tasks and Dataview syntax give.

    ``text`` is one thought as the inbox scan gives it (no list marker, checkbox or block
    id). Dataview's inline fields are taken out first, wherever they are; then Tasks' emoji
    fields are read from the end of what is left, in any order, ``#tags`` staying words.
    A thought with no such syntax comes back as its words, unchanged but for spaces.
    """
    problems: list[str] = []
    fields: dict[str, Any] = {}
    inline: dict[str, str] = {}
    # A field inside the person's Markdown (a code span, a link, a URL) is their text.
    rest = shield(text)
    if "::" in rest:
        found = inline_fields(rest)
        for f in found:
            name = _DATAVIEW_KEYS.get(f.key.lower())
            value = _tasks_value(name, f.value) if name else None
            if name and value is not None:
                fields.setdefault(name, value)
            else:
                if name:
                    problems.append(f"[{f.key}:: {f.value}] is not a value Tasks reads")
                inline.setdefault(f.key, f.value)
        for f in reversed(found):
            rest = rest[: f.start] + " " + rest[f.end :]
    values, words = read_fields(" ".join(rest.split()))
    for name, raw in values.items():
        value = _tasks_value(name, raw)
        if value is None:
            problems.append(f"{_shown(name)} {raw} is not a value Tasks reads")
            continue
        # A field typed both ways: the emoji one, which Tasks itself reads, wins.
        fields[name] = value
    inline = {unshield(k): unshield(v) for k, v in inline.items()}
    return Typed(unshield(words), fields, inline, tuple(unshield(p) for p in problems))


_TRAILING_TAG = LazyPattern(r"(?:^|\s)(#[^ !@#$%^&*(),.?\":{}|<>]+)$")


def trailing_tags(text: str) -> tuple[str, list[str]]:
    """``text`` without the ``#tags`` at its end, and those tags (Tasks' tag rule, and
    Obsidian's: a tag is not all digits, so ``Fix bug #42`` keeps its number)."""
    tags: list[str] = []
    rest = text.rstrip()
    guarded = shield(rest)  # a ``#`` in a code span or a URL is no tag
    while (
        (m := _TRAILING_TAG.search(guarded, 0, len(rest))) is not None
        and m.start() > 0
        and not m.group(1)[1:].isdigit()
    ):
        tags.insert(0, m.group(1))
        rest = rest[: m.start()].rstrip()
    return rest, tags


def _tasks_value(name: str | None, raw: Any) -> Any:
    """A field's value as vaultbrain keeps it, or None when Tasks could not use it."""
    if name in DATE_FIELDS:
        text = str(raw).strip()
        if not _DATE.fullmatch(text):
            return None
        try:
            return dt.date.fromisoformat(text).isoformat()
        except ValueError:
            return None
    if name == "priority":
        value = str(raw).strip().lower()
        return value if value in PRIORITY_EMOJI else None
    if name == "recurrence":
        text = " ".join(str(raw).split())
        # Tasks keeps only rules rrule reads; every one of them starts with "every".
        return rule_text(text) if text.lower().startswith("every ") else None
    if name == "depends_on":
        ids = raw if isinstance(raw, list) else str(raw).replace(" ", "").split(",")
        ids = [i for i in ids if i]
        return ids if ids and all(_ID.fullmatch(i) for i in ids) else None
    if name == "id":
        text = str(raw).strip()
        return text if _ID.fullmatch(text) else None
    if name == "on_completion":
        text = str(raw).strip().lower()
        return text if text in ("keep", "delete") else None
    return None


def _shown(name: str) -> str:
    return {
        "due": "📅",
        "scheduled": "⏳",
        "start": "🛫",
        "created": "➕",
        "done": "✅",
        "cancelled": "❌",
        "priority": "priority",
        "recurrence": "🔁",
        "on_completion": "🏁",
        "id": "🆔",
        "depends_on": "⛔",
    }.get(name, name)


def is_thought(text: str) -> bool:
    """Whether ``text`` (a line's text, marker and ids removed) holds a thought: some letter
    or digit among its words once its Tasks and Dataview fields are out. A line of only
    emoji (``🎉🎉``, ``⏫``) or punctuation is not one: it would become an untitled record."""
    if not _has_word_char(text):
        return False
    first = _SIGNIFIER.search(text)
    if "::" not in text and first is None:
        return True
    # Fields come off the end (Tasks) or sit in brackets (Dataview): words before the first
    # signifier and the first bracket are words whatever follows (most typed lines).
    head = text[: first.start()] if first is not None else text
    if "::" in text:
        head = re.split(r"[\[(]", head, maxsplit=1)[0]
    return _has_word_char(head) or _has_word_char(parse_typed(text).words)


def _has_word_char(text: str) -> bool:
    return any(ch.isalnum() or unicodedata.category(ch)[0] in "LN" for ch in text)


# -- Dataview's inline fields (a port of src/data-import/inline-field.ts) --------------------


@dataclass(frozen=True)
class InlineField:
    """A Dataview inline field of a line: its key, its value, and its [start, end) span."""

    key: str
    value: str
    start: int
    end: int


def _closing(line: str, start: int, open_: str, close: str) -> tuple[str, int] | None:
    nesting = 0
    escaped = False
    for index in range(start, len(line)):
        char = line[index]
        if char == "\\":
            escaped = not escaped
            continue
        if escaped:
            escaped = False
            continue
        if char == open_:
            nesting += 1
        elif char == close:
            nesting -= 1
        if nesting < 0:
            return line[start:index].strip(), index + 1
    return None


def _field_at(line: str, start: int) -> InlineField | None:
    open_ = line[start]
    sep = line.find("::", start + 1)
    if sep < 0:
        return None
    key = line[start + 1 : sep].strip()
    if any(c in key for c in "[]()"):
        return None
    closing = _closing(line, sep + 2, open_, _WRAPPERS[open_])
    if closing is None:
        return None
    return InlineField(key, closing[0], start, closing[1])


def inline_fields(line: str) -> list[InlineField]:
    """The ``[key:: value]`` and ``(key:: value)`` fields Dataview reads on ``line``, left to
    right, overlapping ones dropped (Dataview's ``extractInlineFields``, without its emoji)."""
    found: list[InlineField] = []
    for wrapper in _WRAPPERS:
        at = line.find(wrapper)
        while at >= 0:
            f = _field_at(line, at)
            if f is None:
                at = line.find(wrapper, at + 1)
                continue
            found.append(f)
            at = line.find(wrapper, f.end)
    found.sort(key=lambda f: f.start)
    kept: list[InlineField] = []
    for f in found:
        if not kept or kept[-1].end < f.start:
            kept.append(f)
    return kept


# -- titles ------------------------------------------------------------------------------------

# Words a title cannot end on: a cut that leaves one took the words it led to ("Book the car
# service for" once its date was taken out). In the four languages of the date words.
DANGLING = frozenset(
    """a an the and or but for to with about before after by from of until till due via per
    für mit am bis vor zum zur der die das den dem und oder von
    pour avec au aux de du des le la les et ou avant
    para con al del el los las y o antes""".split()
)
_ANSI = LazyPattern(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


_END_ARROW = LazyPattern(r"^(?:(?:→|->|=>)\s*)+|(?:\s*(?:→|->|=>))+$")


def drop_dangling(text: str) -> str:
    """``text`` without the function words left at its end (``Book the car service for``
    -> ``Book the car service``), as long as a word stays."""
    words = text.split()
    while len(words) > 1 and words[-1].lower().strip(",;:") in DANGLING:
        words.pop()
    return " ".join(words).rstrip(",;:")


def title_text(text: str, max_chars: int = 120) -> str:
    """A title as a note and its Tasks line may hold it, or "" when nothing is left to
    title a note by (emoji or punctuation only: such a title is refused).

    One line; terminal escape sequences and control characters out (only what follows an
    ESC is an escape: ``[Urgent] Renew`` keeps its brackets); Tasks' fields and Dataview's
    inline fields out (``Renew the domain ⏫`` is titled ``Renew the domain``: the priority
    is a field), and ``#tags`` at its end; at most ``max_chars``, cut at a word boundary,
    never on a dangling word. The person's Markdown goes and its words stay
    (:func:`vaultbrain.vault.inline.plain_words`: ``~~Monday~~`` -> ``Monday``, a wikilink
    -> what it shows)."""
    if not isinstance(text, str):
        return ""
    cleaned = _ANSI.sub("", text) if "\x1b" in text else text
    cleaned = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in cleaned
    )
    if _SIGNIFIER.search(cleaned) or "::" in cleaned:
        cleaned = _SIGNIFIER.sub(" ", parse_typed(cleaned).words)
    # Tags at the end tag the thought; they are not its name (the Tasks line keeps them).
    cleaned = trailing_tags(" ".join(cleaned.split()))[0]
    # The person's Markdown is how the words look: left in a title, it would be read again
    # in vaultbrain's own links (a ``~~`` as a strike) and in Obsidian's (``#`` a heading).
    cleaned = plain_words(cleaned)
    # An arrow left at either end pointed at words the classifier took out (a date, a type).
    cleaned = _END_ARROW.sub("", cleaned)
    if len(cleaned) > max_chars:
        cut = cleaned[: max_chars + 1]
        cut = cut[: cut.rfind(" ")] if " " in cut else cut[:max_chars]
        cleaned = drop_dangling(cut.rstrip(" ,;:-–—"))
    return cleaned if _has_word_char(cleaned) else ""


# -- copies ------------------------------------------------------------------------------------


def inert(text: str) -> str:
    """``text`` as vaultbrain may copy it into a note: the same words, nothing a task or a
    field is read from. Tasks' signifier emoji go (their values stay words: ``every week``,
    ``2026-12-05``); the ``::`` of a Dataview field becomes ``:\\:``, which Obsidian shows as
    ``::`` (a Markdown escape) and Dataview does not read; a checkbox at the start is
    escaped (``\\[ ]``), so a copy in a list item is never a task. One line, spaces
    collapsed. Idempotent."""
    out = _SIGNIFIER.sub(" ", text.replace("\r", " ").replace("\n", " "))
    out = out.replace("::", ":\\:")
    out = " ".join(out.split())
    m = _CHECKBOX_START.match(out)
    if m:
        out = out[: m.start(0) + len(m.group(1))] + "\\" + out[m.start(0) + len(m.group(1)) :]
    return out


def has_signifiers(text: str) -> bool:
    """Whether ``text`` holds anything :func:`inert` would change."""
    return inert(text) != " ".join(text.split())


__all__ = [
    "DANGLING",
    "DATE_FIELDS",
    "InlineField",
    "Typed",
    "drop_dangling",
    "has_signifiers",
    "inert",
    "inline_fields",
    "is_thought",
    "parse_typed",
    "title_text",
    "trailing_tags",
]
