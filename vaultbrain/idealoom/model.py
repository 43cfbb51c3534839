"""An IdeaLoom list: a prompt, its ordered ideas, and what the vault exchange last saw.

The same checks guard both ways in: a value typed at the command line (a ``UserError``) and
a value read from a note (a malformed-note reason). Each check returns the problem as text,
or ``None`` when the value is fine, so the caller decides how to report it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

from vaultbrain.vault import content_hash

RECORD_TYPE = "idealoom-list"
STATUSES = ("draft", "completed")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
# A line of help text that Markdown would read as the note's own structure (a prompt heading
# or a section): refused rather than escaped, so the note stays what a person would write.
STRUCTURE_LINE = re.compile(r"^[ ]{0,3}#{1,2}(?:[ \t]|$)")
_BAD_CATEGORIES = {"Cc", "Cs", "Zl", "Zp"}
# PortOS's own limits: its IdeaLoom API refuses a list past them, so vaultbrain neither takes
# one in (create, edit, import) nor writes one out. PortOS counts as JavaScript does, in
# UTF-16 code units, so an emoji counts two.
MAX_LENGTH = {"title": 200, "category": 100, "prompt": 10_000, "help": 5_000, "idea": 2_000}
MAX_IDEAS = 500


def _bad_char(text: str) -> str | None:
    for ch in text:
        if unicodedata.category(ch) in _BAD_CATEGORIES or ch in "\ufffe\uffff":
            return ch
    return None


def line_problem(value: Any) -> str | None:
    """Why ``value`` is not a usable one-line text (a title, prompt, category or idea)."""
    if not isinstance(value, str):
        return "must be text"
    if not value.strip():
        return "must not be empty"
    bad = _bad_char(value)
    if bad is not None:
        return (
            "must be a single line"
            if bad in "\r\n\x85\u2028\u2029"
            else (f"must not contain the control character U+{ord(bad):04X}")
        )
    return None


def js_length(text: str) -> int:
    """``text.length`` in JavaScript: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def length_problem(name: str, value: str) -> str | None:
    """Why ``value`` is too long to be a list's ``name`` (a key of ``MAX_LENGTH``) in PortOS."""
    limit = MAX_LENGTH[name]
    size = js_length(value)
    if size > limit:
        return f"is {size:,} characters long; IdeaLoom allows at most {limit:,}"
    return None


def count_problem(count: int) -> str | None:
    if count > MAX_IDEAS:
        return f"the list has {count:,} ideas; IdeaLoom allows at most {MAX_IDEAS:,}"
    return None


def help_problem(value: str) -> str | None:
    """Why ``value`` cannot be a list's help text (which may span several lines)."""
    too_long = length_problem("help", value)
    if too_long:
        return too_long
    for n, line in enumerate(value.split("\n"), start=1):
        bad = _bad_char(line.replace("\t", " "))
        if bad is not None:
            return f"line {n} holds the control character U+{ord(bad):04X}"
        if STRUCTURE_LINE.match(line):
            return (
                f"line {n} starts with '#' or '##' and a space, which the note would read as "
                "its prompt or a section heading; use '###' or drop the space"
            )
    return None


def trim_blank_lines(lines: list[str]) -> list[str]:
    """``lines`` without the blank lines at either end."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def clean_help(value: str) -> str:
    """Help text as it is kept and written: LF line ends, no blank lines at either end."""
    return "\n".join(trim_blank_lines(value.replace("\r\n", "\n").replace("\r", "\n").split("\n")))


def is_uuid(value: Any) -> bool:
    return isinstance(value, str) and bool(_UUID.match(value))


@dataclass(frozen=True)
class SyncState:
    """What the exchange knows about a list's note.

    ``base_hash`` is the SHA-256 of the note text as last read or written; ``list_hash`` is
    the list's fingerprint at that moment. Together they are the base of the next decision.
    ``outcome``/``reason`` is what the last exchange said about this list.
    """

    path: str | None = None
    base_hash: str | None = None
    list_hash: str | None = None
    outcome: str | None = None
    reason: str | None = None
    at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "base_hash": self.base_hash,
            "list_hash": self.list_hash,
            "outcome": self.outcome,
            "reason": self.reason,
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> SyncState:
        data = data or {}
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class IdeaList:
    id: str
    title: str
    prompt: str
    category: str
    status: str
    help: str
    ideas: tuple[str, ...]
    created: str
    modified: str
    sync: SyncState = field(default_factory=SyncState)

    def content(self) -> dict[str, Any]:
        """The fields a note carries, as plain JSON values."""
        return {
            "id": self.id,
            "title": self.title,
            "prompt": self.prompt,
            "category": self.category,
            "status": self.status,
            "help": self.help,
            "ideas": list(self.ideas),
            "created": self.created,
            "modified": self.modified,
        }

    def fingerprint(self) -> str:
        return content_hash(json.dumps(self.content(), sort_keys=True, ensure_ascii=False))

    def same_content(self, other: IdeaList) -> bool:
        """Whether two versions say the same thing, whenever each was last touched."""
        mine, theirs = self.content(), other.content()
        mine.pop("modified")
        theirs.pop("modified")
        return mine == theirs

    def with_sync(self, **changes: Any) -> IdeaList:
        return replace(self, sync=replace(self.sync, **changes))

    def to_record(self) -> dict[str, Any]:
        record = self.content()
        record["type"] = RECORD_TYPE
        record["updated"] = self.modified  # the collection index's summary key
        record["path"] = self.sync.path
        record["sync"] = self.sync.to_dict()
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> IdeaList:
        return cls(
            id=record["id"],
            title=record["title"],
            prompt=record["prompt"],
            category=record["category"],
            status=record["status"],
            help=record.get("help") or "",
            ideas=tuple(record.get("ideas") or ()),
            created=record["created"],
            modified=record["modified"],
            sync=SyncState.from_dict(record.get("sync")),
        )
