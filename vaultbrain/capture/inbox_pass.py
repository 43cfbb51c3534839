"""One pass over the inbox note: the person's gestures carried out, new lines anchored and
journaled, every taken line brought to the form its capture's status calls for, all in a
single compare-and-swap rewrite, and only when the note is quiet (the person is never
typing in a line being rewritten; if the note changed anyway, the write is refused and the
pass runs again on the next quiet moment).

Reading is separate from doing: the gestures of a pass (inbox and Needs Review lines) are
decided by the pure :func:`vaultbrain.capture.gestures.decide_lines` and carried out by
:func:`vaultbrain.capture.acts.carry_out`; then the lines are drawn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from vaultbrain.capture import acts, daily
from vaultbrain.capture.daily import where
from vaultbrain.capture.gestures import (
    Gesture,
    LineView,
    Reading,
    decide_lines,
    read_inbox_line,
)
from vaultbrain.capture.lines import (
    WAITING,
    check_thought,
    rebuild,
    review_link,
    short_lines,
    view_of,
    what_line_says,
)
from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.capture.reasons import llm_set_up
from vaultbrain.errors import ConflictError, UserError
from vaultbrain.filing import unreadable
from vaultbrain.filing.inbox import parts_of, split_taken, unusable_inbox
from vaultbrain.filing.setup import held_lines
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault import content_hash
from vaultbrain.vault.inbox import InboxLine, render_taken_line, replace_lines, scan_inbox

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal

log = logging.getLogger("vaultbrain.review")
# A line that lost its ^vb- id (an editor's undo, a device's late copy of the note) is given
# back to a capture made this recently whose line is gone: found by its words' hash and its
# ordinal among identical lines, it is never filed a second time. Older than this, the same
# words typed again are a new thought (people write "call mom" every week).
RECENT_CAPTURE = timedelta(hours=2)
# ...unless its line has been gone longer than a sync tool takes to deliver a late copy and
# the capture is finished: then the person deleted the line, and the same words typed again
# ("drink water" every hour) are a new thought. A late copy or an undo removes the id'd line
# in the same change that brings back the bare one, so it is matched within this time.
LINE_GONE_GRACE = timedelta(minutes=10)
# Our mark on a line that cannot be filed (too long, bytes that are not text): the line stays
# as typed, with why and what to do after it, and is not taken until the person changes it.
NOT_FILED = " ⚠ not filed: "
_MARK = LazyPattern(r" ⚠ not filed: [^⚠]*$")


@dataclass
class InboxPass:
    new: list[str] = field(default_factory=list)  # capture ids journaled by this pass
    rewritten: int = 0
    skipped: list[str] = field(default_factory=list)  # to say (each once per process)
    conflict: bool = False
    text_hash: str | None = None
    unfinished: bool = False  # a line without a newline waits for the idle pass
    settling: int = 0  # finished lines not taken yet: the note is not quiet
    applied: list[str] = field(default_factory=list)  # the person's gestures carried out


@dataclass
class _Memory:
    """What one process remembers between passes (kept in the brain's memo)."""

    present: dict[str, set[str]] = field(default_factory=dict)  # inbox -> ids on its lines
    missing_said: dict[str, str] = field(default_factory=dict)  # inbox -> what was said
    views: dict[str, tuple[Any, LineView]] = field(default_factory=dict)
    keys: dict[str, tuple[str, Any, Any]] = field(default_factory=dict)  # created, note, hash
    said: set[str] = field(default_factory=set)  # problems said once


def _memory(brain: Brain) -> _Memory:
    return brain.memo("inbox_pass", None, _Memory)


def inbox_known(brain: Brain) -> None:
    """The inbox is there as the daemon starts: its disappearance from now on is said, even
    before the first pass has read it."""
    rel = brain.inbox_rel
    try:
        if brain.vault.resolve(rel).is_file():
            _memory(brain).missing_said[rel] = f"seen:{rel}"
    except (UserError, OSError):
        pass  # an unsafe or unreadable inbox is said by the pass


def reconcile_inbox(
    brain: Brain,
    journal: Journal,
    idle: bool,
    take_new: bool = True,
    gestures: bool = True,
    note: str | None = None,
    heading: str | None = None,
) -> InboxPass:
    """One pass over the inbox note.

    ``idle``: the note has been quiet for ``inbox_idle_seconds`` (take unterminated lines too).
    ``gestures``: carry out what the person did to the lines vaultbrain wrote (the filer's
    daemon does; a pass that only redraws lines does not).
    ``note`` and ``heading``: another note read as an inbox, only its lines under
    ``heading`` (a daily note's capture section: vaultbrain/vault/daily.py); its gestures
    are its lines' own (Needs Review's are read with the inbox's).
    """
    result = InboxPass()
    rel = note or brain.inbox_rel
    found = _read(brain, result, rel, heading)
    if found is None:
        return result
    lines = found[1]
    memory = _memory(brain)
    summaries = brain.store.inbox.snapshot() if any(line.block_id for line in lines) else {}
    if _rebuilt(brain, journal, lines, summaries, rel):
        summaries = brain.store.inbox.snapshot()
    if gestures:
        applied = _gestures(brain, lines, summaries, memory, result, review=note is None)
        if applied:
            result.applied = applied
            again = reconcile_inbox(brain, journal, idle, take_new, False, note, heading)
            again.skipped[:0] = result.skipped
            again.applied = applied
            return again
    return _draw(brain, journal, found[0], lines, summaries, memory, idle, take_new, result, rel)


def _read(
    brain: Brain, result: InboxPass, rel: str | None = None, heading: str | None = None
) -> tuple[Any, list[InboxLine]] | None:
    rel = rel or brain.inbox_rel
    problem, news = unusable_inbox(brain.vault, rel)  # a symlink, a folder: said once, not taken
    if problem:
        result.skipped += [problem] if news else []
        return None
    try:
        note = brain.vault.try_read(rel)
    except UserError as exc:
        result.skipped.append(str(exc))
        return None
    memory = _memory(brain)
    if note is None:
        # Renamed or deleted since this process read it: nothing is read until it is back.
        # Said once, not every pass (an inbox never made is not news).
        if memory.missing_said.get(rel) == f"seen:{rel}":
            memory.missing_said[rel] = rel
            result.skipped.append(
                f"{rel} is gone (renamed or deleted?): no thought is taken until it is back; "
                f"to use another note: `vaultbrain settings set inbox_note NEW.md`"
            )
        return None
    memory.missing_said[rel] = f"seen:{rel}"
    lines = scan_inbox(note.text, with_undecodable=True)
    if heading:
        # A daily note: only its capture section is an inbox; the rest is never read as one.
        # One still holding a template's tags (Templater has not filled it in yet) is not.
        from vaultbrain.vault.daily import section_lines
        from vaultbrain.vault.obsidian import is_template_text

        if is_template_text(note.text):
            return note, []

        section = section_lines(note.text, heading)
        lines = [line for line in lines if line.number in section]
        daily.note_bytes(brain, rel, note.text, lines)  # not UTF-8: listed where they are
        return note, lines
    unreadable.note_inbox(brain, rel, note.text)  # lines that are not UTF-8: listed, marked
    return note, lines


def apply_gestures(brain: Brain, now: bool = False) -> list[str]:
    """The person's gestures carried out, outside an inbox pass (the review note changed):
    Needs Review's items, with the inbox's lines when nobody is typing there. ``now``: the
    notes as they are, quiet or not (a command the person just ran)."""
    lines: list[InboxLine] = []
    result = InboxPass()  # what the read says (an inbox gone, said once) is said here too
    if now or _settled(brain):
        found = _read(brain, result)
        if found is not None:
            lines = found[1]
    summaries = brain.store.inbox.snapshot() if any(line.block_id for line in lines) else {}
    done = _gestures(brain, lines, summaries, _memory(brain), result, now)
    for said in result.skipped:
        log.warning("%s", said)
    if done and lines:
        # The lines drawn at once in their new forms, an arrow the person wrote consumed
        # (nothing new is taken here: that is the inbox pass's, when the note is quiet).
        from vaultbrain.capture.journal import Journal

        reconcile_inbox(brain, Journal(brain), idle=False, take_new=False, gestures=False)
    return done


def _settled(brain: Brain) -> bool:
    from vaultbrain.capture.review import quiet

    return quiet(brain, brain.inbox_rel)


def _gestures(
    brain: Brain,
    lines: list[InboxLine],
    summaries: dict[str, Any],
    memory: _Memory,
    result: InboxPass,
    now: bool = False,
    review: bool = True,
) -> list[str]:
    """The person's gestures on the inbox's taken lines and in Needs Review (``review``),
    carried out; what was done (one line each, for the log)."""
    from vaultbrain.capture.review import read_review

    anchored = [
        (line, view)
        for line in lines
        if line.block_id
        and (view := _view(brain, line.block_id, summaries.get(line.block_id), memory)) is not None
    ]
    queue = read_review(brain, now) if review else None
    views = {view.id: view for _, view in anchored}
    if queue is not None:
        for item in queue.items:
            if item.kind == "vbr" and item.id not in views:
                view = _view(brain, item.id, brain.store.inbox.summary(item.id), memory)
                if view is not None:
                    views[item.id] = view
        for key in queue.base or ():
            rid = key.split("-", 1)[1]
            if key.startswith("vbr-") and rid not in views:
                view = _view(brain, rid, brain.store.inbox.summary(rid), memory)
                if view is not None:
                    views[rid] = view
    decision = decide_lines(
        _first_copies(anchored),
        views,
        queue.items if queue is not None else None,
        queue.base if queue is not None else None,
        acts.type_names(brain),
    )
    if not decision.acts:
        return []
    outcome = acts.carry_out(brain, decision.acts)
    result.skipped += outcome.said
    if queue is not None and outcome.done:
        queue.forget_base()  # the note is drawn again: its deleted lines are accounted for
    return outcome.done


def _rebuilt(
    brain: Brain,
    journal: Journal,
    lines: list[InboxLine],
    summaries: dict[str, Any],
    rel: str | None = None,
) -> bool:
    """The captures of anchored lines this store does not know (a lost state dir, a new
    machine), rebuilt from what their lines say before anything else: a gesture the person
    made on such a line is read in this same pass. A line still waiting is journaled by
    the drawing below (it is filed here)."""
    done = False
    for line in lines:
        cid = line.block_id
        if not cid or cid in summaries:
            continue
        words, shown, _ = parts_of(line, None)
        if shown is not None and not shown.startswith("⏳"):
            done |= (
                rebuild(brain, journal, cid, words, shown, line.checked, rel or brain.inbox_rel)
                is not None
            )
    return done


def _first_copies(pairs: list[tuple[InboxLine, LineView]]) -> list[tuple[InboxLine, LineView]]:
    seen: set[str] = set()
    out = []
    for line, view in pairs:
        if view.id not in seen:
            seen.add(view.id)
            out.append((line, view))
    return out


def _draw(
    brain: Brain,
    journal: Journal,
    note: Any,
    lines: list[InboxLine],
    summaries: dict[str, Any],
    memory: _Memory,
    idle: bool,
    take_new: bool,
    result: InboxPass,
    rel: str | None = None,
) -> InboxPass:
    """Anchor and journal new lines, bring taken ones to their forms: one rewrite."""
    rel = rel or brain.inbox_rel
    text = note.text
    replacements: dict[int, str] = {}
    forms: dict[str, tuple[str, bool]] = {}
    new: list[tuple[str, str]] = []
    adopted: set[str] = set()
    seen: set[str] = set()
    present = {line.block_id for line in lines if line.block_id}
    before = memory.present.get(rel)
    vanished = before - present if before is not None else set()
    if vanished and not summaries:
        summaries = brain.store.inbox.snapshot()
    held = held_lines(brain) if any(not line.block_id for line in lines) else {}
    lost = _recent_lost(brain, rel, present, memory) if len(present) < len(lines) else {}
    back: set[str] = set()  # lines an undo or a late copy brought back: no longer gone
    names = None
    for line in lines:
        if line.block_id:
            cid = line.block_id
            if cid in seen:
                place = where(brain, rel, text, line.number)
                _say_once(memory, result, f"{place}: a second copy of ^vb-{cid}; left alone")
                continue
            seen.add(cid)
            view = _view(brain, cid, summaries.get(cid), memory)
            if view is None:
                words, shown, remark = parts_of(line, None)
                rebuilt = rebuild(brain, journal, cid, words, shown, line.checked, rel)
                if rebuilt is None:
                    new.append((cid, words))
                    adopted.add(cid)  # anchored elsewhere: maybe filed there already
                    suffix, done = WAITING, False
                    new_raw = render_taken_line(line, words, suffix, cid, done, remark)
                    if new_raw != line.raw:
                        replacements[line.number] = new_raw
                    forms[cid] = (suffix, done)
                else:
                    forms[cid] = rebuilt
                continue
            if names is None:
                names = acts.type_names(brain)
            reading = read_inbox_line(line, view, names)
            if _finished_elsewhere(view, reading.shown):
                forms[cid] = _follow_line(brain, journal, cid, reading.shown or "", line.checked)
                continue
            consumed = reading.gesture is Gesture.RETYPE
            drawn = _drawn(line, view, reading, consumed)
            if drawn is not None:
                replacements[line.number] = drawn[0]
                forms[cid] = drawn[1]
            continue
        if _MARK.search(line.text) and not _changed_since_marked(line):
            continue  # marked as not filed: waits for the person to change it
        words, shown, remark = _unanchored_parts(_MARK.sub("", line.text))
        candidates = lost.get(content_hash(words))
        if candidates and shown is None:
            # Bare words (no suffix of ours): the person typing them again after deleting
            # the line a while ago is a new thought, not the old capture coming back.
            candidates[:] = [c for c in candidates if c in vanished or not _long_gone(brain, c)]
        if candidates:
            cid = candidates.pop(0)  # the ordinal: identical lines in the order they were taken
            seen.add(cid)
            back.add(cid)
            summary = summaries.get(cid) or brain.store.inbox.summary(cid)
            view = _view(brain, cid, summary, memory)
            suffix, done = view.form if view is not None else (WAITING, False)
            replacements[line.number] = render_taken_line(line, words, suffix, cid, done, remark)
            forms[cid] = (suffix, done)
            continue
        if not take_new:
            continue
        if not line.terminated and not idle:
            result.unfinished = True
            continue
        text_hash = content_hash(line.text)
        if held.get(text_hash):
            held[text_hash] -= 1  # there before vaultbrain: filed only when the person asks
            continue
        why = _unfileable(line, words)
        if why is not None:
            replacements[line.number] = f"{_MARK.sub('', line.raw)}{NOT_FILED}{why}"
            _say_once(memory, result, f"{where(brain, rel, text, line.number)}: not filed: {why}")
            continue
        cid = journal.new_id()
        while cid in seen:
            cid = journal.new_id()
        seen.add(cid)
        replacements[line.number] = render_taken_line(line, words, WAITING, cid, False, remark)
        forms[cid] = (WAITING, False)
        new.append((cid, words))
    if replacements:
        new_text = replace_lines(text, replacements)
        try:
            result.text_hash = brain.vault.replace(rel, new_text, note.hash)
        except ConflictError:
            result.conflict = True
            return result
        result.rewritten = len(replacements)
    memory.present[rel] = present | back | {cid for cid, _ in new}
    # Only captures recent enough to be matched again are worth the stamp (a person
    # clearing a thousand old lines at once costs nothing here).
    recent = (brain.now() - RECENT_CAPTURE).isoformat()
    gone = {c for c in vanished - back if str(summaries.get(c, {}).get("updated", "")) >= recent}
    journal.lines_gone(gone, back)
    for cid, words in new:
        suffix, done = forms[cid]  # (made with the form its line has: no second write)
        journal.open(
            cid,
            words,
            "inbox",
            rel,
            adopted=cid in adopted or None,
            line_suffix=suffix,
            line_done=done,
        )
        result.new.append(cid)
    _remember_forms(journal, memory, forms)
    return result


def _drawn(
    line: InboxLine, view: LineView, reading: Reading, consumed: bool
) -> tuple[str, tuple[str, bool]] | None:
    """The line as it must be written now (and the form it shows), or None: left as it is.

    A line is redrawn when its capture's form changed since it was last written, when our
    suffix is missing (it is what says the line was taken) or is an older form of ours (a
    device's late copy), and when a gesture was consumed (the arrow leaves the line). A
    line whose suffix the person edited, and whose form did not change, stays theirs; so
    does the box they set on a line whose form did not change (a filed line unticked).
    """
    suffix, done = view.form
    changed = (suffix, done) != (view.written_suffix, view.written_done)
    box: str | None = None  # the form's
    if not (changed or consumed):
        # Our suffix cut or typed into by the person is drawn whole again (it is what says
        # what the line became), with every word they typed kept after it.
        if reading.intact and (reading.shown is None or reading.shown == suffix):
            # Our suffix gone (put back), or as written: drawn only where the person moved
            # the block id (it goes back to the end); their box stays as they set it.
            box = line.box
    new_raw = render_taken_line(
        _with_after(line, reading.after), reading.words, suffix, view.id, done, reading.remark, box
    )
    if new_raw == line.raw:
        return None
    return new_raw, (suffix, done)


def _with_after(line: InboxLine, after: str) -> InboxLine:
    import dataclasses

    return dataclasses.replace(line, after_id=after) if after != line.after_id else line


def _unfileable(line: InboxLine, words: str) -> str | None:
    """Why a finished line cannot be filed (said on the line), or None."""
    if getattr(line, "undecodable", False):
        return (
            "this line has bytes that are not UTF-8 text (from a script or an old editor?); "
            "retype it, then delete this mark"
        )
    try:
        check_thought(words)
    except UserError as exc:
        return (
            f"{str(exc).split('.')[0]}: put long text in a note of its own; then delete this mark"
        )
    return None


def _changed_since_marked(line: InboxLine) -> bool:
    """A marked line the person shortened (or fixed) is taken again."""
    words = _MARK.sub("", line.text)
    return _unfileable(line, words) is None


def _say_once(memory: _Memory, result: InboxPass, text: str) -> None:
    if text not in memory.said:
        memory.said.add(text)
        result.skipped.append(text)


def _unanchored_parts(text: str) -> tuple[str, str | None, str]:
    """A line with no id may still carry our suffix (an id removed by an undo or a late
    copy): the suffix is taken off the words only in the forms nobody types (a waiting
    sign, a suggestion, "→ filed"), so a person's own "→ [[Note]]" stays their thought."""
    words, suffix, remark = split_taken(text)
    if suffix is None or (
        suffix.startswith("→ [[") and "(suggested" not in suffix and review_link(suffix) is None
    ):
        return text, None, ""
    return words, suffix, remark


def _long_gone(brain: Brain, cid: str) -> bool:
    """Whether a finished capture's line has been gone longer than LINE_GONE_GRACE."""
    rec = brain.store.inbox.get(cid)
    if rec is None or rec.get("status") == CaptureStatus.PENDING or not rec.get("line_gone_at"):
        return False
    return str(rec["line_gone_at"]) < (brain.now() - LINE_GONE_GRACE).isoformat()


def _recent_lost(
    brain: Brain, rel: str, present: set[str], memory: _Memory
) -> dict[str, list[str]]:
    """Captures of this inbox made within RECENT_CAPTURE whose line is gone, by their
    words' hash, oldest first: the lines an undo or a late copy may bring back without id."""
    cutoff = (brain.now() - RECENT_CAPTURE).isoformat()
    found: list[tuple[str, str, str]] = []
    for cid, summary in brain.store.inbox.snapshot().items():
        if cid in present or summary.get("deleted") or str(summary.get("updated", "")) < cutoff:
            continue
        if summary.get("status") == CaptureStatus.DISMISSED:
            continue
        known = memory.keys.get(cid)
        if known is None:
            record = brain.store.inbox.get(cid)
            if record is None:
                continue
            known = (str(record.get("created", "")), record.get("note"), record.get("text_hash"))
            memory.keys[cid] = known  # never change once journaled: read once per process
        created, note, text_hash = known
        if note != rel or not text_hash or created < cutoff:
            continue
        found.append((created, cid, text_hash))
    out: dict[str, list[str]] = {}
    for _created, cid, text_hash in sorted(found):
        out.setdefault(text_hash, []).append(cid)
    return out


def _finished_elsewhere(view: LineView, shown: str | None) -> bool:
    """Our capture is still pending, but its line shows what it became, in a form this
    machine never wrote: another machine filed it while it held the filer role."""
    return (
        view.form[0].startswith("⏳")
        and shown is not None
        and shown.startswith("→ ")
        and shown != view.written_suffix
    )


def _follow_line(
    brain: Brain, journal: Journal, cid: str, shown: str, checked: bool
) -> tuple[str, bool]:
    """The line is the truth: our pending capture becomes what its line says, and is never
    filed again here (the form shown stays as it is)."""
    status, destinations = what_line_says(brain, shown, cid)
    journal.followed_line(cid, status, destinations, shown, checked)
    return shown, checked


def _view(brain: Brain, cid: str, summary: dict | None, memory: _Memory) -> LineView | None:
    """What an anchored line needs of its capture, from memory while the capture is
    unchanged: a pass over an inbox of thousands of taken lines reads only the captures
    that changed."""
    if summary is None:
        return None
    key = (summary.get("updated"), summary.get("status"), summary.get("rev"))
    hit = memory.views.get(cid)
    if hit is not None and hit[0] == key:
        return hit[1]
    record = brain.store.inbox.get(cid, include_deleted=True)
    if record is None:
        return None
    view = view_of(Capture.from_record(record), short_lines(brain), llm_set_up(brain.settings))
    memory.views[cid] = (key, view)
    return view


def _remember_forms(journal: Journal, memory: _Memory, forms: dict[str, tuple[str, bool]]) -> None:
    stale = {}
    for cid, (suffix, done) in forms.items():
        hit = memory.views.get(cid)
        if hit is None or (hit[1].written_suffix, hit[1].written_done) != (suffix, done):
            stale[cid] = (suffix, done)
    if not stale:
        return
    journal.lines_shown(stale)
    import dataclasses

    for cid, (suffix, done) in stale.items():
        hit = memory.views.get(cid)
        if hit is not None:
            view = dataclasses.replace(hit[1], written_suffix=suffix, written_done=done)
            memory.views[cid] = (hit[0], view)
