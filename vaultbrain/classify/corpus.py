"""The labelled thoughts the embedded classifier starts from (``corpus/<pack>.txt``).

One thought per line, ``LABELS | thought``: letters for the pack's types, the primary type
first (``p`` person, ``j`` project, ``i`` idea, ``a`` admin, ``x`` none), and the people a
thought names wrapped in ``{braces}``. A fifth of the lines, chosen by a hash of the text
alone, is the dev set: it never trains the shipped model, so the figure ``bench/run`` reports
on it is a fair one, and it stays the same lines however the file grows.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from vaultbrain.patterns import LazyPattern
from vaultbrain.resources import data_dir

LETTERS = {"p": "person", "j": "project", "i": "idea", "a": "admin"}
_PERSON = LazyPattern(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class Example:
    """One labelled thought: its types (primary first; none for a thought of no type)."""

    text: str
    labels: tuple[str, ...]
    people: tuple[str, ...] = ()
    weight: float = 1.0


def corpus_path(pack_name: str) -> Path | None:
    """The shipped corpus for a pack, if there is one (only the default pack has one)."""
    path = data_dir("corpus") / f"{pack_name}.txt"
    return path if path.is_file() else None


def parse_line(line: str) -> Example | None:
    """An example from one corpus line; ``None`` for a comment, a blank or a malformed line."""
    if not line.strip() or line.startswith("#") or " | " not in line:
        return None
    code, raw = line.rstrip("\n").split(" | ", 1)
    labels = tuple(LETTERS[c] for c in code.strip() if c in LETTERS)
    people = tuple(m.group(1) for m in _PERSON.finditer(raw))
    text = _PERSON.sub(lambda m: m.group(1), raw).strip()
    return Example(text, labels, people) if text else None


def load_corpus(pack_name: str) -> list[Example]:
    """Every example of a pack's corpus, in file order; empty when the pack has none."""
    path = corpus_path(pack_name)
    if path is None:
        return []
    with open(path, encoding="utf-8") as fh:
        return [ex for ex in map(parse_line, fh) if ex is not None]


def is_dev(text: str) -> bool:
    """Whether a thought belongs to the fixed 20% dev split (by a hash of its text)."""
    return hashlib.sha1(text.encode("utf-8")).digest()[0] % 5 == 0


def split(examples: list[Example]) -> tuple[list[Example], list[Example]]:
    """``(train, dev)``: the dev set is the thoughts :func:`is_dev` picks."""
    train = [e for e in examples if not is_dev(e.text)]
    dev = [e for e in examples if is_dev(e.text)]
    return train, dev


def corpus_vocabulary(examples: list[Example]) -> frozenset[str]:
    """The corpus's words that are not people's names, lowercased: a capitalised word that is
    one of these ("Kitchen", "Launch", a German noun, a city) is no person."""
    words: set[str] = set()
    for ex in examples:
        text = ex.text
        for name in sorted(ex.people, key=len, reverse=True):  # "Bea Lindqvist" before "Bea"
            text = text.replace(name, " ")
        words.update(w.lower() for w in re.findall(r"[^\W\d_]+", text))
    return frozenset(words)
