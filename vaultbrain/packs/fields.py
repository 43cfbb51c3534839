"""A page type's frontmatter fields, in Obsidian's property types (text, list, number,
checkbox, date, datetime, link, links, enum), and the fields a type's one Obsidian Tasks
line shows, as a pack manifest declares them under ``fields:`` and ``tasks:`` of a page type
(``vaultbrain/packs/model.py``). How a value offered for a field is coerced, and the JSON
schema the classifier fills, are ``FieldRules`` (resolved.py), shared with the resolved pack.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vaultbrain.packs import resolved
from vaultbrain.packs.resolved import FieldRules

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


class StrictModel(BaseModel):
    """A manifest part: unknown keys are refused, so a typo is an error, not ignored."""

    # defer_build: pydantic builds a model's validator when it first validates, not when the
    # class is made: a command that finds its resolved pack in the state dir's cache
    # (packs/loader.py) never validates a manifest and skips that cost at every start.
    model_config = ConfigDict(extra="forbid", defer_build=True)
    __part__ = resolved.Part  # what it is frozen into in a resolved pack (resolved.freeze)


class FieldSpec(StrictModel, FieldRules):
    """One frontmatter property of a page type, in Obsidian's property types."""

    __part__ = resolved.FieldSpec

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
