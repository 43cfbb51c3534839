"""A typed thought's Tasks and Dataview fields, given to what the classifier made of it.

The capture pipeline reads a thought with :func:`vaultbrain.vault.typed.parse_typed`, asks
the classifier about its words only (``typed.words``: no emoji title, no ``📅`` in the
prompt), then calls :func:`apply_typed` on the answer: what the person typed is the value
(``⏫`` is high priority whatever the classifier guessed), on the destinations of the type
whose note carries a Tasks line. :func:`line_fields` gives the Tasks fields no property
holds (⏳ 🛫 ➕ 🆔 ⛔ 🏁), which go onto the new note's Tasks line
(:func:`vaultbrain.filing.records.new_task_line`).

Pure: nothing is written here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from vaultbrain.classify.result import UNKNOWN, Classification, Destination
from vaultbrain.filing.records import LINE_ONLY, tasks_spec
from vaultbrain.packs import PageType, ResolvedPack
from vaultbrain.vault.typed import Typed, title_text

# Tasks' fields that say the thought is a task (a person who types 📅 or 🔁 wrote a task).
_TASK_SIGNS = ("due", "scheduled", "start", "recurrence", "priority", "done", "cancelled")


def tasks_type(pack: ResolvedPack) -> PageType | None:
    """The fileable type whose notes carry a Tasks line (the default pack's admin)."""
    for ptype in pack.fileable_types():
        if tasks_spec(ptype) is not None:
            return ptype
    return None


def typed_values(ptype: PageType, typed: Typed) -> dict[str, Any]:
    """The fields of ``ptype`` the typed line gives: its Tasks fields through the type's
    ``tasks:`` block (``done`` sets the done status and the completion date), and each
    Dataview inline field named like a field of the type, when its value fits."""
    out: dict[str, Any] = {}
    spec = tasks_spec(ptype)
    f = typed.fields
    if spec is not None:
        if spec.due and f.get("due"):
            out[spec.due] = f["due"]
        if spec.priority and f.get("priority"):
            value = next((v for v, n in spec.priorities.items() if n == f["priority"]), None)
            if value is None:  # a pack with three priorities: 🔺 is its highest one
                near = {"highest": "high", "lowest": "low"}.get(f["priority"])
                value = next((v for v, n in spec.priorities.items() if n == near), None)
            if value is not None:
                out[spec.priority] = value
        if spec.recurrence and f.get("recurrence"):
            out[spec.recurrence] = f["recurrence"]
        for key, symbol in (("done", "x"), ("cancelled", "-")):
            if f.get(key) and spec.status:
                value = next((v for v, s in spec.statuses.items() if s == symbol), None)
                if value is not None:
                    out[spec.status] = value
                    if spec.completed:
                        out[spec.completed] = f[key]
                    break
    for key, raw in typed.inline.items():
        name = next((n for n in ptype.fields if n.lower() == key.lower()), None)
        if name is None or name == ptype.title_key:
            continue
        ok, value = ptype.fields[name].coerce(raw)
        if ok:
            out[name] = value
    return out


def line_fields(typed: Typed) -> dict[str, Any]:
    """The typed Tasks fields the Tasks line shows and no property holds, by Tasks' names,
    and the thought's trailing ``#tags`` (``tags``: Tasks keeps them in the description)."""
    out = {k: v for k, v in typed.fields.items() if k in LINE_ONLY}
    if typed.tags:
        out["tags"] = list(typed.tags)
    return out


def apply_typed(result: Classification, typed: Typed, pack: ResolvedPack) -> Classification:
    """The classification with the typed line's fields given to its destinations.

    Every destination's title goes through :func:`title_text` (no signifier left in it; a
    title of only emoji is refused and its destination dropped). The type with a Tasks line
    gets the typed Tasks fields, over what the classifier said; a typed Tasks field with no
    such destination adds one, titled by the thought's words (the person wrote a task). Other
    types get the inline fields named like theirs. Nothing else changes: the confidence and
    the band stay the classifier's."""
    dests: list[Destination] = []
    for d in result.destinations:
        title = title_text(d.title)
        if not title and d.type != UNKNOWN:
            continue
        ptype = pack.get_type(d.type)
        fields = dict(d.fields)
        if ptype is not None:
            fields.update(typed_values(ptype, typed))
        dests.append(replace(d, title=title, fields=fields))
    task_type = tasks_type(pack)
    wants_task = any(typed.fields.get(k) for k in _TASK_SIGNS)
    if task_type is not None and wants_task and not any(d.type == task_type.name for d in dests):
        title = title_text(typed.words)
        title = title[:1].upper() + title[1:]
        if title:
            known = [d for d in dests if d.type != UNKNOWN]
            dests = [*known, Destination(task_type.name, title, typed_values(task_type, typed))]
    return replace(result, destinations=dests)


__all__ = ["apply_typed", "line_fields", "tasks_type", "typed_values"]
