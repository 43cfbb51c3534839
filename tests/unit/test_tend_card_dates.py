"""A card's dates are the same whichever way its properties were read: a note's file (dates
as YAML objects), the graph index filled by a child's own read (``str`` of them) or by the
reindex's scan (as the store keeps them, ``2026-10-01T08:30:00``)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from vaultbrain.tend.card import Card
from vaultbrain.tend.drift import fact
from vaultbrain.vault.note import normalize, parse_note

TEXT = (
    "---\ntype: person\nname: Dana Reyes\nlast_interaction: 2026-10-02\n"
    "created: 2026-10-01T08:30:00\n---\nMet on 2026-10-03.\n"
)


def _ways() -> list[dict[str, object]]:
    parsed = parse_note(TEXT)
    assert parsed.error is None
    as_yaml = {
        "type": "person",
        "name": "Dana Reyes",
        "last_interaction": dt.date(2026, 10, 2),
        "created": dt.datetime(2026, 10, 1, 8, 30),
    }
    return [
        as_yaml,
        json.loads(json.dumps(as_yaml, default=str)),  # (the child's build of the index)
        parsed.data,  # (the scan's parse: what a reindex that fills the index in-process keeps)
        json.loads(json.dumps(normalize(as_yaml))),
    ]


@pytest.mark.parametrize("way", range(4))
def test_every_way_a_note_is_read_gives_the_same_days(way: int) -> None:
    data = _ways()[way]
    card = Card(
        "People/Dana Reyes.md", "person", "Dana Reyes", data, "Met on 2026-10-03.\n", "h", 0
    )
    assert sorted(card.dates()) == [dt.date(2026, 10, d) for d in (1, 2, 3)]


@pytest.mark.parametrize(
    ("due", "day"),
    [
        ("2026-12-20", "2026-12-20"),
        ("2026-12-20T17:00", "2026-12-20"),
        ("2026-12-20T17:00:00", "2026-12-20"),
        ("2026-12-20 17:00:00", "2026-12-20"),
        ("by 2026-12-20", "2026-12-20"),
        ("2026-12-205", None),
        ("soon", None),
    ],
)
def test_an_admin_items_due_day_is_read_from_a_date_time_too(due: str, day: str | None) -> None:
    card = Card("Admin/Tax.md", "admin", "Tax", {"type": "admin", "due": due}, "", "h", 0)
    got = fact(card)
    assert (got and got["due"]) == day
