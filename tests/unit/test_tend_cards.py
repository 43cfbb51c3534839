"""tend's cards as the cache keeps them: packed and read back, the same card (pure)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from vaultbrain.tend.card import Card, decode
from vaultbrain.tend.card_cache import pack_card, unpack_cards


@pytest.mark.parametrize(
    "data",
    [
        {"type": "person", "name": "Ann", "created": dt.datetime(2025, 1, 2, 3, 4, 5)},
        {"type": "admin", "due": dt.date(2025, 2, 1), "tags": ["a", 1, None, True, 2.5]},
        {"type": "project", "log": [{"day": dt.date(2025, 3, 1), "what": "x"}], "n": {"a": 1}},
        {"type": "idea", "dates": [dt.date(2024, 1, 1), "2024-01-02"]},
    ],
)
def test_a_card_packed_and_read_back_is_the_same(data: dict[str, Any]) -> None:
    body = "Met 2025-01-03, then 2025-02-30 (no day), then [[People/Bo]].\n"
    card = Card("Ideas/A.md", str(data["type"]), "A", dict(data), body, "h", 1.5)
    packed = pack_card(card)
    assert packed is not None
    (back,) = unpack_cards([("Ideas/A.md", packed, 1_500_000_000)])
    assert back.n_keys == len(data)
    assert not back.may_have("absent") and back.may_have("type")  # (not decoded yet)
    assert isinstance(back.props, str) and back.get("absent") is None
    assert back.get("type") == data["type"]
    assert back.data == data
    assert back.dates() == card.dates()
    assert dt.date(2025, 1, 3) in back.dates() and back.size == len(body)
    again = unpack_cards([("Ideas/A.md", packed, 1_500_000_000)])
    decode(again)
    assert again[0].data == data


def test_properties_json_cannot_hold_as_they_are_are_not_kept() -> None:
    for data in ({"type": "idea", 2024: "a year"}, {"type": "idea", "s": {1, 2}}):
        card = Card("Ideas/A.md", "idea", "A", data, "", "h", 0.0)
        assert pack_card(card) is None
