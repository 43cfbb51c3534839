"""Captions (WebVTT or SRT) to readable prose.

A caption file is blocks separated by empty lines; a cue block is an optional id line, a
timing line (``00:00:01.000 --> 00:00:04.000 align:start position:0%``) and text lines.
Everything else (the ``WEBVTT`` header and its ``Kind:``/``Language:`` lines, ``NOTE``,
``STYLE`` and ``REGION`` blocks) goes. Because the id is only ever the line *before* the
timing line, a spoken line that is only a number ("42") stays in the text.

YouTube's auto-captions are a rolling two-line display: each cue repeats the line shown
before it, and a line often grows word by word over a few cues. Collapsing compares each
cleaned line with the last two lines kept: an equal line is dropped, a line that extends
the last one (at a word boundary) replaces it. One pass, constant work per line, so the
time is linear in the size of the file (see ``bench/bench_vtt.py``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

_TIMESTAMP = r"(?:\d+:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?"
_TIMING = re.compile(rf"^\s*{_TIMESTAMP}\s*-->\s*{_TIMESTAMP}")
_TAG = re.compile(r"<[^<>\n]*>")
_RUBY_TEXT = re.compile(r"<rt>.*?</rt>")
_ASS_TAG = re.compile(r"\{\\[^{}]*\}")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u200e\u200f"), None)
_SENTENCE_END = (".", "!", "?", "…", '."', '!"', '?"', ".”", "!”", "?”")
DEFAULT_PARAGRAPH_LINES = 8


def cue_texts(text: str) -> Iterator[list[str]]:
    """The raw text lines of each cue, in order (timing, ids and non-cue blocks removed)."""
    block: list[str] = []
    for line in text.splitlines():
        # Only an empty line ends a cue (WebVTT's rule, and PortOS's converter): a line
        # holding a space is part of the cue, and the text after it is still spoken.
        if line:
            block.append(line)
            continue
        if block:
            yield from _block_cues(block)
            block = []
    if block:
        yield from _block_cues(block)


def _block_cues(block: list[str]) -> Iterator[list[str]]:
    timings = [i for i, line in enumerate(block) if "-->" in line and _TIMING.match(line)]
    if not timings:
        return  # header, NOTE, STYLE, REGION or stray text
    # Normally one timing line per block. A file that leaves out the blank lines between
    # cues gets split at each timing line; there the line just before a timing line is
    # taken as that cue's id only when it is a bare number (an SRT counter).
    for n, at in enumerate(timings):
        end = timings[n + 1] if n + 1 < len(timings) else len(block)
        if end < len(block) and end - 1 > at and block[end - 1].strip().isdigit():
            end -= 1
        yield block[at + 1 : end]


def clean_line(line: str) -> str:
    """One caption line as plain text: inline tags gone, entities decoded, spaces folded."""
    if "<" in line:
        if "<rt>" in line:
            line = _RUBY_TEXT.sub("", line)
        line = _TAG.sub("", line)
    if "{\\" in line:
        line = _ASS_TAG.sub("", line)
    if "&" in line:
        line = html.unescape(line)
    if not line.isascii():  # cheap: the invisible characters and nbsp are all non-ASCII
        line = line.translate(_INVISIBLE)
    return " ".join(line.split())  # str.split() folds every kind of space, nbsp included


class ProseBuilder:
    """Collapses caption lines into paragraphs, one line at a time."""

    def __init__(self, paragraph_lines: int = DEFAULT_PARAGRAPH_LINES) -> None:
        self.soft = max(1, paragraph_lines)
        self.hard = self.soft + max(1, self.soft // 2)
        self.paragraphs: list[list[str]] = []
        self._prev1: str | None = None  # the last line kept
        self._prev2: str | None = None  # the one before it

    def add(self, line: str) -> None:
        speaker = False
        if line.startswith(">>"):  # YouTube marks a change of speaker with ">>"
            speaker = True
            line = line.lstrip(">").strip()
        if not line or line == self._prev1 or line == self._prev2:
            return
        prev = self._prev1
        if prev is not None and line.startswith(prev) and line[len(prev) : len(prev) + 1] == " ":
            self.paragraphs[-1][-1] = line  # the rolling display grew the last line
            self._prev1 = line
            return
        current = self.paragraphs[-1] if self.paragraphs else None
        if (
            current is None
            or speaker
            or len(current) >= self.hard
            or (len(current) >= self.soft and current[-1].endswith(_SENTENCE_END))
        ):
            current = []
            self.paragraphs.append(current)
        current.append(line)
        self._prev2, self._prev1 = self._prev1, line

    def text(self) -> str:
        if not self.paragraphs:
            return ""
        return "\n\n".join(" ".join(p) for p in self.paragraphs) + "\n"


def captions_to_prose(text: str, paragraph_lines: int = DEFAULT_PARAGRAPH_LINES) -> str:
    """The prose of a WebVTT or SRT caption file (paragraphs separated by blank lines)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    builder = ProseBuilder(paragraph_lines)
    for cue in cue_texts(text):
        for line in cue:
            builder.add(clean_line(line))
    return builder.text()


def looks_like_captions(text: str) -> bool:
    """True when ``text`` has at least one cue timing line (WebVTT or SRT)."""
    head = text.lstrip("\ufeff")
    if head.startswith("WEBVTT"):
        return True
    return any("-->" in line and _TIMING.match(line) for line in head.splitlines()[:50])
