"""One pass over the inbox note: anchor ready lines, journal them, and bring every taken line
to the form its capture's status calls for — all in a single compare-and-swap rewrite.

Only called when the note has been quiet for the settle time, so the person is never typing
in a line that is being rewritten; if the note changed anyway, the write is refused and the
pass runs again on the next quiet moment.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from vaultbrain.errors import ConflictError, UserError
from vaultbrain.filing.capture import Filer, check_thought
from vaultbrain.filing.inbox import WAITING, unusable_inbox, words_of
from vaultbrain.vault.inbox import render_taken_line, replace_lines, scan_inbox

log = logging.getLogger("vaultbrain.inbox")


@dataclass
class InboxPass:
    new: list[str] = field(default_factory=list)  # capture ids journaled by this pass
    rewritten: int = 0
    skipped: list[str] = field(default_factory=list)
    conflict: bool = False
    text_hash: str | None = None


def reconcile_inbox(filer: Filer, idle: bool, take_new: bool = True) -> InboxPass:
    """``idle``: the note has been quiet for ``inbox_idle_seconds`` (take unterminated lines too)."""
    app = filer.app
    rel = filer.inbox_rel
    result = InboxPass()
    problem, news = unusable_inbox(app.vault, rel)  # a symlink, a folder: said once, not taken
    if problem:
        result.skipped += [problem] if news else []
        return result
    try:
        note = app.vault.try_read(rel)
    except UserError as exc:
        result.skipped.append(str(exc))
        return result
    if note is None:
        return result
    text = note.text
    lines = scan_inbox(text)
    replacements: dict[int, str] = {}
    forms: dict[str, tuple[str, bool]] = {}
    new: list[tuple[str, str]] = []
    seen: set[str] = set()
    summaries = app.store.inbox.snapshot() if any(line.block_id for line in lines) else {}
    for line in lines:
        if line.block_id:
            cid = line.block_id
            if cid in seen:
                result.skipped.append(
                    f"line {line.number + 1}: a second copy of ^vb-{cid}; left alone"
                )
                continue
            seen.add(cid)
            view = _line_view(filer, cid, summaries.get(cid))
            words = words_of(line, view)
            if view is None:
                new.append((cid, words))
                suffix, done = WAITING, False
            else:
                suffix, done = view["form"]
            new_raw = render_taken_line(line, words, suffix, cid, done)
            forms[cid] = (suffix, done)
            if new_raw != line.raw:
                replacements[line.number] = new_raw
            continue
        if not take_new or (not line.terminated and not idle):
            continue
        try:
            thought = check_thought(line.text)
        except UserError as exc:
            result.skipped.append(f"line {line.number + 1}: {exc}")
            continue
        cid = filer.new_capture_id()
        while cid in seen:
            cid = filer.new_capture_id()
        seen.add(cid)
        replacements[line.number] = render_taken_line(line, thought, WAITING, cid, False)
        forms[cid] = (WAITING, False)
        new.append((cid, thought))
    if replacements:
        new_text = replace_lines(text, replacements)
        try:
            result.text_hash = app.vault.replace(rel, new_text, note.hash)
        except ConflictError:
            result.conflict = True
            return result
        result.rewritten = len(replacements)
    for cid, words in new:
        filer.journal(cid, words, "inbox", rel)
        result.new.append(cid)
    _remember_forms(filer, forms)
    return result


def _line_view(filer: Filer, cid: str, summary: dict | None) -> dict | None:
    """What an anchored line needs of its capture (its text, our last suffix, the form its
    status calls for), from memory while the capture is unchanged: a pass over an inbox of
    thousands of taken lines reads only the captures that changed."""
    store = filer.app.store
    if summary is None:
        return None
    key = (summary.get("updated"), summary.get("status"), summary.get("rev"))
    hit = filer.line_views.get(cid)
    if hit is not None and hit[0] == key:
        return hit[1]
    record = store.inbox.get(cid, include_deleted=True)
    if record is None:
        return None
    view = {
        "text": record.get("text", ""),
        "line_suffix": record.get("line_suffix"),
        "line_done": record.get("line_done"),
        "form": filer.line_form(record),
    }
    filer.line_views[cid] = (key, view)
    return view


def _remember_forms(filer: Filer, forms: dict[str, tuple[str, bool]]) -> None:
    store = filer.app.store
    stale = []
    for cid, (suffix, done) in forms.items():
        hit = filer.line_views.get(cid)
        if hit is None or hit[1]["line_suffix"] != suffix or hit[1]["line_done"] != done:
            stale.append((cid, suffix, done))
    if not stale:
        return
    with store.locked():
        for cid, suffix, done in stale:
            rec = store.inbox.get(cid)
            if rec is None:
                continue
            if rec.get("line_suffix") != suffix or rec.get("line_done") != done:
                rec["line_suffix"], rec["line_done"] = suffix, done
                store.inbox.put(rec, durable=False)  # the line itself says it
            hit = filer.line_views.get(cid)
            if hit is not None:
                hit[1]["line_suffix"], hit[1]["line_done"] = suffix, done
