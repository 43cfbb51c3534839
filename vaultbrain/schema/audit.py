"""The audit trail of schema verbs (``schema log``): who, on which machine, when, the verb and
its arguments, and the pack before and after; a refused or failed change too."""

from __future__ import annotations

import datetime as dt
import getpass
import sqlite3
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.schema.planning import Plan


CHANGES = "schema-changes.jsonl"  # the audit trail of pack changes (a log of state.db)


def _who(brain: Brain) -> tuple[str, str]:
    """(the user, this machine: its host and id) for an audit line."""
    from vaultbrain.machine import this_machine

    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = "?"
    try:
        m = this_machine(brain.state_dir)
        machine = f"{m.host} ({m.id})"
    except UserError:
        machine = "?"
    return who, machine


def record_failure(brain: Brain, verb: str, args: dict[str, Any], exc: Exception) -> None:
    who, machine = _who(brain)
    entry = {
        "at": brain.now().isoformat(timespec="seconds"),
        "verb": verb,
        "args": args,
        "who": who,
        "machine": machine,
        "ok": False,
        "reason": str(exc),
    }
    try:
        brain.store.append_jsonl(CHANGES, entry)
    except (UserError, OSError, sqlite3.Error):
        pass  # (a full disk that failed the verb may fail its line too: the error is shown)


def record_change(
    brain: Brain, p: Plan, written: int, skipped: int, at: dt.datetime
) -> dict[str, Any]:
    """The audit line of an applied plan (``written`` and ``skipped``: its notes)."""
    who, machine = _who(brain)
    t = p.target
    entry = {
        "at": at.isoformat(timespec="seconds"),
        "verb": p.verb,
        "args": p.args,
        "who": who,
        "machine": machine,
        "ok": True,
        "pack": t.name,
        "manifest": t.path.relative_to(brain.vault.root).as_posix(),
        "before": p.before,
        "after": p.after,
        "forked_from": t.source_name if t.source == "bundled" and not t.exists else None,
        "notes_written": written,
        "notes_skipped": skipped,
    }
    entry = {k: v for k, v in entry.items() if v is not None}
    brain.store.append_jsonl(CHANGES, entry)
    return entry  # (as recorded: what `schema log` shows)


def log_entries(brain: Brain) -> list[dict[str, Any]]:
    return list(brain.store.read_jsonl(CHANGES))
