"""Proposing types that match the vault's shape: detect, suggest, review-candidates.

``detect`` clusters the folders whose notes the active pack leaves untyped (at least
``min_notes`` notes a folder; a folder holding two or more such subfolders is split into
them) and proposes a type per cluster: a name from the folder, a primitive from its name,
note names and properties, and fields from the frontmatter most of its notes share. A
folder whose proposed name is already a type or alias of the pack becomes a proposal to
add the folder to that type. ``suggest`` sends the proposals to the configured LLM to refine
names, primitives, descriptions and fields, and falls back to the heuristic ones when the
LLM is offline. Proposals are kept in ``<state>/schema-candidates.json``;
``review-candidates --apply`` turns accepted ones into a pack *delta* (a child pack of the
active pack in ``<state>/schema-deltas/<name>/pack.yaml``), which the person installs and
uses explicitly: no pack is ever edited behind their back.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from vaultbrain.errors import LLMError, UserError
from vaultbrain.packs.lint import LintReport, chain_layers, lint_pack
from vaultbrain.packs.loader import find_pack, installed_dir, load_pack_path
from vaultbrain.packs.model import FIELD_TYPES, PRIMITIVES, PackError, ResolvedPack
from vaultbrain.packs.survey import NoteTyping, _typer_and_scope, survey_vault
from vaultbrain.vault.files import atomic_write_file

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

CANDIDATES = "schema-candidates.json"
DELTAS = "schema-deltas"
MIN_NOTES = 5
_CORE_KEYS = {
    "type",
    "id",
    "created",
    "updated",
    "source",
    "confidence",
    "classified_by",
    "confirmed",
    "aliases",
    "cssclasses",
    "cssclass",
    "publish",
    "position",
    "title",
}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
_LINK = re.compile(r"^\[\[[^\]]+\]\]$")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_ -]{0,63}$")
_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
_KEYWORDS: dict[str, tuple[str, ...]] = {
    "entity": (
        "people",
        "person",
        "contact",
        "compan",
        "org",
        "client",
        "customer",
        "place",
        "team",
        "author",
        "vendor",
        "investor",
    ),
    "temporal": (
        "daily",
        "journal",
        "meeting",
        "event",
        "calendar",
        "log",
        "trip",
        "weekly",
        "monthly",
        "standup",
        "diary",
    ),
    "media": (
        "reading",
        "book",
        "article",
        "source",
        "clipping",
        "paper",
        "podcast",
        "video",
        "movie",
        "film",
        "music",
        "readwise",
        "web",
        "bookmark",
        "course",
    ),
    "annotation": ("review", "comment", "annotation", "highlight", "feedback"),
    "concept": (
        "idea",
        "concept",
        "topic",
        "note",
        "zettel",
        "wiki",
        "knowledge",
        "moc",
        "area",
        "resource",
    ),
}


@dataclass
class Candidate:
    folder: str
    notes: int
    name: str
    primitive: str
    fields: dict[str, dict[str, Any]]
    description: str
    samples: list[str] = field(default_factory=list)
    frontmatter_types: dict[str, int] = field(default_factory=dict)
    action: str = "new"  # new: a type of its own | extend: add the folder to `extends_type`
    extends_type: str | None = None
    status: str = "proposed"  # proposed | ignored | applied
    source: str = "heuristic"  # heuristic | llm
    reason: str = ""

    @property
    def prefix(self) -> str:
        return self.folder.strip("/") + "/"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"prefix": self.prefix}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        keys = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in keys})


@dataclass
class Detection:
    pack: str
    total: int
    untyped: int
    candidates: list[Candidate]
    source: str = "heuristic"
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "total": self.total,
            "untyped": self.untyped,
            "source": self.source,
            "note": self.note,
            "candidates": [c.as_dict() for c in self.candidates],
        }


# -- detect --------------------------------------------------------------------------------


def detect(app: Brain, min_notes: int = MIN_NOTES, save: bool = True) -> Detection:
    """Propose types for the vault's untyped folders (and remember them for review)."""
    if min_notes < 1:
        raise UserError("--min-notes must be at least 1")
    vault, typer, exclude, skip, identity = _typer_and_scope(app)
    survey = survey_vault(vault, typer, exclude, skip, with_data=True)
    in_scope = survey.in_scope()
    untyped = [n for n in in_scope if n.type is None]
    pack = app.pack
    candidates = cluster(untyped, pack, min_notes)
    detection = Detection(identity, len(in_scope), len(untyped), candidates)
    if save:
        _remember(app, detection)
    return detection


def cluster(notes: list[NoteTyping], pack: ResolvedPack, min_notes: int) -> list[Candidate]:
    """Candidates for ``notes`` (untyped, in folders), deepest folders first."""
    below: dict[str, list[NoteTyping]] = {}
    display: dict[str, str] = {}
    for n in notes:
        parts = n.folder.split("/")
        for depth in range(1, len(parts) + 1):
            key = "/".join(parts[:depth])
            below.setdefault(key.lower(), []).append(n)
            display.setdefault(key.lower(), key)
    out: list[Candidate] = []
    taken = {t.name for t in pack.types}

    def children(key: str) -> list[str]:
        depth = key.count("/") + 1
        return sorted(
            k
            for k in below
            if k.startswith(key + "/") and k.count("/") == depth and len(below[k]) >= min_notes
        )

    def visit(key: str, level: int) -> None:
        subs = children(key) if level < 3 else []
        if len(subs) >= 2:
            inside: set[str] = set()
            for sub in subs:
                visit(sub, level + 1)
                inside.update(n.rel for n in below[sub])
            rest = [n for n in below[key] if n.rel not in inside]
            if len(rest) >= min_notes:
                out.append(_propose(display[key], rest, pack, taken))
        else:
            out.append(_propose(display[key], below[key], pack, taken))

    for top in sorted(k for k in below if "/" not in k and len(below[k]) >= min_notes):
        visit(top, 1)
    out.sort(key=lambda c: (-c.folder.count("/"), c.folder.lower()))
    return out


def slug_for(folder: str) -> str:
    """A type name for a folder: its last part, lowercased, hyphenated, singular."""
    last = folder.strip("/").split("/")[-1]
    words = [w for w in re.split(r"[^a-z0-9]+", last.lower()) if w]
    if not words:
        return "note"
    words[-1] = _singular(words[-1])
    name = "-".join(words)
    if not name[0].isalpha():
        name = "t-" + name
    return name[:64]


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _propose(
    folder: str, notes: list[NoteTyping], pack: ResolvedPack, taken: set[str]
) -> Candidate:
    name = slug_for(folder)
    fields = infer_fields(notes)
    primitive, why = guess_primitive(folder, notes, fields)
    existing = pack.get_type(name)
    action, extends_type = "new", None
    if existing is not None:
        action, extends_type = "extend", existing.name
        reason = f"{name!r} is already {existing.name!r} in the pack: add {folder}/ to it"
    else:
        base, n = name, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        reason = why
    declared = Counter(n.declared for n in notes if n.declared)
    return Candidate(
        folder=folder,
        notes=len(notes),
        name=extends_type or name,
        primitive=existing.primitive if existing is not None else primitive,
        fields=fields,
        description=f"Notes in {folder}/ ({len(notes)} found by `schema detect`).",
        samples=[n.title for n in notes[:5]],
        frontmatter_types=dict(declared),
        action=action,
        extends_type=extends_type,
        reason=reason,
    )


def guess_primitive(
    folder: str, notes: list[NoteTyping], fields: dict[str, Any]
) -> tuple[str, str]:
    dated = sum(1 for n in notes if _DATE_NAME.match(n.title))
    if notes and dated / len(notes) >= 0.6:
        return "temporal", f"{dated} of {len(notes)} notes are named by date"
    low = folder.lower()
    for primitive, words in _KEYWORDS.items():
        for word in words:
            if word in low:
                return primitive, f"the folder name suggests {primitive} ({word!r})"
    keys = set(fields)
    if keys & {"url", "author", "isbn", "link"}:
        return "media", "its notes carry url/author properties"
    if keys & {"date", "start", "due", "when"}:
        return "temporal", "its notes carry dates"
    return "concept", "no stronger signal; concept is the neutral choice"


def infer_fields(notes: list[NoteTyping], share: float = 0.5) -> dict[str, dict[str, Any]]:
    """Fields from the frontmatter keys at least ``share`` of the notes have, typed by value."""
    values: dict[str, list[Any]] = {}
    for n in notes:
        for key, value in n.data.items():
            if isinstance(key, str) and key not in _CORE_KEYS and _KEY.match(key):
                values.setdefault(key, []).append(value)
    out: dict[str, dict[str, Any]] = {"title": {"type": "text", "required": True}}
    need = max(1, int(len(notes) * share + 0.999))
    for key in sorted(values, key=lambda k: (-len(values[k]), k)):
        if len(values[key]) >= need:
            out[key] = _field_type(values[key])
    return out


def _field_type(vals: list[Any]) -> dict[str, Any]:
    present = [v for v in vals if v is not None and v != ""]
    if not present:
        return {"type": "text"}
    if all(isinstance(v, bool) for v in present):
        return {"type": "checkbox"}
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return {"type": "number"}
    if all(
        isinstance(v, dt.datetime) or (isinstance(v, str) and _DATETIME.match(v)) for v in present
    ):
        return {"type": "datetime"}
    if all(isinstance(v, dt.date) or (isinstance(v, str) and _DATE.match(v)) for v in present):
        return {"type": "date"}
    if all(isinstance(v, list) for v in present):
        items = [i for v in present for i in v]
        if items and all(isinstance(i, str) and _LINK.match(i.strip()) for i in items):
            return {"type": "links"}
        return {"type": "list"}
    if all(isinstance(v, str) for v in present):
        if all(_LINK.match(v.strip()) for v in present):
            return {"type": "link"}
        distinct = sorted({v.strip() for v in present})
        if (
            1 < len(distinct) <= 6
            and len(present) >= 2 * len(distinct)
            and all(len(v) <= 30 for v in distinct)
        ):
            return {"type": "enum", "values": distinct}
    return {"type": "text"}


# -- the candidates file -------------------------------------------------------------------


def load_candidates(app: Brain) -> Detection | None:
    doc = app.store.read_json(CANDIDATES, None)
    if not isinstance(doc, dict) or not isinstance(doc.get("candidates"), list):
        return None
    return Detection(
        str(doc.get("pack", "")),
        int(doc.get("total", 0)),
        int(doc.get("untyped", 0)),
        [Candidate.from_dict(c) for c in doc["candidates"] if isinstance(c, dict)],
        str(doc.get("source", "heuristic")),
        doc.get("note"),
    )


def _remember(app: Brain, detection: Detection) -> None:
    """Save proposals, keeping the person's decisions (ignore, rename, apply) per folder."""
    previous = load_candidates(app)
    if previous is not None:
        before = {c.folder.lower(): c for c in previous.candidates}
        for c in detection.candidates:
            old = before.get(c.folder.lower())
            if old is None:
                continue
            if old.status in ("ignored", "applied"):
                c.status = old.status
            if old.reason.startswith("renamed"):
                c.name, c.reason, c.action, c.extends_type = old.name, old.reason, "new", None
    save_candidates(app, detection)


def save_candidates(app: Brain, detection: Detection) -> None:
    doc = detection.as_dict() | {"generated": app.now().isoformat(timespec="seconds")}
    for c in doc["candidates"]:
        c.pop("prefix", None)
    app.store.write_json(CANDIDATES, doc)


# -- suggest -------------------------------------------------------------------------------

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
date, datetime, link, links, enum with values). Answer with JSON only: one entry per folder you \
were given, with the folder exactly as given. Do not reuse an existing type name."""


def suggest(app: Brain, min_notes: int = MIN_NOTES) -> Detection:
    """``detect``, refined by the configured LLM; the heuristic proposals when it is offline."""
    detection = detect(app, min_notes, save=False)
    open_ = [c for c in detection.candidates if c.action == "new" and c.status != "ignored"]
    if not open_:
        detection.note = (
            "nothing to refine: every folder is typed or already proposed as an extension"
        )
        _remember(app, detection)
        return detection
    if str(app.settings.get("provider")) == "heuristic":
        detection.note = (
            "provider is heuristic, so no LLM was asked; these are the heuristic proposals "
            "of `schema detect`"
        )
        _remember(app, detection)
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
        _remember(app, detection)
        return detection
    refined = apply_refinements(detection, reply.data, pack)
    detection.source = "llm" if refined else "heuristic"
    detection.note = (
        f"{refined} of {len(open_)} proposals refined by {reply.model}"
        if refined
        else "the LLM's answer matched no proposal; these are the heuristic ones"
    )
    _remember(app, detection)
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
        if _TYPE_NAME.match(name) and name not in names and (name == c.name or name not in used):
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
        if not _KEY.match(key) or key in _CORE_KEYS or ftype not in FIELD_TYPES:
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


# -- review-candidates ---------------------------------------------------------------------


@dataclass
class Delta:
    path: Path
    name: str
    extends: str
    added: list[str]
    extended: list[str]
    lint: LintReport
    replaces_installed: bool

    @property
    def install_hint(self) -> str:
        force = " --force" if self.replaces_installed else ""
        return (
            f"review {self.path}, then `vaultbrain schema install {self.path.parent}{force}` and "
            f"`vaultbrain schema use {self.name}`"
        )


@dataclass
class Review:
    detection: Detection
    delta: Delta | None = None
    changed: list[str] = field(default_factory=list)


def _find(detection: Detection, folder: str) -> Candidate:
    want = folder.replace("\\", "/").strip().strip("/").lower()
    for c in detection.candidates:
        if c.folder.lower() == want:
            return c
    known = ", ".join(c.prefix for c in detection.candidates) or "none"
    raise UserError(
        f"no candidate for {folder!r} (candidates: {known}); run `vaultbrain schema detect`"
    )


def review_candidates(
    app: Brain,
    apply: Iterable[str] = (),
    rename: Iterable[tuple[str, str]] = (),
    ignore: Iterable[str] = (),
) -> Review:
    """List the proposals; rename / ignore some; turn ``apply`` ones into a pack delta."""
    detection = load_candidates(app) or detect(app)
    review = Review(detection)
    pack = app.pack
    names = {t.name for t in pack.types} | {a.lower() for t in pack.types for a in t.aliases}
    for folder, new_name in rename:
        c = _find(detection, folder)
        new_name = new_name.strip().lower()
        if not _TYPE_NAME.match(new_name):
            raise UserError(f"{new_name!r} is not a type name; use a lowercase slug")
        if new_name in names:
            raise UserError(f"{new_name!r} is already a type or alias of {pack.name}")
        c.name, c.action, c.extends_type = new_name, "new", None
        c.reason = f"renamed to {new_name}"
        review.changed.append(f"{c.prefix} renamed to {new_name}")
    for folder in ignore:
        c = _find(detection, folder)
        c.status = "ignored"
        review.changed.append(f"{c.prefix} ignored")
    accepted = []
    for folder in apply:
        c = _find(detection, folder)
        if c.status == "ignored":
            raise UserError(f"{c.prefix} is ignored; rename or re-detect it before applying")
        accepted.append(c)
    if accepted:
        review.delta = write_delta(app, pack, accepted)
        for c in accepted:
            c.status = "applied"
            review.changed.append(f"{c.prefix} applied to {review.delta.name}")
    save_candidates(app, detection)
    return review


def delta_name(pack: ResolvedPack) -> str:
    return pack.name if pack.name.endswith("-local") else f"{pack.name[:56]}-local"


def write_delta(app: Brain, pack: ResolvedPack, accepted: list[Candidate]) -> Delta:
    """A child pack of ``pack`` declaring ``accepted``, written to the state dir."""
    name = delta_name(pack)
    installed = find_pack(name)
    replaces = installed is not None and installed.parent.parent == installed_dir()
    if name == pack.name and pack.source:
        # The active pack is an earlier delta: build on its own declarations.
        data = yaml.safe_load(Path(pack.source).read_text("utf-8"))
        data["version"] = _bump(str(data.get("version", "0.1.0")))
    else:
        data = {
            "api_version": "vaultbrain-schema-pack-v1",
            "name": name,
            "version": "0.1.0",
            "extends": pack.name,
            "description": f"Types accepted with `vaultbrain schema review-candidates` on top of {pack.name}.\n",
            "page_types": [],
        }
    types: list[dict[str, Any]] = list(data.get("page_types") or [])
    index = {t.get("name"): i for i, t in enumerate(types)}
    added, extended = [], []
    for c in accepted:
        if c.action == "extend" and c.extends_type:
            if c.extends_type in index:
                entry = types[index[c.extends_type]]
            else:
                current = pack.get_type(c.extends_type)
                assert current is not None
                entry = current.model_dump(mode="json", exclude_none=True)
                types.append(entry)
                index[c.extends_type] = len(types) - 1
            prefixes = entry.setdefault("path_prefixes", [])
            if c.prefix.lower() not in [p.lower() for p in prefixes]:
                prefixes.append(c.prefix)
            extended.append(c.extends_type)
            continue
        entry = {
            "name": c.name,
            "primitive": c.primitive,
            "path_prefixes": [c.prefix],
            "aliases": [],
            "fileable": False,
            "title_field": "title",
            "description": c.description,
            "fields": c.fields,
        }
        if c.name in index:
            types[index[c.name]] = entry
        else:
            types.append(entry)
            index[c.name] = len(types) - 1
        added.append(c.name)
    data["page_types"] = types
    folder = app.state_dir / DELTAS / name
    path = folder / "pack.yaml"
    text = (
        f"# A pack delta written by `vaultbrain schema review-candidates` on "
        f"{app.now().isoformat(timespec='seconds')}.\n"
        f"# Nothing uses it until you install it and `vaultbrain schema use {name}`.\n"
        + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    )
    previous = path.read_text("utf-8") if path.is_file() else None
    atomic_write_file(path, text)
    try:
        resolved = load_pack_path(path)
    except PackError:
        if previous is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write_file(path, previous)
        raise
    report = lint_pack(resolved, chain_layers(resolved))
    extends = str(data.get("extends") or "")
    return Delta(path, name, extends, added, extended, report, replaces)


def _bump(version: str) -> str:
    core = version.split("+", 1)[0].split("-", 1)[0]
    parts = core.split(".")
    try:
        parts[-1] = str(int(parts[-1]) + 1)
    except (ValueError, IndexError):
        return "0.1.1"
    return ".".join(parts)
