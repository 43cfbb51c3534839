"""What a record is to the store, whatever file holds it: a valid id, the summary the
collection index keeps of it, and the one JSON encoder every line and record is written
with."""

from __future__ import annotations

import json
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.patterns import LazyPattern

_ID = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
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


def validate_id(record_id: str) -> str:
    """Refuse ids that could escape the collection folder or poison a JS reader."""
    if (
        not isinstance(record_id, str)
        or not _ID.match(record_id)
        or record_id.lower() in _FORBIDDEN_IDS
    ):
        raise UserError(f"not a valid record id: {record_id!r}")
    return record_id


def summarize(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in SUMMARY_KEYS if k in record and record[k] not in (None, [], "")}
