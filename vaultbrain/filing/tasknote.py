"""The Tasks line of a record note and its frontmatter: both directions, pure functions.

A type with a ``tasks:`` block (the default pack's admin) has one Obsidian Tasks line in its
body that always agrees with its frontmatter. Both directions meet here, as pure functions
of the note's text, so sync, ``db update``, re-filing and the archive share one rule:
:func:`settle_note` (the note changed: a tick, an untick, ✅/❌ or a 🔁 completion reaches
the frontmatter; a Properties edit reaches the line), :func:`sync_task_line` (the store
changed: only the line is rewritten) and :func:`close_task` (archived or dismissed: ``[-]``).
The line itself is read and written by :mod:`vaultbrain.vault.tasks`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import StorageError, UserError
from vaultbrain.packs import PageType
from vaultbrain.packs.resolved import freeze, replaced
from vaultbrain.vault import tasks as tk
from vaultbrain.vault.note import (
    ParsedNote,
    append_to_section,
    newline_of,
    parse_note,
    update_frontmatter,
)

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs.fields import TasksSpec

PRIORITY_EMOJI = tk.PRIORITY_EMOJI


def task_line(title: str, due: str | None, priority: str | None, done: bool = False) -> str:
    """A Tasks line for the default admin fields (kept for callers that know no pack)."""
    task = tk.TaskLine(
        description=tk.clean_description(title),
        status=tk.STATUS_DONE if done else tk.STATUS_TODO,
        due=due or None,
        priority=priority if priority in tk.PRIORITY_EMOJI else None,
    )
    return tk.render_task_line(task)


def task_done(body: str) -> bool | None:
    """Whether the note's Tasks line is ticked; None when it has none."""
    group = tk.task_group(tk.find_task_lines(body.splitlines()))
    if not group:
        return None
    return all(g.task.is_done for g in group)


def tasks_spec(ptype: PageType | None) -> TasksSpec | None:
    """The type's ``tasks:`` block. A pack written before it existed still gets one for a type
    named ``admin`` (the seed's), limited to the fields that type declares (its
    ``recurrence`` field, when it has one, holds the 🔁 rule). Priorities map only to values
    the priority field allows."""
    if ptype is None:
        return None
    if ptype.tasks is not None:
        spec = ptype.tasks
    elif ptype.name == "admin":
        from vaultbrain.packs.model import TasksSpec  # its defaults (validating: pydantic)

        spec = freeze(TasksSpec(recurrence="recurrence"))
    else:
        return None
    fields = ptype.fields
    priorities = dict(spec.priorities)
    prio = fields.get(spec.priority or "")
    if prio is not None and prio.type == "enum" and prio.values:
        priorities = {v: n for v, n in priorities.items() if v in prio.values}
    return replaced(  # type: ignore[return-value]  # (the resolved pack's part, read alike)
        spec,
        title=spec.title or ptype.title_key,
        due=spec.due if spec.due in fields else None,
        priority=spec.priority if spec.priority in fields else None,
        status=spec.status if spec.status in fields else None,
        completed=spec.completed if spec.completed in fields else None,
        recurrence=spec.recurrence if spec.recurrence in fields else None,
        priorities=priorities,
    )


def _open_like(symbol: str) -> bool:
    return symbol not in (tk.STATUS_DONE, "X", tk.STATUS_CANCELLED)


def _status_symbol(spec: TasksSpec, value: Any) -> str:
    if isinstance(value, str) and value in spec.statuses:
        return spec.statuses[value]
    return tk.STATUS_TODO


def _status_value(spec: TasksSpec, symbol: str, current: Any) -> Any:
    """The status a checkbox means, keeping the current value when it already means that
    (``waiting`` and ``open`` are both ``[ ]``; ``[/]`` is open work unless a value maps to it)."""
    symbol = tk.STATUS_DONE if symbol == "X" else symbol
    if isinstance(current, str) and spec.statuses.get(current) == symbol:
        return current
    for value, mapped in spec.statuses.items():
        if mapped == symbol:
            return value
    if _open_like(symbol):
        if isinstance(current, str) and _open_like(spec.statuses.get(current, " ")):
            return current
        return next((v for v, m in spec.statuses.items() if m == tk.STATUS_TODO), current)
    if symbol == tk.STATUS_CANCELLED:  # no cancelled value: closed is closest to done
        return next((v for v, m in spec.statuses.items() if m == tk.STATUS_DONE), current)
    return current


def _priority_name(spec: TasksSpec, value: Any) -> str | None:
    return spec.priorities.get(value) if isinstance(value, str) else None


def _priority_value(spec: TasksSpec, name: str | None, current: Any) -> Any:
    if name is None:
        return None
    if _priority_name(spec, current) == name:
        return current
    nearest = {"highest": ["highest", "high"], "lowest": ["lowest", "low"]}.get(name, [name])
    for candidate in nearest:
        for value, mapped in spec.priorities.items():
            if mapped == candidate:
                return value
    return current


def _current(group: list[tk.FoundTask]) -> tk.FoundTask | None:
    """The occurrence that stands for the record: the open one of a recurring group."""
    if not group:
        return None
    return next((g for g in group if not g.task.is_closed), group[0])


def _date_or_none(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        return None


def _line_from_fields(
    task: tk.TaskLine, spec: TasksSpec, fields: dict[str, Any], today: dt.date | None
) -> tk.TaskLine:
    """``task`` showing the fields' status, due, priority and recurrence; every other part
    kept (a rule that means the same as the field's stays as the line has it)."""
    new = replace(task)
    if spec.status and spec.status in fields:
        value = fields.get(spec.status)
        if _status_value(spec, task.status, value) != value:
            new.status = _status_symbol(spec, value)
    done_on = _date_or_none(fields.get(spec.completed)) if spec.completed else None
    stamp = done_on or (today.isoformat() if today else None)
    if new.status in (tk.STATUS_DONE, "X"):
        new.done, new.cancelled = new.done or stamp, None
    elif new.status == tk.STATUS_CANCELLED:
        new.cancelled, new.done = new.cancelled or stamp, None
    else:
        new.done = new.cancelled = None
    if spec.due and spec.due in fields:
        new.due = _date_or_none(fields.get(spec.due))
    if spec.priority and spec.priority in fields:
        value = fields.get(spec.priority)
        if _priority_value(spec, task.priority, value) != value:
            new.priority = _priority_name(spec, value)
    if spec.recurrence and spec.recurrence in fields:
        rule = _rule_or_none(fields.get(spec.recurrence))
        if not tk.same_rule(rule, task.recurrence):
            new.recurrence = tk.rule_text(rule) if rule else None
    return new


def _rule_or_none(value: Any) -> str | None:
    text = " ".join(str(value).split()) if isinstance(value, str) else ""
    return text if text.lower().startswith("every ") else None


# Tasks' fields a line keeps without a property of its own (TaskLine attribute names).
LINE_ONLY = ("scheduled", "start", "created", "id", "depends_on", "on_completion")


def new_task_line(
    ptype: PageType,
    title: str,
    fields: dict[str, Any],
    today: dt.date | None = None,
    line_fields: dict[str, Any] | None = None,
) -> str:
    """The Tasks line a new note of ``ptype`` starts with ("" for a type without one).

    ``line_fields``: what the thought typed that the line shows but no property holds
    (:data:`LINE_ONLY`: ⏳ scheduled, 🛫 start, ➕ created, 🆔 id, ⛔ depends_on, 🏁, and
    ``tags``, the ``#tags`` that end its description), by Tasks' names, as
    :func:`vaultbrain.filing.typed.line_fields` gives them."""
    spec = tasks_spec(ptype)
    if spec is None:
        return ""
    description = tk.clean_description(str(title))
    tags = [t for t in (line_fields or {}).get("tags") or [] if t not in description.split()]
    task = tk.TaskLine(description=" ".join([description, *tags]))
    for name, value in (line_fields or {}).items():
        if name in LINE_ONLY and value:
            setattr(task, name, list(value) if name == "depends_on" else str(value))
    return tk.render_task_line(_line_from_fields(task, spec, dict(fields), today))


def settle_fields(
    ptype: PageType, old: dict[str, Any], new: dict[str, Any], today: dt.date
) -> dict[str, Any]:
    """``new`` with the completion date following the status: set on done or cancelled,
    dropped when the task is open again."""
    spec = tasks_spec(ptype)
    if spec is None or not spec.status or not spec.completed:
        return new
    out = dict(new)
    symbol = _status_symbol(spec, out.get(spec.status))
    if _open_like(symbol):
        out.pop(spec.completed, None)
    elif _status_symbol(spec, old.get(spec.status)) != symbol or not out.get(spec.completed):
        out[spec.completed] = today.isoformat()
    return out


def _replace_body_line(text: str, body_start: int, index: int, new: str | None) -> str:
    """``text`` with body line ``index`` replaced by ``new`` (None: removed), its line
    ending kept; every other byte unchanged."""
    lines = text[body_start:].splitlines(keepends=True)
    old = lines[index]
    ending = old[len(old.rstrip("\r\n")) :]
    lines[index] = "" if new is None else new + ending
    return text[:body_start] + "".join(lines)


def _insert_task_line(text: str, body_start: int, line: str) -> str:
    """Add the Tasks line where the template puts it: before ``## Log``, else at the end."""
    nl = newline_of(text)
    body = text[body_start:]
    lines = body.splitlines(keepends=True)
    at = next((i for i, x in enumerate(lines) if x.rstrip("\r\n").strip() == "## Log"), None)
    if at is None:
        if body and not body.endswith(("\n", "\r")):
            body += nl
        sep = nl if body.strip() and not body.endswith(nl + nl) else ""
        return text[:body_start] + body + sep + line + nl
    lines.insert(at, line + nl + nl)
    return text[:body_start] + "".join(lines)


def sync_task_line(
    text: str, ptype: PageType | None, fields: dict[str, Any], today: dt.date
) -> str:
    """The store changed: the note's Tasks line shows ``fields`` (only that line changes;
    a note without one gets one). Call before the frontmatter is updated: a title that
    differs from the note's current one rewrites the description too."""
    spec = tasks_spec(ptype)
    if spec is None or ptype is None:
        return text
    note = parse_note(text)
    if note.error:
        return text
    start = note.body_start if note.has_frontmatter else 0
    group = tk.task_group(tk.find_task_lines(text[start:].splitlines()))
    current = _current(group)
    title = fields.get(spec.title or "") or note.data.get(spec.title or "") or "Task"
    if current is None:
        merged = {**note.data, **fields}
        return _insert_task_line(text, start, new_task_line(ptype, str(title), merged, today))
    new = _line_from_fields(current.task, spec, fields, today)
    old_title = note.data.get(spec.title or "")
    if spec.title in fields and str(old_title) != str(title) or not new.description:
        new.description = tk.clean_description(str(title))
    if new == current.task:
        return text
    return _replace_body_line(text, start, current.index, tk.render_task_line(new))


def close_task(text: str, ptype: PageType | None, today: dt.date) -> str:
    """An archived or dismissed note's open task is cancelled (``- [-] … ❌ date``) and its
    status says so, so Tasks' and Dataview's "not done" stop listing it."""
    spec = tasks_spec(ptype)
    if spec is None:
        return text
    note = parse_note(text)
    if note.error:
        return text
    start = note.body_start if note.has_frontmatter else 0
    current = _current(tk.task_group(tk.find_task_lines(text[start:].splitlines())))
    if current is None or current.task.is_closed:
        return text
    cancelled = _status_value(spec, tk.STATUS_CANCELLED, None)
    new = replace(current.task, status=tk.STATUS_CANCELLED, cancelled=today.isoformat())
    text = _replace_body_line(text, start, current.index, tk.render_task_line(new))
    changes: dict[str, Any] = {}
    if spec.status and cancelled is not None and note.has_frontmatter:
        changes[spec.status] = cancelled
        if spec.completed:
            changes[spec.completed] = today.isoformat()
    return update_frontmatter(text, changes) if changes else text


def retype_task_line(
    text: str, old: PageType | None, new: PageType, fields: dict[str, Any], today: dt.date
) -> str:
    """A note re-filed from ``old`` to ``new``: it gets the new type's Tasks line, or loses
    the old type's (the archived note keeps that one, closed)."""
    if tasks_spec(new) is not None:
        return sync_task_line(text, new, fields, today)
    if tasks_spec(old) is None:
        return text
    note = parse_note(text)
    start = note.body_start if note.has_frontmatter else 0
    for ft in reversed(tk.task_group(tk.find_task_lines(text[start:].splitlines()))):
        text = _replace_body_line(text, start, ft.index, None)
    return text


def settle_note(
    text: str, ptype: PageType | None, previous: dict[str, Any] | None, today: dt.date
) -> str:
    """The note changed: its Tasks line and its frontmatter agree again.

    ``previous`` is the record's fields as the store last had them (None: a new record).
    A field that changed on one side only follows that side; where both disagree with the
    store, the line wins (the tick is the newer gesture). A completed 🔁 occurrence (Tasks
    wrote the next one above or below it, or a plain tick left none) moves to ``## Log``
    and the open occurrence stands for the record. Only the lines that must change do.
    """
    spec = tasks_spec(ptype)
    if spec is None:
        return text
    note = parse_note(text)
    if note.error or not note.has_frontmatter:
        return text
    start = note.body_start
    group = tk.task_group(tk.find_task_lines(text[start:].splitlines()))
    if not group:
        return text
    fm = note.data
    logs: list[str] = []
    removed: list[int] = []
    current = _current(group)
    assert current is not None
    task = current.task
    if group[0].task.recurrence:
        done = [g for g in group if g.task.is_done]
        if not current.task.is_closed and done:
            for g in done:  # Tasks wrote the next occurrence beside the completed one
                logs.append(_completion_log(g.task, today))
                removed.append(g.index)
        elif len(group) == 1 and task.is_done:
            try:
                nxt = tk.next_occurrence(task, _parse_date(task.done) or today)
            except tk.PastTheCalendar as exc:
                # Marked in the note's log, once; the task stays done, the rest goes on.
                nxt = None
                mark = f"- {_date_or_none(task.done) or today.isoformat()} {exc}"
                if mark not in text:
                    logs.append(mark)
            if nxt is not None:  # ticked without Tasks: write the next occurrence as Tasks does
                logs.append(_completion_log(task, today))
                task = nxt
    prev = previous or {}
    changes: dict[str, Any] = {}
    remove: list[str] = []
    follow: dict[str, Any] = {}  # fields whose Properties edit the line follows

    def side(key: str | None, line_value: Any, has_line_value: bool = True) -> None:
        if not key:
            return
        fm_value = fm.get(key)
        if line_value == fm_value:
            return
        if previous is not None and fm_value != prev.get(key) and line_value == prev.get(key):
            follow[key] = fm_value
        elif previous is not None or has_line_value:
            if line_value is None:
                remove.append(key)
            else:
                changes[key] = line_value

    if spec.status and (fm.get(spec.status) is not None or not _open_like(task.status)):
        # An open line in a note with no status says nothing new: no property is added.
        side(spec.status, _status_value(spec, task.status, fm.get(spec.status)))
    side(spec.due, _date_or_none(task.due), task.due is not None)
    prio = _priority_value(spec, task.priority, fm.get(spec.priority or ""))
    side(spec.priority, prio, task.priority is not None)
    if spec.recurrence:
        # The same rule in other words (``every Sunday`` / ``every week on Sunday``) agrees.
        fm_rule = fm.get(spec.recurrence)
        line_rule = fm_rule if tk.same_rule(task.recurrence, fm_rule) else task.recurrence
        side(spec.recurrence, line_rule, task.recurrence is not None)
    if follow:
        task = _line_from_fields(task, spec, {**fm, **changes, **follow}, today)
    if spec.completed and spec.status:
        status = changes.get(spec.status, fm.get(spec.status))
        symbol = _status_symbol(spec, status)
        if _open_like(symbol):
            if fm.get(spec.completed) is not None:
                remove.append(spec.completed)
        else:
            when = task.done if symbol == tk.STATUS_DONE else task.cancelled
            when = _date_or_none(when) or _date_or_none(fm.get(spec.completed))
            when = when or today.isoformat()
            if fm.get(spec.completed) != when:
                changes[spec.completed] = when
    title = fm.get(spec.title or "")
    if previous is not None and title and str(title) != str(prev.get(spec.title or "", title)):
        task = replace(task, description=tk.clean_description(str(title)))
    if task != current.task:
        text = _replace_body_line(text, start, current.index, tk.render_task_line(task))
    for index in sorted(removed, reverse=True):
        text = _replace_body_line(text, start, index, None)
    for line in logs:
        text = append_to_section(text, "## Log", line)
    if changes or remove:
        text = update_frontmatter(text, changes, remove)
    return text


def _parse_date(value: str | None) -> dt.date | None:
    iso = _date_or_none(value)
    return dt.date.fromisoformat(iso) if iso else None


def _completion_log(task: tk.TaskLine, today: dt.date) -> str:
    when = _date_or_none(task.done) or today.isoformat()
    due = f", due {task.due}" if task.due else ""
    return f"- {when} done{due}: {task.description}"


def settle_task_note(
    brain: Brain,
    rel: str,
    note: Any,
    parsed: ParsedNote,
    ptype: PageType,
    record: Any,
    add_missing: bool = False,
) -> tuple[Any, ParsedNote]:
    """Sync's import path: write :func:`settle_note`'s agreement into the note
    (compare-and-swap; a note that keeps changing is left for the next pass).
    ``add_missing``: a note without a Tasks line gets one (a note re-filed into the type)."""
    if tasks_spec(ptype) is None or parsed.error:
        return note, parsed
    previous = (record or {}).get("fields") if isinstance(record, dict) else None

    def build(current: Any) -> str | None:
        if current is None:
            return None
        text = settle_note(current.text, ptype, previous, brain.today())
        return sync_task_line(text, ptype, {}, brain.today()) if add_missing else text

    if build(note) == note.text:
        return note, parsed  # in agreement already (the usual case): nothing read again
    try:
        edit = brain.vault.edit(rel, build)
    except (UserError, OSError, StorageError):
        return note, parsed  # keeps changing, or a read-only vault: the store reads the line
    if not edit.written:
        return note, parsed
    note = brain.vault.read(rel)
    return note, parse_note(note.text)
