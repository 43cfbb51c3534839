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
   a kind only when its name recurs in other branches (a ``references/`` per skill).

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

Here: the proposals from evidence and from folders. Beside it: ``signs.py`` (what makes notes
one kind, and the folders that are places), ``naming.py``, ``inference.py`` (fields and
primitive) and ``candidates.py`` (the proposals and their file).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.packs.candidates import Candidate, Detection, remember_candidates
from vaultbrain.packs.inference import guess_primitive, infer_fields
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.packs.naming import singular_name, slug_for, type_slug
from vaultbrain.packs.signs import (
    SHARED,
    Signs,
    a_language,
    a_place,
    area_counts,
    configured_places,
    kind_keys,
    kind_signs,
    shared_signs,
)
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
    saying = _saying_below(untyped)
    for evidence in ("type", "tag"):
        groups = _evidence_groups(left, evidence, min_notes)
        claimed: set[str] = set()
        for label, members in groups:
            name = type_slug(label[1])
            owned = [
                f
                for f in _owned_folders(members, left)
                if not _says_another(saying, f.lower(), name)
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


def _saying_below(notes: Iterable[NoteTyping]) -> dict[str, list[NoteTyping]]:
    """The notes that say a kind of their own (``type:``) below each folder, by its lower-case
    path: a folder holding any that say another kind is no type (typed by path, each would be
    an adopt conflict with the vault's own words)."""
    below: dict[str, list[NoteTyping]] = {}
    for n in notes:
        if n.folder and own_types(n):
            parts = n.folder.split("/")
            for depth in range(1, len(parts) + 1):
                below.setdefault("/".join(parts[:depth]).lower(), []).append(n)
    return below


def _says_another(below: dict[str, list[NoteTyping]], folder: str, name: str) -> bool:
    return any(all(type_slug(w) != name for w in own_types(n)) for n in below.get(folder, ()))


def own_types(n: NoteTyping) -> list[str]:
    """The kinds a note's own ``type:`` names: its text, or the notes it links
    (``type: "[[Books]]"``, ``type: [[[Dessert]], [[Recipes]]]``, as kepano's vault has them)."""
    if n.declared:
        return [n.declared]
    out = []
    for value in _as_list(n.data.get("type")):
        word = value.strip()
        if word.startswith("[[") and word.endswith("]]"):
            word = word[2:-2].split("|", 1)[0].rsplit("/", 1)[-1]
        if word:
            out.append(word)
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
        if count >= len(rest) or _alike(rest, members):
            owned.append(folder)
    return sorted(owned, key=str.lower)


def _alike(rest: list[NoteTyping], members: list[NoteTyping]) -> bool:
    """Whether most of ``rest`` carry the properties most ``members`` share (the rest of a
    folder is of the kind its notes that say one are)."""
    inside = Counter(k for n in members for k in kind_keys(n))
    signs = shared_signs(inside, Counter(), len(members), 0)
    if not signs:
        return False
    half = (len(signs) + 1) // 2
    like = sum(1 for n in rest if len(kind_keys(n) & set(signs)) >= half)
    return like >= SHARED * len(rest)


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
    all_notes = everyone if everyone is not None else notes
    every = Signs(all_notes)
    saying = _saying_below(all_notes)
    areas: dict[str, list[NoteTyping]] = {"": all_notes}  # a folder's lower path: its notes
    for n in all_notes:
        parts = n.folder.split("/") if n.folder else []
        for depth in range(1, len(parts) + 1):
            areas.setdefault("/".join(parts[:depth]).lower(), []).append(n)
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

    # A language's copy of a translated tree (``en/``, ``de/``, ``zh-TW/`` side by side,
    # three or more) is no kind: what its notes share (a `localized:` property) is how the
    # translation is kept. The folders inside it are weighed like any others.
    languages = {
        k
        for ks in [[k for k in below if "/" not in k], *kids.values()]
        if sum(1 for k in ks if a_language(k.rsplit("/", 1)[-1])) >= 3
        for k in ks
        if a_language(k.rsplit("/", 1)[-1])
    }

    def children(key: str) -> list[str]:
        return sorted(k for k in kids.get(key, []) if len(below[k]) >= min_notes)

    namesakes: dict[str, dict[str, NoteTyping]] = {}  # a folder name's slug -> its notes
    repeated: dict[str, set[str]] = {}  # ... and its folders of `min_notes` notes or more
    folders_named: dict[str, set[str]] = {}  # ... and all its folders
    members: dict[str, list[NoteTyping]] = {}  # a proposed type's notes
    for k, ns in below.items():
        namesakes.setdefault(slug_for(display[k]), {}).update((n.rel, n) for n in ns)
        folders_named.setdefault(slug_for(display[k]), set()).add(k)
        if len(ns) >= min_notes:
            repeated.setdefault(slug_for(display[k]), set()).add(k)

    known: dict[tuple[str, int], tuple[list[str] | None, str]] = {}
    counted: dict[str, tuple[Counter[str], Counter[str]]] = {}  # an area's sign counts

    def kind(key: str, group: list[NoteTyping]) -> tuple[list[str] | None, str]:
        # (a folder's group is all its notes or those beside its subfolders: one per size)
        if (key, len(group)) not in known:
            known[key, len(group)] = kind_of(key, group)
        return known[key, len(group)]

    def kind_of(key: str, group: list[NoteTyping]) -> tuple[list[str] | None, str]:
        # Compared with the notes outside every folder of its name: `Work/Clients/` and
        # `Personal/Clients/` are one kind, not two folders whose signs are everywhere.
        away = dict(namesakes.get(slug_for(display[key]), {}))
        away.update((n.rel, n) for n in group)
        # ... and its signs must be its own among the folders beside it (its parent's
        # notes): topic folders of one area, each language's copy of a help tree, share
        # their area's properties and sections, and none of them is a kind.
        parent = key.rsplit("/", 1)[0] if "/" in key else ""
        if parent not in counted:
            counted[parent] = area_counts(areas.get(parent, all_notes), every)
        signs, why = kind_signs(group, every, True, list(away.values()), counted[parent])
        if signs is None and not why:
            named = pack.get_type(slug_for(display[key]))
            if named is not None:  # the folder is named as the pack names a kind
                return [], f"its name is {named.name!r}'s"
        return signs, why

    def consider(key: str, group: list[NoteTyping]) -> bool:
        if len(group) < min_notes or a_place(display[key], places_low) or key in languages:
            return False
        signs, why = kind(key, group)
        if signs is None:
            return False  # a topic or area folder: its notes share nothing the others lack
        c = _propose(display[key], group, pack, taken, signs, why)
        if _says_another(saying, key, c.name):
            return False  # notes in it say other kinds themselves: typed by path, conflicts
        same = by_name.get(c.name) if c.action == "new" else None
        members.setdefault(c.name, []).extend(group)
        if same is not None:  # two folders of one name and kind: one type, both folders
            same.folders.append(c.folder)
            same.notes += c.notes
            same.reason += f"; {c.folder}/ too"
            return True
        by_name[c.name] = c
        out.append(c)
        return True

    def one_per_translation() -> None:
        """A kind in each language's copy of a translated tree (``en/Recipes``,
        ``de/Rezepte``: at one depth, with the same properties) is one type, named as the
        English copy names it (or the first language's)."""
        groups: dict[tuple[frozenset[str], int], list[tuple[str, Candidate]]] = {}
        for c in out:
            if c.evidence != "folder" or c.action != "new":
                continue
            parts = c.folder.lower().split("/")
            at = [i for i in range(len(parts)) if "/".join(parts[: i + 1]) in languages]
            if at:
                key = (frozenset(f for f in c.fields if f != "title"), len(parts) - at[0])
                groups.setdefault(key, []).append(("/".join(parts[: at[0] + 1]), c))
        for copies in groups.values():
            if len({lang for lang, _ in copies}) < 2:
                continue
            copies.sort(key=lambda lc: (lc[0].rsplit("/", 1)[-1] != "en", lc[0]))
            keep = copies[0][1]
            for _, c in copies[1:]:
                if c is keep or c not in out:
                    continue
                keep.folders.extend(f for f in c.folders if f not in keep.folders)
                keep.notes += c.notes
                keep.reason += f"; {c.folder}/ too (its translation)"
                out.remove(c)
                by_name.pop(c.name, None)
                taken.discard(c.name)

    def smaller_namesakes() -> None:
        """A kind's folder name that recurs (a `references/` per skill) takes its folders
        of fewer than ``min_notes`` notes too, when their notes look like the kind's."""
        taken_low = [f.lower() for c in out for f in c.folders]
        for name, c in by_name.items():
            if c.evidence != "folder" or len(c.folders) < 2:
                continue
            for k in sorted(folders_named.get(name, ())):
                group = below[k]
                if any(k == f or k.startswith(f + "/") or f.startswith(k + "/") for f in taken_low):
                    continue
                if a_place(display[k], places_low) or k in languages or len(group) < 2:
                    continue
                if _says_another(saying, k, name) or not _alike(group, members[name]):
                    continue
                c.folders.append(display[k])
                c.notes += len(group)
                taken_low.append(k)

    def visit(key: str, level: int) -> bool:
        """Propose ``key``'s folder, or the folders below it; whether any was proposed."""
        if a_place(display[key], places_low):
            return False  # (nothing below an inbox, archive or attachments folder either)
        whole = below[key]
        deep = level >= 3
        if level > 3 and len(repeated.get(slug_for(display[key]), ())) < 2:
            # deeper down, a folder is a kind's only when its name recurs in other branches
            # (a `references/` in each skill's folder); one alone is a topic's part
            return any([visit(sub, level + 1) for sub in children(key)])
        if deep and kind(key, whole)[0] is not None:
            return consider(key, whole)  # (deep down a folder of one kind is one type)
        subs = children(key)
        if not subs or (len(subs) == 1 and kind(key, whole)[0] is not None):
            # one folder of them below: the whole is one kind only when the notes beside
            # that folder are of its kind too (an area with a folder of workouts is not)
            rest = [n for n in whole if not subs or not n.rel.lower().startswith(subs[0] + "/")]
            if not subs or len(rest) < 2 or _alike(rest, whole):
                return consider(key, whole)
        inside: set[str] = set()
        found = False
        for sub in subs:
            found = visit(sub, level + 1) or found
            inside.update(n.rel for n in below[sub])
        if not found and not deep and kind(key, whole)[0]:
            # folders of one kind side by side (trips filed by year), none a kind of its own
            # among the others: the folder holding them is the kind, when its notes share
            # properties (sections alone, a `## Related` on most of a client's pages, are
            # how pages are written; a folder named as a pack type, no sign at all)
            return consider(key, whole)
        return consider(key, [n for n in whole if n.rel not in inside]) or found

    for top in sorted(k for k in below if "/" not in k and len(below[k]) >= min_notes):
        visit(top, 1)
    smaller_namesakes()
    one_per_translation()
    out.sort(key=lambda c: (-c.folder.count("/"), c.folder.lower()))
    return out


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
