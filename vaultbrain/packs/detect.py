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
   Obsidian's Daily or Periodic Notes write to) is never a type. Its signs must be its own
   among the folders beside it (``signs.kind_signs``' area): a property spread over every
   topic folder of an area is the area's way of writing pages. A language's copy of a
   translated tree (``en/``, ``de/``, ``zh-TW/``, three or more side by side) is no type. A
   folder holding two or more folders of ``min_notes`` notes is split into them; when none
   of them is a kind of its own among the others and its notes share properties, the
   folder holding them is the kind (trips filed by year). Below the third level a folder is
   a kind only when its name recurs in other branches (a ``references/`` per skill);
4. a file name that recurs, one note in each of many folders, on notes of one shape (a
   ``SKILL.md`` in each skill's folder): a type of that name, its folders those where the
   note is the only one no other proposal types (``detect_names.py``).

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

Here: the proposals from evidence; ``detect_folders.py``: those from folders;
``detect_names.py``: those from file names. Beside them:
``signs.py`` (what makes notes one kind, and the folders that are places), ``naming.py``,
``inference.py`` (fields and primitive) and ``candidates.py`` (the proposals and their file).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.candidates import Candidate, Detection, remember_candidates
from vaultbrain.packs.detect_folders import (
    alike,
    as_list,
    cluster,
    own_types,
    saying_below,
    says_another,
)
from vaultbrain.packs.detect_names import name_kinds
from vaultbrain.packs.inference import guess_primitive, infer_fields
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.packs.naming import singular_name, type_slug
from vaultbrain.packs.signs import Signs, area_counts, configured_places, kind_signs
from vaultbrain.packs.survey import MIN_NOTES, NoteTyping, _typer_and_scope, survey_vault
from vaultbrain.vault.counted import index_note

if TYPE_CHECKING:
    from vaultbrain.packs.context import PackContext

MIN_EVIDENCE = 2  # notes that must say a `type:` (or carry a type tag) for it to be proposed
_DOMINANT = 0.8  # share of a folder's kind-saying notes that must say one kind for it to own it
_TYPE_TAG_HEADS = frozenset({"type", "types", "kind", "class", "category", "is", "typ", "tipo"})


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
    places = configured_places(vault.root, app.settings)
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
    saying = saying_below(untyped)
    for evidence in ("type", "tag"):
        groups = _evidence_groups(left, evidence, min_notes)
        claimed: set[str] = set()
        for label, members in groups:
            name = type_slug(label[1])
            owned = [
                f
                for f in _owned_folders(members, left)
                if not says_another(saying, f.lower(), name)
            ]
            owned_low = tuple(f.lower() + "/" for f in owned)
            mine = {n.rel for n in members}
            # the folders' other notes the type reaches by path (a `type:` of their own wins)
            rest = [
                n
                for n in left
                if n.rel.lower().startswith(owned_low)
                and n.rel not in mine
                and n.rel not in claimed
                and not own_types(n)
            ]
            out.append(_from_evidence(evidence, label, members, rest, owned, pack, taken))
            claimed.update(mine)
            claimed.update(n.rel for n in left if n.rel.lower().startswith(owned_low))
        left = [n for n in left if n.rel not in claimed]
        # A note whose own `type:` names a kind no proposal took (one of many in a mixed
        # folder) keeps it: its tags, categories and folder say nothing over it.
        left = [n for n in left if not own_types(n)]
    out.extend(cluster(left, pack, min_notes, places, taken, everyone=untyped))
    # a file name that recurs in folder after folder (a SKILL.md in each skill's folder)
    prefixes = {p.lower() for c in out for p in c.path_prefixes}
    for spelled, members, owned in name_kinds(left, untyped, prefixes, min_notes):
        # (the folders are the named notes' own: nothing else there is typed by them)
        named = [n for n in members if n.folder in owned]
        out.append(_from_evidence("name", ("name", spelled), named, [], owned, pack, taken))
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
        return [("type", w) for w in own_types(n)]
    out: list[tuple[str, str]] = []
    for tag in as_list(n.data.get("tags")):
        tag = tag.lstrip("#").strip()
        head, _, rest = tag.partition("/")
        if rest and head.lower() in _TYPE_TAG_HEADS and "/" not in rest:
            out.append(("tag", rest))
    for key in ("categories", "category"):
        for value in as_list(n.data.get(key)):
            word = value.strip()
            if word.startswith("[[") and word.endswith("]]"):
                word = word[2:-2].split("|", 1)[0].rsplit("/", 1)[-1]
            if word:
                out.append(("category", word))
    return out


def _plain_tags(n: NoteTyping) -> list[str]:
    return [
        t.lstrip("#").strip()
        for t in as_list(n.data.get("tags"))
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
        # (against their folders' other notes too: a platform tag on some of a folder of
        # release notes shares what the folder's kind shares, and is no kind of its own)
        homes = {n.folder for n in by_tag[key]}
        area = area_counts((n for n in pool if n.folder in homes), signs)
        if kind_signs(members, signs, False, by_tag[key], area)[0] is None:
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
        if count >= len(rest) or alike(rest, members):
            owned.append(folder)
    return sorted(owned, key=str.lower)


def _says_a_kind(n: NoteTyping) -> bool:
    return bool(own_types(n)) or bool(_type_words(n, "tag"))


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
        "name": f"{len(members)} notes are named {spelled}, one in each of their folders",
    }[how]
    where = f"; its folder {owned[0]}/ holds them" if len(owned) == 1 else ""
    if len(owned) > 1:
        where = "; its folders " + ", ".join(f + "/" for f in owned) + " hold them"
    if not owned:
        where = "; no folder is theirs alone, so a `type:` property types a note"
    reach = members + rest
    fields = infer_fields(reach)
    existing = pack.get_type(name) or pack.get_type(singular_name(name))
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
