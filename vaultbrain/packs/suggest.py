"""``schema suggest``: the heuristic proposals of ``vaultbrain/packs/detect.py`` sent to the
configured LLM to refine names, primitives, descriptions and fields; the heuristic ones stand
when the LLM is offline or the provider is ``heuristic``. The result is saved as the proposals
file like ``detect``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from vaultbrain.errors import LLMError
from vaultbrain.packs.candidates import Detection, remember_candidates
from vaultbrain.packs.detect import detect
from vaultbrain.packs.fields import FIELD_TYPES
from vaultbrain.packs.model import PRIMITIVES, ResolvedPack, is_type_name
from vaultbrain.packs.signs import FIELD_KEY, RESERVED_KEYS
from vaultbrain.packs.survey import MIN_NOTES

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

SUGGEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "types": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "folder": {"type": "string"},
                    "name": {"type": "string"},
                    "primitive": {"type": "string", "enum": list(PRIMITIVES)},
                    "description": {"type": "string"},
                    "fileable": {"type": "boolean"},
                    "fields": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "type": {"type": "string", "enum": list(FIELD_TYPES)},
                                "values": {"type": "array", "items": {"type": "string"}},
                            },
                            "required": ["name", "type", "values"],
                            "additionalProperties": False,
                        },
                    },
                },
                "required": ["folder", "name", "primitive", "description", "fileable", "fields"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["types"],
    "additionalProperties": False,
}

_SYSTEM = """You design schema packs for an Obsidian vault: each folder of notes becomes a page \
type with a short lowercase name (a singular noun, hyphens allowed), one primitive (entity: a \
person, company or thing with identity; media: something to read, watch or listen to; \
temporal: tied to a date; annotation: a note about something else; concept: an idea or topic), \
a one-sentence description an assistant can use to decide whether a thought belongs there, and \
the frontmatter fields its notes use, in Obsidian property types (text, list, number, checkbox, \
date, datetime, link, links, enum with values). Name a type in the vault's own language, as its \
folder or notes name it. Answer with JSON only: one entry per folder you were given, with the \
folder exactly as given. Do not reuse an existing type name."""


def suggest(app: PackContext, min_notes: int = MIN_NOTES) -> Detection:
    """``detect``, refined by the configured LLM; the heuristic proposals when it is offline."""
    detection = detect(app, min_notes, save=False)
    open_ = [c for c in detection.candidates if c.action == "new" and c.status != "ignored"]
    if not open_:
        detection.note = (
            "nothing to refine: every folder is typed or already proposed as an extension"
        )
        remember_candidates(app, detection)
        return detection
    if str(app.settings.get("provider")) == "heuristic":
        detection.note = (
            "provider is heuristic, so no LLM was asked; these are the heuristic proposals "
            "of `schema detect`"
        )
        remember_candidates(app, detection)
        return detection
    pack = app.pack
    request = {
        "existing_types": [t.name for t in pack.types],
        "folders": [
            {
                "folder": c.folder,
                "notes": c.notes,
                "sample_titles": c.samples,
                "fields_seen": c.fields,
                "heuristic_name": c.name,
                "heuristic_primitive": c.primitive,
            }
            for c in open_
        ],
    }
    messages = [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": yaml.safe_dump(request, sort_keys=False, allow_unicode=True)},
    ]
    # The brain's own client (the provider is not heuristic, so there is one): packs never
    # import the classify layer, which is built on them.
    client = app.client
    try:
        reply = client.chat_json(messages=messages, schema=SUGGEST_SCHEMA, name="schema_suggest")
    except LLMError as exc:
        detection.note = (
            f"the LLM is unavailable ({exc.kind}: {exc}); these are the heuristic proposals "
            "of `schema detect`"
        )
        remember_candidates(app, detection)
        return detection
    refined = apply_refinements(detection, reply.data, pack)
    detection.source = "llm" if refined else "heuristic"
    detection.note = (
        f"{refined} of {len(open_)} proposals refined by {reply.model}"
        if refined
        else "the LLM's answer matched no proposal; these are the heuristic ones"
    )
    remember_candidates(app, detection)
    return detection


def apply_refinements(detection: Detection, data: Any, pack: ResolvedPack) -> int:
    """Fold the LLM's answer into the proposals; anything that does not fit is ignored."""
    if not isinstance(data, dict) or not isinstance(data.get("types"), list):
        return 0
    by_folder = {c.folder.lower().strip("/"): c for c in detection.candidates if c.action == "new"}
    names = {t.name for t in pack.types} | {a.lower() for t in pack.types for a in t.aliases}
    used = {c.name for c in detection.candidates}
    refined = 0
    for item in data["types"]:
        if not isinstance(item, dict):
            continue
        c = by_folder.get(str(item.get("folder", "")).lower().strip("/"))
        if c is None or c.status == "ignored":
            continue
        name = str(item.get("name", "")).strip().lower().replace(" ", "-")
        # A kind the vault names itself (its `type:` values, a type tag) keeps its name.
        if (
            c.evidence == "folder"
            and is_type_name(name)
            and name not in names
            and (name == c.name or name not in used)
        ):
            used.discard(c.name)
            c.name = name
            used.add(name)
        if item.get("primitive") in PRIMITIVES:
            c.primitive = item["primitive"]
        desc = item.get("description")
        if isinstance(desc, str) and desc.strip():
            c.description = " ".join(desc.split())[:300]
        fields = _llm_fields(item.get("fields"))
        if fields:
            c.fields = {"title": {"type": "text", "required": True}} | fields
        c.source = "llm"
        refined += 1
    return refined


def _llm_fields(raw: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(raw, list):
        return out
    for f in raw:
        if not isinstance(f, dict):
            continue
        key, ftype = str(f.get("name", "")).strip(), f.get("type")
        if not FIELD_KEY.match(key) or key in RESERVED_KEYS or ftype not in FIELD_TYPES:
            continue
        values = [str(v) for v in f.get("values") or [] if str(v).strip()]
        if ftype == "enum":
            if not values:
                ftype = "text"
            else:
                out[key] = {"type": "enum", "values": values[:20]}
                continue
        out[key] = {"type": ftype}
    return out
