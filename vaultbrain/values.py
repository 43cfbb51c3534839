"""``@valueclass``: a dataclass whose methods are shared, not generated for each class.

``dataclasses.dataclass`` writes each class its own ``__init__``, ``__repr__``, ``__eq__``
(and for a frozen one ``__hash__``, ``__setattr__``, ``__delattr__``) as source text and
compiles it: some 0.5 ms a class, paid again by every process, and a cold `vaultbrain
capture` defines dozens. ``@valueclass`` keeps what the dataclass knows of the class (its
fields, so ``dataclasses.fields``, ``replace`` and ``asdict`` work as ever) and gives it
methods written once here that read those fields: the same signature rules (positional or keyword,
defaults, ``default_factory``, ``__post_init__``), the same equality, hash and repr, and for
``frozen=True`` the same ``FrozenInstanceError``. Type checkers see a dataclass
(``dataclass_transform``). A leaf module: it imports nothing of vaultbrain's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")
_MISSING = dataclasses.MISSING
_SPEC = "__value_init__"  # the class's (name, default, factory) per init field, in order
_SHOWN = "__value_repr__"  # the fields its repr shows
_COMPARED = "__value_eq__"  # the fields equality and the hash compare


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    spec = getattr(cls, _SPEC)
    if len(args) > len(spec):
        raise TypeError(
            f"{cls.__name__}.__init__() takes {len(spec) + 1} positional arguments "
            f"but {len(args) + 1} were given"
        )
    put = object.__setattr__
    if not kwargs and len(args) == len(spec) and not cls.__value_later__:
        # every field given by position (a value built in a loop, most often): set, done
        for (name, _default, _factory), arg in zip(spec, args, strict=True):
            put(self, name, arg)
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()
        return
    for (name, _default, _factory), arg in zip(spec, args, strict=False):
        if name in kwargs:
            raise TypeError(f"{cls.__name__}.__init__() got multiple values for argument {name!r}")
        put(self, name, arg)
    for name, default, factory in spec[len(args) :]:
        if name in kwargs:
            put(self, name, kwargs.pop(name))
        elif default is not _MISSING:
            put(self, name, default)
        elif factory is not _MISSING:
            put(self, name, factory())
        else:
            raise TypeError(f"{cls.__name__}.__init__() missing required argument: {name!r}")
    if kwargs:
        raise TypeError(
            f"{cls.__name__}.__init__() got an unexpected keyword argument {next(iter(kwargs))!r}"
        )
    for f in cls.__value_later__:  # fields with init=False
        if f.default is not _MISSING:
            put(self, f.name, f.default)
        elif f.default_factory is not _MISSING:
            put(self, f.name, f.default_factory())
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


def _repr(self: Any) -> str:
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in getattr(type(self), _SHOWN))
    return f"{type(self).__qualname__}({shown})"


def _compared(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, n) for n in getattr(type(self), _COMPARED))


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _make(cls: type[T], frozen: bool) -> type[T]:
    # The dataclass machinery for the fields alone (no method of its own to compile), then
    # the shared methods; a method the class writes itself is kept, as the dataclass does.
    own = dict(cls.__dict__)
    if not cls.__doc__:  # else the dataclass writes one from inspect.signature (ms at first)
        cls.__doc__ = f"{cls.__name__}({', '.join(own.get('__annotations__', {}))})"
    cls = dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    setattr(cls, _SPEC, tuple((f.name, f.default, f.default_factory) for f in fields if f.init))
    cls.__value_later__ = tuple(f for f in fields if not f.init)  # type: ignore[attr-defined]
    setattr(cls, _SHOWN, tuple(f.name for f in fields if f.repr))
    setattr(cls, _COMPARED, tuple(f.name for f in fields if f.compare))
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    methods: dict[str, Callable[..., Any] | None] = {
        "__init__": _init,
        "__repr__": _repr,
        "__eq__": _eq,
        # as the dataclass: a frozen value hashes by its fields, a mutable one is unhashable
        "__hash__": _hash if frozen else None,
    }
    if frozen:
        methods["__setattr__"] = _frozen_setattr
        methods["__delattr__"] = _frozen_delattr
    for name, method in methods.items():
        if name not in own or (name == "__hash__" and own[name] is None):
            setattr(cls, name, method)
    setattr(cls, "__match_args__", tuple(f.name for f in fields if f.init))  # noqa: B010 (mypy)
    return cls


@overload
def valueclass(cls: type[T], /) -> type[T]: ...
@overload
def valueclass(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def valueclass(cls: type[T] | None = None, /, *, frozen: bool = False) -> Any:
    """``@valueclass`` or ``@valueclass(frozen=True)``: as ``@dataclass`` and
    ``@dataclass(frozen=True)``."""
    if cls is None:
        return lambda c: _make(c, frozen)
    return _make(cls, frozen)
