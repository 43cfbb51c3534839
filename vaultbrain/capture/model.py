"""The values a thought passes through on its way from an inbox line to notes.

A :class:`Capture` is the journal's record of one thought (``store/inbox/<id>.json``); it is
read and changed only through :class:`vaultbrain.capture.journal.Journal`, whose named
transitions return a new capture (every value here is frozen). Keys this module does not
name (written by a later version) ride along untouched in ``extra``, so a round trip never
drops what another part of vaultbrain wrote.

The statuses of a capture are named here and nowhere else: other modules compare with
:class:`CaptureStatus` (and read the sets below), never with strings.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import FrozenInstanceError
from types import MappingProxyType
from typing import Any, ClassVar, Self

from vaultbrain.statuses import (  # noqa: F401 (capture's statuses, where callers look)
    SETTLED,
    STATUS_NAMES,
    STOOD,
    WAITING_FOR_PERSON,
    CaptureStatus,
)


class OpKind(enum.StrEnum):
    """What a capture does to one note."""

    CREATE = "create"  # a new note
    UPDATE = "update"  # an existing record: a log line, lists grown
    LINK = "link"  # an existing note that is not a record of the type: pointed at, never written


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


class Value:
    """An immutable value of named fields: what ``@dataclass(frozen=True)`` made of these
    classes (equality and hash by the fields, a repr naming them, ``FrozenInstanceError`` on
    assignment), written out once here. The dataclass generated and compiled that code at
    every start (a tenth of a cold capture's imports, for a 30-field Capture). A class's
    fields are its annotations, in order; its ``__init__`` sets each with ``_set``."""

    FIELDS: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls) -> None:
        cls.FIELDS = tuple(inspect.get_annotations(cls))

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def field_values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Value) or other.__class__ is not self.__class__:
            return NotImplemented
        return self.field_values() == other.field_values()

    def __hash__(self) -> int:
        return hash(self.field_values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__qualname__}({shown})"

    def but(self, **changes: Any) -> Self:
        """A copy with ``changes`` (what every transition of a capture returns)."""
        return type(self)(**{name: getattr(self, name) for name in self.FIELDS} | changes)


class PlannedOp(Value):
    """One note a capture writes: an existing record to update, a note to link, or a new
    note to create. Decided once (the plan) and stored before anything is written."""

    op: OpKind
    type: str
    title: str
    path: str
    record_id: str
    collection: str
    fields: Mapping[str, Any]

    def __init__(
        self,
        op: OpKind | str,
        type: str,
        title: str,
        path: str,
        record_id: str,
        collection: str,
        fields: Mapping[str, Any] | None = None,
    ) -> None:
        self._set("op", OpKind(op))
        self._set("type", type)
        self._set("title", title)
        self._set("path", path)
        self._set("record_id", record_id)
        self._set("collection", collection)
        self._set("fields", _frozen(fields))

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op.value,
            "type": self.type,
            "title": self.title,
            "path": self.path,
            "record_id": self.record_id,
            "collection": self.collection,
            "fields": dict(self.fields),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PlannedOp:
        return cls(
            op=OpKind(str(d["op"])),
            type=str(d["type"]),
            title=str(d["title"]),
            path=str(d["path"]),
            record_id=str(d.get("record_id") or ""),
            collection=str(d.get("collection") or ""),
            fields=dict(d.get("fields") or {}),
        )

    def filed(self, held: bool = False) -> Filed:
        """What the capture keeps of a written op (one of its ``destinations``)."""
        return Filed(self.type, self.title, self.path, self.record_id, self.op, held)


class Filed(Value):
    """What a capture became in one note: one of its ``destinations``."""

    type: str
    title: str
    path: str
    record_id: str
    op: OpKind
    held: bool  # a suggestion's update of an existing note, written on confirmation

    def __init__(
        self,
        type: str,
        title: str,
        path: str,
        record_id: str = "",
        op: OpKind | str = OpKind.CREATE,
        held: bool = False,
    ) -> None:
        self._set("type", type)
        self._set("title", title)
        self._set("path", path)
        self._set("record_id", record_id)
        self._set("op", OpKind(op))
        self._set("held", held)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "title": self.title,
            "path": self.path,
            "record_id": self.record_id,
            "op": self.op.value,
        }
        if self.held:
            out["held"] = True
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Filed:
        try:
            op = OpKind(str(d.get("op") or OpKind.UPDATE.value))
        except ValueError:
            op = OpKind.UPDATE
        return cls(
            type=str(d.get("type") or ""),
            title=str(d.get("title") or ""),
            path=str(d.get("path") or ""),
            record_id=str(d.get("record_id") or ""),
            op=op,
            held=bool(d.get("held")),
        )

    @property
    def written(self) -> bool:
        """A note this capture wrote (created, or updated with its log line)."""
        return bool(self.record_id) and self.op is not OpKind.LINK and not self.held


class Correction(Value):
    """The person re-filed a record the capture went into."""

    at: str
    from_type: str
    to_type: str
    by: str

    def __init__(self, at: str, from_type: str, to_type: str, by: str) -> None:
        self._set("at", at)
        self._set("from_type", from_type)
        self._set("to_type", to_type)
        self._set("by", by)

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at, "from": self.from_type, "to": self.to_type, "by": self.by}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Correction:
        return cls(
            str(d.get("at") or ""),
            str(d.get("from") or ""),
            str(d.get("to") or ""),
            str(d.get("by") or ""),
        )


# The record keys of a capture that hold typed values (everything else is plain JSON).
_TUPLES = ("destinations", "warnings", "corrections")


class Capture(Value):
    """One thought in the journal. ``None`` means "not recorded yet" for every optional key."""

    id: str
    text: str
    status: CaptureStatus
    text_hash: str | None
    note: str | None  # the inbox note its line is in
    origin: str | None  # "inbox" | "cli"
    created: str
    updated: str
    attempts: int
    classification: Mapping[str, Any] | None
    pack: str | None
    model: str | None
    plan: tuple[PlannedOp, ...] | None
    destinations: tuple[Filed, ...]
    band: str | None
    # What each voter read (classify/arbiter.py): the vault's reliability learns from them.
    votes: Mapping[str, Any] | None
    last_error: str | None
    next_attempt: float | None
    warnings: tuple[str, ...]
    timings: Mapping[str, Any]
    lease: Mapping[str, Any] | None
    # The inbox line: our suffix and tick as last written, whether the line was found.
    line_suffix: str | None
    line_done: bool | None
    line_missing: bool | None
    line_gone_at: str | None  # when its line disappeared from the inbox
    review_reason: str | None  # why it waits for the person (a name fits two notes)
    adopted: bool | None  # anchored by another machine: maybe filed there already
    rebuilt_from_line: bool | None  # known from its line, not from this store
    classification_before: Mapping[str, Any] | None  # before the person decided
    resolved_by: str | None  # "confirm" | "resolve" | "dismiss"
    confirmed_at: str | None
    dismissed_at: str | None
    corrections: tuple[Correction, ...]
    rev: int  # bumped when its line must be redrawn though `updated` may not show it
    extra: Mapping[str, Any]

    def __init__(  # one parameter per field, with its default, as the dataclass had
        self,
        id: str,
        text: str,
        status: CaptureStatus | str = CaptureStatus.PENDING,
        text_hash: str | None = None,
        note: str | None = None,
        origin: str | None = None,
        created: str = "",
        updated: str = "",
        attempts: int = 0,
        classification: Mapping[str, Any] | None = None,
        pack: str | None = None,
        model: str | None = None,
        plan: Iterable[PlannedOp | Mapping[str, Any]] | None = None,
        destinations: Iterable[Filed | Mapping[str, Any]] = (),
        band: str | None = None,
        votes: Mapping[str, Any] | None = None,
        last_error: str | None = None,
        next_attempt: float | None = None,
        warnings: Iterable[str] = (),
        timings: Mapping[str, Any] | None = None,
        lease: Mapping[str, Any] | None = None,
        line_suffix: str | None = None,
        line_done: bool | None = None,
        line_missing: bool | None = None,
        line_gone_at: str | None = None,
        review_reason: str | None = None,
        adopted: bool | None = None,
        rebuilt_from_line: bool | None = None,
        classification_before: Mapping[str, Any] | None = None,
        resolved_by: str | None = None,
        confirmed_at: str | None = None,
        dismissed_at: str | None = None,
        corrections: Iterable[Correction | Mapping[str, Any]] = (),
        rev: int = 0,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        given = locals()
        for name in self.FIELDS:
            self._set(name, given[name])
        self._set("status", CaptureStatus(status))
        self._set("timings", _frozen(timings))
        self._set("extra", _frozen(extra))
        for name in ("classification", "classification_before", "lease", "votes"):
            value = given[name]
            if value is not None:
                self._set(name, _frozen(value))
        typed: dict[str, Any] = {
            "destinations": Filed,
            "plan": PlannedOp,
            "corrections": Correction,
        }
        for name in (*_TUPLES, "plan"):
            value = given[name]
            if value is None:
                continue
            kind = typed.get(name)
            if kind is not None:
                value = tuple(kind.from_dict(v) if isinstance(v, Mapping) else v for v in value)
            if not isinstance(value, tuple):
                value = tuple(value)
            self._set(name, value)

    @property
    def classified(self) -> bool:
        return self.classification is not None

    @property
    def written(self) -> list[Filed]:
        """The notes it wrote (not a linked note of the person's, not a held update)."""
        return [d for d in self.destinations if d.written]

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Capture:
        known = set(cls.FIELDS) - {"extra"}
        values: dict[str, Any] = {k: v for k, v in record.items() if k in known}
        extra = {k: v for k, v in record.items() if k not in known}
        extra.pop("band_cap", None)  # an earlier version's second opinion: judged again
        values["status"] = CaptureStatus.of(values.get("status")) or CaptureStatus.PENDING
        if values.get("plan") is not None:
            values["plan"] = tuple(PlannedOp.from_dict(op) for op in values["plan"])
        values["destinations"] = tuple(
            Filed.from_dict(d) for d in values.get("destinations") or () if isinstance(d, Mapping)
        )
        values["warnings"] = tuple(str(w) for w in values.get("warnings") or ())
        values["corrections"] = tuple(
            Correction.from_dict(c)
            for c in values.get("corrections") or ()
            if isinstance(c, Mapping)
        )
        values["timings"] = dict(values.get("timings") or {})
        values["rev"] = int(values.get("rev") or 0)
        values["attempts"] = int(values.get("attempts") or 0)
        return cls(**values, extra=extra)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.FIELDS:
            if name == "extra":
                continue
            value = getattr(self, name)
            if value is None or (name in ("warnings", "timings", "corrections") and not value):
                continue
            if name == "rev" and not value:
                continue
            if name == "plan":
                value = [op.to_dict() for op in value]
            elif name == "destinations":
                value = [d.to_dict() for d in value]
            elif name == "corrections":
                value = [c.to_dict() for c in value]
            elif name == "warnings":
                value = list(value)
            elif name == "status":
                value = value.value
            elif isinstance(value, Mapping):
                value = _plain(value)
            out[name] = value
        if not self.destinations and self.status is CaptureStatus.PENDING:
            del out["destinations"]
        out.update(_plain(self.extra))
        return out


def _plain(value: Any) -> Any:
    """JSON-ready copies of frozen mappings and tuples."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def filed_list(items: Iterable[Filed | Mapping[str, Any]]) -> tuple[Filed, ...]:
    """Destinations as typed values, whatever form they came in."""
    return tuple(d if isinstance(d, Filed) else Filed.from_dict(d) for d in items)


def capture_doc(record: Mapping[str, Any]) -> dict[str, Any]:
    """A capture as ``vaultbrain capture --json`` and the MCP tools show it: the one shape."""
    cls = record.get("classification") or {}
    return {
        "id": record["id"],
        "text": record["text"],
        "status": record["status"],
        "confidence": cls.get("confidence"),
        "classified_by": cls.get("classified_by"),
        "reasoning": cls.get("reasoning"),
        "destinations": [
            # a linked note (not written) and a suggestion's held update say so
            {"type": d["type"], "title": d["title"], "path": d["path"]}
            | {k: d[k] for k in ("op", "held") if d.get(k) in ("link", True)}
            for d in record.get("destinations", [])
        ],
        "created": record.get("created"),
        "error": record.get("review_reason") or record.get("last_error") or cls.get("error"),
        "warnings": record.get("warnings", []),
        "fallback": cls.get("fallback"),
    }
