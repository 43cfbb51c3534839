"""Consolidate: near-duplicate records of a type, found and proposed as merges.

Pure matching over :class:`~vaultbrain.tend.cards.Card` lists, then one proposal per note
that would go into another, kept in the state store's ``merges`` collection (so a merge the
person rejected is never proposed again, and a second run proposes nothing new) and listed
in ``Brain/Needs Review.md`` (vaultbrain/capture/review.py) where a tick accepts it and a
strike rejects it (vaultbrain/capture/merge.py carries them out).

People are the same when they share an e-mail address, when one's name is the other's
alias, when one is a short form of exactly one full name ("Sam" and "Sam Ortiz", while no
other Sam has a surname), or when first name and surname agree ("Sam J. Ortiz", "Samuel
Ortiz"). Two people whose surnames differ, or who each have an e-mail address and share
none, are never the same: many distinct people share a first name. Projects (and the
pack's other entity types) are the same when their titles are near-identical (the same
words, or one letter apart) and the people they link agree.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.merge import COLLECTION, GONE, OPEN, proposals
from vaultbrain.graph.extract import base_key, note_key
from vaultbrain.tend import pairs_since as ps
from vaultbrain.tend.cards import Card, Survey, resolver
from vaultbrain.vault.names import PERSON_WORDS, fold

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "sir", "dame"})
_TITLE_NOISE = frozenset(
    {"the", "a", "an", "project", "of", "for", "and", "new", "our", "my", "to", "on", "in"}
)
_TITLE_RATIO = 0.9
_BLOCK_LIMIT = 200  # a word more titles share than this is no evidence of sameness


@dataclass(frozen=True)
class Pair:
    """``other`` would be merged into ``keep`` (both note paths), because of ``why``."""

    type: str
    keep: str
    other: str
    why: str

    @property
    def key(self) -> str:
        a, b = sorted((note_key(self.keep), note_key(self.other)))
        return f"{self.type}:{a}|{b}"

    @property
    def id(self) -> str:
        return hashlib.sha1(self.key.encode()).hexdigest()[:10]


# -- people ------------------------------------------------------------------------------------
def name_tokens(name: str) -> list[str]:
    """A person's name as words: folded, without honorifics, initials or punctuation."""
    words = [w for w in _WORD.findall(fold(name).replace(".", " "))]
    return [w for w in words if w not in _HONORIFICS and len(w) > 1]


def _first_last(tokens: list[str]) -> tuple[str, str] | None:
    return (tokens[0], tokens[-1]) if len(tokens) >= 2 else None


def _same_first(a: str, b: str) -> bool:
    """The same first name, or one a short form of the other (Sam, Samuel)."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and long.startswith(short)


class _Union:
    def __init__(self) -> None:
        self.up: dict[int, int] = {}
        self.why: dict[frozenset[int], str] = {}

    def find(self, x: int) -> int:
        self.up.setdefault(x, x)
        while self.up[x] != x:
            self.up[x] = self.up[self.up[x]]
            x = self.up[x]
        return x

    def join(self, a: int, b: int, why: str) -> None:
        self.why.setdefault(frozenset((a, b)), why)
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.up[rb] = ra

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = defaultdict(list)
        for x in self.up:
            out[self.find(x)].append(x)
        return [sorted(g) for g in out.values() if len(g) > 1]


def _person_full(card: Card) -> list[str]:
    """The longest name a person card gives (title, file name or alias), as words."""
    best: list[str] = []
    for n in (card.title, card.stem, *card.aliases):
        t = name_tokens(n)
        if len(t) > len(best):
            best = t
    return best


def person_keys(card: Card) -> list[str]:
    """The blocks of a person note: every key :func:`person_pairs` groups it by
    (vaultbrain/tend/pairs_since.py)."""
    keys = {"e:" + e for e in card.emails} | {"n:" + n for n in card.names()}
    full = _person_full(card)
    fl = _first_last(full)
    if fl is not None:
        keys |= {f"fl:{fl[0][:3]}\t{fl[1]}", "ff:" + fl[0]}
    elif len(full) == 1:
        keys |= {"n:" + full[0], "ff:" + full[0]}
    return sorted(keys)


def _people_apart(a: Card, b: Card) -> bool:
    """Two people who cannot be one: different surnames, or e-mail addresses and none shared."""
    if a.emails and b.emails and not (a.emails & b.emails):
        return True
    fa, fb = _first_last(_person_full(a)), _first_last(_person_full(b))
    if fa is not None and fb is not None:
        return fa[1] != fb[1] or not _same_first(fa[0], fb[0])
    return False


Meta = dict[str, tuple[Any, str]]  # a grouped note's path -> (its name rank, why it is grouped)


def person_pairs(cards: list[Card], meta: Meta | None = None) -> list[Pair]:
    """The merges among person cards (one type); ``meta`` gets what re-choosing the kept
    note of each group needs (:func:`reorient`)."""
    u = _Union()
    by_email: dict[str, list[int]] = defaultdict(list)
    by_name: dict[str, list[int]] = defaultdict(list)
    by_first_last: dict[tuple[str, str], list[int]] = defaultdict(list)
    by_first_full: dict[str, list[int]] = defaultdict(list)
    singles: list[tuple[int, str]] = []
    for i, c in enumerate(cards):
        for e in c.emails:
            by_email[e].append(i)
        for n in c.names():
            by_name[n].append(i)
        full = _person_full(c)
        fl = _first_last(full)
        if fl is not None:
            by_first_last[(fl[0][:3], fl[1])].append(i)
            by_first_full[fl[0]].append(i)
        elif len(full) == 1:
            singles.append((i, full[0]))

    def edge(a: int, b: int, why: str) -> None:
        if a != b and not _people_apart(cards[a], cards[b]):
            u.join(a, b, why)

    for e, ids in by_email.items():
        for b in ids[1:]:
            edge(ids[0], b, f"the same e-mail {e}")
    for n, ids in by_name.items():
        if len(set(ids)) == 2:  # a name three notes give is nobody's in particular
            a, b = sorted(set(ids))
            edge(a, b, f"the name “{n}” is the other's alias")
    for ids in by_first_last.values():
        for x, a in enumerate(ids):
            for b in ids[x + 1 :]:
                fa, fb = _first_last(_person_full(cards[a])), _first_last(_person_full(cards[b]))
                if fa and fb and fa[1] == fb[1] and _same_first(fa[0], fb[0]):
                    edge(a, b, "the same first name and surname")
    for i, first in singles:
        if len(by_name.get(first, ())) > 1 and any(j != i for j in by_name[first]):
            continue  # "Sam" is also someone's alias: the alias rule said it, or it is unclear
        fulls = [j for j in by_first_full.get(first, ()) if j != i]
        if len(fulls) == 1:  # one Sam with a surname: "Sam" is short for that Sam
            edge(i, fulls[0], f"“{cards[i].title}” is the short form of “{cards[fulls[0]].title}”")
    out: list[Pair] = []
    for group in u.groups():
        members = [cards[i] for i in group]
        if any(_people_apart(a, b) for x, a in enumerate(members) for b in members[x + 1 :]):
            continue  # a chain through aliases joined two people who cannot be one
        words = {
            i: (len(_person_full(cards[i])), len("".join(_person_full(cards[i])))) for i in group
        }
        keep_i = max(group, key=lambda i: _keep_rank(cards[i], words[i]))
        if meta is not None:
            meta.update((cards[i].rel, (words[i], _why(u, i, group))) for i in group)
        for i in group:
            if i != keep_i:
                out.append(Pair(cards[i].type, cards[keep_i].rel, cards[i].rel, _why(u, i, group)))
    return out


def _why(u: _Union, i: int, group: list[int]) -> str:
    for j in group:
        why = u.why.get(frozenset((i, j)))
        if why:
            return why
    return next((u.why[k] for k in u.why if i in k), "the same record")


def _keep_rank(card: Card, name_words: Any) -> tuple[Any, ...]:
    """The note kept: the fuller name, then an e-mail, then the longer note, then the path."""
    size = card.size + card.n_keys
    return (name_words, bool(card.emails), size, -len(card.rel), card.rel)


# -- projects and other entities ---------------------------------------------------------------
def title_tokens(title: str) -> list[str]:
    words = [w for w in _WORD.findall(fold(title)) if w not in _TITLE_NOISE]
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def _people_of(card: Card, people: dict[str, Card]) -> set[str]:
    return {people[k].rel for k in card.links if k in people}


def entity_pairs(
    cards: list[Card], people: dict[str, Card], meta: Meta | None = None
) -> list[Pair]:
    """The merges among cards of one non-person type: near-identical titles, same people."""
    toks = [title_tokens(c.title) for c in cards]
    linked = [_people_of(c, people) for c in cards]
    u = _Union()

    def consider(a: int, b: int) -> None:
        ta, tb = toks[a], toks[b]
        if not ta or not tb:
            return
        if {t for t in ta if t.isdigit()} != {t for t in tb if t.isdigit()}:
            return  # "Launch 2026" and "Launch 2027" are two projects
        same_words = sorted(ta) == sorted(tb)
        if not same_words:
            ratio = difflib.SequenceMatcher(a=" ".join(ta), b=" ".join(tb)).ratio()
            if ratio < _TITLE_RATIO:
                return
        pa, pb = linked[a], linked[b]
        if pa and pb:
            if not (pa & pb):
                return  # the same title, other people: another project
        elif not same_words:
            return  # nothing but a near title: not enough
        why = "the same words in the title" if same_words else "nearly the same title"
        if pa & pb:
            why += " and the same people"
        u.join(a, b, why)

    by_words: dict[tuple[str, ...], list[int]] = defaultdict(list)
    by_token: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(toks):
        by_words[tuple(sorted(t))].append(i)
        for w in set(t):
            by_token[w].append(i)
    seen: set[tuple[int, int]] = set()
    for ids in by_words.values():
        for x, a in enumerate(ids):
            for b in ids[x + 1 :]:
                seen.add((a, b))
                consider(a, b)
    for ids in by_token.values():
        if len(ids) > _BLOCK_LIMIT:
            continue
        for x, a in enumerate(ids):
            for b in ids[x + 1 :]:
                if (a, b) not in seen and abs(len(toks[a]) - len(toks[b])) <= 1:
                    seen.add((a, b))
                    consider(a, b)
    out: list[Pair] = []
    for group in u.groups():
        keep_i = max(group, key=lambda i: _keep_rank(cards[i], len(linked[i])))
        if meta is not None:
            meta.update((cards[i].rel, (len(linked[i]), _why(u, i, group))) for i in group)
        for i in group:
            if i != keep_i:
                out.append(Pair(cards[i].type, cards[keep_i].rel, cards[i].rel, _why(u, i, group)))
    return out


def is_person_type(brain: Brain, name: str) -> bool:
    ptype = brain.pack.get_type(name)
    if ptype is None:
        return False
    return name in PERSON_WORDS or any(a in PERSON_WORDS for a in ptype.aliases)


def merge_types(brain: Brain) -> list[str]:
    """The types consolidated: the pack's entity types (people, projects, companies…)."""
    return [t.name for t in brain.pack.types if t.primitive == "entity"]


def find_pairs(
    brain: Brain, cards: list[Card], meta: Meta | None = None, only: set[str] | None = None
) -> list[Pair]:
    """Every merge the cards call for, person types and others alike (by the cards' paths'
    order, whatever order the walk found them in: what a cycle keeps stays what it finds)."""
    wanted = set(merge_types(brain))
    by_type: dict[str, list[Card]] = defaultdict(list)
    for c in sorted(cards, key=lambda c: c.rel):
        if c.type in wanted:
            by_type[c.type].append(c)
    people = resolver([c for t, cs in by_type.items() if is_person_type(brain, t) for c in cs])
    out: list[Pair] = []
    for name, group in sorted(by_type.items()):
        if only is not None and name not in only:
            continue  # (``only``: the pairs of these types; the others' cards are people)
        if is_person_type(brain, name):
            out.extend(person_pairs(group, meta))
        else:
            out.extend(entity_pairs(group, people, meta))
    return out


PAIRS_SEEN = "tend-pairs.json"  # the last cycle's pairs, and what they were found from
_MATCH_VERSION = "3"  # (a change to the matching rules above: found again)


def _features(brain: Brain, cards: list[Card]) -> tuple[str, str]:
    """Digests of everything :func:`find_pairs` reads of the cards, in order, and of the
    types it reads them as: (what groups them: names, aliases, e-mail addresses, links; and
    that with what chooses the note kept of a group: sizes)."""
    wanted = set(merge_types(brain))
    h = hashlib.sha1(_MATCH_VERSION.encode())
    h.update(repr(sorted((t, is_person_type(brain, t)) for t in wanted)).encode())
    sizes = hashlib.sha1()
    for c in cards:
        if c.type in wanted:
            h.update(
                repr(
                    (c.rel, c.type, c.title, c.aliases, sorted(c.emails), sorted(c.links))
                ).encode()
            )
            sizes.update(f"{c.size},{c.n_keys};".encode())
    grouping = h.hexdigest()
    sizes.update(grouping.encode())
    return grouping, sizes.hexdigest()


def reorient(pairs: list[Pair], meta: Meta, cards: list[Card]) -> list[Pair] | None:
    """The same groups as ``pairs``, each one's kept note chosen again (the notes' sizes
    changed, not what groups them); None: ``meta`` does not cover them."""
    groups: dict[str, list[Pair]] = {}
    for p in pairs:
        groups.setdefault(p.keep, []).append(p)
    members = {p.keep for p in pairs} | {p.other for p in pairs}
    if not members <= set(meta):
        return None
    by_rel = {c.rel: c for c in cards if c.rel in members}
    if set(by_rel) != members:
        return None
    out: list[Pair] = []
    for keep, group in groups.items():
        rels = [keep, *(p.other for p in group)]

        def rank(rel: str) -> tuple[Any, ...]:
            words = meta[rel][0]
            return _keep_rank(by_rel[rel], tuple(words) if isinstance(words, list) else words)

        best = max(rels, key=rank)
        out += [Pair(group[0].type, best, r, meta[r][1]) for r in rels if r != best]
    return out


def find_pairs_kept(brain: Brain, survey: Survey) -> list[Pair]:
    """:func:`find_pairs`, or the last cycle's pairs when nothing they were found from
    changed: no record note (by the survey's key, no card decoded), or none of what the
    matching reads of the cards (their names, links and sizes: a pure function of them);
    when only sizes changed, the last cycle's groups with their kept notes chosen again."""
    kept = brain.store.read_json(PAIRS_SEEN, None)
    if not isinstance(kept, dict):
        kept = {}

    def pairs_kept() -> list[Pair]:
        return [Pair(p["type"], p["keep"], p["other"], p["why"]) for p in kept.get("pairs", [])]

    if kept.get("survey") == survey.cards_key and kept.get("version") == _MATCH_VERSION:
        return pairs_kept()
    changed = _since(brain, survey, kept, pairs_kept)
    if changed is not None:
        return changed
    grouping, digest = _features(brain, survey.cards)
    meta: Meta = {k: (v[0], v[1]) for k, v in (kept.get("meta") or {}).items()}
    pairs: list[Pair] | None = None
    if kept.get("version") != _MATCH_VERSION:
        pass
    elif kept.get("digest") == digest:
        pairs = pairs_kept()
    elif kept.get("grouping") == grouping:
        pairs = reorient(pairs_kept(), meta, survey.cards)
    if pairs is None:
        meta = {}
        pairs = find_pairs(brain, survey.cards, meta)
    wanted = set(merge_types(brain))
    people_types = {t for t in wanted if is_person_type(brain, t)}
    ps.write_blocks(
        brain,
        survey.cards_key,
        ps.blocks_of(survey.cards, people_types, person_keys),
        ps.linked_of(survey.cards, wanted - people_types),
    )
    return _kept(brain, survey, pairs, meta, digest, grouping, survey.cards_key)


def _kept(
    brain: Brain,
    survey: Survey,
    pairs: list[Pair],
    meta: Meta,
    digest: Any,
    grouping: Any,
    blocks: Any,
) -> list[Pair]:
    """``pairs`` kept for the next cycle (with what they were found from: ``blocks``, the
    version of the blocks kept beside them, vaultbrain/tend/pairs_since.py), and returned."""
    brain.store.write_json(
        PAIRS_SEEN,
        {
            "digest": digest,
            "grouping": grouping,
            "survey": survey.cards_key,
            "version": _MATCH_VERSION,
            "pairs": [p.__dict__ for p in pairs],
            "meta": meta,
            "blocks": blocks,
        },
        durable=False,
    )
    return pairs


def _since(
    brain: Brain, survey: Survey, kept: dict[str, Any], pairs_kept: Any
) -> list[Pair] | None:
    """The last cycle's pairs brought up to date with the notes changed since (the survey's
    :class:`~vaultbrain.tend.cards.Changes`), when none changed what groups the notes (a
    name, an alias, an e-mail address, a link, a card of a consolidated type come or gone)
    only the groups a changed note is in have their kept note chosen again; the groups of
    the people whose notes did are found again from the notes they share a block with
    (vaultbrain/tend/pairs_since.py), the other types whose notes did (or whose notes link
    by a key a person came or went by) from their cards alone. None: found anew."""
    changes = survey.changes
    if (
        changes is None
        or kept.get("survey") != changes.cards_key
        or kept.get("version") != _MATCH_VERSION
    ):
        return None
    wanted = set(merge_types(brain))

    def grouped_by(c: Card | None) -> tuple[Any, ...] | None:
        if c is None or c.type not in wanted:
            return None
        return (c.type, c.title, c.aliases, sorted(c.emails), sorted(c.links))

    people_types = {t for t in wanted if is_person_type(brain, t)}
    dirty: set[str] = set()  # the types whose groups are found again
    regroup: dict[str, set[str]] = {}  # a person type: its notes whose groups are found again
    came: set[str] = set()  # the link keys a person came or went by
    for rel, now in changes.now.items():
        then = changes.then[rel]
        if grouped_by(then) != grouped_by(now):
            for c in (then, now):
                if c is not None and c.type in people_types:
                    regroup.setdefault(c.type, set()).add(rel)
                elif c is not None and c.type in wanted:
                    dirty.add(c.type)
        if (then is not None and then.type in people_types) != (
            now is not None and now.type in people_types
        ):
            came |= {note_key(rel), base_key(rel)}
    gen = kept.get("blocks")
    found_blocks = ps.read_blocks(brain, gen) if regroup or came or dirty else None
    if (regroup or came or dirty) and found_blocks is None:
        return None  # (no blocks kept with these pairs: found anew)
    blocks, linked = found_blocks or ({}, {})
    for t in wanted - people_types:  # (the types whose notes link by a key a person came by)
        if came & set(linked.get(t) or {}):
            dirty.add(t)
    meta: Meta = {k: (v[0], v[1]) for k, v in (kept.get("meta") or {}).items()}
    pairs = [p for p in pairs_kept() if p.type not in dirty]
    for t, rels in sorted(regroup.items()):  # (the groups the changed people are in, alone)
        mine = blocks.setdefault(t, {})
        now_keys = {
            r: person_keys(c) for r in rels if (c := changes.now[r]) is not None and c.type == t
        }
        members = ps.closure(mine, rels, now_keys)
        for r in rels:
            mine.pop(r, None)
        mine.update(now_keys)
        found_t: Meta = {}
        group = sorted(
            (c for c in survey.some(members).values() if c.type == t), key=lambda c: c.rel
        )
        again_t = person_pairs(group, found_t)
        pairs = [p for p in pairs if p.type != t or p.keep not in members] + again_t
        meta = {k: v for k, v in meta.items() if k not in members}
        meta.update(found_t)
    touched = {p.keep for p in pairs if p.keep in changes.now or p.other in changes.now}
    if touched:
        moved = [p for p in pairs if p.keep in touched]
        members = {p.keep for p in moved} | {p.other for p in moved}
        again = reorient(moved, meta, list(survey.some(members).values()))
        if again is None:
            return None
        pairs = [p for p in pairs if p.keep not in touched] + again
    if dirty:
        need = dirty | (people_types if dirty - people_types else set())
        found: Meta = {}
        cards = survey.of_types(need)
        fresh = find_pairs(brain, cards, found, only=dirty)
        members = {p.keep for p in pairs} | {p.other for p in pairs}
        meta = {k: v for k, v in meta.items() if k in members}
        meta.update(found)
        by_type: dict[str, list[Pair]] = defaultdict(list)
        for p in [*pairs, *fresh]:
            by_type[p.type].append(p)
        pairs = [p for t in sorted(by_type) for p in by_type[t]]  # (find_pairs's order)
        # (the dirty types' link counts, from their cards as found now)
        linked.update(ps.linked_of(cards, dirty - people_types))
    if found_blocks is not None:  # (changed: another version of them)
        gen = survey.cards_key
        ps.write_blocks(brain, gen, blocks, linked)
    # (the digest and grouping are not read after a cycle of changes: kept when they were)
    return _kept(brain, survey, pairs, meta, None, None, gen)


# -- the proposals -----------------------------------------------------------------------------
def propose(brain: Brain, pairs: Iterable[Pair], dry_run: bool = False) -> list[dict[str, Any]]:
    """The pairs not proposed before (open, accepted or rejected), stored as open proposals
    (unless ``dry_run``); returns them. A proposal whose notes are gone is closed."""
    col = brain.store.collection(COLLECTION)
    known = {r.get("key"): r for r in col.all()}
    new: list[dict[str, Any]] = []
    now = brain.now().isoformat()
    for pair in pairs:
        if pair.key in known:
            continue
        rec = {
            "id": pair.id,
            "key": pair.key,
            "type": pair.type,
            "keep": pair.keep,
            "other": pair.other,
            "why": pair.why,
            "status": OPEN,
            "created": now,
        }
        known[pair.key] = rec
        new.append(rec)
    if new and not dry_run:
        with brain.store.bulk():  # (one transaction: a first cycle's many, at once)
            for rec in new:
                col.put(rec)
    if not dry_run:
        for rec in list(known.values()):
            if rec.get("status") != OPEN:
                continue
            if not (brain.vault.exists(rec["keep"]) and brain.vault.exists(rec["other"])):
                rec = dict(rec, status=GONE, decided=now)
                col.put(rec)
    return new


def pairs_by_id(brain: Brain) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in brain.store.collection(COLLECTION).all()}


def note_key_of(rel: str) -> str:
    return note_key(rel)


__all__ = ["Pair", "find_pairs", "proposals", "propose"]
