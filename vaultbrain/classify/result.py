"""What a classifier returns, validated against the active pack, and the confidence bands."""

from __future__ import annotations

import enum
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from vaultbrain.classify.prompt import (
    MAX_DESTINATIONS,
    MAX_REASONING,
    MAX_TITLE,
    bound_schema,
)
from vaultbrain.packs import ResolvedPack
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.typed import title_text

UNKNOWN = "unknown"


class Band(enum.Enum):
    """beets-style strength of a result: act alone, suggest, or ask the person."""

    AUTO = "auto"
    SUGGEST = "suggest"
    REVIEW = "review"


def band_for(confidence: float, auto: float, minimum: float) -> Band:
    if confidence >= auto:
        return Band.AUTO
    if confidence >= minimum:
        return Band.SUGGEST
    return Band.REVIEW


@dataclass(frozen=True)
class Destination:
    type: str
    title: str
    fields: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "title": self.title, "fields": dict(self.fields)}


@dataclass
class Classification:
    destinations: list[Destination]
    confidence: float
    reasoning: str
    classified_by: str
    model: str | None = None
    dropped: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    raw: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    # Set when the embedded classifier decided because the LLM failed: {"kind", "cause"}.
    fallback: dict[str, str] | None = None
    # False when the reply's confidence was no probability ("high", -1, 7): ``confidence`` is
    # then 0.0, and the arbiter lets the other voter judge (classify/arbiter.py).
    confidence_known: bool = True
    # The band the arbiter decided (classify/arbiter.py): kept with the result, so nothing
    # downstream judges it again. None: judge it by its confidence (:func:`judge`).
    band: str | None = None
    # Why the embedded classifier calls the thought noise ("keyboard mash", …), if it does.
    noise: str | None = None
    # Types the classifier read in the thought but could not name (["person"]: "call him
    # back" with no name found). Front ends say so and ask for the name; nothing is invented.
    unnamed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "destinations": [d.to_dict() for d in self.destinations],
            "confidence": self.confidence,
            "reasoning": self.reasoning,
            "classified_by": self.classified_by,
            "model": self.model,
            "dropped": self.dropped,
            "error": self.error,
        }
        if self.fallback:
            out["fallback"] = dict(self.fallback)
        if not self.confidence_known:
            out["confidence_known"] = False
        if self.band:
            out["band"] = self.band
        if self.noise:
            out["noise"] = self.noise
        if self.unnamed:
            out["unnamed"] = list(self.unnamed)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Classification:
        return cls(
            destinations=[
                Destination(x["type"], x["title"], dict(x.get("fields") or {}))
                for x in d.get("destinations", [])
            ],
            confidence=float(d.get("confidence", 0.0)),
            reasoning=str(d.get("reasoning", "")),
            classified_by=str(d.get("classified_by", "")),
            model=d.get("model"),
            dropped=list(d.get("dropped") or []),
            error=d.get("error"),
            fallback=dict(d["fallback"]) if isinstance(d.get("fallback"), dict) else None,
            confidence_known=d.get("confidence_known") is not False,
            band=d["band"] if d.get("band") in ("auto", "suggest", "review") else None,
            noise=str(d["noise"]) if d.get("noise") else None,
            unnamed=[str(t) for t in d.get("unnamed") or []],
        )

    @property
    def fallback_note(self) -> str | None:
        """``embedded classifier: <what happened> — <cause>`` when the fallback decided."""
        return fallback_note(self.fallback)

    @property
    def fileable(self) -> list[Destination]:
        return [d for d in self.destinations if d.type != UNKNOWN]


def _clean_text(value: Any) -> str:
    """A title as a note may hold it (:func:`vaultbrain.vault.typed.title_text`): one line,
    no escapes or control characters, no Tasks or Dataview fields, cut at a word; "" for
    one of only emoji or punctuation (the destination is dropped)."""
    return title_text(value, MAX_TITLE)


def validate_reply(
    data: Any, pack: ResolvedPack, classified_by: str, max_destinations: int = 8
) -> Classification:
    """Turn a parsed reply into a Classification; what does not fit the pack is dropped and noted.

    A type the pack lacks becomes ``unknown``; a field the type lacks, or a value that does not
    fit the field, is dropped. Nothing here raises for a bad reply: the capture goes to review.
    """
    dropped: list[dict[str, Any]] = []
    if not isinstance(data, dict):
        return Classification([], 0.0, "", classified_by, error="the reply is not a JSON object")
    conf_raw = data.get("confidence")
    parsed = parse_confidence(conf_raw)
    if parsed is None:
        dropped.append(
            {"field": "confidence", "value": conf_raw, "why": "not a probability or a percent"}
        )
    confidence = 0.0 if parsed is None else parsed
    reasoning = data.get("reasoning", "")
    reasoning = reasoning if isinstance(reasoning, str) else str(reasoning)
    raw_dests = data.get("destinations", [])
    if isinstance(raw_dests, dict):
        raw_dests = [raw_dests]
    if not isinstance(raw_dests, list):
        return Classification(
            [],
            0.0,
            reasoning[:2000],
            classified_by,
            error="the reply's destinations are not a list",
            dropped=dropped,
        )
    destinations: list[Destination] = []
    fileable = {t.name for t in pack.fileable_types()}
    for item in raw_dests[:max_destinations]:
        if not isinstance(item, dict):
            dropped.append({"value": item, "why": "a destination is not an object"})
            continue
        tname = str(item.get("type") or "").strip().lower()
        title = _clean_text(item.get("title"))
        ptype = pack.get_type(tname)
        if ptype is None or ptype.name not in fileable:
            if tname and tname != UNKNOWN:
                dropped.append({"type": tname, "why": "not a fileable type of the active pack"})
            destinations.append(Destination(UNKNOWN, title, {}))
            continue
        if not title:
            dropped.append({"type": ptype.name, "why": "a destination without a title"})
            continue
        fields: dict[str, Any] = {}
        raw_fields = item.get("fields") or {}
        if not isinstance(raw_fields, dict):
            dropped.append(
                {"type": ptype.name, "value": raw_fields, "why": "fields is not an object"}
            )
            raw_fields = {}
        for fname, value in raw_fields.items():
            spec = ptype.fields.get(fname)
            if spec is None:
                dropped.append(
                    {
                        "type": ptype.name,
                        "field": fname,
                        "value": value,
                        "why": "not a field of the type",
                    }
                )
                continue
            if fname == ptype.title_key:
                continue
            ok, coerced = spec.coerce(value)
            if not ok:
                if value not in (None, "", []):
                    dropped.append(
                        {
                            "type": ptype.name,
                            "field": fname,
                            "value": value,
                            "why": f"does not fit {spec.type}",
                        }
                    )
                continue
            fields[fname] = coerced
        destinations.append(Destination(ptype.name, title, fields))
    return Classification(
        merge_duplicates(destinations, dropped),
        confidence,
        reasoning[:2000],
        classified_by,
        dropped=dropped,
        confidence_known=parsed is not None,
    )


def _title_key(title: str) -> str:
    return " ".join(
        re.sub(r"[^\w\s]", " ", unicodedata.normalize("NFKC", title).casefold()).split()
    )


def merge_duplicates(
    destinations: list[Destination], dropped: list[dict[str, Any]] | None = None
) -> list[Destination]:
    """One destination per type and title (any case, any punctuation): a small model that
    names the same idea three times files one idea. Fields of the repeats fill what the first
    lacks; list fields are joined. Several ``unknown`` entries are one. Each merge is noted in
    ``dropped``."""
    out: list[Destination] = []
    seen: dict[tuple[str, str], Destination] = {}
    for d in destinations:
        key = (d.type, "" if d.type == UNKNOWN else _title_key(d.title))
        first = seen.get(key)
        if first is None:
            seen[key] = first = Destination(d.type, d.title, dict(d.fields))
            out.append(first)
            continue
        for name, value in d.fields.items():
            have = first.fields.get(name)
            if have in (None, "", []):
                first.fields[name] = value
            elif isinstance(have, list) and isinstance(value, list):
                first.fields[name] = have + [v for v in value if v not in have]
        if dropped is not None:
            dropped.append({"type": d.type, "title": d.title, "why": "the same destination twice"})
    return out


_PERCENT = LazyPattern(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


def parse_confidence(value: Any) -> float | None:
    """A reply's confidence as a probability, or ``None`` when it is none.

    A probability (0.85, "0.85") is itself; a percent is read as a percent ("55%", and a
    number above 10 up to 100: 55 → 0.55). Anything else says nothing about certainty: 7 (out
    of ten? a percent?), -1, 140, "high", true, NaN, a missing value. Those are not read as
    0 or as 1: the caller treats the confidence as unknown.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        m = _PERCENT.match(value)
        if m:
            pct = float(m.group(1))
            return pct / 100 if 0 <= pct <= 100 else None
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, int | float) or value != value or value in (INF, -INF):
        return None
    number = float(value)
    if 0.0 <= number <= 1.0:
        return number
    if 10.0 < number <= 100.0:
        return number / 100
    return None


INF = float("inf")


def reply_schema(pack: ResolvedPack) -> dict[str, Any]:
    """The JSON schema sent as ``response_format``: one variant per fileable type, every list
    and string bounded (see :func:`vaultbrain.classify.prompt.bound_schema`)."""
    variants: list[dict[str, Any]] = []
    for t in pack.fileable_types():
        props = {name: spec.json_schema() for name, spec in t.fields.items() if name != t.title_key}
        variants.append(
            {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": [t.name]},
                    "title": {"type": "string", "maxLength": MAX_TITLE},
                    "fields": {
                        "type": "object",
                        "properties": props,
                        "additionalProperties": False,
                    },
                },
                "required": ["type", "title", "fields"],
                "additionalProperties": False,
            }
        )
    variants.append(
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": [UNKNOWN]},
                "title": {"type": "string", "maxLength": MAX_TITLE},
                "fields": {"type": "object", "properties": {}, "additionalProperties": False},
            },
            "required": ["type", "title", "fields"],
            "additionalProperties": False,
        }
    )
    return bound_schema(
        {
            "type": "object",
            "properties": {
                "destinations": {
                    "type": "array",
                    "items": {"anyOf": variants},
                    "minItems": 1,
                    "maxItems": MAX_DESTINATIONS,
                },
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "reasoning": {"type": "string", "maxLength": MAX_REASONING},
            },
            "required": ["destinations", "confidence", "reasoning"],
            "additionalProperties": False,
        }
    )


# What a person reads when the embedded classifier decided, by the LLM failure's kind.
FALLBACK_HEADLINES = {
    "unreachable": "the LLM server is not running",
    "reset": "the connection to the LLM server broke",
    "timeout": "the LLM server was too slow",
    "server": "the LLM server failed",
    "rate_limited": "the LLM server was busy",
    "no_models": "the LLM server has no model loaded",
    "unknown_model": "the LLM server does not have the model",
    "format_rejected": "the LLM server refused the request",
    "invalid_request": "the LLM server refused the request",
    "context_exceeded": "the LLM server refused the request",
    "length": "the model's answer was cut off",
    "invalid_json": "the model's answer was not JSON",
    "wrong_model": "another model answered",
    "cancelled": "the request was cancelled",
}


def fallback_note(fallback: dict[str, str] | None) -> str | None:
    if not fallback:
        return None
    kind = str(fallback.get("kind") or "error")
    headline = FALLBACK_HEADLINES.get(kind, "the LLM failed")
    cause = str(fallback.get("cause") or "").strip()
    return f"embedded classifier: {headline}" + (f" — {cause}" if cause else "")


def judge(result: Classification, auto: float, minimum: float, at_most: Band | None = None) -> Band:
    """The one judgement of a classification (beets' recommendation): file it alone, file it
    as a suggestion, or ask the person. Nothing fileable, or a failed call with nothing to
    show, is always a question for the person, whatever the confidence says. A result the
    arbiter decided carries its band. ``at_most``: a band the result may not go above."""
    if not result.fileable or (result.error and not result.destinations):
        return Band.REVIEW
    if result.band:  # decided by the arbiter, with more than this confidence to go by
        band = Band(result.band)
    else:
        band = band_for(result.confidence, auto, minimum)
    order = [Band.REVIEW, Band.SUGGEST, Band.AUTO]
    if at_most is not None and order.index(band) > order.index(at_most):
        return at_most
    return band
