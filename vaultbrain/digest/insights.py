"""The LLM part of a digest or review: a short summary and a few pointers, validated.

The facts are already in the note; the model only reads them (as plain text built here) and
answers with a small JSON object. The answer is checked with pydantic and trimmed to what a
note can show; anything that does not fit, and any failure of the server, makes the summary
"unavailable" with the reason, never a failed digest.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vaultbrain.errors import LLMError, UserError
from vaultbrain.resources import data_dir

from .facts import DailyFacts, WeeklyFacts

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

DAILY_TEMPLATE = "brain-daily-digest.md"
WEEKLY_TEMPLATE = "brain-weekly-review.md"
_VAR = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
MAX_TEXT = 600
MAX_SUMMARY = 1500
MAX_FACT_LINES = 25


def _one_line(value: Any, limit: int) -> str:
    """Model text as a single safe line: no newlines to break the note, capped in length."""
    text = re.sub(r"\s+", " ", str(value or "")).strip()
    text = text.lstrip("#>-*|").strip()  # never a heading, quote or list marker of its own
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    summary: str = Field(min_length=1)

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, v: Any) -> str:
        if not isinstance(v, str):
            raise ValueError("summary must be text")
        return _one_line(v, MAX_SUMMARY)


def _three(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list):
        raise ValueError("must be a list of short texts")
    items = [_one_line(x, MAX_TEXT) for x in v if isinstance(x, str | int | float)]
    return [x for x in items if x][:3]


class DigestInsights(_Answer):
    """What the daily digest asks the model for."""

    top_actions: list[str] = Field(default_factory=list)
    stuck: str = ""
    small_win: str = ""

    @field_validator("top_actions", mode="before")
    @classmethod
    def _top(cls, v: Any) -> list[str]:
        return _three(v)

    @field_validator("stuck", "small_win", mode="before")
    @classmethod
    def _line(cls, v: Any) -> str:
        return _one_line(v, MAX_TEXT) if isinstance(v, str | int | float) else ""


class ReviewInsights(_Answer):
    """What the weekly review asks the model for."""

    wins: list[str] = Field(default_factory=list)
    focus: list[str] = Field(default_factory=list)
    let_go: str = ""

    @field_validator("wins", "focus", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> list[str]:
        return _three(v)

    @field_validator("let_go", mode="before")
    @classmethod
    def _line(cls, v: Any) -> str:
        return _one_line(v, MAX_TEXT) if isinstance(v, str | int | float) else ""


def _schema(props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


_LIST3 = {"type": "array", "items": {"type": "string"}, "maxItems": 3}
_SUMMARY = {"type": "string", "maxLength": 700}  # a few sentences; the note caps it again
DIGEST_SCHEMA = _schema(
    {
        "summary": _SUMMARY,
        "top_actions": _LIST3,
        "stuck": {"type": "string"},
        "small_win": {"type": "string"},
    }
)
REVIEW_SCHEMA = _schema(
    {
        "summary": _SUMMARY,
        "wins": _LIST3,
        "focus": _LIST3,
        "let_go": {"type": "string"},
    }
)


@dataclass
class Insights:
    """The model's answer, or why there is none."""

    data: DigestInsights | ReviewInsights | None
    reason: str | None = None  # one short line the note may show, never the server's raw text
    kind: str | None = None
    model: str | None = None
    elapsed_ms: float | None = None
    template_hash: str | None = None
    detail: str | None = None  # the server's full answer, for the history and audit trail

    @property
    def available(self) -> bool:
        return self.data is not None

    def as_json(self) -> dict[str, Any]:
        return {
            "status": "ok" if self.available else "unavailable",
            "reason": self.reason,
            "kind": self.kind,
            "detail": self.detail,
            "model": self.model,
            "elapsed_ms": round(self.elapsed_ms, 1) if self.elapsed_ms is not None else None,
            "template": self.template_hash,
            "answer": self.data.model_dump() if self.data is not None else None,
        }


# -- templates ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    name: str
    text: str

    @property
    def variables(self) -> set[str]:
        return set(_VAR.findall(self.text))

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]

    def fill(self, values: dict[str, str]) -> str:
        missing = self.variables - set(values)
        if missing:
            raise UserError(
                f"prompt template {self.name} uses unknown variables: {', '.join(sorted(missing))}"
            )
        return _VAR.sub(lambda m: values[m.group(1)], self.text)


def load_template(name: str, folder: Path | None = None) -> Template:
    path = (folder or data_dir("prompts")) / name
    try:
        return Template(name, path.read_text("utf-8"))
    except FileNotFoundError as exc:
        raise UserError(f"the prompt template {path} is missing; reinstall vaultbrain") from exc


# -- facts as prompt text -----------------------------------------------------------------------


def _section(title: str, lines: list[str]) -> str:
    if not lines:
        return f"{title}: none"
    shown = lines[:MAX_FACT_LINES]
    more = f"\n- … and {len(lines) - len(shown)} more" if len(lines) > len(shown) else ""
    return f"{title} ({len(lines)}):\n" + "\n".join(f"- {x}" for x in shown) + more


def _item_line(title: str, note: str) -> str:
    return f"{title}" + (f" — {note}" if note else "")


def daily_facts_text(facts: DailyFacts) -> str:
    caps = []
    for c in facts.captures:
        dest = ", ".join(f"{r.type} {r.title}" for r in c.destinations)
        caps.append(f'"{_one_line(c.text, 300)}" ({c.status}' + (f" → {dest})" if dest else ")"))
    parts = [
        _section("Thoughts captured", caps),
        _section(
            "Actions taken", [_item_line(f"{a.verb}: {a.ref.title}", a.note) for a in facts.actions]
        ),
        _section(
            "Projects with recent activity",
            [_item_line(i.ref.title, i.note) for i in facts.projects],
        ),
        _section("People interacted with", [_item_line(i.ref.title, i.note) for i in facts.people]),
        _section("Admin overdue", [_item_line(i.ref.title, i.note) for i in facts.admin_overdue]),
        _section(
            "Admin due within 7 days", [_item_line(i.ref.title, i.note) for i in facts.admin_due]
        ),
        _section(
            "Ideas ready for next steps",
            [_item_line(i.ref.title, i.note) for i in facts.ideas_ready],
        ),
        f"Thoughts waiting for review: {facts.needs_review}",
    ]
    return "\n\n".join(parts)


def weekly_facts_text(facts: WeeklyFacts) -> str:
    parts = []
    for loops in facts.open_loops:
        parts.append(
            _section(
                f"Open loops in {loops.label}",
                [_item_line(i.ref.title, _plain(i.note)) for i in loops.items],
            )
        )
    if not facts.open_loops:
        parts.append("Open loops: none")
    parts += [
        _section(
            "Accomplishments",
            [_item_line(f"{a.verb}: {a.ref.title}", a.note) for a in facts.accomplishments],
        ),
        f"Thoughts captured this week: {facts.captures}",
        _section(
            "Projects to review",
            [_item_line(i.ref.title, i.note) for i in facts.projects_to_review],
        ),
        _section(
            "People to follow up",
            [_item_line(i.ref.title, _plain(i.note)) for i in facts.people_to_follow_up],
        ),
        _section(
            "Ideas to explore", [_item_line(i.ref.title, i.note) for i in facts.ideas_to_explore]
        ),
        _section(
            "Admin to address", [_item_line(i.ref.title, i.note) for i in facts.admin_to_address]
        ),
        f"Thoughts waiting for review: {facts.needs_review}",
    ]
    return "\n\n".join(parts)


def _plain(text: str) -> str:
    """Wikilinks as their alias, for the model."""
    return re.sub(r"\[\[[^\]|]*\|([^\]]*)\]\]", r"\1", re.sub(r"\[\[([^\]|]*)\]\]", r"\1", text))


# -- asking -------------------------------------------------------------------------------------


def complete_fields(text: str) -> dict[str, Any]:
    """The key-value pairs of a JSON object cut off part way (a model stopped at its token
    limit) that are whole: ``{"summary": "A quiet day.", "top_actions": ["Call`` gives
    ``{"summary": "A quiet day."}``. Empty when not even the first pair is whole."""
    decoder = json.JSONDecoder()
    at = text.find("{")
    out: dict[str, Any] = {}
    if at < 0:
        return out
    at += 1
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        try:
            key, at = decoder.raw_decode(text, at)
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
            if not isinstance(key, str) or text[at : at + 1] != ":":
                return out
            at += 1
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
            value, at = decoder.raw_decode(text, at)
        except (ValueError, IndexError):
            return out
        out[key] = value


def _client(app: Brain, purpose: str) -> Any:
    from vaultbrain.classify.llm import LLMClient

    return LLMClient.from_settings(app.settings, app.state_dir, purpose)


def _ask(
    app: Brain,
    template: Template,
    values: dict[str, str],
    facts_text: str,
    schema: dict[str, Any],
    model_cls: type[DigestInsights] | type[ReviewInsights],
    name: str,
) -> Insights:
    if str(app.settings.get("provider")) == "heuristic":
        return Insights(
            None,
            "the provider is set to heuristic (no LLM)",
            "disabled",
            template_hash=template.hash,
        )
    messages = [
        {"role": "system", "content": template.fill(values)},
        {"role": "user", "content": facts_text},
    ]
    client = _client(app, "digest" if name == "daily_digest" else "review")
    try:
        try:
            reply = client.chat_json(messages=messages, schema=schema, name=name)
        except LLMError as exc:
            if exc.kind not in ("invalid_json", "length"):
                raise
            # A small model's answer that is not JSON, or that ran on past the token limit (a
            # list repeated until cut off), is often a one-off: asked once more, a little less
            # cautiously, before the digest goes without its summary.
            reply = client.chat_json(messages=messages, schema=schema, name=name, temperature=0.6)
    except LLMError as exc:
        kept = complete_fields(exc.partial) if exc.kind == "length" and exc.partial else {}
        if kept.get("summary"):
            # Cut off again, but after a whole summary (the runaway is a list after it): the
            # fields the model finished are used, the one it was cut off in is left out.
            try:
                data = model_cls.model_validate(kept)
            except ValidationError:
                data = None
            if data is not None:
                return Insights(data, model=client.pick_model(), template_hash=template.hash)
        app.store.audit(
            {
                "at": app.now().isoformat(),
                "kind": "llm_error",
                "for": name,
                "error_kind": exc.kind,
                "error": str(exc),
            }
        )
        return Insights(None, exc.cause, exc.kind, template_hash=template.hash, detail=str(exc))
    finally:
        close = getattr(client, "close", None)
        if close is not None:
            close()
    try:
        data = model_cls.model_validate(reply.data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "answer"
        return Insights(
            None,
            f"the model's answer did not fit ({where}: {first.get('msg')})",
            "invalid_answer",
            model=reply.model,
            elapsed_ms=reply.elapsed_ms,
            template_hash=template.hash,
        )
    return Insights(
        data, model=reply.model, elapsed_ms=reply.elapsed_ms, template_hash=template.hash
    )


def ask_daily(app: Brain, facts: DailyFacts) -> Insights:
    template = load_template(DAILY_TEMPLATE)
    values = {
        "date": facts.day.isoformat(),
        "weekday": facts.day.strftime("%A"),
    }
    text = daily_facts_text(facts)
    return _ask(app, template, values, text, DIGEST_SCHEMA, DigestInsights, "daily_digest")


def ask_weekly(app: Brain, facts: WeeklyFacts) -> Insights:
    template = load_template(WEEKLY_TEMPLATE)
    values = {
        "week": facts.week,
        "start": facts.start.isoformat(),
        "end": facts.day.isoformat(),
        "weekday": facts.day.strftime("%A"),
    }
    text = weekly_facts_text(facts)
    return _ask(app, template, values, text, REVIEW_SCHEMA, ReviewInsights, "weekly_review")
