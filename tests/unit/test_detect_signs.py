"""The signs of a kind ``schema detect`` weighs (vaultbrain/packs/signs.py): a sign must be
the group's own among the folders beside it, one section alone is a kind only over many
notes, and a folder named by a language's code is a language's copy of a tree."""

from __future__ import annotations

from typing import Any

import pytest

from vaultbrain.packs.signs import Signs, a_language, area_counts, kind_signs
from vaultbrain.packs.survey import NoteTyping


def n(rel: str, data: dict[str, Any] | None = None, heads: tuple[str, ...] = ()) -> NoteTyping:
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    return NoteTyping(rel, folder, None, None, data or {}, heads)


@pytest.mark.parametrize("name", ["en", "de", "zh-TW", "pt-br", "zh_Hant", "es-419"])
def test_language_codes(name: str) -> None:
    assert a_language(name)


@pytest.mark.parametrize("name", ["db", "ui", "english", "Books", "e", "en-", "xx", "api"])
def test_names_that_are_no_language(name: str) -> None:
    assert not a_language(name)


def test_a_property_spread_over_the_folders_beside_it_is_no_sign() -> None:
    # three topic folders of one language, `description` on most pages of each
    area = [
        n(f"en/{topic}/p{i}.md", {"description": "x"} if i < 4 else None)
        for topic in ("Sync", "Publish", "Teams")
        for i in range(5)
    ]
    rest = [n(f"Other/o{i}.md") for i in range(40)]  # the rest of the vault lacks it
    signs = Signs(area + rest)
    sync = [x for x in area if x.folder == "en/Sync"]
    assert kind_signs(sync, signs, dated=False)[0] == ["description"]  # vault-wide: a sign
    counted = area_counts(area, signs)
    assert kind_signs(sync, signs, dated=False, area=counted)[0] is None  # beside: none


def test_a_property_its_own_among_the_folders_beside_it_stays_a_sign() -> None:
    workouts = [n(f"Health/Workouts/s{i}.md", {"sets": 3, "reps": 8}) for i in range(5)]
    beside = [n(f"Health/t{i}.md", {"mood": "ok"} if i == 0 else None) for i in range(6)]
    signs = Signs(workouts + beside)
    counted = area_counts(workouts + beside, signs)
    assert kind_signs(workouts, signs, dated=False, area=counted)[0] == ["reps", "sets"]


def test_one_section_alone_is_a_kind_only_over_ten_notes() -> None:
    rest = [n(f"Notes/r{i}.md") for i in range(30)]
    few = [n(f"Teams/p{i}.md", heads=("faq",)) for i in range(6)]
    many = [n(f"Main/p{i}.md", heads=("references",)) for i in range(12)]
    signs = Signs(few + many + rest)
    assert kind_signs(few, signs, dated=False)[0] is None
    assert kind_signs(many, signs, dated=False)[0] == []
