"""Running a digest or a review: facts, the LLM's part, the note, the history line.

One run holds the run lock from start to end, so the scheduler, ``daemon --once`` and the
CLI never write the same note at once. The note is written with compare-and-swap: a second
run the same day (or week) replaces that note instead of adding another, and a person's own
``## Notes`` section in it is carried over.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.vault.files import NoteFile, Vault, is_ignored
from vaultbrain.vault.note import newline_of

from .facts import collect_daily, collect_weekly, iso_week
from .insights import ask_daily, ask_weekly
from .lock import run_lock
from .render import digest_path, render_digest, render_review, review_path

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger(__name__)

DIGEST_HISTORY = "digests.jsonl"
REVIEW_HISTORY = "reviews.jsonl"
# How long a CLI run waits for a run already in progress (which may be waiting on the LLM).
DEFAULT_WAIT = 180.0


def run_digest(
    app: Brain,
    day: dt.date | None = None,
    *,
    now: dt.datetime | None = None,
    trigger: str = "manual",
    wait: float = DEFAULT_WAIT,
) -> dict[str, Any]:
    """Write the daily digest of ``day`` (default today); returns its history entry."""
    now = _naive(now) if now is not None else app.now()
    day = day or now.date()
    with run_lock(app.state_dir, wait):
        facts = collect_daily(app, day)
        exists = note_exists(app.vault)
        insights = ask_daily(app, facts)
        rel = digest_path(day)
        tending = _tending(app, day)
        replaced = _write_note(
            app.vault,
            rel,
            lambda old: _with_tending(render_digest(facts, insights, old, exists), tending),
        )
        linked = _link_daily_note(app, day, rel)
        entry = {
            "kind": "digest",
            "date": day.isoformat(),
            "path": rel,
            "generated": now.strftime("%Y-%m-%dT%H:%M:%S"),
            "trigger": trigger,
            "replaced": replaced,
            "counts": facts.counts(),
            "llm": insights.as_json(),
            "daily_note": linked,
        }
        app.store.append_jsonl(DIGEST_HISTORY, entry)
    log.debug("daily digest %s written (%s)", rel, "replaced" if replaced else "new")
    return entry


def run_review(
    app: Brain,
    day: dt.date | None = None,
    *,
    now: dt.datetime | None = None,
    trigger: str = "manual",
    wait: float = DEFAULT_WAIT,
) -> dict[str, Any]:
    """Write the weekly review of the seven days ending on ``day``; returns its history entry."""
    now = _naive(now) if now is not None else app.now()
    day = day or now.date()
    with run_lock(app.state_dir, wait):
        facts = collect_weekly(app, day)
        exists = note_exists(app.vault)
        insights = ask_weekly(app, facts)
        rel = review_path(iso_week(day))
        replaced = _write_note(
            app.vault, rel, lambda old: render_review(facts, insights, old, exists)
        )
        entry = {
            "kind": "weekly-review",
            "week": facts.week,
            "date": day.isoformat(),
            "period_start": facts.start.isoformat(),
            "period_end": day.isoformat(),
            "path": rel,
            "generated": now.strftime("%Y-%m-%dT%H:%M:%S"),
            "trigger": trigger,
            "replaced": replaced,
            "counts": facts.counts(),
            "llm": insights.as_json(),
        }
        app.store.append_jsonl(REVIEW_HISTORY, entry)
    log.debug("weekly review %s written (%s)", rel, "replaced" if replaced else "new")
    return entry


def latest_digest(app: Brain) -> dict[str, Any]:
    """The last digest's history entry, with the note's current text (``text``)."""
    return _latest(app, DIGEST_HISTORY, "no digest yet; run `vaultbrain digest run`")


def latest_review(app: Brain) -> dict[str, Any]:
    """The last weekly review's history entry, with the note's current text (``text``)."""
    return _latest(app, REVIEW_HISTORY, "no weekly review yet; run `vaultbrain weekly run`")


def _latest(app: Brain, history: str, missing: str) -> dict[str, Any]:
    last = None
    for entry in app.store.read_jsonl(history):
        last = entry
    if last is None:
        raise UserError(missing)
    note = app.vault.try_read(last["path"]) if last.get("path") else None
    out = dict(last)
    out["text"] = note.text if note is not None else None
    return out


def _tending(app: Brain, day: dt.date) -> str:
    """The night's tending, as the digest shows it (vaultbrain/tend/report.py)."""
    from vaultbrain.tend.report import for_digest

    return for_digest(app, day)


def _with_tending(text: str, tending: str) -> str:
    """The digest with its tending section before "Needs review" (nothing when none)."""
    mark = "\n## Needs review\n"
    if not tending or mark not in text:
        return text
    at = text.index(mark) + 1
    return text[:at] + tending + text[at:]


def _naive(when: dt.datetime) -> dt.datetime:
    """Notes show local wall-clock time without an offset."""
    if when.tzinfo is not None:
        when = when.astimezone().replace(tzinfo=None)
    return when.replace(microsecond=0)


def _write_note(vault: Vault, rel: str, build: Callable[[str | None], str]) -> bool:
    """Create or replace ``rel`` with compare-and-swap; True when a note was there before.
    The note carries no stamp of the run, so a run that finds what the last one found
    leaves the file as it is (``Vault.edit`` writes nothing for the same text)."""
    edit = vault.edit(rel, lambda note: build(note.text if note is not None else None))
    return edit.before is not None


def _link_daily_note(app: Brain, day: dt.date, digest_rel: str) -> str | None:
    """Append a link to the digest to the day's daily note, once; the note's path or None."""
    folder = str(app.settings.get("daily_notes_folder") or "").strip().strip("/")
    if not folder:
        return None
    rel = f"{folder}/{day.isoformat()}.md"
    if is_ignored(rel):
        return None
    target = digest_rel[:-3]
    # Linked before and the link is gone: the person removed it, which is their call.
    for entry in app.store.read_jsonl(DIGEST_HISTORY):
        if entry.get("date") == day.isoformat() and entry.get("daily_note") == rel:
            return rel
    line = f"[[{target}|Daily digest]]"

    def build(note: NoteFile | None) -> str | None:
        if note is None or f"[[{target}|" in note.text or f"[[{target}]]" in note.text:
            return None  # no daily note that day, or linked already
        text = note.text
        nl = newline_of(text)
        if text and not text.endswith(("\n", "\r")):
            text += nl
        if text.strip() and not text.endswith(nl + nl):
            text += nl  # a paragraph of its own, not the tail of a list item
        return text + line + nl

    try:
        edit = app.vault.edit(rel, build)
    except UserError as exc:  # unreadable, or it keeps changing
        log.warning("daily note %s left alone: %s", rel, exc)
        return None
    return rel if edit.before is not None else None


def note_exists(vault: Vault) -> Callable[[str], bool]:
    """Whether a wikilink target names a note, as Obsidian resolves it: a path from the vault
    root, or a note's name anywhere (``[[Sarah]]``), any case. The vault is listed once."""
    names: set[str] | None = None

    def exists(target: str) -> bool:
        nonlocal names
        low = target.strip().replace("\\", "/").lower()
        low = low[:-3] if low.endswith(".md") else low
        if names is None:
            names = set()
            for rel, _ in vault.iter_notes():
                stem = rel.lower()[:-3]
                names.add(stem)
                names.add(stem.rsplit("/", 1)[-1])
        return low in names

    return exists
