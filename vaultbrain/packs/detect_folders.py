"""``schema detect``'s folders of one kind (``vaultbrain/packs/detect.py`` says the rules):
the folders of the vault's untyped notes walked from the top, each weighed by the signs its
notes share that the folders beside it lack, and proposed, split into its folders, or left as
a topic or area folder; beside them, the notes that say a kind of their own, which keep a
folder from being typed by path."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from vaultbrain.packs.candidates import Candidate
from vaultbrain.packs.inference import guess_primitive, infer_fields
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.packs.naming import slug_for, type_slug
from vaultbrain.packs.signs import (
    SHARED,
    Signs,
    a_language,
    a_place,
    area_counts,
    kind_keys,
    kind_signs,
    shared_signs,
)
from vaultbrain.packs.survey import NoteTyping


def saying_below(notes: Iterable[NoteTyping]) -> dict[str, list[NoteTyping]]:
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


def says_another(below: dict[str, list[NoteTyping]], folder: str, name: str) -> bool:
    return any(all(type_slug(w) != name for w in own_types(n)) for n in below.get(folder, ()))


def own_types(n: NoteTyping) -> list[str]:
    """The kinds a note's own ``type:`` names: its text, or the notes it links
    (``type: "[[Books]]"``, ``type: [[[Dessert]], [[Recipes]]]``, as kepano's vault has them)."""
    if n.declared:
        return [n.declared]
    out = []
    for value in as_list(n.data.get("type")):
        word = value.strip()
        if word.startswith("[[") and word.endswith("]]"):
            word = word[2:-2].split("|", 1)[0].rsplit("/", 1)[-1]
        if word:
            out.append(word)
    return out


def as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v for v in re.split(r"[,\s]+", value) if v] if "[[" not in value else [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def alike(rest: list[NoteTyping], members: list[NoteTyping]) -> bool:
    """Whether most of ``rest`` carry the properties most ``members`` share (the rest of a
    folder is of the kind its notes that say one are)."""
    inside = Counter(k for n in members for k in kind_keys(n))
    signs = shared_signs(inside, Counter(), len(members), 0)
    if not signs:
        return False
    half = (len(signs) + 1) // 2
    like = sum(1 for n in rest if len(kind_keys(n) & set(signs)) >= half)
    return like >= SHARED * len(rest)


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
    saying = saying_below(all_notes)
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
        if says_another(saying, key, c.name):
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
                if says_another(saying, k, name) or not alike(group, members[name]):
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
            if not subs or len(rest) < 2 or alike(rest, whole):
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
