"""Step 3 of filing: the exact notes a capture writes, decided once and stored on it.

Each destination becomes, in this order:

- an ``update`` of the existing record of its type with that name (or alias, any case);
- else, when any note in the vault already has that name (basename, alias or ``name:``,
  case and accents folded, :mod:`vaultbrain.filing.names`): an ``update`` when that note is a
  record of the same type, otherwise a ``link``: the thought points at the note and nothing
  is written into it (a hand-made note is never written unasked, and a second note of that
  name would make every ``[[name]]`` in the vault ambiguous). A person's name that only a
  note the vault types as something else has (a theme, a tool, a company) links to it;
- else, for a person named by one word ("miriam says…"): the one note anywhere whose full
  name starts with it (a person record, ``Databases/CRM/Jane Doe.md``);
- two or more notes that fit raise :class:`AmbiguousName` (the capture goes to Needs Review
  with the candidates, never a guess);
- else a note to ``create`` at a free path in its type's folder.

The plan is stored before the first note is written, so a rerun after a crash writes the
same notes, never new ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import OpKind, PlannedOp
from vaultbrain.classify.result import Destination
from vaultbrain.filing.index import records
from vaultbrain.filing.names import NameIndex, free_path, note_names
from vaultbrain.filing.records import new_id
from vaultbrain.packs import PageType
from vaultbrain.vault.names import fold, sanitize_filename

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.filing.index import RecordIndex

# Types whose records are people, matched by first name when a thought names only that.
PERSON_TYPES = frozenset({"person", "people", "contact"})


class AmbiguousName(Exception):
    """A name fits several existing notes; the person decides (the capture needs review)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DeletedNote(AmbiguousName):
    """The person deleted the note a thought names (a person's): deleting it was their
    decision, so no capture makes it again; the thought waits in Needs Review."""


def _deleted_by_person(brain: Brain, ptype: PageType, title: str) -> str | None:
    """Where the note of ``ptype`` named ``title`` (or aliased so) was, when the person
    deleted it: its record tombstoned by the sync or `db delete`, not archived by a gesture
    of theirs (a dismissal, a re-filing). People only: a person is one, whom a deleted note
    was about; an idea or a task of the same words again is a new one. None otherwise."""
    if ptype.name.lower() not in PERSON_TYPES:
        return None
    key = fold(title.strip())
    col = brain.store.collection(ptype.store_collection)
    for summary in col.summaries(include_deleted=True):
        if not summary.get("deleted") or summary.get("type") != ptype.name:
            continue
        names = [summary.get("title"), *(summary.get("aliases") or ())]
        if key not in {fold(str(n).strip()) for n in names if n}:
            continue
        rec = col.get(str(summary["id"]), include_deleted=True)
        if rec is not None and not rec.get("archived_to"):
            return str(rec.get("path") or f"{ptype.folder}/{title.strip()}.md")
    return None


def plan(brain: Brain, dests: list[Destination]) -> tuple[PlannedOp, ...]:
    """Exact targets for each destination: an existing record to update, an existing note
    to link, or a new path. Raises :class:`AmbiguousName` when a first name fits two people.

    Call under the store's lock: the index is refreshed first, so a record another process
    just created is updated rather than created twice.
    """
    index = records(brain)
    index.refresh(force=True)
    ops: list[PlannedOp] = []
    seen: set[tuple[str, str]] = set()
    planned: set[str] = set()
    names: NameIndex | None = None  # the vault walk happens only if a name is not a record
    new_stems: set[str] = set()  # two new notes of one name would make [[name]] ambiguous
    for d in dests:
        ptype = brain.pack.get_type(d.type)
        if ptype is None:
            continue
        key = (ptype.name, d.title.lower())
        if key in seen:
            continue
        seen.add(key)
        existing = index.find(ptype.name, d.title)
        if existing and existing.get("path"):
            ops.append(_update_op(ptype, existing, d))
            continue
        if names is None:
            names = note_names(brain)
        op = _existing_note(index, names, ptype, d, planned) or _first_name(index, names, ptype, d)
        if op is not None:
            if op.path.lower() not in planned:
                planned.add(op.path.lower())
                ops.append(op)
            continue
        gone = _deleted_by_person(brain, ptype, d.title)
        if gone is not None:
            raise DeletedNote(
                f"you deleted {gone}: “{d.title.strip()}” is not made again; to file this "
                f"thought there, make the note again, then write → {ptype.name} on its line"
            )
        stem = sanitize_filename(d.title).lower()
        if stem in new_stems:
            continue  # a note of this name is being created for this thought already
        new_stems.add(stem)
        path = free_path(brain, ptype, d.title, planned)
        planned.add(path.lower())
        ops.append(
            PlannedOp(
                OpKind.CREATE,
                ptype.name,
                d.title,
                path,
                new_id(),
                ptype.store_collection,
                d.fields,
            )
        )
    return tuple(ops)


def _update_op(ptype: PageType, record: dict[str, Any], d: Destination) -> PlannedOp:
    return PlannedOp(
        OpKind.UPDATE,
        ptype.name,
        record["title"],
        record["path"],
        record["id"],
        ptype.store_collection,
        d.fields,
    )


def _existing_note(
    index: RecordIndex, names: NameIndex, ptype: PageType, d: Destination, planned: set[str]
) -> PlannedOp | None:
    """The note already named ``d.title`` anywhere in the vault (basename, alias or ``name:``,
    case and accents folded): updated when it is a record of this type, else only linked
    (its path recorded, nothing written into it). A person's name that only a note the vault
    types as something else has (a theme, a tool) links to that note: it is no person. Two
    notes that fit equally are the person's to choose (:class:`AmbiguousName`)."""
    # The title, and the file name a new note would get (``A/B`` is created as ``A-B.md``).
    hits = names.lookup(d.title) or names.lookup(sanitize_filename(d.title))
    if not hits:
        return None
    same = [r for r in hits if _record_of(index, r, ptype) is not None]
    if len(same) == 1:
        return _update_op(ptype, _record_of(index, same[0], ptype), d)  # type: ignore[arg-type]
    fits = same or hits
    if ptype.name.lower() in PERSON_TYPES and not same:
        fits = [r for r in hits if names.kind(r) != "other"] or hits
    free = [r for r in fits if r.lower() not in planned]
    if len(free) > 1:
        raise AmbiguousName(_choices(d.title, free))
    rel = free[0] if free else fits[0]
    hit = _record_of(index, rel, ptype)
    if hit is not None:
        return _update_op(ptype, hit, d)
    stem = rel.rsplit("/", 1)[-1][:-3]
    shown = stem if stem.lower() == d.title.strip().lower() else d.title.strip()
    return PlannedOp(OpKind.LINK, ptype.name, shown, rel, "", "", {})


def _record_of(index: RecordIndex, rel: str, ptype: PageType) -> dict[str, Any] | None:
    hit = index.by_path(rel)
    if hit is not None and hit[1].get("type") == ptype.name and hit[1].get("path"):
        return hit[1]
    return None


def _choices(title: str, rels: list[str]) -> str:
    listed = " or ".join(f"“{r.rsplit('/', 1)[-1][:-3]}” ({r})" for r in sorted(rels))
    return f"“{title.strip()}” could be {listed}: choose one"


def _first_name(
    index: RecordIndex, names: NameIndex, ptype: PageType, d: Destination
) -> PlannedOp | None:
    """A person named by one word: the one note anywhere whose full name (basename, alias or
    ``name:``) starts with it, unless the vault types that note as something else (``steph``
    -> References/Steph Ango.md, ``jane`` -> Databases/CRM/Jane Doe.md). A record of the type
    is updated, any other note linked."""
    word = d.title.strip()
    if ptype.name.lower() not in PERSON_TYPES or not word or " " in word:
        return None
    fits = names.by_first_name(word)
    if len(fits) > 1:
        raise AmbiguousName(_choices(word, fits))
    if not fits:
        return None
    hit = _record_of(index, fits[0], ptype)
    if hit is not None:
        return _update_op(ptype, hit, d)
    stem = fits[0].rsplit("/", 1)[-1][:-3]
    return PlannedOp(OpKind.LINK, ptype.name, stem, fits[0], "", "", {})
