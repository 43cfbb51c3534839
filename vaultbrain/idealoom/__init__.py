"""IdeaLoom lists: machine-local ordered idea lists and their exchange with ``Idea Loom/`` notes.

Layers, lowest first: ``model`` (the list and its checks), ``note`` (parse, render, edit a
note), ``decision`` (the pure conflict table), ``lists`` (the store and the edits),
``exchange`` (import and export), ``autosync`` (the daemon's debounced automatic export).
Lists never enter the Brain's own collections.
"""

from __future__ import annotations

from vaultbrain.idealoom.autosync import AutoExporter
from vaultbrain.idealoom.config import LoomSettings
from vaultbrain.idealoom.decision import Action, Decision, Direction, ListState, NoteState, decide
from vaultbrain.idealoom.exchange import (
    OUTCOMES,
    ExchangeItem,
    ExchangeResult,
    run_export,
    run_import,
)
from vaultbrain.idealoom.lists import (
    ListBook,
    add_idea,
    create_list,
    delete_list,
    edit_list,
    move_idea,
    remove_idea,
)
from vaultbrain.idealoom.model import IdeaList, SyncState
from vaultbrain.idealoom.note import LoomNote, Malformed, parse_loom_note, render_loom_note

__all__ = [
    "OUTCOMES",
    "Action",
    "AutoExporter",
    "Decision",
    "Direction",
    "ExchangeItem",
    "ExchangeResult",
    "IdeaList",
    "ListBook",
    "ListState",
    "LoomNote",
    "LoomSettings",
    "Malformed",
    "NoteState",
    "SyncState",
    "add_idea",
    "create_list",
    "decide",
    "delete_list",
    "edit_list",
    "move_idea",
    "parse_loom_note",
    "remove_idea",
    "render_loom_note",
    "run_export",
    "run_import",
]
