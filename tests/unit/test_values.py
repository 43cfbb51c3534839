"""``@valueclass`` behaves as ``@dataclass`` (vaultbrain/values.py): each pair of classes
below is written once with each decorator and must agree on everything a caller sees."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from vaultbrain.values import valueclass


def make(decorate: Any, frozen: bool) -> type:
    @decorate(frozen=frozen)
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)
        note: str = field(default="", repr=False, compare=False)

    return Point


@pytest.mark.parametrize("frozen", [False, True])
def test_the_same_construction_equality_repr_and_fields(frozen: bool) -> None:
    ours, theirs = make(valueclass, frozen), make(dataclass, frozen)
    for args, kwargs in [((1,), {}), ((1, 2), {"tags": ["a"]}), ((), {"x": 3, "note": "n"})]:
        a, b = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(a) == repr(b)
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        assert a == ours(*args, **kwargs) and a != theirs(*args, **kwargs)
        assert dataclasses.replace(a, x=9).x == 9
    assert [f.name for f in dataclasses.fields(ours)] == ["x", "y", "tags", "note"]
    assert ours(1, note="a") == ours(1, note="b")  # compare=False, as the dataclass
    assert ours(1).tags is not ours(1).tags  # a fresh default each time
    assert ours.__match_args__ == theirs.__match_args__
    assert dataclasses.is_dataclass(ours)


@pytest.mark.parametrize("frozen", [False, True])
def test_the_same_signature_errors(frozen: bool) -> None:
    for cls in (make(valueclass, frozen), make(dataclass, frozen)):
        for args, kwargs in [((), {}), ((1, 2, [], "", 5), {}), ((1,), {"x": 2}), ((1,), {"z": 2})]:
            with pytest.raises(TypeError):
                cls(*args, **kwargs)


def test_frozen_values_refuse_changes_and_hash_by_their_fields() -> None:
    point = make(valueclass, True)(1, 2, ("a",))  # type: ignore[call-arg]
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x
    assert hash(point) == hash(make(valueclass, True)(1, 2, ("a",)))  # type: ignore[call-arg]


def test_mutable_values_change_and_are_unhashable_as_dataclasses_are() -> None:
    point = make(valueclass, False)(1)  # type: ignore[call-arg]
    point.x = 5
    assert point.x == 5
    with pytest.raises(TypeError):
        hash(point)


@valueclass
class Doubled:
    n: int
    twice: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.twice = self.n * 2


@valueclass(frozen=True)
class Kept:
    """Pickled, as the classifier's cache pickles its values."""

    name: str
    sizes: tuple[int, ...] = ()


def test_post_init_fields_not_in_init_and_pickling() -> None:
    assert Doubled(4).twice == 8 and repr(Doubled(4)) == "Doubled(n=4, twice=8)"
    with pytest.raises(TypeError):
        Doubled(4, 8)  # type: ignore[call-arg]
    kept = Kept("a", (1, 2))
    assert pickle.loads(pickle.dumps(kept)) == kept


def test_a_method_the_class_writes_is_kept() -> None:
    @valueclass(frozen=True)
    class Named:
        """Shown by its name only."""

        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

    assert repr(Named("x")) == "<x>"
