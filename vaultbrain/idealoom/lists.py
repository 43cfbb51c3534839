"""Machine-local IdeaLoom lists in the state dir, and the edits a person makes to them.

Records live in the store's ``idealoom-lists`` collection (``<id>/index.json``). Editing a
list never touches the vault; when automatic export is on, an edit queues one (see
:mod:`vaultbrain.idealoom.pending`). Lists never enter the Brain's own collections.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.idealoom.model import (
    STATUSES,
    IdeaList,
    clean_help,
    count_problem,
    help_problem,
    length_problem,
    line_problem,
)
from vaultbrain.idealoom.pending import queue_after_edit

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

COLLECTION = "idealoom-lists"
_MIN_PREFIX = 4


class ListBook:
    """The lists of one state dir."""

    def __init__(self, app: Brain) -> None:
        self.app = app
        self.collection = app.store.collection(COLLECTION)

    def all(self) -> list[IdeaList]:
        lists = [IdeaList.from_record(r) for r in self.collection.all()]
        return sorted(lists, key=lambda x: (x.created, x.id))

    def get(self, list_id: str) -> IdeaList | None:
        try:
            record = self.collection.get(list_id)
        except UserError:
            return None  # not even a valid id, so certainly not a list
        return IdeaList.from_record(record) if record else None

    def find(self, ref: str) -> IdeaList:
        """A list by its id or a unique prefix of it (at least 4 characters)."""
        ref = ref.strip().lower()
        found = self.get(ref)
        if found is not None:
            return found
        if len(ref) >= _MIN_PREFIX:
            matches = [s["id"] for s in self.collection.summaries() if s["id"].startswith(ref)]
            if len(matches) == 1:
                found = self.get(matches[0])
                if found is not None:
                    return found
            if len(matches) > 1:
                raise UserError(f"{ref!r} matches {len(matches)} lists; give more of the id")
        raise UserError(f"no IdeaLoom list {ref!r}; `vaultbrain idealoom list` shows them")

    def put(self, lst: IdeaList) -> IdeaList:
        self.collection.put(lst.to_record())
        return lst

    def drop(self, list_id: str) -> None:
        self.collection.drop(list_id)


def _line(name: str, value: Any) -> str:
    problem = line_problem(value) or length_problem(name, str(value).strip())
    if problem:
        raise UserError(f"the {name} {problem}")
    return str(value).strip()


def _ideas(ideas: Iterable[str]) -> tuple[str, ...]:
    out = tuple(_line("idea", i) for i in ideas)
    problem = count_problem(len(out))
    if problem:
        raise UserError(problem)
    return out


def _help(value: str) -> str:
    text = clean_help(value)
    problem = help_problem(text)
    if problem:
        raise UserError(f"help text: {problem}")
    return text


def _status(value: str) -> str:
    status = value.strip().lower()
    if status not in STATUSES:
        raise UserError(f"status {value!r} is not one of {', '.join(STATUSES)}")
    return status


def _position(n: int, count: int, what: str = "idea") -> int:
    """A 1-based position as an index; positions run 1 … ``count``."""
    if count == 0:
        raise UserError("the list has no ideas yet; add one with `vaultbrain idealoom add-idea`")
    if not 1 <= n <= count:
        raise UserError(f"there is no {what} {n}; the list's ideas are numbered 1 to {count}")
    return n - 1


def create_list(
    app: Brain,
    *,
    prompt: str,
    category: str,
    title: str | None = None,
    status: str = "draft",
    help_text: str = "",
    ideas: Iterable[str] = (),
) -> IdeaList:
    """A new list (a fresh UUID); it reaches the vault only through an explicit export."""
    prompt = _line("prompt", prompt)
    now = app.now().isoformat()
    lst = IdeaList(
        id=str(uuid.uuid4()),
        title=_line("title", prompt if title is None else title),
        prompt=prompt,
        category=_line("category", category),
        status=_status(status),
        help=_help(help_text),
        ideas=_ideas(ideas),
        created=now,
        modified=now,
    )
    with app.store.locked():
        return ListBook(app).put(lst)


def _save_edit(app: Brain, book: ListBook, old: IdeaList, new: IdeaList) -> IdeaList:
    if new.content() == old.content():
        return old
    new = replace(new, modified=app.now().isoformat())
    book.put(new)
    queue_after_edit(app, new.id)
    return new


def edit_list(
    app: Brain,
    ref: str,
    *,
    title: str | None = None,
    prompt: str | None = None,
    category: str | None = None,
    status: str | None = None,
    help_text: str | None = None,
) -> IdeaList:
    """Change a list's fields; those left None stay as they are."""
    if all(v is None for v in (title, prompt, category, status, help_text)):
        raise UserError(
            "nothing to change; give --title, --prompt, --category, --status or --help-text"
        )
    with app.store.locked():
        book = ListBook(app)
        old = book.find(ref)
        new = replace(
            old,
            title=old.title if title is None else _line("title", title),
            prompt=old.prompt if prompt is None else _line("prompt", prompt),
            category=old.category if category is None else _line("category", category),
            status=old.status if status is None else _status(status),
            help=old.help if help_text is None else _help(help_text),
        )
        return _save_edit(app, book, old, new)


def add_idea(app: Brain, ref: str, text: str, position: int | None = None) -> IdeaList:
    """Add an idea at the end, or at 1-based ``position`` (the ideas after it move down)."""
    idea = _line("idea", text)
    with app.store.locked():
        book = ListBook(app)
        old = book.find(ref)
        ideas = list(old.ideas)
        problem = count_problem(len(ideas) + 1)
        if problem:
            raise UserError(f"{problem}; remove one first")
        if position is None:
            ideas.append(idea)
        else:
            if not 1 <= position <= len(ideas) + 1:
                raise UserError(f"position {position} is outside 1 to {len(ideas) + 1}")
            ideas.insert(position - 1, idea)
        return _save_edit(app, book, old, replace(old, ideas=tuple(ideas)))


def move_idea(app: Brain, ref: str, from_pos: int, to_pos: int) -> IdeaList:
    """Move the idea numbered ``from_pos`` so that it becomes number ``to_pos``."""
    with app.store.locked():
        book = ListBook(app)
        old = book.find(ref)
        ideas = list(old.ideas)
        src = _position(from_pos, len(ideas))
        dst = _position(to_pos, len(ideas), "position")
        ideas.insert(dst, ideas.pop(src))
        return _save_edit(app, book, old, replace(old, ideas=tuple(ideas)))


def remove_idea(app: Brain, ref: str, position: int) -> IdeaList:
    with app.store.locked():
        book = ListBook(app)
        old = book.find(ref)
        ideas = list(old.ideas)
        del ideas[_position(position, len(ideas))]
        return _save_edit(app, book, old, replace(old, ideas=tuple(ideas)))


def delete_list(app: Brain, ref: str) -> IdeaList:
    """Forget a list on this machine. Its vault note, if any, is left alone.

    An explicit import brings the list back from that note; removing the note is done in
    Obsidian.
    """
    with app.store.locked():
        book = ListBook(app)
        lst = book.find(ref)
        book.drop(lst.id)
        return lst
