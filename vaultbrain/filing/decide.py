"""Every sync decision, as one pure function from what was seen to an action (vdirsyncer's
``_get_actions``): the note on disk, the records the store holds for it, and the base both
last agreed on. :class:`vaultbrain.filing.sync.NoteSync` gathers the facts and applies the
action; nothing here reads a file or writes one, so the whole table is tested as a table
(``tests/unit/test_sync_decide.py``).

The base table (DESIGN.md §2):

==============  ==============  ===========================================================
note vs base    store vs base   action
==============  ==============  ===========================================================
same            same            Nothing
changed         same            Import: the person's edit wins
same            changed         Export: the store's change into the note (compare-and-swap)
changed         changed         Import if the note already says what the store says
                                (NewBase), else Conflict: neither side overwritten
deleted         same            Tombstone: it never comes back by itself
deleted         changed         Tombstone, and the lost change is listed as a conflict
new             (no record)     Create, or Move when a record lost its note with this content
==============  ==============  ===========================================================

and the cases around it: a copied note (Copy), a note of a deleted record back (Revive), a
note moved into another type's folder or given another ``type:`` (Retype), the person's word
on a conflict (ForceImport), unreadable notes and vanished folders (Skip with the problem).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Known:
    """What the store holds of one record, as far as a decision needs it."""

    id: str
    collection: str
    type: str
    path: str
    base_hash: str | None
    store_dirty: bool = False
    deleted: bool = False
    # The `id:` its note declares: its own id for notes vaultbrain made or adopted; None, or
    # the person's own value (another than the record's id), for a hand-made note it knows
    # by path and content (it never writes ids into those unasked), adopted ones included.
    note_id: str | None = None
    made_by_us: bool = True  # vaultbrain created the note (a capture, `db add`, a re-filing)


@dataclass(frozen=True)
class Facts:
    """Everything seen of one note path when it may have changed."""

    rel: str
    exists: bool
    note_hash: str | None = None
    unreadable: str | None = None  # the reason the note cannot be read or parsed
    generated: bool = False  # archived, or one of vaultbrain's own generated notes
    # The type the note is of: inside a type's folder, its `type:` (when the pack knows it),
    # else the folder's type. Elsewhere only a note the store already knows by its id keeps
    # its `type:`: a `type:` property in a hand-made note outside the pack's folders (or in a
    # template) is the person's own, never a record.
    note_type: str | None = None
    folder_type: str | None = None  # the type whose folder holds the note
    declared_type: str | None = None  # the note's own `type:`, as written
    declared_id: str | None = None  # the `id:` in the note's frontmatter, as written
    id_usable: bool = False  # that id is valid and no live record has it
    at_path: Known | None = None  # the record whose note is at this path
    by_id: Known | None = None  # the live record with the note's id, wherever its note is
    by_id_note_has_id: bool = False  # that record's own note still declares the id: a copy
    tombstone: Known | None = None  # a deleted record with the note's id
    # A live record whose note is gone and whose last content is this note's, byte for byte:
    # the note was moved or renamed (git's rename detection, exact).
    moved_from: Known | None = None
    folder_gone: bool = False  # the note's top folder vanished (an unmounted sync folder?)
    values_agree: bool = False  # the note's properties equal the store's fields


# -- the actions -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Action:
    """Base of every decision; ``name`` is what the audit trail and reports call it."""

    name: str = field(init=False, default="action")


@dataclass(frozen=True)
class Skip(Action):
    """Not a record, or nothing to do."""

    problem: str | None = None
    untyped: bool = False  # a note in a type's folder that no type takes
    name: str = field(init=False, default="skip")


@dataclass(frozen=True)
class Nothing(Action):
    record: Known
    name: str = field(init=False, default="nothing")


@dataclass(frozen=True)
class Create(Action):
    """A note becomes a record. It keeps its own id when that is usable; otherwise the record
    gets a new one, written into the note only when the note is a copy of one vaultbrain made
    (a hand-made note is known by its path and content, and never written unasked)."""

    type: str
    keep_id: bool
    write_id: bool = False
    name: str = field(init=False, default="create")


@dataclass(frozen=True)
class Import(Action):
    """The note is the truth: parse it into the record (and follow a move of its path)."""

    record: Known
    type: str
    moved: bool = False
    name: str = field(init=False, default="import")


@dataclass(frozen=True)
class Revive(Action):
    """The note of a deleted record is back: the record lives again."""

    record: Known
    type: str
    name: str = field(init=False, default="revive")


@dataclass(frozen=True)
class Retype(Action):
    """The person re-filed the note: by its ``type:``, or by moving it to another type's
    folder (then ``write_type``: the note's own ``type:`` follows the move)."""

    record: Known
    type: str
    moved: bool
    write_type: bool = False
    name: str = field(init=False, default="retype")


@dataclass(frozen=True)
class Export(Action):
    record: Known
    name: str = field(init=False, default="export")


@dataclass(frozen=True)
class Conflict(Action):
    record: Known
    kind: str
    detail: str
    name: str = field(init=False, default="conflict")


@dataclass(frozen=True)
class Tombstone(Action):
    record: Known
    conflict: bool  # the store had changes the deleted note never got
    name: str = field(init=False, default="tombstone")


@dataclass(frozen=True)
class ForceImport(Action):
    """The person settled a conflict by fixing the note: it wins, whatever the bases say."""

    record: Known
    name: str = field(init=False, default="force_import")


# -- the decisions ---------------------------------------------------------------------------
def decide(f: Facts) -> Action:
    """The action for one note path. Pure: the facts are all it looks at."""
    if not f.exists:
        return _gone(f)
    if f.unreadable is not None:
        if f.at_path is not None:
            return Skip(f"{f.rel}: {f.unreadable}; the store keeps its last good copy")
        if f.folder_type is not None:
            return Skip(f"{f.rel}: {f.unreadable}; not filed until it is fixed")
        return Skip()
    if f.generated:
        return Skip()
    if f.note_type is None:
        return Skip(untyped=f.folder_type is not None)
    at_path = f.at_path
    if (
        at_path is not None
        and f.declared_id
        and at_path.note_id == at_path.id
        and at_path.note_id != f.declared_id
    ):
        # A different note now stands where a renamed one was: its own id wins. (Only for a
        # record known by the id in its note: where the note's `id:` is the person's own,
        # not the record's, the record knows the note by path and content, and their
        # editing that property is an edit like any other.)
        at_path = None
    by_id = f.by_id
    if by_id is not None and by_id.path != f.rel and at_path is None and f.by_id_note_has_id:
        # The same id at two paths: the person copied a note, or gave two notes one id on
        # purpose. The second is a new record known by path; its `id:` is the person's and
        # stays as they wrote it. (A note with another id, or none, where the record was is
        # not its copy: the record's note moved and a new note took its old name.)
        was = f.moved_from
        if was is None or was.id == by_id.id or was.note_id == was.id:
            return Create(f.note_type, keep_id=False)
        # That second note, moved: its record (known by path and content, not by the id
        # the two notes share) follows it.
        by_id = None
    if by_id is not None and at_path is not None and by_id.id != at_path.id:
        by_id = None  # a copy already known at this path: it stays the record it became
    target = by_id or at_path or f.moved_from
    if target is None:
        if f.tombstone is not None:
            return Revive(f.tombstone, f.note_type)
        return Create(f.note_type, keep_id=f.id_usable)
    moved = target.path != f.rel
    note_type = f.note_type
    write_type = False
    if moved and f.folder_type is not None and f.folder_type != target.type:
        if f.declared_type is None or f.declared_type.lower() == target.type:
            # Moved into another type's folder: the person re-filed it. The note's own
            # `type:` follows the move, so the two never disagree.
            note_type, write_type = f.folder_type, f.declared_type is not None
    if note_type != target.type:
        return Retype(target, note_type, moved=moved, write_type=write_type)
    return _in_step(f, target, moved)


def _in_step(f: Facts, record: Known, moved: bool) -> Action:
    """A note and its record of the same type: the base table."""
    note_changed = f.note_hash != record.base_hash
    if not note_changed and not record.store_dirty:
        return Import(record, record.type, moved=True) if moved else Nothing(record)
    if not note_changed:
        return Export(record)
    if not record.store_dirty or f.values_agree:
        return Import(record, record.type, moved=moved)  # both changed to the same result
    return Conflict(
        record, "both-sides-changed", "the note and the store both changed since they last agreed"
    )


def _gone(f: Facts) -> Action:
    record = f.at_path
    if record is None:
        return Skip()
    if f.folder_gone:
        folder = f.rel.split("/", 1)[0]
        return Skip(
            f"the folder {folder}/ is gone: not treating its notes as deleted "
            "(an unmounted sync folder looks the same); put it back or run `vaultbrain reindex`"
        )
    return Tombstone(record, conflict=record.store_dirty)


def decide_export(record: Known, note_hash: str | None, values_agree: bool) -> Action:
    """Before writing the store's change into a note: is the note still what both agreed on?"""
    if note_hash is None:
        return Tombstone(record, conflict=record.store_dirty)
    if note_hash == record.base_hash:
        return Export(record)
    if values_agree:
        return Import(record, record.type)  # the note already says it: a new base
    return Conflict(record, "both-sides-changed", "the note changed while the store had changes")
