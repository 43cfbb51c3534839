"""The inbox note: which lines are thoughts, and how a taken line is rewritten.

A thought is one non-empty line of text: a line of a paragraph or of a list item, as
CommonMark's block rules (markdown-it-py, with GFM tables, Obsidian's ``$$`` math and
footnotes) read the note. Frontmatter, fenced code of any fence length (a ```` fence
holding a ```python block is one block), indented code, HTML blocks and ``<!-- -->``
comments, tables, math blocks, footnote definitions, headings, rules and block quotes are
never thoughts, nor Obsidian's ``%% %%`` comments (one opened in the middle of a line hides
the lines after it until it closes; an HTML comment, the rest of its paragraph), nor a line
of only emoji, punctuation, tags or a footnote reference
(:func:`vaultbrain.vault.typed.is_thought`). One line is one thought, even where Markdown
would join lines into one paragraph; a table or a ``$$`` block right under a list item
(a "lazy" continuation to CommonMark, a table or math to the eye) is still not taken. List
markers are not part of the text. A line that carries a ``^vb-`` block id has been taken
already; a line the person ticked themselves (``- [x]`` without an id) is theirs and is
left alone.

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
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultbrain.errors import UserError
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inline import Span, plain_words, spans
from vaultbrain.vault.note import newline_of, parse_note
from vaultbrain.vault.typed import is_thought

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from vaultbrain.vault.files import Vault

# Our id anywhere on the line: text the person typed after it stays theirs (``after_id``).
# At the very start of the words too (the person moved it there): the words follow it.
_VB_ID = LazyPattern(r"(?:^|[ \t])\^vb-([a-z0-9]{6,12})(?![a-z0-9])")
# Obsidian's block ids: letters, digits and dashes, after a space at the very end of a line.
OWN_BLOCK_ID = LazyPattern(r"[ \t]\^(?!vb-[a-z0-9]{6,12}[ \t]*$)([A-Za-z0-9-]+)[ \t]*$")
# What may close a span (vaultbrain/vault/inline.py) after an id: only then is one looked for.
_MAY_CLOSE = LazyPattern(r"[`$%>\])]")
_LINE = LazyPattern(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_YAML_FENCE = LazyPattern(r"^---[ \t]*$")
_MARKER = LazyPattern(
    r"^(?P<indent>[ \t]*)(?P<marker>(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[(?P<box>.)\][ \t]+)?)?"
)


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
UNDECODABLE = LazyPattern("[\udc80-\udcff]")


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
    in_obsidian_comment = False
    html_comment_from: int | None = None  # the last line inside an open HTML comment
    # bound once: a LazyPattern's method, looked up in a loop, costs more than a pattern's
    marker_at = _MARKER.match
    for i in _text_lines(lines, start_line):
        full = lines[i]
        raw = full.rstrip("\r\n")
        ending = full[len(raw) :]
        # A byte-order mark belongs to the file, not to the thought: it stays first.
        bom = "\ufeff" if i == 0 and raw.startswith("\ufeff") else ""
        stripped = raw[len(bom) :].strip()
        if in_obsidian_comment:
            if "%%" in raw:
                in_obsidian_comment = False
            continue
        if html_comment_from is not None:
            # An HTML comment opened inside a paragraph runs on to its ``-->`` in the same
            # paragraph (a blank line, another block or a new list item ends the paragraph).
            item = marker_at(raw)
            if html_comment_from == i - 1 and not (item and item.group("marker")):
                html_comment_from = None if "-->" in raw else i
                continue
            html_comment_from = None
        if stripped.startswith("%%"):
            if "%%" not in stripped[2:]:
                in_obsidian_comment = True
            continue
        if "%%" in raw and _opens_comment(raw):
            # ``buy paint %% a note to self`` opens a comment the next lines are inside of,
            # hidden by Obsidian until a line that closes it: never thoughts.
            in_obsidian_comment = True
        if "<!--" in raw and raw.rfind("<!--") > raw.rfind("-->"):
            html_comment_from = i  # ``call Sam <!-- why`` hides the lines after it
        if not stripped:
            continue
        mm = marker_at(raw, len(bom))
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
        if bid and bid.end() < len(rest) and _MAY_CLOSE.search(rest, bid.end()):
            # An id quoted in the person's code span (or a link, a comment) is their text:
            # only a span closed after the id can hold it (most lines end with the id).
            hidden = spans(rest)
            bid = max(
                (
                    m
                    for m in _VB_ID.finditer(rest)
                    if not any(h.start <= m.start() < h.end for h in hidden)
                ),
                key=lambda m: m.start(),
                default=None,
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
        if block_id is None and (not is_thought(rest) or _no_words(rest)):
            continue  # only emoji, punctuation or tags: it would be an untitled record
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


def _opens_comment(raw: str) -> bool:
    """Whether a line leaves an Obsidian ``%%`` comment open: an odd number of ``%%``
    outside the person's code spans (a ``%%`` in code is text)."""
    if "`" in raw:
        raw = "".join(raw[s.start : s.end] if s.kind != "code" else "" for s in _all(raw))
    return raw.count("%%") % 2 == 1


def _all(raw: str) -> list[Span]:
    """``raw`` cut into its spans and the text between them, in order."""
    out: list[Span] = []
    at = 0
    for s in spans(raw):
        out += [Span(at, s.start, "text"), s] if s.start > at else [s]
        at = s.end
    return [*out, Span(at, len(raw), "text")]


# Signs that a line's words may all be syntax: a footnote, a comment, HTML, math.
_MAY_BE_BARE = LazyPattern(r"\[\^|\^\[|%%|<|\$\$")
_TAGS_ONLY = LazyPattern(r"(?:#[^\s#]+[ \t]*)+")


def _no_words(rest: str) -> bool:
    """Whether a line holds no words once its syntax is out: only tags (``#todo``: no
    thought to title), or only a footnote reference, a comment, HTML or math. Checked only
    where such syntax is (most lines have none: a year-old inbox is read every pass)."""
    text = rest.strip()
    if text.startswith("#") and _TAGS_ONLY.fullmatch(text):
        return True
    return _MAY_BE_BARE.search(text) is not None and not is_thought(plain_words(text))


# -- which lines are text, by CommonMark's block rules ------------------------------------

# Blocks a thought may sit in; every other block (code, HTML, table, math, footnote, quote,
# heading, rule) hides its lines, and the lines of what it holds, from the inbox.
_TEXT_CONTAINERS = frozenset({"bullet_list", "ordered_list", "list_item"})
_MD: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    """CommonMark with GFM tables, ``$$`` math blocks and footnote definitions, block rules
    only (the inline pass is skipped: the inbox needs to know where blocks are, not what
    their text says). A ``$$`` line ends a paragraph, as it does in Obsidian, where display
    math renders wherever it starts a line."""
    global _MD
    if _MD is None:
        # Imported here: markdown-it costs a noticeable part of a command's start-up, and
        # most commands never read the inbox.
        from markdown_it import MarkdownIt
        from mdit_py_plugins.dollarmath import dollarmath_plugin
        from mdit_py_plugins.footnote import footnote_plugin

        md = MarkdownIt("commonmark").enable("table").use(footnote_plugin).use(dollarmath_plugin)
        md.core.ruler.disable(["inline", "text_join", "footnote_tail"])
        rules = md.block.ruler.__rules__
        math = next(r for r in rules if r.name == "math_block")
        md.block.ruler.at(
            "math_block", math.fn, {"alt": ["paragraph", "reference", "blockquote", "list"]}
        )
        _MD = md
    return _MD


def _text_lines(lines: list[str], start: int, compress: bool = True) -> list[int]:
    """The numbers of the lines from ``start`` on that are text: lines of a paragraph
    outside any block but lists (a list item's own lines included), in order.

    The block parser costs about 0.1 ms a line, and a year-old inbox is thousands of plain
    list items. A run of such items (:func:`_plain_item`: each is a list item with a one-line
    paragraph of its own, whatever comes before or after, unless a block that began before
    the run holds them all) is parsed as its first line, one line standing for the middle,
    and its last line: the middle lines share the fate of the one that stands for them.
    ``compress=False`` parses every line (the tests compare both)."""
    body = lines[start:]
    if not "".join(body).strip():
        return []
    # What markdown-it's normalize rule does; the line count stays the same.
    norm = [x.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd") for x in body]
    if compress and all(_plain_item(x) or x.startswith(">") or not x.strip() for x in norm):
        # Plain items, quotes at the margin (a callout) and blank lines only, as an inbox
        # vaultbrain made and a capture appended to is: whatever a quote holds ends with it
        # (a blank line ends it, and a list item interrupts its last paragraph), so the items
        # are the text, and markdown-it (a good part of a cold capture's time) is not loaded.
        return [start + n for n, x in enumerate(norm) if _plain_item(x)]
    kept: list[str] = []
    stands_for: dict[int, range] = {}  # a kept line -> the original lines it stands for
    i = 0
    while i < len(norm):
        j = i
        if compress:
            while j < len(norm) and _plain_item(norm[j]):
                j += 1
        if j - i >= 3:
            kept.append(norm[i])
            stands_for[len(kept)] = range(i + 1, j - 1)
            kept.append(norm[i + 1])
            kept.append(norm[j - 1])
            stands_for[len(kept) - 1] = range(j - 1, j)
            stands_for[len(kept) - 3] = range(i, i + 1)
            i = j
            continue
        stands_for[len(kept)] = range(i, i + 1)
        kept.append(norm[i])
        i += 1
    found: list[int] = []
    _collect(_markdown(), "".join(kept), 0, found)
    return [start + n for k in found for n in stands_for[k]]


_PLAIN_ITEM = LazyPattern(r"[-*+] (?:\[[ xX]\] )?[^\W\d_]")


def _plain_item(line: str) -> bool:
    """A list item at the margin whose text starts with a letter (after an optional
    checkbox), without ``<``, ``>`` or ``$$``. Such a line can neither open a block (its text
    starts with a letter) nor close one (an HTML block ends at ``>`` or ``-->``, math at
    ``$$``, a fence only at the margin): it is a list item of its own, or, inside a block
    that began before it (a fence, HTML, math, a table), it stays there like its neighbour."""
    return (
        _PLAIN_ITEM.match(line) is not None
        and "<" not in line
        and ">" not in line
        and "$$" not in line
    )


def _collect(md: MarkdownIt, src: str, offset: int, out: list[int]) -> None:
    from markdown_it.rules_block import StateBlock

    tokens: list = []
    state = StateBlock(src, md, {}, tokens)
    md.block.tokenize(state, 0, state.lineMax)
    opened: list[str] = []
    interrupters = None
    for token in tokens:
        if token.nesting == 1:
            kind = token.type[: -len("_open")]
            if kind == "paragraph" and token.map and all(k in _TEXT_CONTAINERS for k in opened):
                first, last = token.map
                cut = last
                if opened and last - first > 1:
                    # A lazy line of a list item is read as more of its paragraph; a table,
                    # a fence or math starting there is one all the same (as after a blank line).
                    if interrupters is None:
                        state.blkIndent, state.parentType = 0, "root"
                        interrupters = _interrupters(md)
                    cut = next(
                        (
                            n
                            for n in range(first + 1, last)
                            if any(rule(state, n, last, True) for rule in interrupters)
                        ),
                        last,
                    )
                out.extend(range(offset + first, offset + cut))
                if cut < last:
                    rest = "".join(split_lines(src)[cut:last])
                    _collect(md, rest, offset + cut, out)
            opened.append(kind)
        elif token.nesting == -1:
            opened.pop()


def _interrupters(md: MarkdownIt) -> list:
    skip = {"list", "paragraph", "lheading", "reference", "code"}
    return [r.fn for r in md.block.ruler.__rules__ if r.enabled and r.name not in skip]


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
    """``text`` with ``new_raw`` added as a new line at its end. A last line without a
    newline is the person's, still being typed: the new line goes above it and it stays
    last and unfinished (ending it would hand a half-typed thought to the daemon). A last
    line that carries one of our anchors is finished whatever its ending: the new line
    follows it."""
    nl = newline_of(text)
    if not text or text.endswith(("\n", "\r")):
        return f"{text}{new_raw}{nl}"
    last = split_lines(text)[-1]
    start = len(text) - len(last)
    if "^vb-" in last:
        return f"{text}{nl}{new_raw}{nl}"
    return f"{text[:start]}{new_raw}{nl}{last}"
