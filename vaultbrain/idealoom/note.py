"""IdeaLoom notes in the vault: parse what people write, render what we write, edit in place.

A note looks like this (``## Help`` is optional, ideas are numbered densely from 1)::

    ---
    id: 0b0e6b3c-2d43-4b57-9d7e-1f2a3b4c5d6e
    title: Weekend projects
    category: personal
    status: draft
    created: 2026-01-02T09:30:00
    modified: 2026-01-03T18:05:12
    tags:
      - idea-loom
    ---
    # What could I build in a weekend?

    ## Help

    Small, finishable, fun.

    ## Ideas

    1. A bird feeder camera
    2. A tide clock

Parsing accepts what people really write (``uuid``/``createdAt``/``updatedAt`` for the
canonical properties, flow or bare or ``#`` tags, extra properties) and refuses anything it
could only half read, naming a reason code and the line. Updating an existing note changes
only the lines whose values changed; everything else stays byte-identical.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import yaml

from vaultbrain.idealoom.model import (
    MAX_IDEAS,
    STATUSES,
    IdeaList,
    is_uuid,
    length_problem,
    line_problem,
    trim_blank_lines,
)
from vaultbrain.vault.names import sanitize_filename
from vaultbrain.vault.note import (
    normalize,
    parse_note,
    render_entry,
    render_key,
    render_scalar,
    update_frontmatter,
)

TAG = "idea-loom"
_TAG_NAMES = {"idea-loom", "idealoom"}
# canonical property -> the names a note may use for it (matched without regard to case)
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "uuid"),
    "title": ("title",),
    "category": ("category",),
    "status": ("status",),
    "created": ("created", "createdAt"),
    "modified": ("modified", "updatedAt", "updated"),
    "tags": ("tags", "tag"),
}
_H1 = re.compile(r"^ {0,3}#(?:[ \t]+(?P<text>.*?))?[ \t]*$")
_H2 = re.compile(r"^ {0,3}##(?:[ \t]+(?P<text>.*?))?[ \t]*$")
_NUMBERED = re.compile(r"^ {0,3}(?P<n>\d{1,9})[.)](?:[ \t]+(?P<text>.*?))?[ \t]*$")
_TOP_KEY = re.compile(
    r"""^(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^']|'')*)'|(?P<plain>[^\s#'"\-?:{}\[\],&*!|>%@`][^:#]*?))[ \t]*:(?:[ \t]|$)"""
)

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Loader = yaml.SafeLoader


@dataclass(frozen=True)
class Malformed:
    """Why a note cannot be read as a list: a reason code, the line (1-based) and a sentence."""

    reason: str
    line: int | None
    message: str


@dataclass(frozen=True)
class LoomNote:
    """A note read as a list, with where each part sits so an update touches only that part."""

    list: IdeaList
    keys: dict[str, str]  # canonical property -> the name this note uses
    lines: tuple[str, ...]
    newline: str
    prompt_at: int
    help_span: tuple[int, int] | None  # [heading, end) as line indexes
    ideas_span: tuple[int, int]


class _Bad(Exception):
    def __init__(self, reason: str, line: int | None, message: str) -> None:
        super().__init__(message)
        self.malformed = Malformed(reason, line, message)


# -- parsing -----------------------------------------------------------------------------


def parse_loom_note(text: str) -> LoomNote | Malformed:
    """Read a note as an IdeaLoom list, or say why it is not one. Never raises."""
    try:
        return _parse(text)
    except _Bad as bad:
        return bad.malformed


def _split_lines(text: str) -> list[str]:
    # Only LF ends a line: str.splitlines would also split on form feeds and U+2028.
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _parse(text: str) -> LoomNote:
    note = parse_note(text)
    if not note.has_frontmatter:
        if text.startswith("---"):
            raise _Bad(
                "invalid-frontmatter",
                1,
                "the frontmatter opened on line 1 is never closed with ---",
            )
        raise _Bad(
            "no-frontmatter", 1, "the note has no frontmatter (properties between --- lines)"
        )
    key_lines = _key_lines(note.raw)
    if note.error:
        raise _Bad("invalid-frontmatter", _error_line(note.raw, key_lines), note.error)
    lines = _split_lines(text)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    props = _Properties(note.data, key_lines, note.raw)

    raw_id = props.get("id")
    if raw_id is None:
        raise _Bad("missing-id", 1, "no id property (the list's UUID)")
    if not is_uuid(raw_id):
        raise _Bad("invalid-id", props.line("id"), f"id {raw_id!r} is not a UUID")
    title = props.text("title")
    category = props.text("category")
    status_raw = props.get("status")
    if status_raw is None:
        raise _Bad("missing-status", 1, "no status property (draft or completed)")
    status = str(status_raw).strip().lower() if isinstance(status_raw, str) else None
    if status not in STATUSES:
        raise _Bad(
            "invalid-status",
            props.line("status"),
            f"status {status_raw!r} is not draft or completed",
        )
    created = props.timestamp("created")
    modified = props.timestamp("modified")
    tags = props.get("tags")
    if not _has_tag(tags):
        line = props.line("tags") if tags is not None else 1
        raise _Bad("missing-tag", line, f"no {TAG} tag in the note's tags")

    body_at = text[: note.body_start].count("\n")
    prompt_at, prompt, help_span, help_text, ideas_span, ideas = _parse_body(lines, body_at)
    lst = IdeaList(
        id=raw_id.lower(),
        title=title,
        prompt=prompt,
        category=category,
        status=status,
        help=help_text,
        ideas=tuple(ideas),
        created=created,
        modified=modified,
    )
    return LoomNote(lst, props.names, tuple(lines), newline, prompt_at, help_span, ideas_span)


def _key_lines(raw: str) -> dict[str, list[int]]:
    """Lower-cased top-level property -> the file lines (1-based) where it is set."""
    found: dict[str, list[int]] = {}
    for i, line in enumerate(raw.split("\n")):
        m = _TOP_KEY.match(line.rstrip("\r"))
        if not m:
            continue
        key = m.group("plain")
        if key is None:
            key = m.group("dq") if m.group("dq") is not None else m.group("sq").replace("''", "'")
        found.setdefault(key.strip().lower(), []).append(i + 2)  # line 1 is the opening ---
    return found


def _error_line(raw: str, key_lines: dict[str, list[int]]) -> int:
    for lines in key_lines.values():
        if len(lines) > 1:
            return lines[1]
    try:
        yaml.load(raw, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            return int(mark.line) + 2
    return 2


class _Properties:
    """Frontmatter values looked up by canonical name through their aliases."""

    def __init__(self, data: dict[str, Any], key_lines: dict[str, list[int]], raw: str) -> None:
        self.data = data
        self.key_lines = key_lines
        self.raw_lines = raw.split("\n")
        self.names: dict[str, str] = {}
        by_lower: dict[str, list[str]] = {}
        for key in data:
            by_lower.setdefault(key.lower(), []).append(key)
        for canonical, aliases in ALIASES.items():
            present = [k for alias in aliases for k in by_lower.get(alias.lower(), [])]
            if not present:
                continue
            values = {json.dumps(normalize(data[k]), sort_keys=True, default=str) for k in present}
            if len(values) > 1:
                second = present[1]
                raise _Bad(
                    "conflicting-properties",
                    self._line_of(second),
                    f"{present[0]!r} and {second!r} both set the {canonical} and disagree",
                )
            self.names[canonical] = present[0]

    def _line_of(self, key: str) -> int:
        lines = self.key_lines.get(key.lower())
        return lines[0] if lines else 1

    def line(self, canonical: str) -> int:
        name = self.names.get(canonical)
        return self._line_of(name) if name else 1

    def get(self, canonical: str) -> Any:
        name = self.names.get(canonical)
        return None if name is None else self.data[name]

    def text(self, canonical: str) -> str:
        value = self.get(canonical)
        if value is None or value == "":
            raise _Bad(f"missing-{canonical}", self.line(canonical), f"no {canonical} property")
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        problem = line_problem(value)
        if problem:
            raise _Bad(f"invalid-{canonical}", self.line(canonical), f"the {canonical} {problem}")
        too_long = length_problem(canonical, value.strip())
        if too_long:
            raise _Bad(f"{canonical}-too-long", self.line(canonical), f"the {canonical} {too_long}")
        return value.strip()

    def written(self, canonical: str) -> str | None:
        """The value as written on its line, when it is a plain one-line scalar. YAML reads
        an unquoted ``2026-01-02T10:00:00.000Z`` as a date-time and the note reader keeps
        its wall time; the text itself still has the ``Z`` (or offset) to keep."""
        name = self.names.get(canonical)
        lines = self.key_lines.get(name.lower()) if name else None
        if not lines or lines[0] - 2 >= len(self.raw_lines):
            return None
        line = self.raw_lines[lines[0] - 2].rstrip("\r")
        m = _TOP_KEY.match(line)
        if not m:
            return None
        value = line[m.end() :].split(" #", 1)[0].strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        return value or None

    def timestamp(self, canonical: str) -> str:
        value = self.get(canonical)
        if value is None or value == "":
            raise _Bad(
                f"missing-{canonical}", self.line(canonical), f"no {canonical} date-time property"
            )
        stamp = _timestamp(value, self.written(canonical))
        if stamp is None:
            raise _Bad(
                f"invalid-{canonical}",
                self.line(canonical),
                f"{canonical} {value!r} is not a date-time like 2026-01-02T09:30:00",
            )
        return stamp


def _timestamp(value: Any, written: str | None = None) -> str | None:
    """The list's date-time: a stamp with a ``Z`` or an offset (PortOS writes JavaScript's
    ``toISOString``) is kept exactly as written, so an import and an export give it back
    unchanged; one without is a local wall time, ``YYYY-MM-DDTHH:MM:SS``."""
    if not isinstance(value, str):
        return None
    for text in (written, value.strip()):
        if not text:
            continue
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            continue
        if moment.tzinfo is not None and "T" in text:
            return text
    try:
        moment = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _has_tag(tags: Any) -> bool:
    if tags is None:
        return False
    items = re.split(r"[,\s]+", tags) if isinstance(tags, str) else tags
    if not isinstance(items, list):
        return False
    return any(
        isinstance(t, str | int) and str(t).strip().lstrip("#").lower() in _TAG_NAMES for t in items
    )


def _parse_body(
    lines: list[str], start: int
) -> tuple[int, str, tuple[int, int] | None, str, tuple[int, int], list[str]]:
    prompt_at: int | None = None
    prompt = ""
    sections: dict[str, list[int]] = {}  # name -> [heading, end]
    current: str | None = None
    ideas: list[str] = []
    help_lines: list[str] = []
    for i in range(start, len(lines)):
        line = lines[i].rstrip("\n").rstrip("\r")
        n = i + 1
        h1, h2 = _H1.match(line), _H2.match(line)
        if h1:
            if prompt_at is not None:
                raise _Bad("extra-heading", n, "a second '# ' heading; the note has one prompt")
            prompt = (h1.group("text") or "").strip()
            if not prompt:
                raise _Bad("missing-prompt", n, "the '# ' heading holds no prompt")
            too_long = length_problem("prompt", prompt)
            if too_long:
                raise _Bad("prompt-too-long", n, f"the prompt {too_long}")
            prompt_at = i
            continue
        if h2:
            if prompt_at is None:
                raise _Bad("missing-prompt", n, "a section comes before the '# prompt' heading")
            name = (h2.group("text") or "").strip().lower()
            if name not in ("help", "ideas"):
                raise _Bad(
                    "unknown-section", n, f"unknown section {line.strip()!r}; only Help and Ideas"
                )
            if name in sections:
                raise _Bad("duplicate-section", n, f"a second {line.strip()!r} section")
            if current is not None:
                sections[current][1] = i
            sections[name] = [i, len(lines)]
            current = name
            continue
        if not line.strip():
            if current == "help":
                help_lines.append(line)
            continue
        if prompt_at is None:
            raise _Bad("unexpected-content", n, "text before the '# prompt' heading")
        if current is None:
            raise _Bad(
                "unexpected-content",
                n,
                "text between the prompt and the first section (Help or Ideas)",
            )
        if current == "help":
            help_lines.append(line)
            continue
        m = _NUMBERED.match(line)
        if not m:
            raise _Bad("not-numbered", n, "a line in Ideas that is not a numbered idea ('3. …')")
        expected = len(ideas) + 1
        if int(m.group("n")) != expected:
            raise _Bad(
                "numbering-not-dense",
                n,
                f"idea numbered {m.group('n')}, expected {expected} (ideas are numbered 1, 2, 3 …)",
            )
        text = (m.group("text") or "").strip()
        if not text:
            raise _Bad("empty-idea", n, f"idea {expected} has no text")
        too_long = length_problem("idea", text)
        if too_long:
            raise _Bad("idea-too-long", n, f"idea {expected} {too_long}")
        if expected > MAX_IDEAS:
            raise _Bad(
                "too-many-ideas", n, f"idea {expected}: IdeaLoom allows at most {MAX_IDEAS} ideas"
            )
        ideas.append(text)
    if prompt_at is None:
        raise _Bad("missing-prompt", max(len(lines), 1), "no '# prompt' heading")
    if "ideas" not in sections:
        raise _Bad("missing-ideas", max(len(lines), 1), "no '## Ideas' section")
    help_span = (sections["help"][0], sections["help"][1]) if "help" in sections else None
    ideas_span = (sections["ideas"][0], sections["ideas"][1])
    # Blank lines at either end of the section are layout, not help text.
    help_text = "\n".join(trim_blank_lines(help_lines))
    too_long = length_problem("help", help_text)
    if too_long and help_span is not None:
        raise _Bad("help-too-long", help_span[0] + 1, f"the help text {too_long}")
    return prompt_at, prompt, help_span, help_text, ideas_span, ideas


# -- rendering ---------------------------------------------------------------------------


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar that reads back as exactly ``value``.

    Plain where that is safe (so dates stay Obsidian dates), else JSON-quoted, which YAML
    reads as a double-quoted scalar. Catches what a plain scalar would turn into something
    else: ``=``, ``0b101``, ``2026-01-02 09:30:00`` (a date-time with a space).
    """
    plain = render_scalar(value)
    try:
        back = yaml.load(f"k: {plain}", Loader=_Loader)
    except yaml.YAMLError:
        back = None
    if isinstance(back, dict) and normalize(back.get("k")) == value:
        return plain
    return json.dumps(value, ensure_ascii=False)


def _help_block(text: str, followed: bool, nl: str) -> list[str]:
    return [nl, *(f"{line}{nl}" for line in text.split("\n")), *([nl] if followed else [])]


def _ideas_block(ideas: tuple[str, ...], followed: bool, nl: str) -> list[str]:
    numbered = [f"{n}. {idea}{nl}" for n, idea in enumerate(ideas, start=1)]
    return [*([nl, *numbered] if ideas else []), *([nl] if followed else [])]


_FRONT_FIELDS = ("id", "title", "category", "status", "created", "modified")


def render_loom_note(lst: IdeaList) -> str:
    """The note for a list as vaultbrain writes it when it creates one."""
    front = "".join(f"{k}: {yaml_scalar(getattr(lst, k))}\n" for k in _FRONT_FIELDS)
    out = [f"---\n{front}tags:\n  - {TAG}\n---\n", f"# {lst.prompt}\n", "\n"]
    if lst.help:
        out += ["## Help\n", *_help_block(lst.help, True, "\n")]
    out += ["## Ideas\n", *_ideas_block(lst.ideas, False, "\n")]
    return "".join(out)


def update_loom_note(note: LoomNote, lst: IdeaList) -> str:
    """The note's text with ``lst`` written into it, changing only the parts that differ."""
    old, nl = note.list, note.newline
    lines = list(note.lines)
    edits: list[tuple[int, int, list[str]]] = []  # [start, end) -> replacement
    if lst.prompt != old.prompt:
        edits.append((note.prompt_at, note.prompt_at + 1, [f"# {lst.prompt}{nl}"]))
    ideas_at, ideas_end = note.ideas_span
    if lst.ideas != old.ideas:
        edits.append((ideas_at + 1, ideas_end, _ideas_block(lst.ideas, ideas_end < len(lines), nl)))
    if lst.help != old.help:
        if note.help_span is None:
            edits.append((ideas_at, ideas_at, [f"## Help{nl}", *_help_block(lst.help, True, nl)]))
        else:
            help_at, help_end = note.help_span
            if lst.help:
                block = _help_block(lst.help, help_end < len(lines), nl)
                edits.append((help_at + 1, help_end, block))
            else:
                edits.append((help_at, help_end, []))
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        if start > 0 and not lines[start - 1].endswith("\n"):
            lines[start - 1] += nl
        lines[start:end] = new
    text = "".join(lines)
    changes = {
        note.keys.get(k, k): getattr(lst, k)
        for k in ("title", "category", "status", "created", "modified")
        if getattr(lst, k) != getattr(old, k)
    }
    return _set_properties(text, changes, nl) if changes else text


def _set_properties(text: str, changes: dict[str, str], nl: str) -> str:
    out = update_frontmatter(text, changes)
    # update_frontmatter renders plain scalars that YAML may read back differently; such a
    # line is swapped for its quoted form. It is a whole line inside the frontmatter.
    unsafe = {
        render_entry(k, v, nl): f"{render_key(k)}: {yaml_scalar(v)}{nl}"
        for k, v in changes.items()
        if yaml_scalar(v) != render_scalar(v)
    }
    if not unsafe:
        return out
    lines = _split_lines(out)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            break
        if lines[i] in unsafe:
            lines[i] = unsafe.pop(lines[i])
    return "".join(lines)


# -- file names --------------------------------------------------------------------------


def slug(title: str) -> str:
    text = unicodedata.normalize("NFKC", title).lower()
    text = re.sub(r"[^\w]+", "-", text).strip("-_")
    text = text[:60].strip("-_")
    return sanitize_filename(text) if text else "untitled"


def note_path(folder: str, lst: IdeaList, *, suffixed: bool = False) -> str:
    """``<folder>/<created date>-<slug>.md``; ``suffixed`` appends the id's first 8 characters."""
    stem = f"{lst.created[:10]}-{slug(lst.title)}"
    if suffixed:
        stem = f"{stem}-{lst.id[:8]}"
    return f"{folder.strip('/')}/{stem}.md"
