"""What adopting writes into one hand-made note: the pure decision of ``vaultbrain adopt``
(vaultbrain/filing/adopt.py reads the notes and writes them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultbrain.packs import PageType

ADD, REPLACE = "add", "replace"


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def wanted(
    rel: str,
    data: dict[str, Any],
    has: set[str],
    record_id: str,
    ptype: PageType | None,
    type_name: str,
) -> tuple[dict[str, str], dict[str, str], str | None]:
    """What adopting writes into a note whose frontmatter is ``data`` (``has``: the keys it
    declares, a key with no value included): (changes, add/replace per key, conflict). A
    property the person gave a value of their own (a list, links, ``[]``, another word) is
    never overwritten: a ``type:`` or ``subtype:`` of their own makes the note a conflict
    and nothing is written in it; an ``id:`` of their own stays as it is (see
    :func:`own_id`) and the rest is written."""
    changes: dict[str, str] = {}
    actions: dict[str, str] = {}
    declared = data.get("id")
    if "id" not in has:
        changes["id"], actions["id"] = record_id, ADD
    elif _blank(declared):
        changes["id"], actions["id"] = record_id, REPLACE
    declared = data.get("type")
    if "type" not in has:
        changes["type"], actions["type"] = type_name, ADD
    elif _blank(declared):
        changes["type"], actions["type"] = type_name, REPLACE
    elif not _names_type(declared, ptype, type_name):
        return {}, {}, f"its type: holds {_shown(declared)}, not {type_name}"
    # gbrain's subtype of the note's type (``subtypes:`` on it), written beside its type
    sub_name = ptype.subtype_for(rel, data) if ptype is not None else None
    if sub_name is not None:
        declared = data.get("subtype")
        if "subtype" not in has:
            changes["subtype"], actions["subtype"] = sub_name, ADD
        elif _blank(declared):
            changes["subtype"], actions["subtype"] = sub_name, REPLACE
        elif not (isinstance(declared, str) and declared.strip().lower() == sub_name.lower()):
            return {}, {}, f"its subtype: holds {_shown(declared)}, not {sub_name}"
    return changes, actions, None


def own_id(data: dict[str, Any], record_id: str) -> str | None:
    """The note's own ``id:`` value, when it holds one other than the record's id: as the
    record's ``note_id`` keeps it (vaultbrain/filing/apply.py ``_create``). None: no id,
    an empty one, or the record's."""
    declared = data.get("id")
    if _blank(declared) or (not isinstance(declared, bool) and str(declared) == record_id):
        return None
    return str(declared)


def _names_type(value: Any, ptype: PageType | None, type_name: str) -> bool:
    """Whether a note's own ``type:`` value already says the record's type (its name or an
    alias, any case). A list, a link or another word does not."""
    if not isinstance(value, str):
        return False
    low = value.strip().lower()
    names = {type_name.lower()}
    if ptype is not None:
        names |= {ptype.name.lower(), *(a.strip().lower() for a in ptype.aliases)}
    return low in names


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."
