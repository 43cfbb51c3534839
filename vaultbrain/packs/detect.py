"""Proposing types that match the vault's shape: ``schema detect``, and the proposals file.

``detect`` clusters the folders whose notes the active pack leaves untyped (at least
``min_notes`` notes a folder; a folder holding two or more such subfolders is split into
them) and proposes a type per cluster: a name from the folder, a primitive from its name,
note names and properties, and fields from the frontmatter most of its notes share. A
folder whose proposed name is already a type or alias of the pack becomes a proposal to
add the folder to that type. ``suggest`` sends the proposals to the configured LLM to refine
names, primitives, descriptions and fields, and falls back to the heuristic ones when the
LLM is offline (``vaultbrain/packs/suggest.py``). Proposals are kept in
``<state>/schema-candidates.json``; ``review-candidates --apply`` turns accepted ones into a
pack *delta* (``vaultbrain/packs/delta.py``), which the person installs and uses explicitly:
no pack is ever edited behind their back.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.packs.survey import MIN_NOTES, NoteTyping, _typer_and_scope, survey_vault

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

CANDIDATES = "schema-candidates.json"
# Frontmatter keys that are vaultbrain's or Obsidian's own, never a proposed type's field.
RESERVED_KEYS = {
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
FIELD_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_ -]{0,63}$")
TYPE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
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


def detect(app: PackContext, min_notes: int = MIN_NOTES, save: bool = True) -> Detection:
    """Propose types for the vault's untyped folders (and remember them for review)."""
    if min_notes < 1:
        raise UserError("--min-notes must be at least 1")
    vault, typer, exclude, skip, identity = _typer_and_scope(app)
    survey = survey_vault(vault, typer, exclude, skip, with_data=True)
    # Templates are the person's scaffolding, never a type of their own (vault/obsidian.py).
    in_scope = [n for n in survey.in_scope() if not app.templates.holds_note(n.rel)]
    untyped = [n for n in in_scope if n.type is None]
    pack = app.pack
    candidates = cluster(untyped, pack, min_notes)
    detection = Detection(identity, len(in_scope), len(untyped), candidates)
    if save:
        remember_candidates(app, detection)
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
    """A type name for a folder, as a person would write it: its last part, lower case,
    hyphenated, accents folded, a leading number (``00 Home``, ``1-Projects``,
    ``01.2 Reading``) dropped, and a plural last word made singular where that is a word
    (``Books`` -> ``book``, ``Daily Notes`` -> ``daily-note``; ``Physics``, ``Windows``,
    ``LifeOS`` stay as they are; two things named together stay plural: ``Files and
    folders`` -> ``files-and-folders``). A name of digits alone (``2024``) takes its parent
    folder's name before it."""
    parts = [p for p in folder.strip("/").split("/") if p]
    last = parts[-1] if parts else ""
    words = _words(last)
    while words and words[0].isdigit():
        words = words[1:]  # a number prefix orders folders; it is no part of a name
    if not words:
        parent = slug_for("/".join(parts[:-1])) if len(parts) > 1 else ""
        digits = "-".join(_words(last))
        name = f"{parent}-{digits}" if parent and parent != "note" and digits else parent
        if not name:
            return f"t-{digits}"[:64] if digits else "note"
        return name[:64]
    if not _CONJUNCTIONS.intersection(words):  # "files and folders" names two things
        words[-1] = _singular(words[-1])
    name = "-".join(words)
    if not name[0].isalpha():
        name = "t-" + name
    return name[:64]


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    return [w for w in re.split(r"[^a-z0-9]+", folded) if w]


_CONJUNCTIONS = frozenset({"and", "or", "und", "et", "y", "e", "n"})
# Words ending in s that are not plurals (or whose singular is not what the folder means).
_NOT_PLURAL = frozenset(
    "news series species means windows canvas atlas alias bias chaos kudos lens "
    "analytics ethics mathematics maths physics economics politics statistics logistics "
    "graphics linguistics robotics genetics electronics athletics dynamics metrics "
    "ops devops macos ios lifeos os sas aws dns gps css js ts api apis".split()
)


def _singular(word: str) -> str:
    if word in _NOT_PLURAL or word.endswith(("ics", "ss", "us", "is", "os", "as")):
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes", "zzes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s"):
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
        reason = f"named after the folder {folder}/; {why}"
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
            if isinstance(key, str) and key not in RESERVED_KEYS and FIELD_KEY.match(key):
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


def load_candidates(app: PackContext) -> Detection | None:
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


def remember_candidates(app: PackContext, detection: Detection) -> None:
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


def save_candidates(app: PackContext, detection: Detection) -> None:
    doc = detection.as_dict() | {"generated": app.now().isoformat(timespec="seconds")}
    for c in doc["candidates"]:
        c.pop("prefix", None)
    app.store.write_json(CANDIDATES, doc)
