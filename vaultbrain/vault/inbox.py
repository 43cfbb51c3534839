"""The inbox note: which lines are thoughts, and how a taken line is rewritten.

A thought is one non-empty line outside frontmatter, code fences, headings, comments
(``<!-- -->`` and Obsidian's ``%% %%``) and block quotes. List markers are not part of the
text. A line that carries a ``^vb-`` block id has been taken already; a line the person
ticked themselves (``- [x]`` without an id) is theirs and is left alone.

Only ``\n``, ``\r\n`` and ``\r`` end a line, as in Obsidian. ``str.splitlines`` also splits
at U+2028, U+0085, form feed and vertical tab, which would cut a thought in two and write a
task marker in the middle of the person's line, so it is never used on the inbox here.

Odd inboxes are said out loud and left alone, never half-handled: an ``Inbox.md`` that is a
symlink, a folder or a link out of the vault (``inbox_problem``); a frontmatter block still
being typed (no closing ``---`` yet) is not read as thoughts; a byte-order mark stays first;
a person's own block id (``^ref``) stays last on the line, so links to it keep working.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultbrain.errors import UserError
from vaultbrain.vault.note import parse_note

if TYPE_CHECKING:
    from vaultbrain.vault.files import Vault

BLOCK_ID = re.compile(r"[ \t]\^vb-([a-z0-9]{6,12})[ \t]*$")
# Our id anywhere on the line: text the person typed after it stays theirs (``after_id``).
# At the very start of the words too (the person moved it there): the words follow it.
_VB_ID = re.compile(r"(?:^|[ \t])\^vb-([a-z0-9]{6,12})(?![a-z0-9])")
# Obsidian's block ids: letters, digits and dashes, after a space at the very end of a line.
OWN_BLOCK_ID = re.compile(r"[ \t]\^(?!vb-[a-z0-9]{6,12}[ \t]*$)([A-Za-z0-9-]+)[ \t]*$")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_YAML_FENCE = re.compile(r"^---[ \t]*$")
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
    own_id: str | None = None  # the person's own block id (``^ref``), kept last
    after_id: str = ""  # what the person typed after our ``^vb-`` id, byte for byte
    box: str | None = None  # the task box's mark as typed (" ", "x", "-", …), None: no box
    # The line holds bytes that are not UTF-8 (read with surrogateescape: kept exactly, and
    # written back as they were). Not a thought vaultbrain can file: see scan_inbox.
    undecodable: bool = False

    @property
    def terminated(self) -> bool:
        return self.ending != ""


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings; only ``\\n``, ``\\r\\n`` and ``\\r`` end one."""
    return _LINE.findall(text)


def _first_line(lines: list[str], note_has_frontmatter: bool, frontmatter: str) -> int:
    """The first line that may hold a thought: after the frontmatter, or, while a frontmatter
    block is still being typed (an opening ``---`` with no close yet), after its lines up to
    the first empty one (a ``---`` rule followed by an empty line stays a rule)."""
    if note_has_frontmatter:
        return len(split_lines(frontmatter))
    if not lines or not _YAML_FENCE.match(lines[0].lstrip("\ufeff").rstrip("\r\n")):
        return 0
    for i in range(1, len(lines)):
        if not lines[i].strip():
            return i
    return len(lines)


# A byte that is not UTF-8, as the surrogateescape error handler reads it (U+DC80..U+DCFF).
UNDECODABLE = re.compile("[\udc80-\udcff]")


def undecodable_lines(text: str) -> list[InboxLine]:
    """The lines that would be thoughts but hold bytes that are not UTF-8 (a Windows-1252
    byte a script appended): never filed; the inbox pass marks them, doctor and Needs Review
    list them."""
    if UNDECODABLE.search(text) is None:
        return []
    return [line for line in scan_inbox(text, with_undecodable=True) if line.undecodable]


def scan_inbox(text: str, with_undecodable: bool = False) -> list[InboxLine]:
    """Every line of the note that is a thought, taken or not. A line not taken yet whose
    bytes are not UTF-8 is left out unless ``with_undecodable`` (it cannot be filed: its
    text could not be shown as it was typed); a taken one stays in, flagged."""
    bad = UNDECODABLE.search(text) is not None
    note = parse_note(text)
    lines = split_lines(text)
    start_line = _first_line(lines, note.has_frontmatter, text[: note.body_start])
    out: list[InboxLine] = []
    fence: str | None = None
    in_html_comment = False
    in_obsidian_comment = False
    for i in range(start_line, len(lines)):
        full = lines[i]
        raw = full.rstrip("\r\n")
        ending = full[len(raw) :]
        # A byte-order mark belongs to the file, not to the thought: it stays first.
        bom = "\ufeff" if i == 0 and raw.startswith("\ufeff") else ""
        stripped = raw[len(bom) :].strip()
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
        mm = _MARKER.match(raw, len(bom))
        indent = bom + (mm.group("indent") if mm else "")
        marker = (mm.group("marker") or "") if mm else ""
        box = mm.group("box") if mm else None
        rest = raw[len(indent) + len(marker) :]
        caret = rest.rfind("^")  # cheap first look: most lines end with our own ^vb- id
        own = None
        if caret > 0 and not rest.startswith("vb-", caret + 1):
            own = OWN_BLOCK_ID.search(rest, caret - 1)
        own_id = own.group(1) if own else None
        if own:
            rest = rest[: own.start()]
        # The last one: an earlier ^vb- is the person's text.
        bid = (
            max(_VB_ID.finditer(rest), key=lambda m: m.start(), default=None)
            if "^vb-" in rest
            else None
        )
        block_id = bid.group(1) if bid else None
        after_id = ""
        if bid:
            rest, after_id = rest[: bid.start()], rest[bid.end() :]
            if not rest.strip():  # the id moved before the words: they are the thought
                rest, after_id = after_id, ""
        checked = box is not None and box != " "
        if not rest.strip():
            continue
        if checked and block_id is None:
            continue  # ticked by the person: not ours to take
        undecodable = bad and UNDECODABLE.search(raw) is not None
        if undecodable and block_id is None and not with_undecodable:
            continue
        out.append(
            InboxLine(
                i,
                raw,
                ending,
                indent,
                marker,
                checked,
                rest.strip(),
                block_id,
                own_id,
                after_id,
                box,
                undecodable,
            )
        )
    return out


def inbox_problem(vault: Vault, rel: str) -> str | None:
    """Why the inbox note at ``rel`` must not be read or written, in one line, or None.

    Lines are taken by rewriting the note with an atomic swap, which would replace a symlink
    with a plain file (the note it pointed at never sees the rewrite), so only a regular file
    is an inbox. A missing note is not a problem here (``init`` and capture make it).
    """
    try:
        path = vault.resolve(rel)
    except UserError as exc:
        return f"the inbox note is not used: {exc}"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"the inbox note {rel} cannot be read: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        return (
            f"{rel} is a symlink (to {target}); its lines are not taken: put the note itself "
            "there, or point `inbox_note` at it"
        )
    if stat.S_ISDIR(st.st_mode):
        return f"{rel} is a folder, not a note; its lines are not taken"
    if not stat.S_ISREG(st.st_mode):
        return f"{rel} is not a regular file; its lines are not taken"
    return None


def replace_line(text: str, number: int, new_raw: str) -> str:
    """``text`` with line ``number`` replaced by ``new_raw``, keeping that line's ending."""
    return replace_lines(text, {number: new_raw})


def replace_lines(text: str, new_lines: dict[int, str]) -> str:
    """``text`` with each line ``number`` replaced by ``new_lines[number]``, keeping the line
    endings (one split and one join, however many lines change)."""
    lines = split_lines(text)
    for number, new_raw in new_lines.items():
        old = lines[number]
        body = old.rstrip("\r\n")
        lines[number] = new_raw + old[len(body) :]
    return "".join(lines)


def render_taken_line(
    line: InboxLine,
    text: str,
    suffix: str,
    block_id: str,
    done: bool,
    remark: str = "",
    box_mark: str | None = None,
) -> str:
    """The rewritten form of a taken line: a task marker, the person's text, our suffix, the
    person's remark after it (as typed, with its leading space), the id, and whatever the
    person typed after the id (``line.after_id``), byte for byte. ``box_mark``: the box's
    mark as the person set it, kept (by default the box says ``done``)."""
    box = f"[{box_mark}]" if box_mark is not None else ("[x]" if done else "[ ]")
    sep = f" {suffix}" if suffix else ""
    # Obsidian reads a block id only at the very end of a line: the person's own stays there.
    own = f" ^{line.own_id}" if line.own_id else ""
    return f"{line.indent}- {box} {text}{sep}{remark} ^vb-{block_id}{line.after_id}{own}"


def append_line(text: str, new_raw: str) -> str:
    """``text`` with ``new_raw`` added as a new last line."""
    nl = "\r\n" if "\r\n" in text else "\n"
    if text and not text.endswith("\n"):
        text += nl
    return f"{text}{new_raw}{nl}"
