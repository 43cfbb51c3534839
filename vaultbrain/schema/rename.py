"""Renaming a property in a note's frontmatter, every other byte as it was, and the rename-field
job kept in the state store while it runs: until it is finished every other verb refuses."""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.vault.note import parse_note, render_key

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


JOB = "schema-job"  # a rename-field under way (a document of state.db)


def rename_key(text: str, old: str, new: str) -> tuple[str | None, str | None]:
    """``text`` with the frontmatter key ``old`` renamed ``new``, every other byte as it was;
    (None, why) when the note is left as it is (None, None: it has no such property)."""
    parsed = parse_note(text)
    if parsed.error or parsed.fence_problem:
        return None, parsed.error or parsed.fence_problem
    if not parsed.has_frontmatter or old not in parsed.data:
        return None, None
    if new in parsed.data:
        return None, f"has both {old} and {new}"
    pattern = re.compile(
        r"^(?:" + re.escape(old) + r"|\"" + re.escape(old) + r"\"|'" + re.escape(old) + r"')"
        r"(?=[ \t]*:)",
        re.M,
    )
    hits = list(pattern.finditer(parsed.raw))
    if len(hits) != 1:
        return None, f"its {old} property is not written as one plain key line"
    m = hits[0]
    raw = parsed.raw[: m.start()] + render_key(new) + parsed.raw[m.end() :]
    start = parsed.raw_start
    out = text[:start] + raw + text[start + len(parsed.raw) :]
    check = parse_note(out)
    if check.error or check.data.get(new) != parsed.data.get(old) or old in check.data:
        return None, f"its {old} property cannot be renamed in place"
    return out, None


def renamed_text(brain: Brain, rel: str, old: str, new: str) -> tuple[str | None, str | None]:
    note = brain.vault.try_read(rel)
    if note is None:
        return None, "the note is gone"
    return rename_key(note.text, old, new)


def pending_job(brain: Brain) -> dict[str, Any] | None:
    job = brain.store.read_json(JOB)
    return job if isinstance(job, dict) else None


def unfinished_line(brain: Brain) -> str | None:
    """``doctor``'s line for a rename-field cut short, or None."""
    try:
        job = pending_job(brain)
    except (UserError, OSError, sqlite3.Error):
        return None
    if job is None:
        return None
    a = job.get("args", {})
    done, total = len(job.get("done", [])), len(job.get("notes", []))
    return (
        f"`schema rename-field {a.get('type')} {a.get('old')} {a.get('new')}` stopped after "
        f"{done} of {total} notes (started {job.get('at')}); run it again to finish it"
    )


def refuse_other_job(brain: Brain, verb: str, args: dict[str, Any]) -> None:
    job = pending_job(brain)
    if job is None or (job.get("verb") == verb and job.get("args") == args):
        return
    ja = job.get("args", {})
    raise UserError(
        f"a schema {job.get('verb')} {ja.get('type')} {ja.get('old')} {ja.get('new')} "
        f"(started {job.get('at')}) is not finished; run it again to finish it first"
    )
