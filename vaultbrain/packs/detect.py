"""Proposing types that match the vault's shape: ``schema detect``, and the proposals file.

``detect`` reads the vault for the kinds of note it already has, strongest evidence first:

1. the ``type:`` values its notes carry that the active pack does not declare (each used by
   two or more notes is a type, named as the vault names it; a value that names a pack type
   in another form, ``type: projects``, becomes an alias of that type);
2. ``tags`` and ``categories`` used as types: a hierarchical tag such as ``type/book`` or
   ``kind/book``, a ``categories: ["[[Books]]"]`` value, or a plain tag whose notes share
   properties or sections the rest of the vault does not have;
3. folders whose remaining untyped notes are of one kind: they share a property or sections
   the rest of the vault does not, or are named by date and title (``2026-11-10 Standup``).
   A folder of topic or area notes (nothing shared), an inbox, an archive, a template or
   attachment folder, and a daily-notes folder (notes named by a date alone, or the folder
   Obsidian's Daily or Periodic Notes write to) is never a type. A folder holding two or more
   folders of ``min_notes`` notes is split into them.

A type from ``type:`` values or tags takes as its folder the folder whose evidence it holds
(80% of the notes there that say a kind say this one, and they are half its notes or more),
so accepting it types that folder's other notes too, and no note's own ``type:`` disagrees.
Names are the vault's own words, in its language (``bücher``, ``книги``); an English plural
folder name is made singular. A primitive comes from the notes (dated names: temporal;
url/author properties: media) or the words of the name; a time-based type needs dated names,
never just a word like "log" in the folder's name.

``suggest`` sends the proposals to the configured LLM to refine names, primitives,
descriptions and fields, and falls back to the heuristic ones when the LLM is offline
(``vaultbrain/packs/suggest.py``). Proposals are kept in ``<state>/schema-candidates.json``;
``review-candidates --apply`` turns accepted ones into a pack *delta*
(``vaultbrain/packs/delta.py``), which the person installs and uses explicitly: no pack is
ever edited behind their back. A proposal is named by its folder (``Reading/``), or, when it
has none, by its evidence (``type:permanent``, ``tag:book``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.packs.survey import MIN_NOTES, NoteTyping, _typer_and_scope, survey_vault
from vaultbrain.vault.counted import index_note
from vaultbrain.vault.obsidian import config_folder

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
# Keys notes of every kind carry (dates of the file, navigation, tags): no sign of a kind.
_ANY_KIND_KEYS = RESERVED_KEYS | {
    "tags",
    "tag",
    "alias",
    "date",
    "modified",
    "date created",
    "date modified",
    "created_at",
    "updated_at",
    "up",
    "parent",
    "related",
    "links",
    "banner",
    "cover",
    "icon",
    "permalink",
    "subtype",
    "categories",
    "category",
}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
_LINK = re.compile(r"^\[\[[^\]]+\]\]$")
FIELD_KEY = re.compile(r"^[^\W\d_][\w -]{0,63}$")  # (any script: `autor`, `автор`)
MIN_EVIDENCE = 2  # notes that must say a `type:` (or carry a type tag) for it to be proposed
_SHARED = 0.6  # share of a group's notes that must have a property for it to be the kind's
_ELSEWHERE = 0.5  # ... while fewer than this share of the other notes have it
_DOMINANT = 0.8  # share of a folder's kind-saying notes that must say one kind for it to own it
# A date in a note's name: 2026-11-10, 2026.11.10, 2026_11_10, 20261110, 10.11.2026,
# 10-11-2026, 2026-W46, 2026-11, 2026-Q4.
_NAME_DATE = re.compile(
    r"(?<!\d)(?:\d{4}[-._]\d{2}[-._]\d{2}|\d{8}|\d{2}[-.]\d{2}[-.]\d{4}|\d{4}-W\d{2}"
    r"|\d{4}-\d{2}|\d{4}-Q[1-4])(?!\d)"
)
_WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun "
    "montag dienstag mittwoch donnerstag freitag samstag sonntag lundi mardi mercredi jeudi "
    "vendredi samedi dimanche lunes martes miércoles jueves viernes sábado domingo".split()
)
# Folders that are places, never kinds (their whole name, number prefixes and marks dropped).
_PLACE_NAMES = frozenset(
    {
        # inboxes
        "inbox",
        "in",
        "inbox notes",
        "eingang",
        "posteingang",
        "eingangskorb",
        "boîte de réception",
        "bandeja de entrada",
        "caixa de entrada",
        "entrada",
        "входящие",
        "收件箱",
        "受信箱",
        "unsorted",
        "unprocessed",
        "to sort",
        "to process",
        "triage",
        # archives
        "archive",
        "archives",
        "archiv",
        "archivo",
        "archives personnelles",
        "архив",
        "attic",
        # attachments and drawings
        "attachments",
        "attachment",
        "assets",
        "files",
        "images",
        "img",
        "pictures",
        "resources attachments",
        "excalidraw",
        "anhänge",
        "anlagen",
        "bilder",
        "pièces jointes",
        "adjuntos",
        "anexos",
        "вложения",
        "附件",
        "添付ファイル",
        # templates (also found by vault/obsidian.py, by settings and content)
        "templates",
        "template",
        "vorlagen",
        "modèles",
        "plantillas",
        "шаблоны",
    }
)
_TYPE_TAG_HEADS = frozenset({"type", "types", "kind", "class", "category", "is", "typ", "tipo"})
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
    "media": (
        "reading",
        "book",
        "article",
        "clipping",
        "paper",
        "podcast",
        "video",
        "movie",
        "film",
        "music",
        "readwise",
        "bookmark",
        "course",
        "literature",
    ),
    "annotation": ("review", "comment", "annotation", "highlight", "feedback"),
    "concept": (
        "idea",
        "concept",
        "topic",
        "note",
        "zettel",
        "permanent",
        "wiki",
        "knowledge",
    ),
}


@dataclass
class Candidate:
    folder: str  # the folder it types, or its evidence (`type:X`, `tag:X`) when it has none
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
    evidence: str = "folder"  # folder | type | tag | category: what says these notes are a kind
    folders: list[str] = field(default_factory=list)  # its path prefixes (folders) in the pack
    aliases: list[str] = field(default_factory=list)  # the vault's own spellings of its name

    @property
    def prefix(self) -> str:
        """How the proposal is named: its folder with a slash, or its evidence."""
        if self.evidence != "folder" and not self.folders:
            return self.folder
        return self.folder.strip("/") + "/"

    @property
    def path_prefixes(self) -> list[str]:
        if self.evidence == "folder" and not self.folders:  # (a proposals file of before)
            return [self.folder.strip("/") + "/"]
        return [f.strip("/") + "/" for f in self.folders]

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
    """Propose types for the vault's untyped notes (and remember them for review)."""
    if min_notes < 1:
        raise UserError("--min-notes must be at least 1")
    vault, typer, exclude, skip, identity = _typer_and_scope(app)
    survey = survey_vault(vault, typer, exclude, skip, with_data=True)
    # Templates are the person's scaffolding, never a type of their own (vault/obsidian.py).
    notes = [
        n for n in survey.notes if not app.templates.holds_note(n.rel) and not index_note(n.rel)
    ]
    in_scope = [n for n in notes if n.folder]
    untyped = [n for n in notes if n.type is None]
    places = _configured_places(vault.root, app.settings)
    candidates = propose(untyped, app.pack, min_notes, places)
    detection = Detection(
        identity, len(in_scope), sum(1 for n in in_scope if n.type is None), candidates
    )
    if save:
        remember_candidates(app, detection)
    return detection


def propose(
    untyped: list[NoteTyping],
    pack: ResolvedPack,
    min_notes: int = MIN_NOTES,
    places: Iterable[str] = (),
) -> list[Candidate]:
    """Proposals for the ``untyped`` notes (the pack types none of them): from their own
    ``type:`` values, then tags and categories used as types, then folders of one kind.
    ``places``: folders that are never a type (the daily notes' folder Obsidian writes to)."""
    taken = {t.name for t in pack.types}
    left = list(untyped)
    out: list[Candidate] = []
    for evidence in ("type", "tag"):
        groups = _evidence_groups(left, evidence, min_notes)
        claimed: set[str] = set()
        for label, members in groups:
            owned = _owned_folders(members, left)
            owned_low = tuple(f.lower() + "/" for f in owned)
            mine = {n.rel for n in members}
            # the folders' other notes the type reaches by path (a `type:` of their own wins)
            rest = [
                n
                for n in left
                if n.rel.lower().startswith(owned_low)
                and n.rel not in mine
                and n.rel not in claimed
                and not n.declared
            ]
            out.append(_from_evidence(evidence, label, members, rest, owned, pack, taken))
            claimed.update(mine)
            claimed.update(n.rel for n in left if n.rel.lower().startswith(owned_low))
        left = [n for n in left if n.rel not in claimed]
    out.extend(cluster(left, pack, min_notes, places, taken, everyone=untyped))
    out = _one_per_name(out)
    # (a kind no folder holds first, then folders, deepest first)
    out.sort(key=lambda c: (bool(c.path_prefixes), -c.folder.count("/"), c.folder.lower()))
    return out


def _one_per_name(candidates: list[Candidate]) -> list[Candidate]:
    """One proposal per type: a kind found twice (``type: book`` notes and a ``Books/``
    folder) is one type with both folders, as the pack can only declare it once."""
    out: list[Candidate] = []
    first: dict[tuple[str, str], Candidate] = {}
    for c in candidates:
        key = (c.action, c.extends_type or c.name)
        same = first.get(key)
        if same is None:
            first[key] = c
            out.append(c)
            continue
        for folder in c.folders:
            if folder.lower() not in {f.lower() for f in same.folders}:
                same.folders.append(folder)
        for alias in c.aliases:
            if alias.lower() not in {a.lower() for a in same.aliases}:
                same.aliases.append(alias)
        same.notes += c.notes
        same.samples = (same.samples + c.samples)[:5]
        same.reason += f"; also {c.prefix} ({c.reason})"
    return out


# -- evidence: the notes' own `type:` values, tags and categories --------------------------


def _type_words(n: NoteTyping, evidence: str) -> list[tuple[str, str]]:
    """(evidence, word) pairs a note gives for its kind."""
    if evidence == "type":
        return [("type", n.declared)] if n.declared else []
    out: list[tuple[str, str]] = []
    for tag in _as_list(n.data.get("tags")):
        tag = tag.lstrip("#").strip()
        head, _, rest = tag.partition("/")
        if rest and head.lower() in _TYPE_TAG_HEADS and "/" not in rest:
            out.append(("tag", rest))
    for key in ("categories", "category"):
        for value in _as_list(n.data.get(key)):
            word = value.strip()
            if word.startswith("[[") and word.endswith("]]"):
                word = word[2:-2].split("|", 1)[0].rsplit("/", 1)[-1]
            if word:
                out.append(("category", word))
    return out


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v for v in re.split(r"[,\s]+", value) if v] if "[[" not in value else [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _plain_tags(n: NoteTyping) -> list[str]:
    return [
        t.lstrip("#").strip()
        for t in _as_list(n.data.get("tags"))
        if t.lstrip("#").strip() and "/" not in t
    ]


def _evidence_groups(
    notes: list[NoteTyping], evidence: str, min_notes: int
) -> list[tuple[tuple[str, str], list[NoteTyping]]]:
    """((evidence, word), notes) per kind the notes name, most notes first. A note naming
    two kinds of one evidence (two type tags) counts for neither; a type tag outweighs a
    category."""
    groups: dict[str, list[NoteTyping]] = {}
    label: dict[str, tuple[str, str]] = {}
    for n in notes:
        # (a type tag first, then a category: the first that names one kind)
        said = _type_words(n, evidence)
        words: dict[str, tuple[str, str]] = {}
        for how in ("type", "tag", "category"):
            words = {_kind_key(w): (e, w) for e, w in said if e == how}
            if words:
                break
        if len(words) != 1:
            continue
        key, ew = next(iter(words.items()))
        groups.setdefault(key, []).append(n)
        label.setdefault(key, ew)
    need = min(MIN_EVIDENCE, min_notes)
    found = [(label[k], g) for k, g in groups.items() if len(g) >= need and _kind_key(k)]
    if evidence == "tag":
        found += _tag_kinds(notes, {n.rel for _, g in found for n in g}, min_notes)
    found.sort(key=lambda lg: (-len(lg[1]), lg[0][1].lower()))
    return found


def _tag_kinds(
    notes: list[NoteTyping], used: set[str], min_notes: int
) -> list[tuple[tuple[str, str], list[NoteTyping]]]:
    """Plain tags used as types: a tag on ``min_notes`` notes or more whose notes share
    properties or sections the other notes lack, and that is their only such tag."""
    pool = [n for n in notes if n.rel not in used]
    by_tag: dict[str, list[NoteTyping]] = {}
    spelled: dict[str, str] = {}
    for n in pool:
        for tag in set(_plain_tags(n)):
            key = _kind_key(tag)
            by_tag.setdefault(key, []).append(n)
            spelled.setdefault(key, tag)
    kinds: list[tuple[tuple[str, str], list[NoteTyping]]] = []
    claimed: set[str] = set()
    signs = Signs(pool)
    for key in sorted(by_tag, key=lambda k: (-len(by_tag[k]), k)):
        members = [n for n in by_tag[key] if n.rel not in claimed]
        if len(members) < min_notes or len(members) < len(by_tag[key]) / 2:
            continue
        if len(by_tag[key]) == len(pool):
            continue  # on every note: says nothing of a kind
        if _kind_signs(members, signs, dated=False, rest_without=by_tag[key])[0] is None:
            continue  # a topic tag: its notes share nothing the others lack
        kinds.append((("tag", spelled[key]), members))
        claimed.update(n.rel for n in members)
    return kinds


def _kind_key(word: str) -> str:
    return " ".join(unicodedata.normalize("NFC", word).lower().split())


def _owned_folders(members: list[NoteTyping], notes: list[NoteTyping]) -> list[str]:
    """The folders a kind owns: it holds most of what their notes say of their kinds (80%),
    and half their notes or more."""
    mine = {n.rel for n in members}
    counts = Counter(n.folder for n in members if n.folder)
    owned = []
    for folder, count in counts.items():
        if count < MIN_EVIDENCE:
            continue
        there = [n for n in notes if n.folder == folder]  # (other kinds' notes included)
        saying = [n for n in there if n.rel in mine or _says_a_kind(n)]
        if count < _DOMINANT * len(saying):
            continue
        rest = [n for n in there if n.rel not in mine and not _says_a_kind(n)]
        if count >= len(rest) or _alike(rest, members):
            owned.append(folder)
    return sorted(owned, key=str.lower)


def _alike(rest: list[NoteTyping], members: list[NoteTyping]) -> bool:
    """Whether most of ``rest`` carry the properties most ``members`` share (the rest of a
    folder is of the kind its notes that say one are)."""
    inside = Counter(k for n in members for k in _kind_keys(n))
    signs = _shared(inside, Counter(), len(members), 0)
    if not signs:
        return False
    half = (len(signs) + 1) // 2
    like = sum(1 for n in rest if len(_kind_keys(n) & set(signs)) >= half)
    return like >= _SHARED * len(rest)


def _says_a_kind(n: NoteTyping) -> bool:
    return bool(n.declared) or bool(_type_words(n, "tag"))


def _from_evidence(
    evidence: str,
    label: tuple[str, str],
    members: list[NoteTyping],
    rest: list[NoteTyping],
    owned: list[str],
    pack: ResolvedPack,
    taken: set[str],
) -> Candidate:
    """A proposal for the kind ``label`` names: its ``members`` say it; ``rest``: the other
    notes of its ``owned`` folders, which it types by path."""
    how, word = label
    name = type_slug(word)
    spelled = word.strip()
    aliases = [spelled] if spelled.lower() != name else []
    key = owned[0] if len(owned) == 1 else f"{how}:{spelled}"
    said = {
        "type": f"{len(members)} notes say type: {spelled}",
        "tag": f"{len(members)} notes are tagged #{spelled}",
        "category": f"{len(members)} notes have the category {spelled}",
    }[how]
    where = f"; its folder {owned[0]}/ holds them" if len(owned) == 1 else ""
    if len(owned) > 1:
        where = "; its folders " + ", ".join(f + "/" for f in owned) + " hold them"
    if not owned:
        where = "; no folder is theirs alone, so a `type:` property types a note"
    reach = members + rest
    fields = infer_fields(reach)
    existing = pack.get_type(name) or pack.get_type(_singular_name(name))
    declared = Counter(n.declared for n in members if n.declared)
    common: dict[str, Any] = {
        "folder": key,
        "notes": len(reach),
        "fields": fields,
        "samples": [n.title for n in reach[:5]],
        "frontmatter_types": dict(declared),
        "evidence": how,
        "folders": owned,
    }
    if existing is not None:
        alias = [a for a in [spelled, name] if pack.get_type(a) is None][:1]
        return Candidate(
            name=existing.name,
            primitive=existing.primitive,
            description=existing.description or f"Notes of {existing.name}.",
            action="extend",
            extends_type=existing.name,
            aliases=alias,
            reason=f"{said}: {existing.name!r} of the pack by another name{where}",
            **common,
        )
    taken.add(name)
    primitive, why = guess_primitive(spelled, reach, fields)
    return Candidate(
        name=name,
        primitive=primitive,
        description=f"Notes the vault calls {spelled} ({len(members)} found by `schema detect`).",
        aliases=aliases,
        reason=f"{said}{where}; {why}",
        **common,
    )


# -- folders --------------------------------------------------------------------------------


def cluster(
    notes: list[NoteTyping],
    pack: ResolvedPack,
    min_notes: int,
    places: Iterable[str] = (),
    taken: set[str] | None = None,
    everyone: list[NoteTyping] | None = None,
) -> list[Candidate]:
    """Candidates for the folders of ``notes`` (untyped) whose notes are of one kind,
    deepest folders first. ``everyone``: the notes a kind's signs are compared with."""
    taken = {t.name for t in pack.types} if taken is None else taken
    every = Signs(everyone if everyone is not None else notes)
    places_low = {p.lower().strip("/") for p in places if p.strip("/")}
    below: dict[str, list[NoteTyping]] = {}
    display: dict[str, str] = {}
    for n in notes:
        if not n.folder:
            continue
        parts = n.folder.split("/")
        for depth in range(1, len(parts) + 1):
            key = "/".join(parts[:depth])
            below.setdefault(key.lower(), []).append(n)
            display.setdefault(key.lower(), key)
    out: list[Candidate] = []
    by_name: dict[str, Candidate] = {}

    kids: dict[str, list[str]] = {}
    for k in below:
        if "/" in k:
            kids.setdefault(k.rsplit("/", 1)[0], []).append(k)

    def children(key: str) -> list[str]:
        return sorted(k for k in kids.get(key, []) if len(below[k]) >= min_notes)

    namesakes: dict[str, dict[str, NoteTyping]] = {}  # a folder name's slug -> its notes
    for k, ns in below.items():
        namesakes.setdefault(slug_for(display[k]), {}).update((n.rel, n) for n in ns)

    def kind(key: str, group: list[NoteTyping]) -> tuple[list[str] | None, str]:
        # Compared with the notes outside every folder of its name: `Work/Clients/` and
        # `Personal/Clients/` are one kind, not two folders whose signs are everywhere.
        away = dict(namesakes.get(slug_for(display[key]), {}))
        away.update((n.rel, n) for n in group)
        signs, why = _kind_signs(group, every, dated=True, rest_without=list(away.values()))
        if signs is None and not why:
            named = pack.get_type(slug_for(display[key]))
            if named is not None:  # the folder is named as the pack names a kind
                return [], f"its name is {named.name!r}'s"
        return signs, why

    def consider(key: str, group: list[NoteTyping]) -> None:
        if len(group) < min_notes or _a_place(display[key], places_low):
            return
        signs, why = kind(key, group)
        if signs is None:
            return  # a topic or area folder: its notes share nothing the others lack
        c = _propose(display[key], group, pack, taken, signs, why)
        same = by_name.get(c.name) if c.action == "new" else None
        if same is not None:  # two folders of one name and kind: one type, both folders
            same.folders.append(c.folder)
            same.notes += c.notes
            same.reason += f"; {c.folder}/ too"
            return
        by_name[c.name] = c
        out.append(c)

    def visit(key: str, level: int) -> None:
        if _a_place(display[key], places_low):
            return  # (nothing below an inbox, archive or attachments folder either)
        subs = children(key) if level < 3 else []
        whole = below[key]
        if not subs or (len(subs) == 1 and kind(key, whole)[0] is not None):
            # one folder of them below: the whole is one kind only when the notes beside
            # that folder are of its kind too (an area with a folder of workouts is not)
            rest = [n for n in whole if not subs or not n.rel.lower().startswith(subs[0] + "/")]
            if not subs or len(rest) < 2 or _alike(rest, whole):
                consider(key, whole)
                return
        inside: set[str] = set()
        for sub in subs:
            visit(sub, level + 1)
            inside.update(n.rel for n in below[sub])
        consider(key, [n for n in whole if n.rel not in inside])

    for top in sorted(k for k in below if "/" not in k and len(below[k]) >= min_notes):
        visit(top, 1)
    out.sort(key=lambda c: (-c.folder.count("/"), c.folder.lower()))
    return out


class Signs:
    """The signs of a kind each note of a set shows (the properties no kind has in common,
    its sections), and how many notes of the set show each: a group of the set is compared
    with the rest of it without counting the rest again."""

    def __init__(self, notes: Iterable[NoteTyping]) -> None:
        self.keys: dict[str, frozenset[str]] = {}
        self.heads: dict[str, frozenset[str]] = {}
        for n in notes:
            self.keys[n.rel] = frozenset(_kind_keys(n))
            self.heads[n.rel] = frozenset(n.headings)
        self.key_total = Counter(k for ks in self.keys.values() for k in ks)
        self.head_total = Counter(h for hs in self.heads.values() for h in hs)

    def of(
        self, group: list[NoteTyping], rest_without: list[NoteTyping] | None = None
    ) -> tuple[Counter[str], Counter[str], Counter[str], Counter[str], int]:
        """(keys in ``group``, keys in the rest, sections in ``group``, in the rest, how
        many notes the rest holds). The rest: the set without ``rest_without`` (``group``)."""
        away = group if rest_without is None else rest_without
        keys_in = Counter(k for n in group for k in self.keys[n.rel])
        heads_in = Counter(h for n in group for h in self.heads[n.rel])
        keys_away = keys_in if away is group else Counter(k for n in away for k in self.keys[n.rel])
        heads_away = (
            heads_in if away is group else Counter(h for n in away for h in self.heads[n.rel])
        )
        return (
            keys_in,
            self.key_total - keys_away,
            heads_in,
            self.head_total - heads_away,
            len(self.keys) - len(away),
        )


def _kind_signs(
    group: list[NoteTyping],
    signs: Signs,
    dated: bool,
    rest_without: list[NoteTyping] | None = None,
) -> tuple[list[str] | None, str]:
    """What makes ``group`` (notes of ``signs``' set) one kind, against the rest of the set
    (without ``rest_without``, by default the group): properties most of its notes have and
    most others lack, sections (headings) likewise, or names of a date and a title. None:
    nothing (a topic or area folder, a daily-notes folder)."""
    if len(group) < 2:
        return None, ""
    if dated and _daily_names(group):
        return None, "its notes are named by a date alone (daily notes)"
    keys_in, keys_out, heads_in, heads_out, others = signs.of(group, rest_without)
    keys = _shared(keys_in, keys_out, len(group), others)
    if keys:
        return keys, "its notes share " + ", ".join(keys[:4])
    heads = _shared(heads_in, heads_out, len(group), others)
    strong = _shared(heads_in, heads_out, len(group), others, share=0.8)
    if len(heads) >= 2 or strong:
        heads = heads if len(heads) >= 2 else strong
        return [], "its notes share the sections " + ", ".join(f"## {h}" for h in heads[:4])
    if dated:
        with_title = sum(1 for n in group if _dated_title(n.title))
        if with_title >= _SHARED * len(group):
            return [], f"{with_title} of {len(group)} notes are named by a date and a title"
    return None, ""


def _kind_keys(n: NoteTyping) -> set[str]:
    return {
        k
        for k in n.data
        if isinstance(k, str) and FIELD_KEY.match(k) and k.lower() not in _ANY_KIND_KEYS
    }


def _shared(
    inside: Counter[str],
    outside: Counter[str],
    size: int,
    others: int,
    share: float = _SHARED,
) -> list[str]:
    """The signs at least ``share`` of a group of ``size`` show (two notes at least) that
    fewer than half of the ``others`` notes show."""
    need = max(2, share * size)
    return sorted(
        (
            k
            for k, c in inside.items()
            if c >= need and (not others or outside[k] < _ELSEWHERE * others)
        ),
        key=lambda k: (-inside[k], k),
    )


def _daily_names(group: list[NoteTyping]) -> bool:
    bare = sum(1 for n in group if _bare_date(n.title))
    return bare >= _SHARED * len(group)


def _bare_date(title: str) -> bool:
    m = _NAME_DATE.search(title)
    if m is None:
        return False
    rest = _words(title[: m.start()] + " " + title[m.end() :])
    return all(w in _WEEKDAYS or w.isdigit() for w in rest) and len(rest) <= 2


def _dated_title(title: str) -> bool:
    m = _NAME_DATE.search(title)
    return m is not None and not _bare_date(title)


def _a_place(folder: str, places_low: set[str]) -> bool:
    """An inbox, archive, attachments or templates folder, or one Obsidian writes daily
    notes to: a place, never a kind."""
    if folder.lower().strip("/") in places_low:
        return True
    last = folder.strip("/").rsplit("/", 1)[-1]
    words = _words(last)
    while words and words[0].isdigit():
        words = words[1:]
    name = " ".join(words)
    return name in _PLACE_NAMES or (len(words) > 1 and words[-1] in {"inbox", "archive"})


def _configured_places(root: Path, settings: Any) -> list[str]:
    """Folders Obsidian writes daily and periodic notes to, its attachments folder, and the
    ``daily_notes_folder`` setting."""
    found: list[str] = []
    config = config_folder(root)
    reads = [
        ("daily-notes.json", ("folder",)),
        ("app.json", ("attachmentFolderPath",)),
        ("plugins/periodic-notes/data.json", ("daily", "folder")),
        ("plugins/periodic-notes/data.json", ("weekly", "folder")),
        ("plugins/periodic-notes/data.json", ("monthly", "folder")),
        ("plugins/periodic-notes/data.json", ("quarterly", "folder")),
        ("plugins/periodic-notes/data.json", ("yearly", "folder")),
    ]
    for rel, path in reads:
        value = _json_at(config / rel, path)
        if isinstance(value, str):
            folder = value.replace("\\", "/").strip().strip("/")
            if folder and folder not in (".", "./") and not folder.startswith("./"):
                found.append(folder)
    if settings is not None:
        try:
            value = settings.get("daily_notes_folder")
        except UserError:
            value = None
        if value:
            found.append(str(value).strip().strip("/"))
    return found


def _json_at(path: Path, keys: tuple[str, ...]) -> Any:
    try:
        if path.stat().st_size > 1_000_000:
            return None
        value: Any = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


# -- names ----------------------------------------------------------------------------------


def slug_for(folder: str) -> str:
    """A type name for a folder, as a person would write it: its last part, lower case,
    hyphenated, in the vault's own letters (``Bücher`` -> ``bücher``, ``Книги`` ->
    ``книги``), a leading number (``00 Home``, ``1-Projects``, ``01.2 Reading``) dropped, and
    an English plural last word made singular where that is a word (``Books`` -> ``book``,
    ``Daily Notes`` -> ``daily-note``; ``Physics``, ``Windows``, ``LifeOS`` stay as they
    are; two things named together stay plural: ``Files and folders`` ->
    ``files-and-folders``). A name of digits alone (``2024``) takes its parent folder's name
    before it."""
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


def type_slug(word: str) -> str:
    """A type name for a kind the vault names itself (``type: Permanent Note`` ->
    ``permanent-note``): its words, lower case, hyphenated, never made singular."""
    words = _words(word)
    name = "-".join(words) or "note"
    if not name[0].isalpha():
        name = "t-" + name
    return name[:64]


def _singular_name(name: str) -> str:
    head, _, last = name.rpartition("-")
    return (head + "-" if head else "") + _singular(last)


def _words(text: str) -> list[str]:
    """The words of a name, lower case, in its own letters (marks of a script kept)."""
    text = unicodedata.normalize("NFC", text).lower()
    out, word = [], []
    for ch in text:
        if ch.isalnum() or unicodedata.category(ch).startswith("M"):
            word.append(ch)
        elif word:
            out.append("".join(word))
            word = []
    if word:
        out.append("".join(word))
    return out


def _ascii_fold(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


_CONJUNCTIONS = frozenset({"and", "or", "und", "et", "y", "e", "n"})
# Words ending in s that are not plurals (or whose singular is not what the folder means).
_NOT_PLURAL = frozenset(
    "news series species means windows canvas atlas alias bias chaos kudos lens "
    "analytics ethics mathematics maths physics economics politics statistics logistics "
    "graphics linguistics robotics genetics electronics athletics dynamics metrics "
    "ops devops macos ios lifeos os sas aws dns gps css js ts api apis".split()
)


def _singular(word: str) -> str:
    if not word.isascii():
        return word  # (English plurals only: another language's word stays as it is)
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
    folder: str,
    notes: list[NoteTyping],
    pack: ResolvedPack,
    taken: set[str],
    signs: list[str] | None = None,
    kind_why: str = "",
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
        # (a name another proposal has is the same type: one type, both folders, never
        # `workout-2`; see _one_per_name)
        taken.add(name)
        reason = f"named after the folder {folder}/; {why}"
    if kind_why:
        reason += f"; {kind_why}"
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
        folders=[folder],
    )


def guess_primitive(name: str, notes: list[NoteTyping], fields: dict[str, Any]) -> tuple[str, str]:
    """A primitive from the notes (named by date: temporal), their properties, or the words
    of ``name`` (a folder or the vault's own name of the kind). A time-based type needs dated
    names or date properties: a word such as "log" or "journal" alone is no evidence."""
    dated = sum(1 for n in notes if _NAME_DATE.search(n.title))
    if notes and dated / len(notes) >= _SHARED:
        return "temporal", f"{dated} of {len(notes)} notes are named by date"
    words = [_ascii_fold(w) for w in _words(name.replace("/", " "))]
    for primitive, stems in _KEYWORDS.items():
        for stem in stems:
            if any(w.startswith(stem) for w in words):
                return primitive, f"the name suggests {primitive} ({stem!r})"
    keys = set(fields)
    if keys & {"url", "author", "isbn", "link"}:
        return "media", "its notes carry url/author properties"
    if keys & {"start", "due", "when", "date"}:
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
