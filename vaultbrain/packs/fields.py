"""A page type's frontmatter fields, in Obsidian's property types (text, list, number,
checkbox, date, datetime, link, links, enum): how a value offered for one is coerced or
dropped, and the JSON schema the classifier is asked to fill; and the fields a type's one
Obsidian Tasks line shows. Declared under ``fields:`` and ``tasks:`` of a page type in a pack
manifest (``vaultbrain/packs/model.py``).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

FieldType = Literal[
    "text", "list", "number", "checkbox", "date", "datetime", "link", "links", "enum"
]
FIELD_TYPES: tuple[str, ...] = (
    "text",
    "list",
    "number",
    "checkbox",
    "date",
    "datetime",
    "link",
    "links",
    "enum",
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")


class StrictModel(BaseModel):
    """A manifest part: unknown keys are refused, so a typo is an error, not ignored."""

    # defer_build: pydantic builds a model's validator when it first validates, not when the
    # class is made: a command that finds its resolved pack in the state dir's cache
    # (packs/loader.py) never validates a manifest and skips that cost at every start.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class FieldSpec(StrictModel):
    """One frontmatter property of a page type, in Obsidian's property types."""

    type: FieldType = "text"
    values: list[str] | None = None
    required: bool = False
    default: Any = None
    description: str | None = None
    # A `links` field that collects the links of the other notes one thought is filed to:
    # the type names whose notes it links (`any`: every type). E.g. a project's `people`.
    collects: list[str] | None = None
    # `today`: set to the capture's date whenever a thought is filed to the note (a later
    # date is never moved back). E.g. a person's `last_interaction`.
    on_capture: Literal["today"] | None = None

    @model_validator(mode="after")
    def _values_fit_type(self) -> FieldSpec:
        if self.type == "enum" and not self.values:
            raise ValueError("an enum field needs `values`")
        if self.type != "enum" and self.values is not None:
            raise ValueError("`values` belongs to enum fields only")
        if self.collects is not None and self.type != "links":
            raise ValueError("`collects` belongs to links fields only")
        if self.on_capture is not None and self.type != "date":
            raise ValueError("`on_capture` belongs to date fields only")
        return self

    def collects_type(self, type_name: str) -> bool:
        return self.collects is not None and ("any" in self.collects or type_name in self.collects)

    def coerce(self, value: Any) -> tuple[bool, Any]:
        """(ok, value as stored) for a value offered for this field; not ok means drop it."""
        t = self.type
        if value is None:
            return False, None
        if t == "text":
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                text = str(value).strip()
                return bool(text), text
            return False, None
        if t in ("list", "links"):
            items = value if isinstance(value, list) else [value]
            out = []
            for item in items:
                if isinstance(item, str) and item.strip():
                    out.append(item.strip())
                elif isinstance(item, int | float) and not isinstance(item, bool):
                    out.append(str(item))
                else:
                    return False, None
            return True, out
        if t == "link":
            return (
                (True, value.strip()) if isinstance(value, str) and value.strip() else (False, None)
            )
        if t == "number":
            if isinstance(value, bool):
                return False, None
            if isinstance(value, int | float):
                return True, value
            try:
                return True, float(value) if "." in str(value) else int(value)
            except (TypeError, ValueError):
                return False, None
        if t == "checkbox":
            return (True, value) if isinstance(value, bool) else (False, None)
        if t == "date":
            return (True, value) if isinstance(value, str) and _DATE.match(value) else (False, None)
        if t == "datetime":
            if isinstance(value, str) and _DATETIME.match(value):
                return True, value if len(value) == 19 else value + ":00"
            return False, None
        if t == "enum":
            if isinstance(value, str) and self.values:
                low = value.strip().lower()
                for allowed in self.values:
                    if allowed.lower() == low:
                        return True, allowed
            return False, None
        return False, None  # pragma: no cover

    def json_schema(self) -> dict[str, Any]:
        t = self.type
        if t in ("list", "links"):
            return {"type": "array", "items": {"type": "string"}}
        if t == "number":
            return {"type": "number"}
        if t == "checkbox":
            return {"type": "boolean"}
        if t == "enum":
            return {"type": "string", "enum": list(self.values or [])}
        if t == "date":
            return {"type": "string", "description": "YYYY-MM-DD"}
        if t == "datetime":
            return {"type": "string", "description": "YYYY-MM-DDTHH:MM:SS"}
        return {"type": "string"}


class TasksSpec(StrictModel):
    """Which of a type's fields its one Obsidian Tasks line shows (``tasks:`` on a type).

    ``statuses`` maps each value of the status field to a checkbox symbol (Tasks' ``[ ]``,
    ``[/]``, ``[x]``, ``[-]``); ``priorities`` maps each value of the priority field to one
    of Tasks' priority names (highest, high, medium, low, lowest). ``completed`` names the
    date field set when the task is done or cancelled; ``recurrence`` the text field that
    holds the 🔁 rule (``every week``, as Tasks writes it).
    """

    title: str | None = None
    due: str | None = "due"
    priority: str | None = "priority"
    status: str | None = "status"
    completed: str | None = "completed"
    recurrence: str | None = None
    statuses: dict[str, str] = Field(
        default_factory=lambda: {"open": " ", "waiting": " ", "done": "x", "cancelled": "-"}
    )
    priorities: dict[str, str] = Field(
        default_factory=lambda: {p: p for p in ("highest", "high", "medium", "low", "lowest")}
    )

    @field_validator("statuses")
    @classmethod
    def _symbols(cls, v: dict[str, str]) -> dict[str, str]:
        for value, symbol in v.items():
            if len(symbol) != 1 or symbol in "[]\n":
                raise ValueError(f"{value!r}: a Tasks status is one checkbox character")
        return v

    @field_validator("priorities")
    @classmethod
    def _priorities(cls, v: dict[str, str]) -> dict[str, str]:
        names = ("highest", "high", "medium", "low", "lowest")
        for value, name in v.items():
            if name not in names:
                raise ValueError(f"{value!r}: a Tasks priority is one of {', '.join(names)}")
        return v
