"""PackedMap (vaultbrain/packed.py): a map kept as one string of bytes that acts as a dict,
before and after it is kept and loaded again, whatever its keys hold."""

from __future__ import annotations

import pickle
import random
import sys

import pytest

from vaultbrain.packed import PackedMap, packed

KEYS = ["", "a", "ab", "b", "é", "with\x00nul", "with\x01one", "\x01\x02", "\udc80lone", "z" * 300]


def kept(m: PackedMap) -> PackedMap:
    again = pickle.loads(pickle.dumps(m, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(again, PackedMap)
    return again


def test_it_acts_as_a_dict_through_changes_and_keeping() -> None:
    rng = random.Random(5)
    model: dict[str, object] = {}
    m = PackedMap()
    for step in range(3000):
        key = rng.choice(KEYS + [f"k{rng.randrange(300)}"])
        roll = rng.random()
        if roll < 0.5:
            value = rng.choice([step, [step, 1.5], {("person", f"T{step}")}, ("t", "x", ())])
            model[key] = value
            m[key] = value
        elif roll < 0.7 and key in model:
            del model[key]
            del m[key]
        elif roll < 0.8:
            assert m.get(key, "none") == model.get(key, "none")
        elif roll < 0.85:
            m = kept(m)  # packed and loaded again, with entries opened and deleted since
        assert (key in m) == (key in model)
        assert len(m) == len(model)
    assert dict(m) == model and sorted(m) == sorted(model)
    assert dict(kept(m)) == model
    with pytest.raises(KeyError):
        del m["never there"]
    with pytest.raises(KeyError):
        m["never there"]  # noqa: B018


def test_a_value_read_is_the_one_kept_and_changed_in_place() -> None:
    m = kept(PackedMap({"row": [0, 0], "names": {("person", "Ann")}}))
    m["row"][1] += 2  # (the counts change their rows in place)
    m.setdefault("names", set()).add(("person", "Anna"))
    m.setdefault("new", set()).add(("idea", "X"))
    again = kept(m)
    assert again["row"] == [0, 2]
    assert again["names"] == {("person", "Ann"), ("person", "Anna")}
    assert again["new"] == {("idea", "X")}


def test_loaded_it_unpacks_only_what_is_read() -> None:
    m = kept(PackedMap({f"k{i}": [i] for i in range(10_000)}))
    assert len(m) == 10_000 and m._open == {}
    assert m.get("k42") == [42] and m.get("nope") is None and "k7" in m
    assert list(m._open) == ["k42"]
    m.unpack()
    assert len(m._open) == 10_000 and m["k9999"] == [9999] and len(m) == 10_000


def test_a_map_from_another_python_is_refused_when_loaded() -> None:
    rows, starts, _ = PackedMap({"a": 1}).__reduce__()[1]
    other = (sys.version_info[0], sys.version_info[1] - 1)
    from vaultbrain.packed import _loaded

    with pytest.raises(ValueError):
        _loaded(rows, starts, other)
    assert dict(_loaded(rows, starts, sys.version_info[:2])) == {"a": 1}


def test_packed_keeps_a_map_that_is_one() -> None:
    m = PackedMap({"a": 1})
    assert packed(m) is m and dict(packed({"b": 2})) == {"b": 2}
