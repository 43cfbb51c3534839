"""The inbox note: which lines are thoughts, and how a taken line is rewritten.

A thought is one non-empty line outside frontmatter, code fences, headings, comments
(``<!-- -->`` and Obsidian's ``%% %%``) and block quotes. List markers are not part of the
text. A line that carries a ``^vb-`` block id has been taken already; a line the person
ticked themselves (``- [x]`` without an id) is theirs and is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultbrain.vault.note import parse_note

BLOCK_ID = re.compile(r"[ \t]\^vb-([a-z0-9]{6,12})[ \t]*$")
_MARKER = re.compile(
    r"^(?P<indent>[ \t]*)(?P<marker>(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[(?P<box>.)\][ \t]+)?)?"
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}([ \t]|$)")
_RULE = re.compile(r"^[ \t]*([-*_])([ \t]*\1){2,}[ \t]*$")


@dataclass(frozen=True)
class InboxLine:
    """One thought line of the inbox note."""

    number: int  # 0-based line index in the note
    raw: str  # the line without its line ending
    ending: str  # "\n", "\r\n" or "" for a last line with no newline yet
    indent: str
    marker: str
    checked: bool
    text: str  # the thought: marker and our block id removed
    block_id: str | None

    @property
    def terminated(self) -> bool:
        return self.ending != ""


def scan_inbox(text: str) -> list[InboxLine]:
    """Every line of the note that is a thought, taken or not."""
    note = parse_note(text)
    start_line = text[: note.body_start].count("\n") if note.has_frontmatter else 0
    lines = text.splitlines(keepends=True)
    out: list[InboxLine] = []
    fence: str | None = None
    in_html_comment = False
    in_obsidian_comment = False
    for i in range(start_line, len(lines)):
        full = lines[i]
        raw = full.rstrip("\r\n")
        ending = full[len(raw) :]
        stripped = raw.strip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        m = _FENCE.match(raw)
        if m:
            fence = m.group(1)
            continue
        if in_html_comment:
            if "-->" in raw:
                in_html_comment = False
            continue
        if in_obsidian_comment:
            if "%%" in raw:
                in_obsidian_comment = False
            continue
        if stripped.startswith("<!--"):
            if "-->" not in stripped[4:]:
                in_html_comment = True
            continue
        if stripped.startswith("%%"):
            if "%%" not in stripped[2:]:
                in_obsidian_comment = True
            continue
        if not stripped or stripped.startswith(">") or _HEADING.match(raw) or _RULE.match(raw):
            continue
        mm = _MARKER.match(raw)
        indent = mm.group("indent") if mm else ""
        marker = (mm.group("marker") or "") if mm else ""
        box = mm.group("box") if mm else None
        rest = raw[len(indent) + len(marker) :]
        bid = BLOCK_ID.search(rest)
        block_id = bid.group(1) if bid else None
        if bid:
            rest = rest[: bid.start()]
        checked = box is not None and box != " "
        if not rest.strip():
            continue
        if checked and block_id is None:
            continue  # ticked by the person: not ours to take
        out.append(InboxLine(i, raw, ending, indent, marker, checked, rest.strip(), block_id))
    return out


def replace_line(text: str, number: int, new_raw: str) -> str:
    """``text`` with line ``number`` replaced by ``new_raw``, keeping that line's ending."""
    return replace_lines(text, {number: new_raw})


def replace_lines(text: str, new_lines: dict[int, str]) -> str:
    """``text`` with each line ``number`` replaced by ``new_lines[number]``, keeping the line
    endings (one split and one join, however many lines change)."""
    lines = text.splitlines(keepends=True)
    for number, new_raw in new_lines.items():
        old = lines[number]
        body = old.rstrip("\r\n")
        lines[number] = new_raw + old[len(body) :]
    return "".join(lines)


def render_taken_line(line: InboxLine, text: str, suffix: str, block_id: str, done: bool) -> str:
    """The rewritten form of a taken line: a task marker, the person's text, our suffix, the id."""
    box = "[x]" if done else "[ ]"
    sep = f" {suffix}" if suffix else ""
    return f"{line.indent}- {box} {text}{sep} ^vb-{block_id}"


def append_line(text: str, new_raw: str) -> str:
    """``text`` with ``new_raw`` added as a new last line."""
    nl = "\r\n" if "\r\n" in text else "\n"
    if text and not text.endswith("\n"):
        text += nl
    return f"{text}{new_raw}{nl}"
