"""The values a thought passes through on its way from an inbox line to notes.

A :class:`Capture` is the journal's record of one thought (``store/inbox/<id>.json``); it is
read and written only through :class:`vaultbrain.capture.journal.Journal`. Keys this module
does not name (added by review, corrections or an older version) ride along untouched in
``extra``, so a round trip never drops what another part of vaultbrain wrote.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import Any


class CaptureStatus(enum.StrEnum):
    PENDING = "pending"  # waiting for a classifier (or for its notes to be written)
    FILED = "filed"
    SUGGESTED = "suggested"  # filed, awaiting the person's confirmation
    NEEDS_REVIEW = "needs_review"  # nothing filed; the person decides
    CORRECTED = "corrected"  # re-filed by the person
    DISMISSED = "dismissed"  # the person said no, or deleted the line before it was taken


# What counts as "done" for a capture's inbox line: ticked, nothing left to decide.
SETTLED = frozenset({CaptureStatus.FILED, CaptureStatus.CORRECTED, CaptureStatus.DISMISSED})


@dataclass
class PlannedOp:
    """One note a capture writes: an existing record to update, or a new note to create."""

    op: str  # "create" | "update"
    type: str
    title: str
    path: str
    record_id: str
    collection: str
    fields: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "type": self.type,
            "title": self.title,
            "path": self.path,
            "record_id": self.record_id,
            "collection": self.collection,
            "fields": dict(self.fields),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlannedOp:
        return cls(
            op=str(d["op"]),
            type=str(d["type"]),
            title=str(d["title"]),
            path=str(d["path"]),
            record_id=str(d.get("record_id") or ""),
            collection=str(d.get("collection") or ""),
            fields=dict(d.get("fields") or {}),
        )

    def filed(self) -> dict[str, Any]:
        """What the capture keeps of a written op (its ``destinations``)."""
        return {
            "type": self.type,
            "title": self.title,
            "path": self.path,
            "record_id": self.record_id,
            "op": self.op,
        }


@dataclass
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
    classification: dict[str, Any] | None = None
    pack: str | None = None
    model: str | None = None
    plan: list[PlannedOp] | None = None
    destinations: list[dict[str, Any]] = field(default_factory=list)
    band: str | None = None
    last_error: str | None = None
    next_attempt: float | None = None
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)
    lease: dict[str, Any] | None = None
    line_suffix: str | None = None
    line_done: bool | None = None
    line_missing: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def classified(self) -> bool:
        return self.classification is not None

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Capture:
        known = {f.name for f in fields(cls)} - {"extra"}
        values = {k: v for k, v in record.items() if k in known}
        extra = {k: v for k, v in record.items() if k not in known}
        values["status"] = CaptureStatus(values.get("status") or CaptureStatus.PENDING)
        if values.get("plan") is not None:
            values["plan"] = [PlannedOp.from_dict(op) for op in values["plan"]]
        values["destinations"] = list(values.get("destinations") or [])
        values["warnings"] = list(values.get("warnings") or [])
        values["timings"] = dict(values.get("timings") or {})
        return cls(**values, extra=extra)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value is None or (f.name in ("warnings", "timings") and not value):
                continue
            if f.name == "plan":
                value = [op.to_dict() for op in value]
            elif f.name == "status":
                value = str(value)
            out[f.name] = value
        if self.destinations or self.status is not CaptureStatus.PENDING:
            out["destinations"] = self.destinations
        elif "destinations" in out:
            del out["destinations"]
        out.update(self.extra)
        return out
