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

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

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


@dataclass(frozen=True)
class PlannedOp:
    """One note a capture writes: an existing record to update, a note to link, or a new
    note to create. Decided once (the plan) and stored before anything is written."""

    op: OpKind
    type: str
    title: str
    path: str
    record_id: str
    collection: str
    fields: Mapping[str, Any] = field(default_factory=lambda: _frozen(None))

    def __post_init__(self) -> None:
        object.__setattr__(self, "op", OpKind(self.op))
        object.__setattr__(self, "fields", _frozen(self.fields))

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

    def but(self, **changes: Any) -> PlannedOp:
        return dataclasses.replace(self, **changes)

    def filed(self, held: bool = False) -> Filed:
        """What the capture keeps of a written op (one of its ``destinations``)."""
        return Filed(self.type, self.title, self.path, self.record_id, self.op, held)


@dataclass(frozen=True)
class Filed:
    """What a capture became in one note: one of its ``destinations``."""

    type: str
    title: str
    path: str
    record_id: str = ""
    op: OpKind = OpKind.CREATE
    held: bool = False  # a suggestion's update of an existing note, written on confirmation

    def __post_init__(self) -> None:
        object.__setattr__(self, "op", OpKind(self.op))

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

    def but(self, **changes: Any) -> Filed:
        return dataclasses.replace(self, **changes)

    @property
    def written(self) -> bool:
        """A note this capture wrote (created, or updated with its log line)."""
        return bool(self.record_id) and self.op is not OpKind.LINK and not self.held


@dataclass(frozen=True)
class Correction:
    """The person re-filed a record the capture went into."""

    at: str
    from_type: str
    to_type: str
    by: str

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


@dataclass(frozen=True)
class Capture:
    """One thought in the journal. ``None`` means "not recorded yet" for every optional key."""

    id: str
    text: str
    status: CaptureStatus = CaptureStatus.PENDING
    text_hash: str | None = None
    note: str | None = None  # the inbox note its line is in
    origin: str | None = None  # "inbox" | "cli"
    created: str = ""
    updated: str = ""
    attempts: int = 0
    classification: Mapping[str, Any] | None = None
    pack: str | None = None
    model: str | None = None
    plan: tuple[PlannedOp, ...] | None = None
    destinations: tuple[Filed, ...] = ()
    band: str | None = None
    # What each voter read (classify/arbiter.py): the vault's reliability learns from them.
    votes: Mapping[str, Any] | None = None
    last_error: str | None = None
    next_attempt: float | None = None
    warnings: tuple[str, ...] = ()
    timings: Mapping[str, Any] = field(default_factory=lambda: _frozen(None))
    lease: Mapping[str, Any] | None = None
    # The inbox line: our suffix and tick as last written, whether the line was found.
    line_suffix: str | None = None
    line_done: bool | None = None
    line_missing: bool | None = None
    line_gone_at: str | None = None  # when its line disappeared from the inbox
    review_reason: str | None = None  # why it waits for the person (a name fits two notes)
    adopted: bool | None = None  # anchored by another machine: maybe filed there already
    rebuilt_from_line: bool | None = None  # known from its line, not from this store
    classification_before: Mapping[str, Any] | None = None  # before the person decided
    resolved_by: str | None = None  # "confirm" | "resolve" | "dismiss"
    confirmed_at: str | None = None
    dismissed_at: str | None = None
    corrections: tuple[Correction, ...] = ()
    rev: int = 0  # bumped when its line must be redrawn though `updated` may not show it
    extra: Mapping[str, Any] = field(default_factory=lambda: _frozen(None))

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", CaptureStatus(self.status))
        object.__setattr__(self, "timings", _frozen(self.timings))
        object.__setattr__(self, "extra", _frozen(self.extra))
        for name in ("classification", "classification_before", "lease", "votes"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _frozen(value))
        typed = {"destinations": Filed, "plan": PlannedOp, "corrections": Correction}
        for name in _TUPLES + ("plan",):
            value = getattr(self, name)
            if value is None:
                continue
            kind = typed.get(name)
            if kind is not None:
                value = tuple(kind.from_dict(v) if isinstance(v, Mapping) else v for v in value)
            if not isinstance(value, tuple):
                value = tuple(value)
            object.__setattr__(self, name, value)

    @property
    def classified(self) -> bool:
        return self.classification is not None

    @property
    def written(self) -> list[Filed]:
        """The notes it wrote (not a linked note of the person's, not a held update)."""
        return [d for d in self.destinations if d.written]

    def but(self, **changes: Any) -> Capture:
        """A copy with ``changes`` (what every transition returns)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Capture:
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
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
        for f in dataclasses.fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value is None or (f.name in ("warnings", "timings", "corrections") and not value):
                continue
            if f.name == "rev" and not value:
                continue
            if f.name == "plan":
                value = [op.to_dict() for op in value]
            elif f.name == "destinations":
                value = [d.to_dict() for d in value]
            elif f.name == "corrections":
                value = [c.to_dict() for c in value]
            elif f.name == "warnings":
                value = list(value)
            elif f.name == "status":
                value = value.value
            elif isinstance(value, Mapping):
                value = _plain(value)
            out[f.name] = value
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
