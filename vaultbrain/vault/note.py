"""Notes with Obsidian Properties (YAML frontmatter): parse, render, and edit in place.

Updating a note must leave every line it does not change byte-identical: comments, flow
lists, odd quoting and the body included. Round-trip YAML libraries (python-frontmatter's
dump, ruamel.yaml) re-emit the whole mapping and so re-indent, re-quote or re-flow what the
person wrote. Instead this module finds the line span of each top-level key and replaces
only the spans whose values change; new keys are appended at the end of the frontmatter.
Values are read with PyYAML (the C loader when present).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    import types

# The plain frontmatter most notes have, read without YAML (see simple_frontmatter).
_PLAIN_KEY_LINE = LazyPattern(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?")
_PLAIN_ITEM_LINE = LazyPattern(r"( *)- (.*)")
_INT = LazyPattern(r"-?(?:0|[1-9][0-9]*)")
_DAY = LazyPattern(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_STAMP = LazyPattern(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})")
# Plain words YAML 1.1 reads as booleans or null, whatever their case: left to YAML.
_YAML_WORDS = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})
_NOT_PLAIN = frozenset(':#[]{}"`\t\\')
_FAIL = object()


def _scalar(value: str, iso: bool = False) -> Any:
    """A one-line YAML scalar as SafeLoader reads it, or ``_FAIL`` when it is not one of
    the forms read here: a quoted string without escapes, an integer, a date, a
    date-time without zone or fraction, or plain text that can only be a string.
    ``iso``: a date or date-time as :func:`normalize` keeps it (an ISO string)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        if value[0] in inner or "\\" in inner or not inner.isprintable():
            return _FAIL
        return inner
    if _INT.fullmatch(value):
        return int(value)
    try:
        if m := _DAY.fullmatch(value):
            day = dt.date(int(m[1]), int(m[2]), int(m[3]))
            return value if iso else day
        if m := _STAMP.fullmatch(value):
            stamp = dt.datetime(*[int(g) for g in m.groups()])  # type: ignore[arg-type]
            if not iso:
                return stamp
            if m[1] < "1000":  # (strftime's %Y does not pad: left to normalize)
                return _FAIL
            return f"{m[1]}-{m[2]}-{m[3]}T{m[4]}:{m[5]}:{m[6]}"
    except ValueError:
        return _FAIL
    if (
        value[:1].isalpha()
        and value.isprintable()
        and not _NOT_PLAIN.intersection(value)
        and value.lower() not in _YAML_WORDS
    ):
        return value
    return _FAIL


@functools.cache
def _yaml() -> tuple[types.ModuleType, type]:
    """PyYAML and its fastest safe loader, imported the first time a note needs YAML (most
    frontmatter is read without it, see simple_frontmatter; a capture seldom needs it)."""
    import yaml

    try:
        return yaml, yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML without libyaml
        return yaml, yaml.SafeLoader


def simple_frontmatter(block: str, as_stored: bool = False) -> dict[str, Any] | None:
    """The frontmatter ``block`` as ``yaml.load(block, CSafeLoader)`` reads it, when every
    line is a ``key: scalar``, a ``key:`` with nothing or a list of ``- scalar`` items
    below it; None for anything else (the caller asks YAML). Building the objects is most
    of what reading a note's frontmatter costs in PyYAML, even with libyaml's parser, and
    ``reindex`` reads every note of the vault.

    ``as_stored``: as :func:`parse_note` keeps it, dates as ISO strings (what
    :func:`normalize` makes of them), and None for a key given twice (an error there)."""
    data: dict[str, Any] = {}
    key: str | None = None  # the key whose list items may follow
    indent: str | None = None
    # bound once: a LazyPattern's method, looked up in a loop, costs more than a pattern's
    item_line, key_line = _PLAIN_ITEM_LINE.fullmatch, _PLAIN_KEY_LINE.fullmatch
    for line in block.split("\n"):
        if line[:1] in (" ", "-"):
            item = item_line(line)
            if item is None or key is None or (indent is not None and item[1] != indent):
                return None
            value = _scalar(item[2].strip(), as_stored) if item[2].strip() else _FAIL
            if value is _FAIL:
                return None
            if indent is None:
                indent, data[key] = item[1], []
            data[key].append(value)
            continue
        m = key_line(line)
        if m is None or m[1].lower() in _YAML_WORDS or (as_stored and m[1] in data):
            return None
        raw = (m[2] or "").strip()
        if raw:
            value = _scalar(raw, as_stored)
            if value is _FAIL:
                return None
            data[m[1]], key = value, None
        else:
            data[m[1]], key = None, m[1]
        indent = None
    return data


# A line ends at ``\r\n``, ``\r`` or ``\n``, as in Obsidian's editor (CodeMirror splits on
# all three): a note saved by an old Mac editor (lone ``\r``) has Properties too.
_FENCE_OPEN = LazyPattern(r"---[ \t]*(\r\n|\r|\n)")
_EOL = LazyPattern(r"\r\n|\r|\n")
_EOL_LINE = LazyPattern(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def newline_of(text: str) -> str:
    """The line ending the note uses most (``\r\n``, a lone ``\r`` or ``\n``; ``\n`` for
    a note with none): what a line vaultbrain adds to it ends with, so a Windows note stays
    CRLF and an old Mac one stays CR."""
    crlf = text.count("\r\n")
    cr, lf = text.count("\r") - crlf, text.count("\n") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    return "\r" if cr > lf and cr > crlf else "\n"


_FENCE_CLOSE = LazyPattern(r"^(?:---|\.\.\.)[ \t]*$")
_KEY_LINE = LazyPattern(
    r"""^(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^']|'')*)'|(?P<plain>[^\s#'"\-?:{}\[\],&*!|>%@`][^:#]*?|-[^\s:][^:#]*?))[ \t]*:(?:[ \t]|$)"""
)
_DATE = LazyPattern(r"^\d{4}-\d{2}-\d{2}$")
_ALIAS = LazyPattern(
    r"(?:^[ \t]*(?:-[ \t]+)?[^:#\n\"']*:[ \t]+|^[ \t]*-[ \t]+|[\[,][ \t]*)\*[\w-]+[ \t]*(?:$|[,\]}])",
    re.M,
)
_ANCHOR = LazyPattern(r"(?:^|[\s\[{,:-])&[\w-]+", re.M)
_DATETIME = LazyPattern(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
# Text shaped like a date that is not one (2026-12, 2026-1-5 10:00): quoted, so no reader
# and no person takes it for a date the note means.
_ISO_LIKE = LazyPattern(r"^\d{4}-\d{1,2}(?:-\d{1,2})?(?:[Tt ]\d.*)?$")
_PLAIN_SAFE = LazyPattern(r"^[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n]*$")
_YAML_SPECIAL = LazyPattern(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|null|Null|NULL|~|[-+]?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o?[0-7]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|\d+(?::[0-5]?\d)+(?:\.\d*)?)$"
)


class NoteFormatError(UserError):
    """A note whose frontmatter cannot be read; the note is left untouched."""


@dataclass
class ParsedNote:
    """A note split: its frontmatter (``data``, and ``raw`` as written) and its body."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    has_frontmatter: bool = False
    error: str | None = None
    raw: str = ""
    raw_start: int = 0
    body_start: int = 0
    newline: str = "\n"
    # A note that opens a frontmatter fence it never closes as one (a closing ``---`` with
    # text after it on its line, or none): read as having no Properties, as Obsidian reads
    # it, but never given a block of ours, which would stack a second one above its own.
    fence_problem: str | None = None


def parse_note(text: str) -> ParsedNote:
    """Split a note into frontmatter data and body. Never raises; ``error`` says what is wrong."""
    note = ParsedNote(text=text, body=text)
    # A byte-order mark stays the person's: the fence is looked for after it.
    m = _FENCE_OPEN.match(text, 1 if text.startswith("\ufeff") else 0)
    if not m:
        return note
    newline = m.group(1)
    pos = m.end()
    close_at = None
    body_start = len(text)
    cursor = pos
    fence_close = _FENCE_CLOSE.match  # bound once, for the loop
    if newline == "\r":  # an old Mac note: its lines end at a lone CR
        eol = _EOL.search
        while cursor <= len(text):
            end = eol(text, cursor)
            if fence_close(text[cursor : end.start() if end else len(text)]):
                close_at, body_start = cursor, end.end() if end else len(text)
                break
            if end is None:
                break
            cursor = end.end()
    while close_at is None and cursor <= len(text):
        nl = text.find("\n", cursor)
        line_end = len(text) if nl == -1 else nl
        line = text[cursor:line_end].rstrip("\r")
        if fence_close(line):
            close_at = cursor
            body_start = len(text) if nl == -1 else nl + 1
            break
        if nl == -1:
            break
        cursor = nl + 1
    if close_at is None:
        # An unclosed fence is not Properties in Obsidian either, but it is the person's
        # block: it is reported, never written above.
        note.fence_problem = _unclosed(text, pos)
        return note
    raw = text[pos:close_at]
    note.has_frontmatter = True
    note.raw, note.raw_start, note.body_start, note.newline = raw, pos, body_start, newline
    note.body = text[body_start:]
    if "\r" not in raw and "\x00" not in raw:
        # The plain forms most notes have are read directly (exactly as YAML reads them,
        # dates normalised; no key twice, no alias): building objects is most of what
        # PyYAML costs, and reindex reads every note.
        plain = simple_frontmatter(raw.removesuffix("\n"), as_stored=True)
        if plain is not None:
            note.data = plain
            return note
    dupes = _duplicate_keys(raw)
    if dupes:
        note.error = f"duplicate property {dupes[0]!r} in the frontmatter"
        return note
    if "*" in raw and _ANCHOR.search(raw) and _ALIAS.search(raw):
        # Obsidian has no use for YAML anchors, and expanding aliases is how a 300-byte note
        # becomes millions of values. Refused, not expanded.
        note.error = "the frontmatter uses YAML aliases (*name), which vaultbrain does not expand"
        return note
    # YAML refuses a NUL anywhere; a few pasted into a note are ignored for reading it (the
    # note's text, NULs included, is what is kept and edited).
    source = raw.replace("\x00", "") if "\x00" in raw else raw
    yaml, loader = _yaml()
    try:
        data = yaml.load(source, Loader=loader) if source.strip() else {}
        if data is None:
            data = {}
        if not isinstance(data, dict):
            note.error = "the frontmatter is not a list of properties (a YAML mapping)"
            return note
        note.data = {str(k): normalize(v) for k, v in data.items()}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        note.error = f"the frontmatter is not valid YAML{where}: {problem}"
    except RecursionError:
        note.error = "the frontmatter is nested too deeply to read"
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a date 2026-13-45
        note.error = f"the frontmatter has a value YAML cannot read: {exc}"
    return note


def _unclosed(text: str, pos: int) -> str:
    """What is wrong with a frontmatter fence opened at the top and never closed."""
    for line in text[pos:].splitlines():
        if line.startswith("---") and line[3:].strip() and not line.startswith("----"):
            return (
                "its frontmatter's closing --- has text after it on the same line "
                f"({line.strip()[:40]!r}); move that text to the next line"
            )
    return "its frontmatter opens with --- and never closes"


def normalize(value: Any) -> Any:
    """YAML values as the store keeps them: dates and date-times become ISO strings."""
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in value.items()}
    return value


# -- rendering ---------------------------------------------------------------------------


class Text(str):
    """A value that is text whatever it looks like (a title ``2026-12-01``, a topic ``2026``).

    Plain strings shaped like a date or a date-time are written unquoted, because the store
    keeps dates as ISO strings and Obsidian should see them as dates. A field the pack types
    as text is wrapped in ``Text`` so it is quoted instead: PyYAML, js-yaml (Obsidian's
    parser) and YAML 1.1 and 1.2 then all read it back as the same string.
    """

    __slots__ = ()


def render_scalar(value: Any) -> str:
    """The one writer of a frontmatter scalar: ``value`` as YAML that PyYAML, js-yaml
    (Obsidian) and Dataview read back as the same type and value.

    ``None`` is an empty value; booleans, numbers, dates and date-times are written bare.
    A plain ``str`` that is a real date (``2026-12-01``) or date-time (``…T19:22:27``) is
    written bare too, so it stays a date: the store keeps dates as ISO strings. Any other
    text, and a :class:`Text` whatever it looks like, is plain only when every reader takes
    it for that very string; else it is double-quoted: numbers in any YAML 1.1 or 1.2 form
    (``1e3``, ``0o17``, ``.5``, ``1_000``), booleans and nulls of either version (``yes``,
    ``on``, ``~``, ``Null``), sexagesimal times (``12:30``), dates and timestamps, a leading
    ``[ { * & ! % @ ` | > ' " # - ? :``, ``: `` or `` #`` inside, edge spaces, and
    anything not printable. (Dataview reads a *string* that is a date, a duration or a link
    as one, quoted or not: that is its reading of the text, not of the YAML.)"""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S")
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value)
    if isinstance(value, Text):
        if not text:
            return '""'
    elif (_DATE.match(text) or _DATETIME.match(text)) and _real_date(text):
        return text
    if (
        _PLAIN_SAFE.match(text)
        and not _YAML_SPECIAL.match(text)
        and not _ISO_LIKE.match(text)
        and ": " not in text
        and " #" not in text
        and not text.endswith((" ", ":", "\t"))
        and text.isprintable()
        and _reads_back(text)
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


def _real_date(text: str) -> bool:
    try:
        if "T" in text:
            dt.datetime.fromisoformat(text)
        else:
            dt.date.fromisoformat(text)
        return True
    except ValueError:
        return False


_WORD = LazyPattern(r"[A-Za-z][A-Za-z0-9_-]*")
# Words after a letter, one space apart, of letters, digits and ' ’ . , ( ) / - (a title, a
# follow-up): YAML reads such a line as a string unless it is one of _YAML_SPECIAL's words
# (it starts with no indicator and holds no ": " nor " #").
_WORDS = LazyPattern(r"[^\W\d_][\w'’.,()/-]*(?: [\w'’.,()/-]+)*")


def _reads_back(plain: str) -> bool:
    """Whether YAML reads the plain scalar back as the same string (``=``, ``0b101``, …)."""
    if _WORD.fullmatch(plain) or _WORDS.fullmatch(plain):
        # A word (an id, a type name) or words (a title) are a string to YAML unless one of
        # the words _YAML_SPECIAL names (true, no, null…): no parse needed (a parse per
        # property was most of writing an id into 12,000 notes, and PyYAML's import a tenth
        # of a cold capture).
        return not _YAML_SPECIAL.match(plain)
    yaml, loader = _yaml()
    try:
        return yaml.load(f"k: {plain}", Loader=loader) == {"k": plain}
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return False  # a timestamp that is no date (2026-13-45) is an error, not a string


def render_key(key: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-. ]*", key) and not key.endswith(" "):
        return key
    return json.dumps(key, ensure_ascii=False)


def render_entry(key: str, value: Any, newline: str = "\n") -> str:
    k = render_key(key)
    if isinstance(value, list | tuple):
        if not value:
            return f"{k}: []{newline}"
        items = "".join(f"  - {_render_item(v)}{newline}" for v in value)
        return f"{k}:{newline}{items}"
    if isinstance(value, dict):
        return f"{k}: {json.dumps(normalize(value), ensure_ascii=False)}{newline}"
    rendered = render_scalar(value)
    return f"{k}: {rendered}{newline}" if rendered else f"{k}:{newline}"


def _render_item(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(normalize(value), ensure_ascii=False)
    return render_scalar(value) or '""'


def render_frontmatter(data: Mapping[str, Any], newline: str = "\n") -> str:
    inner = "".join(render_entry(k, v, newline) for k, v in data.items())
    return f"---{newline}{inner}---{newline}"


def render_note(data: Mapping[str, Any], body: str) -> str:
    return render_frontmatter(data) + body


# -- editing in place --------------------------------------------------------------------


def _key_spans(raw: str) -> tuple[list[str], dict[str, tuple[int, int]], list[str]]:
    """Lines of the frontmatter, each top-level key's [start, end) line span, and duplicates."""
    lines = raw.splitlines(keepends=True)
    spans: dict[str, tuple[int, int]] = {}
    dupes: list[str] = []
    current: str | None = None
    start = 0
    last_content = 0
    key_line = _KEY_LINE.match  # bound once, for the loop
    for i, line in enumerate(lines):
        stripped = line.rstrip("\r\n")
        m = key_line(stripped)
        if m:
            if current is not None:
                spans[current] = (start, last_content + 1)
            key = m.group("plain")
            if key is None:
                key = m.group("dq") if m.group("dq") is not None else m.group("sq")
                key = key.replace("''", "'")
            key = key.strip()
            if key in spans or key == current:
                dupes.append(key)
            current, start, last_content = key, i, i
            continue
        if current is None:
            continue
        if not stripped.strip():
            continue  # a blank line may sit inside a block scalar; decided by what follows
        if stripped.startswith((" ", "\t", "- ")) or stripped == "-":
            last_content = i
            continue
        # A comment or anything else at column 0 ends the current key's span.
        spans[current] = (start, last_content + 1)
        current = None
    if current is not None:
        spans[current] = (start, last_content + 1)
    return lines, spans, dupes


def _names_key(raw: str, key: str) -> bool:
    """Whether a line of ``raw`` begins with ``key`` (quoted or not) before a colon: a key
    YAML may read as another (``yes:`` is True) is still the one the person wrote."""
    q = "[\"']?"
    return re.search(f"^{q}{re.escape(key)}{q}[ \t]*:", raw, re.M) is not None


def _duplicate_keys(raw: str) -> list[str]:
    return _key_spans(raw)[2]


def update_frontmatter(
    text: str,
    changes: Mapping[str, Any],
    remove: Iterable[str] = (),
    parsed: ParsedNote | None = None,
) -> str:
    """Return ``text`` with properties set or removed, changing only the lines that must change.
    ``parsed``: ``text`` parsed already (not parsed again)."""
    note = parsed if parsed is not None and parsed.text == text else parse_note(text)
    if note.error:
        raise NoteFormatError(note.error)
    removals = [k for k in remove if k not in changes]
    if note.fence_problem:
        raise NoteFormatError(note.fence_problem)
    if not note.has_frontmatter:
        additions = {k: v for k, v in changes.items() if v is not None or k in changes}
        if not additions:
            return text
        return render_frontmatter(additions, newline_of(text)) + text
    nl = note.newline
    if not removals and not any(k in note.data or _names_key(note.raw, k) for k in changes):
        # Only new properties (an id written into a hand-made note): appended after the
        # last line, every line before it as it was, without finding each key's span.
        end = note.raw_start + len(note.raw)  # (the frontmatter's lines end in a newline)
        added = "".join(render_entry(k, v, nl) for k, v in changes.items())
        return text[:end] + added + text[end:]
    lines, spans, _ = _key_spans(note.raw)
    replacement: dict[int, tuple[int, str]] = {}
    appended: list[str] = []
    for key, value in changes.items():
        if key in spans:
            if key in note.data and normalize(note.data[key]) == normalize(value):
                continue
            s, e = spans[key]
            replacement[s] = (e, render_entry(key, value, nl))
        else:
            appended.append(render_entry(key, value, nl))
    for key in removals:
        if key in spans:
            s, e = spans[key]
            replacement[s] = (e, "")
    if not replacement and not appended:
        return text
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i in replacement:
            end, new = replacement[i]
            out.append(new)
            i = end
            continue
        out.append(lines[i])
        i += 1
    while out and not out[-1]:
        out.pop()  # a removed last key leaves nothing, not an empty line
    if out and not out[-1].endswith(("\n", "\r")):
        out[-1] += nl
    out.extend(appended)
    raw = "".join(out)
    return text[: note.raw_start] + raw + text[note.raw_start + len(note.raw) :]


def append_to_section(text: str, heading: str, line: str) -> str:
    """Append ``line`` at the end of the section under ``heading`` (``## Log``), adding it if absent.

    Only the new line (and, when the section is new, its heading) is added; nothing else moves.
    """
    nl = newline_of(text)
    level = len(heading) - len(heading.lstrip("#"))
    lines = _EOL_LINE.findall(text)
    start = None
    for i, existing in enumerate(lines):
        if existing.rstrip("\r\n").strip() == heading:
            start = i
            break
    if start is None:
        prefix = text
        if prefix and not prefix.endswith(("\n", "\r")):
            prefix += nl
        if prefix and not prefix.endswith(nl + nl) and prefix.strip():
            prefix += nl
        return f"{prefix}{heading}{nl}{line}{nl}"
    end = len(lines)
    for j in range(start + 1, len(lines)):
        s = lines[j].lstrip()
        if s.startswith("#"):
            hashes = len(s) - len(s.lstrip("#"))
            if 0 < hashes <= level and s[hashes : hashes + 1] in (" ", "\t", "\n", "\r", ""):
                end = j
                break
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    if insert_at > 0 and not lines[insert_at - 1].endswith(("\n", "\r")):
        lines[insert_at - 1] += nl
    lines.insert(insert_at, f"{line}{nl}")
    return "".join(lines)
