"""What a record is to the store: a valid id, the summary kept of it beside its document
(and the columns looked up: name, path, type), and the one JSON encoder every record and
entry is written with."""

from __future__ import annotations

import json
import re
from typing import Any

from vaultbrain.errors import UserError

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
_FORBIDDEN_IDS = {"__proto__", "constructor", "prototype", "index", "con", "nul", "prn", "aux"}
SUMMARY_KEYS = (
    "id",
    "type",
    "title",
    "aliases",
    "path",
    "status",
    "updated",
    "deleted",
    "base_hash",
    "rev",  # bumped when a record changes in a way its `updated` (to the second) may not show
)


# One encoder for every line and record the store writes: json.dumps with arguments of its
# own builds an encoder per call, a tenth of what writing 10,000 records costs.
to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def valid_id(record_id: object) -> bool:
    """Whether ``record_id`` may name a record (or a collection): no id that could escape a
    folder of ``db export`` or poison a JS reader."""
    return (
        isinstance(record_id, str)
        and _ID.match(record_id) is not None
        and record_id.lower() not in _FORBIDDEN_IDS
    )


def validate_id(record_id: str) -> str:
    """``record_id``, or a one-line error when it is not :func:`valid_id`."""
    if not valid_id(record_id):
        raise UserError(f"not a valid record id: {record_id!r}")
    return record_id


def summarize(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in SUMMARY_KEYS if k in record and record[k] not in (None, [], "")}
