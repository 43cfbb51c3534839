"""The inline Markdown a person types in a thought: the words it shows, and the notes it links.

A thought is one line, and a person writes Markdown in it as they do anywhere in Obsidian:
``the call moved from ~~Monday~~ to Friday``, ``Lunch with [[People/Sarah Connor|Sarah]]``,
``renew the `ssl` cert``, ``$E=mc^2$``, a footnote reference, an embed, a ``#tag``. The
syntax is how the words look, not the words: a note's title made from the thought keeps
what Obsidian shows (:func:`plain_words`), because syntax left in a title is read again
where the title is written, in vaultbrain's own links on the inbox line (a ``~~`` there
would read as the person striking the line) and in the person's Obsidian (a ``#`` or ``^``
in a link is a heading or a block). A typed wikilink names a note (:func:`wikilinks`): the
thought is about that note, never a new one with the link's words as its name.

The line is read by markdown-it-py's inline rules (CommonMark, with GFM strike-through,
Obsidian's ``$`` math and footnotes), with one rule of our own for Obsidian's wikilinks and
embeds, which CommonMark does not know; its precedence is Obsidian's: a code span holds a
``[[`` as text, a wikilink holds a ``*`` or a ``~~`` as part of a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

# Anything that may make a line more than its words; a line with none of it is its words.
_SYNTAX = LazyPattern(r"[\\`*_~=\[\]!$#%<&^]")
_WIKILINK = LazyPattern(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_COMMENT = LazyPattern(r"%%.*?(?:%%|$)")  # Obsidian's comment: never shown
_HIGHLIGHT = LazyPattern(r"==(?=\S)(.+?)(?<=\S)==")
_FOOTNOTE_REF = LazyPattern(r"\[\^[^\[\]\s]+\]|\^\[[^\[\]]*\]")
# A tag in the words (``buy #groceries``): the word stays, its ``#`` goes (a ``#`` in a link
# is a heading). Obsidian's tags: after a space or at the start, not only digits.
_TAG = LazyPattern(r"(?:(?<=\s)|^)#(?=[\w/-]*[^\W\d_])([\w/-]+)")
# What reads as syntax in a link or a line when left over (an unpaired ``~~``, an empty
# ``** **``): removed from the words once the real syntax is read.
_LEFTOVER = LazyPattern(r"~~|==|\*\*|__|`+")
# Shown as nothing: soft hyphen, zero-width space, word joiner, BOM, and the direction
# embeddings, overrides and isolates (the marks LRM and RLM, and the joiners ZWJ and ZWNJ,
# which shape what is shown, stay).
_INVISIBLE = LazyPattern("[\u00ad\u200b\u2060\ufeff\u202a-\u202e\u2066-\u2069]")
_MD: MarkdownIt | None = None


@dataclass(frozen=True)
class WikiLink:
    """A ``[[target#heading|alias]]`` (or an ``![[embed]]``) typed in a thought."""

    target: str  # the note as linked: a path or a name, without ``.md``, heading or block
    heading: str = ""  # ``#Heading`` or ``#^block`` after the target, without the ``#``
    alias: str = ""
    embed: bool = False

    @property
    def name(self) -> str:
        """The linked note's name: the target's last part."""
        return self.target.rsplit("/", 1)[-1]

    @property
    def shown(self) -> str:
        """What Obsidian shows for the link: its alias, or the note's name (and heading)."""
        if self.alias:
            return self.alias
        if self.heading and not self.heading.startswith("^"):  # (a block: not shown)
            return f"{self.name} {self.heading}"
        return self.name


def parse_wikilink(inner: str, embed: bool = False) -> WikiLink:
    """The parts of the text between ``[[`` and ``]]``."""
    target, _, alias = inner.partition("|")
    target, _, heading = target.partition("#")
    target = target.strip()
    if target.lower().endswith(".md"):
        target = target[:-3]
    return WikiLink(target, heading.strip(), alias.strip(), embed)


def wikilinks(text: str) -> list[WikiLink]:
    """The wikilinks and embeds typed in ``text``, and its Markdown links to a note of the
    vault (``[Sam](People/Sam.md)``: as ``[[People/Sam|Sam]]``), in order (none inside a
    code span)."""
    if "[[" not in text and "](" not in text:
        return []
    found: list[WikiLink] = []
    tokens = _inline(text)
    for n, token in enumerate(tokens):
        if token.type == "wikilink":
            found.append(token.meta["link"])
        elif token.type == "link_open":
            found.extend(_note_link(str(token.attrGet("href") or ""), tokens[n + 1 :]))
    return [link for link in found if link.target]


_SCHEME = LazyPattern(r"[A-Za-z][A-Za-z0-9+.-]*:|/|#|\.\./")


def _note_link(href: str, after: list[Token]) -> list[WikiLink]:
    """A Markdown link's target as a wikilink, when it is a path in the vault (no scheme:
    ``https:``, ``obsidian:``, ``mailto:`` are addresses), shown as its text."""
    from urllib.parse import unquote

    if not href or _SCHEME.match(href):
        return []
    shown: list[str] = []
    for token in after:
        if token.type == "link_close":
            break
        shown.append(_shown(token))
    link = parse_wikilink(unquote(href).removeprefix("./").replace("|", " "))
    return [WikiLink(link.target, link.heading, " ".join("".join(shown).split()))]


def plain_words(text: str) -> str:
    """``text`` as Obsidian shows it, one line of words: strike-through, emphasis,
    highlights, code spans and math lose their marks and keep their text; a wikilink or an
    embed becomes what it shows (its alias, or the note's name); a Markdown link its text;
    footnote references, comments and HTML tags go; a ``#tag`` keeps its word. Spaces are
    collapsed; characters Obsidian shows as nothing go (a zero-width space, a soft hyphen,
    a direction override: in a title or a file name they make two names that look alike).
    Idempotent."""
    if _INVISIBLE.search(text):
        text = _INVISIBLE.sub("", text)
    if not _SYNTAX.search(text):
        return " ".join(text.split())
    text = _COMMENT.sub(" ", text) if "%%" in text else text
    text = _FOOTNOTE_REF.sub("", text) if "^" in text else text
    parts: list[str] = []
    for token in _inline(text):
        parts.append(_shown(token))
    out = "".join(parts)
    out = _HIGHLIGHT.sub(r"\1", out) if "==" in out else out
    out = _TAG.sub(r"\1", out) if "#" in out else out
    out = _unbracketed(_LEFTOVER.sub(" ", out))  # (``\[\[x\]\]`` shows brackets: no link)
    return " ".join(out.split())


def _shown(token: Token) -> str:
    kind = token.type
    if kind in ("code_inline", "math_inline", "math_inline_double"):
        return _unbracketed(token.content)
    if kind == "text":
        return token.content
    if kind == "wikilink":
        link: WikiLink = token.meta["link"]
        return link.shown
    if kind in ("softbreak", "hardbreak"):
        return " "
    if kind == "image":
        return "".join(_shown(child) for child in token.children or ())
    return ""  # marks (s_open, em_close, link_open…), html, footnote references


def _unbracketed(literal: str) -> str:
    """Literal text (a code span's, math's, escaped brackets) without ``[[`` and ``]]``:
    kept, they would make a link of its words wherever the words are written again (a title
    in Properties, our link's label on the inbox line), which the person said they are not."""
    return _BRACKETS.sub("", literal) if "[[" in literal or "]]" in literal else literal


_BRACKETS = LazyPattern(r"\[\[|\]\]")


def _inline(text: str) -> list[Token]:
    """The inline tokens of one line, flattened (a link's text is among them)."""
    md = _markdown()
    out: list[Token] = []
    for block in md.parseInline(text.replace("\n", " ")):
        out.extend(block.children or ())
    return out


def _markdown() -> MarkdownIt:
    global _MD
    if _MD is None:
        # Imported here: markdown-it costs a noticeable part of a command's start-up.
        from markdown_it import MarkdownIt
        from mdit_py_plugins.dollarmath import dollarmath_plugin
        from mdit_py_plugins.footnote import footnote_plugin

        md = MarkdownIt("commonmark").enable("strikethrough")
        # Obsidian's inline math: no space inside the dollars, no digit after the closing
        # one, so ``$50 and $60`` stays money.
        md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
        md.use(footnote_plugin)
        md.inline.ruler.before("link", "wikilink", _wikilink_rule)
        _MD = md
    return _MD


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """Obsidian's ``[[…]]`` and ``![[…]]``, read before CommonMark's links and images."""
    m = _WIKILINK.match(state.src, state.pos, state.posMax)
    if m is None:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = m.group(0)
        token.meta = {"link": parse_wikilink(m.group(2), bool(m.group(1)))}
    state.pos = m.end()
    return True


# -- spans: the parts of a line that are text, never syntax ------------------------------------
# Every construct of a thought whose characters are the person's text and never vaultbrain's
# syntax: an arrow, a ``#``, a ``^``, a date, a ``~~`` or an emoji inside one is not a
# gesture, a tag, a block id, a due date, a strike or a Tasks field. Tried left to right, the
# first that starts at a place wins (a code span holds a ``[[`` as text; a backslash escape
# before a backtick keeps it from opening one), as Obsidian reads a line.
_SPAN_KINDS = (
    ("escape", r"\\[^\sA-Za-z0-9]"),
    ("code", r"(?<!`)(?P<tick>`+)(?!`)(?:.*?[^`])??(?P=tick)(?!`)"),
    ("comment", r"%%.*?(?:%%|$)|<!--.*?(?:-->|$)"),
    ("math", r"\$\$.+?\$\$|\$(?=[^\s$])[^$\n]*?(?<=[^\s$\\])\$(?!\d)"),
    ("wikilink", r"!?\[\[[^\[\]\n]+?\]\]"),
    ("footnote", r"\[\^[^\[\]\s]+\]|\^\[[^\[\]]*\]"),
    (
        "link",
        r"!?\[(?:[^\[\]\\\n]|\\.)*\]\((?:[^()\s\\]|\\.|\([^()\s]*\))*"
        r"(?:\s+\"[^\"]*\")?\s*\)",
    ),
    ("autolink", r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*|[^<>\s@]+@[^<>\s@]+)>"),
    ("html", r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>"),
    ("highlight", r"==(?=\S)[^\n]*?(?<=[^\s=])=="),
    (
        "url",
        r"(?<![\w@])(?:(?:https?|ftp|file|obsidian|mailto|zotero):(?://)?|www\.)"
        r"[^\s<]*[^\s<>.,;:!?'\")\]}*_~]",
    ),
)
_SPANS = LazyPattern("|".join(f"(?P<{kind}>{rx})" for kind, rx in _SPAN_KINDS))


@dataclass(frozen=True)
class Span:
    """A part of a line that is text: ``line[start:end]``, of a ``kind`` of
    :data:`_SPAN_KINDS` (``code``, ``math``, ``wikilink``, ``url``…)."""

    start: int
    end: int
    kind: str


def spans(text: str) -> list[Span]:
    """The parts of ``text`` that are the person's text and never syntax, in order, none
    overlapping: code spans (any run of backticks), math, wikilinks and embeds, Markdown
    links and images, footnote references, highlights, comments, HTML tags, autolinks,
    backslash escapes and bare URLs."""
    if not _MAY_SPAN.search(text):
        return []
    return [Span(m.start(), m.end(), m.lastgroup or "") for m in _SPANS.finditer(text)]


_MAY_SPAN = LazyPattern(r"[\\`%$\[^<=]|://|www\.|mailto:")


def _stand_in(ch: str) -> str:
    """A stand-in for ``ch`` that no pattern of vaultbrain's reads as anything (a private
    use character: not a word character, not a space), and that :func:`unshield` maps
    back: the Basic plane goes to plane 15, plane 1 (the emoji) to plane 16."""
    n = ord(ch)
    if n < 0xFFFE:
        return chr(0xF0000 + n)
    if 0x10000 <= n < 0x1FFFE:
        return chr(0x100000 + n - 0x10000)
    return "\ufffc"


def shield(text: str) -> str:
    """``text`` with every character inside a :func:`spans` span replaced by a stand-in of
    the same length, so that a pattern run over it finds nothing inside one (an arrow, a
    ``#tag``, a date, a strike, a Tasks emoji) and the places it finds are places in
    ``text``. :func:`unshield` gives ``text`` back. Idempotent."""
    found = spans(text)
    if not found:
        return text
    out: list[str] = []
    at = 0
    for span in found:
        out.append(text[at : span.start])
        out.append("".join(map(_stand_in, text[span.start : span.end])))
        at = span.end
    out.append(text[at:])
    return "".join(out)


_SHIELDED = LazyPattern("[\U000f0000-\U0010fffd]")


def unshield(text: str) -> str:
    """:func:`shield`'s text given back (a shielded character is its own again)."""
    if not _SHIELDED.search(text):
        return text

    def back(m: re.Match[str]) -> str:
        n = ord(m.group(0))
        return chr(n - 0xF0000) if n < 0x100000 else chr(n - 0x100000 + 0x10000)

    return _SHIELDED.sub(back, text)


# Spans whose text is literal (code, math, an address): a classifier reads none of it as
# words either (a date in a code span is no due date). The others (a link's words, a
# highlight) are words, kept as one: read as words, never cut inside or read as syntax.
_LITERAL = frozenset({"code", "math", "url", "autolink", "escape"})
_UNSHOWN = frozenset({"comment", "html", "footnote"})
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def shown_words(text: str) -> str:
    """:func:`plain_words` for a classifier: what Obsidian shows, with each span of the
    person's Markdown kept whole and never read as syntax. A literal span (code, math, a
    URL, an escaped mark) is :func:`shield`-ed through; a link or a highlight shows its
    words with its spaces and marks shielded, so it is one word to a cutter. Comments,
    HTML tags and footnote references go. :func:`unshield` gives plain words back."""
    found = spans(text)
    if not found:
        return plain_words(text)
    out: list[str] = []
    at = 0
    for span in found:
        out.append(text[at : span.start])
        shown = _span_words(text[span.start : span.end], span.kind)
        if span.kind in _LITERAL:
            out.append("".join(map(_stand_in, shown)))
        elif span.kind in _UNSHOWN:
            out.append(" " if span.kind == "comment" else "")
        else:
            out.append("".join(ch if ch.isalnum() else _stand_in(ch) for ch in shown))
        at = span.end
    out.append(text[at:])
    return plain_words("".join(out))


def _span_words(raw: str, kind: str) -> str:
    """What Obsidian shows of one span, one line of words."""
    if kind == "code":
        inner = raw.strip("`")
        if inner.startswith(" ") and inner.endswith(" ") and inner.strip():
            inner = inner[1:-1]
        return " ".join(_unbracketed(inner).split())
    if kind == "math":
        return " ".join(_unbracketed(raw.strip("$")).split())
    if kind == "escape":  # (only ASCII punctuation is escaped: ``\→`` shows its backslash)
        return raw[1:] if raw[1] in _ASCII_PUNCTUATION else raw
    if kind == "wikilink":
        return parse_wikilink(raw.lstrip("!")[2:-2], raw.startswith("!")).shown
    if kind == "link":
        return plain_words(raw.lstrip("!")[1 : raw.rindex("](") - len(raw)])
    if kind == "highlight":
        return plain_words(raw[2:-2])
    if kind == "autolink":
        return raw[1:-1]
    return raw  # a URL


__all__ = [
    "Span",
    "WikiLink",
    "parse_wikilink",
    "plain_words",
    "shield",
    "shown_words",
    "spans",
    "unshield",
    "wikilinks",
]
