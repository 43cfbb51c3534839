"""The classifier prompt: a template file with named ``{{variables}}``, filled from the pack,
and the bounds every JSON schema sent to a model carries.

The prompt carries only the existing records whose names or aliases occur in the thought and
at most a few past corrections, so its size does not grow with the vault. :func:`bound_schema`
caps every list and string of a schema (``maxItems``/``maxLength``): a small model held to a
grammar otherwise repeats list items until the context ends.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from vaultbrain.packs import ResolvedPack
from vaultbrain.patterns import LazyPattern
from vaultbrain.resources import data_dir

CLASSIFIER_TEMPLATE = "brain-classifier.md"
_VAR = LazyPattern(r"\{\{\s*([a-z_]+)\s*\}\}")
MAX_KNOWN = 12
MAX_THOUGHT_CHARS = 10_000
# Bounds of generated schemas: lists of a handful, strings of a sentence or two.
# Measured against llama-server with SmolLM2-135M: at 240 characters a field string fills
# with invented URLs and one answer in three overran 400 tokens.
MAX_ITEMS = 4
MAX_STRING = 120
MAX_TITLE = 120
MAX_DESTINATIONS = 4
MAX_REASONING = 160
# The client's safety net for any other schema (digest, schema suggest): looser, never absent.
NET_ITEMS = 16
NET_STRING = 1000


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str
    template: str
    template_hash: str

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@lru_cache(maxsize=16)
def _load_template(path: str, mtime: int) -> tuple[str, str]:
    text = Path(path).read_text("utf-8")
    return text, hashlib.sha256(text.encode()).hexdigest()[:12]


def load_template(name: str) -> tuple[str, str]:
    """(template text, short hash) of a prompt template in ``prompts/``."""
    path = data_dir("prompts") / name
    return _load_template(str(path), path.stat().st_mtime_ns)


def fill(template: str, values: dict[str, str]) -> str:
    return _VAR.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def describe_types(pack: ResolvedPack) -> str:
    lines = []
    for t in pack.fileable_types():
        fields = []
        for name, spec in t.fields.items():
            if name == t.title_key:
                continue
            kind = spec.type
            if spec.type == "enum" and spec.values:
                kind = " | ".join(spec.values)
            fields.append(f"{name} ({kind})")
        desc = (t.description or "").strip().replace("\n", " ")
        lines.append(f"- `{t.name}`: {desc} Fields: {', '.join(fields) or 'none'}.")
    return "\n".join(lines)


def build_prompt(
    pack: ResolvedPack,
    thought: str,
    today: dt.date,
    known: list[dict[str, Any]] | None = None,
    examples: list[dict[str, Any]] | None = None,
) -> Prompt:
    template, digest = load_template(CLASSIFIER_TEMPLATE)
    known_lines = [
        f"- {k['type']}: {k['title']}"
        + (f" (aliases: {', '.join(k['aliases'])})" if k.get("aliases") else "")
        for k in (known or [])[:MAX_KNOWN]
    ]
    example_lines = [
        f'- "{_clip(e["text"], 200)}" was filed as {e.get("from") or "unknown"}; '
        f"the person corrected it to {e['to']}"
        for e in (examples or [])
    ]
    system = fill(
        template,
        {
            "today": today.isoformat(),
            "weekday": today.strftime("%A"),
            "types": describe_types(pack),
            "known_records": "\n".join(known_lines) or "- (none)",
            "examples": "\n".join(example_lines) or "- (none)",
        },
    )
    user = "Thought:\n" + json.dumps(_clip(thought, MAX_THOUGHT_CHARS), ensure_ascii=False)
    return Prompt(system, user, CLASSIFIER_TEMPLATE, digest)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def bound_schema(
    schema: dict[str, Any], max_items: int = MAX_ITEMS, max_length: int = MAX_STRING
) -> dict[str, Any]:
    """A copy of ``schema`` where every array has ``maxItems`` and every free string
    ``maxLength`` (bounds already there are kept; enums need none)."""
    if not isinstance(schema, dict):
        return schema

    def inner(node: Any) -> Any:
        return bound_schema(node, max_items, max_length)

    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {k: inner(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = inner(value)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [inner(v) for v in value]
        else:
            out[key] = value
    kinds = out.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if "array" in kinds:
        out.setdefault("maxItems", max_items)
    if "string" in kinds and "enum" not in out and "const" not in out:
        out.setdefault("maxLength", max_length)
    return out
