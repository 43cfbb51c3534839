"""The people the pair files have evidence in the thought (classify/arbiter.py): an LLM's
person no word of which the thought holds is none, and a person the embedded classifier
found is filed under the title its evidence gives (the vault's record, the name as written),
not under the LLM's guess of it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from vaultbrain.classify.result import Destination, merge_duplicates


def in_text(title: str, text: str) -> bool:
    """A word of ``title`` is a word of the thought: the LLM did not make the name up."""
    words = set(re.findall(r"[^\W_]+", text.casefold()))
    return any(w in words for w in re.findall(r"[^\W_]+", title.casefold()))


def evidence_titles(dests: list[Destination], titles: Mapping[str, str]) -> list[Destination]:
    """Each person under the title the embedded classifier's evidence gives them (the
    vault's record, or the name as the thought writes it), where it found them; the others
    as they are. Fields stay; a person named twice is named once."""
    found = [Destination("person", title, {}) for title in dict.fromkeys(titles.values())]
    out = []
    for d in dests:
        if d.type == "person":
            same = same_person(d, found)
            if same is None:
                same = next(
                    (
                        Destination("person", t, {})
                        for n, t in titles.items()
                        if n == d.title.casefold()
                    ),
                    None,
                )
            if same is not None and same.title != d.title:
                d = Destination("person", same.title, dict(d.fields))
        out.append(d)
    return merge_duplicates(out)


def people_titles(analysis: Any) -> dict[str, str]:
    """The people the embedded classifier found in a thought (its ``Analysis``) on evidence
    (the vault's own people, the name resources, context): each name as written and its
    record, lowercased, to the title it files them under."""
    out: dict[str, str] = {}
    for p in analysis.people:
        out.setdefault(p.name.casefold(), p.title)
        if p.record:
            out.setdefault(p.record.casefold(), p.title)
    return out


def same_person(d: Destination, out: list[Destination]) -> Destination | None:
    """The one of ``out`` that names this person ("Sarah", "Sarah Chen" and a model's "Sarah
    talked budget" are one: the same words, or the same first name)."""
    mine = d.title.casefold().split()
    for o in out:
        if o.type != "person":
            continue
        theirs = o.title.casefold().split()
        if (
            mine
            and theirs
            and (set(mine) <= set(theirs) or set(theirs) <= set(mine) or mine[0] == theirs[0])
        ):
            return o
    return None
