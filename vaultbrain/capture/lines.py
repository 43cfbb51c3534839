"""Steps 1 and 5 of filing, on the inbox note: anchor new lines, and show what each became.

Both front ends write inbox lines through this module: the CLI's ``capture`` adds its line
and finishes it with :func:`finish_line`; the daemon brings every taken line up to date in
one compare-and-swap rewrite with :func:`reconcile_inbox`, only when the note is quiet, so
the person is never typing in a line that is being rewritten (if the note changed anyway,
the write is refused and the pass runs again on the next quiet moment).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.errors import ConflictError, UserError, VaultbrainError
from vaultbrain.filing import inbox as inbox_note
from vaultbrain.filing import unreadable
from vaultbrain.filing.inbox import REVIEW_NOTE, WAITING, parts_of, split_taken, unusable_inbox
from vaultbrain.filing.records import link_to
from vaultbrain.filing.setup import held_lines
from vaultbrain.vault import content_hash
from vaultbrain.vault.inbox import render_taken_line, replace_lines, scan_inbox

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal

MAX_THOUGHT = 10_000
_MISSING_SAID: dict[int, str] = {}  # brain -> "seen:<inbox>", or the inbox said to be gone
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
# (inbox note) -> the ids its lines carried at this process's last pass: a capture whose id
# disappears from one pass to the next has its line's disappearance stamped (line_gone_at).
_PRESENT: dict[tuple[int, str], set[str]] = {}
# (state dir, capture id) -> (created, inbox note, text hash): what _recent_lost reads.
_CAPTURE_KEYS: dict[tuple[str, str], tuple[str, Any, Any]] = {}
_WIKILINK = re.compile(r"\[\[([^\[\]|\n]*)(?:\|([^\[\]\n]*))?\]\]")


def check_thought(text: str) -> str:
    """The thought to file, or a UserError saying why it cannot be."""
    thought = text.strip()
    if not thought:
        raise UserError("nothing to capture: the thought is empty")
    if len(thought) > MAX_THOUGHT:
        raise UserError(
            f"the thought is {len(thought)} characters; the limit is {MAX_THOUGHT}. "
            "Put long text in a note of its own and capture a line about it."
        )
    if "\n" in thought or "\r" in thought:
        raise UserError("a thought is one line; capture each line on its own")
    return thought


def line_form(cap: Capture | dict[str, Any]) -> tuple[str, bool]:
    """Our suffix for the capture's inbox line, and whether the line is ticked."""
    if isinstance(cap, dict):
        cap = Capture.from_record(cap)
    status = cap.status
    links = " · ".join(link_to(d["path"], d["title"]) for d in cap.destinations)
    review = link_to(REVIEW_NOTE, "Needs Review")
    if status in (CaptureStatus.FILED, CaptureStatus.CORRECTED):
        return (f"→ {links}" if links else "→ filed"), True
    if status is CaptureStatus.SUGGESTED:
        return f"→ {links} (suggested: confirm in {review})", False
    if status is CaptureStatus.NEEDS_REVIEW:
        return f"→ needs review in {review}", False
    if status is CaptureStatus.DISMISSED:
        return "→ dismissed", True
    if cap.last_error:
        return f"{WAITING} (offline, will retry)", False
    return WAITING, False


def add_line(brain: Brain, thought: str, capture_id: str) -> None:
    """The CLI's capture: its thought as a new, already anchored inbox line."""
    inbox_note.add_line(brain.vault, brain.inbox_rel, f"- [ ] {thought} {WAITING} ^vb-{capture_id}")


def finish_line(brain: Brain, journal: Journal, cap: Capture) -> Capture:
    """Rewrite the capture's line to the form its status calls for (once per form)."""
    if not cap.note:
        return cap
    suffix, done = line_form(cap)
    if cap.line_suffix == suffix and cap.line_done == done:
        return cap
    present = inbox_note.rewrite_line(brain.vault, cap.note, cap.id, cap.line_suffix, suffix, done)

    def shown(c: Capture) -> None:
        c.line_suffix, c.line_done = suffix, done
        if not present:
            c.line_missing = True
        c.lease = None

    # Not fsynced: the line itself says it.
    return journal.advance(cap.id, shown, durable=False, touch=False)


@dataclass
class InboxPass:
    new: list[str] = field(default_factory=list)  # capture ids journaled by this pass
    rewritten: int = 0
    skipped: list[str] = field(default_factory=list)
    conflict: bool = False
    text_hash: str | None = None
    unfinished: bool = False  # a line without a newline waits for the idle pass


def inbox_known(brain: Brain) -> None:
    """The inbox is there as the daemon starts: its disappearance from now on is said, even
    before the first pass has read it."""
    rel = brain.inbox_rel
    try:
        if brain.vault.resolve(rel).is_file():
            _MISSING_SAID[id(brain)] = f"seen:{rel}"
    except (UserError, OSError):
        pass  # an unsafe or unreadable inbox is said by the pass


def reconcile_inbox(
    brain: Brain,
    journal: Journal,
    idle: bool,
    take_new: bool = True,
    confirm: Callable[[Brain, str], Any] | None = None,
) -> InboxPass:
    """One pass over the inbox note: anchor ready lines, journal them, and bring every taken
    line to the form its capture's status calls for, all in a single compare-and-swap rewrite.

    ``idle``: the note has been quiet for ``inbox_idle_seconds`` (take unterminated lines too).
    ``confirm``: a suggestion's line the person ticked confirms the suggestion first, with
    this (``capture.resolution.confirm``, which sits above this module: the daemon hands it in).
    """
    rel = brain.inbox_rel
    result = InboxPass()
    problem, news = unusable_inbox(brain.vault, rel)  # a symlink, a folder: said once, not taken
    if problem:
        result.skipped += [problem] if news else []
        return result
    try:
        note = brain.vault.try_read(rel)
    except UserError as exc:
        result.skipped.append(str(exc))
        return result
    if note is None:
        # Renamed or deleted since this process read it: nothing is read until it is back.
        # Said once, not every pass (an inbox never made is not news).
        if _MISSING_SAID.get(id(brain)) == f"seen:{rel}":
            _MISSING_SAID[id(brain)] = rel
            result.skipped.append(
                f"{rel} is gone (renamed or deleted?): no thought is taken until it is back; "
                f"to use another note: `vaultbrain settings set inbox_note NEW.md`"
            )
        return result
    _MISSING_SAID[id(brain)] = f"seen:{rel}"
    text = note.text
    unreadable.note_inbox(brain, rel, text)  # lines that are not UTF-8: listed, not taken
    lines = scan_inbox(text)
    replacements: dict[int, str] = {}
    forms: dict[str, tuple[str, bool]] = {}
    new: list[tuple[str, str]] = []
    adopted: set[str] = set()
    seen: set[str] = set()
    present = {line.block_id for line in lines if line.block_id}
    before = _PRESENT.get((id(brain), rel))
    vanished = before - present if before is not None else set()
    summaries = brain.store.inbox.snapshot() if present or vanished else {}
    ticked = [
        line.block_id
        for line in lines
        if line.block_id
        and line.checked
        and (summaries.get(line.block_id) or {}).get("status") == "suggested"
    ]
    if ticked and confirm is not None:
        _confirm_ticked(brain, ticked, result, confirm)
        again = reconcile_inbox(brain, journal, idle, take_new)
        again.skipped[:0] = result.skipped
        return again
    held = held_lines(brain) if any(not line.block_id for line in lines) else {}
    lost = _recent_lost(brain, rel, present) if len(present) < len(lines) else {}
    back: set[str] = set()  # lines an undo or a late copy brought back: no longer gone
    for line in lines:
        if line.block_id:
            cid = line.block_id
            if cid in seen:
                result.skipped.append(
                    f"line {line.number + 1}: a second copy of ^vb-{cid}; left alone"
                )
                continue
            seen.add(cid)
            view = _line_view(brain, cid, summaries.get(cid))
            words, shown, remark = parts_of(line, view)
            if view is None:
                rebuilt = _rebuild(brain, journal, cid, words, shown, line.checked, rel)
                if rebuilt is None:
                    new.append((cid, words))
                    adopted.add(cid)  # anchored elsewhere: maybe filed there already
                    suffix, done = WAITING, False
                else:
                    suffix, done = rebuilt
            elif _finished_elsewhere(view, shown):
                suffix, done = _follow_line(brain, journal, cid, shown, line.checked)
            else:
                suffix, done = view["form"]
            new_raw = render_taken_line(line, words, suffix, cid, done, remark)
            forms[cid] = (suffix, done)
            if new_raw != line.raw:
                replacements[line.number] = new_raw
            continue
        words, shown, remark = _unanchored_parts(line.text)
        candidates = lost.get(content_hash(words))
        if candidates and shown is None:
            # Bare words (no suffix of ours): the person typing them again after deleting
            # the line a while ago is a new thought, not the old capture coming back.
            candidates[:] = [c for c in candidates if c in vanished or not _long_gone(brain, c)]
        if candidates:
            cid = candidates.pop(0)  # the ordinal: identical lines in the order they were taken
            seen.add(cid)
            back.add(cid)
            view = _line_view(brain, cid, summaries.get(cid) or brain.store.inbox.summary(cid))
            suffix, done = view["form"] if view is not None else (WAITING, False)
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
        try:
            thought = check_thought(words)
        except UserError as exc:
            result.skipped.append(f"line {line.number + 1}: {exc}")
            continue
        cid = journal.new_id()
        while cid in seen:
            cid = journal.new_id()
        seen.add(cid)
        replacements[line.number] = render_taken_line(line, thought, WAITING, cid, False, remark)
        forms[cid] = (WAITING, False)
        new.append((cid, thought))
    if replacements:
        new_text = replace_lines(text, replacements)
        try:
            result.text_hash = brain.vault.replace(rel, new_text, note.hash)
        except ConflictError:
            result.conflict = True
            return result
        result.rewritten = len(replacements)
    _PRESENT[(id(brain), rel)] = present | back | {cid for cid, _ in new}
    # Only captures recent enough to be matched again are worth the stamp (a person
    # clearing a thousand old lines at once costs nothing here).
    recent = (brain.now() - RECENT_CAPTURE).isoformat()
    gone = {c for c in vanished - back if str(summaries.get(c, {}).get("updated", "")) >= recent}
    _stamp_gone(brain, gone, back)
    for cid, words in new:
        suffix, done = forms[cid]  # (made with the form its line has: no second write)
        extra = {"adopted": True} if cid in adopted else {}
        journal.open(cid, words, "inbox", rel, extra=extra, line_suffix=suffix, line_done=done)
        result.new.append(cid)
    _remember_forms(brain, forms)
    return result


def _confirm_ticked(
    brain: Brain, ids: list[str], result: InboxPass, confirm: Callable[[Brain, str], Any]
) -> None:
    """Ticking a suggestion's line is the most natural "yes": it confirms the suggestion, as
    ticking it in Needs Review does (the line is rewritten to its filed form by confirm)."""
    for cid in ids:
        try:
            confirm(brain, cid)
        except UserError as exc:
            result.skipped.append(f"^vb-{cid}: {exc}")


def _unanchored_parts(text: str) -> tuple[str, str | None, str]:
    """A line with no id may still carry our suffix (an id removed by an undo or a late
    copy): the suffix is taken off the words only in the forms nobody types (a waiting
    sign, a suggestion, "→ filed"), so a person's own "→ [[Note]]" stays their thought."""
    words, suffix, remark = split_taken(text)
    if suffix is None or (suffix.startswith("→ [[") and "(suggested" not in suffix):
        return text, None, ""
    return words, suffix, remark


def _stamp_gone(brain: Brain, gone: set[str], back: set[str]) -> None:
    """When a capture's line went missing (``line_gone_at``), or that it is back."""
    if not gone and not back:
        return
    now = brain.now().isoformat()
    with brain.store.locked():
        for cid in gone | back:
            rec = brain.store.inbox.get(cid)
            if rec is None or (cid in back and "line_gone_at" not in rec):
                continue
            if cid in back:
                del rec["line_gone_at"]
            else:
                rec["line_gone_at"] = now
            brain.store.inbox.put(rec, durable=False)  # lost with a crash: matched as before


def _long_gone(brain: Brain, cid: str) -> bool:
    """Whether a finished capture's line has been gone longer than LINE_GONE_GRACE."""
    rec = brain.store.inbox.get(cid)
    if rec is None or rec.get("status") == CaptureStatus.PENDING or not rec.get("line_gone_at"):
        return False
    return str(rec["line_gone_at"]) < (brain.now() - LINE_GONE_GRACE).isoformat()


def _recent_lost(brain: Brain, rel: str, present: set[str]) -> dict[str, list[str]]:
    """Captures of this inbox made within RECENT_CAPTURE whose line is gone, by their
    words' hash, oldest first: the lines an undo or a late copy may bring back without id."""
    cutoff = (brain.now() - RECENT_CAPTURE).isoformat()
    found: list[tuple[str, str, str]] = []
    for cid, summary in brain.store.inbox.snapshot().items():
        if cid in present or summary.get("deleted") or str(summary.get("updated", "")) < cutoff:
            continue
        if summary.get("status") == CaptureStatus.DISMISSED:
            continue
        key = (str(brain.state_dir), cid)
        known = _CAPTURE_KEYS.get(key)
        if known is None:
            record = brain.store.inbox.get(cid)
            if record is None:
                continue
            known = (str(record.get("created", "")), record.get("note"), record.get("text_hash"))
            _CAPTURE_KEYS[key] = known  # never change once journaled: read once per process
        created, note, text_hash = known
        if note != rel or not text_hash or created < cutoff:
            continue
        found.append((created, cid, text_hash))
    out: dict[str, list[str]] = {}
    for _created, cid, text_hash in sorted(found):
        out.setdefault(text_hash, []).append(cid)
    return out


def _finished_elsewhere(view: dict[str, Any], shown: str | None) -> bool:
    """Our capture is still pending, but its line shows what it became, in a form this
    machine never wrote: another machine filed it while it held the filer role."""
    return (
        view["form"][0].startswith("⏳")
        and shown is not None
        and shown.startswith("→ ")
        and shown != view["line_suffix"]
    )


def _follow_line(
    brain: Brain, journal: Journal, cid: str, shown: str, checked: bool
) -> tuple[str, bool]:
    """The line is the truth: our pending capture becomes what its line says, and is never
    filed again here (the form shown stays as it is)."""
    status, destinations = _what_line_says(brain, shown)

    def follow(c: Capture) -> bool | None:
        if c.status is not CaptureStatus.PENDING:
            return False
        c.status, c.destinations = status, destinations
        c.line_suffix, c.line_done, c.lease = shown, checked, None
        c.extra["rebuilt_from_line"] = True
        return None

    journal.advance(cid, follow)
    return shown, checked


def _what_line_says(brain: Brain, suffix: str) -> tuple[CaptureStatus, list[dict[str, Any]]]:
    """A capture's status and destinations, from our suffix on its line (``→ …``)."""
    body = suffix[len("→ ") :]
    destinations: list[dict[str, Any]] = []
    if body == "filed":
        return CaptureStatus.FILED, destinations
    if body == "dismissed":
        return CaptureStatus.DISMISSED, destinations
    if body.startswith("needs review in "):
        return CaptureStatus.NEEDS_REVIEW, destinations
    status = CaptureStatus.SUGGESTED if "(suggested" in body else CaptureStatus.FILED
    for target, shown in _WIKILINK.findall(body.split(" (suggested")[0]):
        path = target if target.lower().endswith(".md") else f"{target}.md"
        dest: dict[str, Any] = {
            "type": "",
            "title": shown or target.rsplit("/", 1)[-1],
            "path": path,
            "record_id": "",
            "op": "update",
        }
        hit = brain.records().by_path(path)
        if hit is not None:
            dest["type"] = str(hit[1].get("type") or "")
            dest["record_id"] = str(hit[1].get("id") or "")
        destinations.append(dest)
    return status, destinations


def _rebuild(
    brain: Brain,
    journal: Journal,
    cid: str,
    words: str,
    suffix: str | None,
    checked: bool,
    rel: str,
) -> tuple[str, bool] | None:
    """Rebuild the capture of an anchored line from the line itself when this store does
    not know it; the form to show (the line's own, unchanged), or None for a line that was
    still waiting (it is journaled as pending and filed by this machine)."""
    if suffix is None or suffix.startswith("⏳"):
        return None
    status, destinations = _what_line_says(brain, suffix)
    journal.rebuild(cid, words, rel, status, destinations, suffix, checked)
    return suffix, checked


def _line_view(brain: Brain, cid: str, summary: dict | None) -> dict | None:
    """What an anchored line needs of its capture (its text, our last suffix, the form its
    status calls for), from memory while the capture is unchanged: a pass over an inbox of
    thousands of taken lines reads only the captures that changed."""
    if summary is None:
        return None
    key = (summary.get("updated"), summary.get("status"), summary.get("rev"))
    hit = brain.line_views.get(cid)
    if hit is not None and hit[0] == key:
        return hit[1]
    record = brain.store.inbox.get(cid, include_deleted=True)
    if record is None:
        return None
    view = {
        "text": record.get("text", ""),
        "line_suffix": record.get("line_suffix"),
        "line_done": record.get("line_done"),
        "form": line_form(record),
    }
    brain.line_views[cid] = (key, view)
    return view


def _remember_forms(brain: Brain, forms: dict[str, tuple[str, bool]]) -> None:
    store = brain.store
    stale = []
    for cid, (suffix, done) in forms.items():
        hit = brain.line_views.get(cid)
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
            hit = brain.line_views.get(cid)
            if hit is not None:
                hit[1]["line_suffix"], hit[1]["line_done"] = suffix, done


def rebuild_captures(brain: Brain) -> int:
    """``reindex``'s part of the inbox: the capture of every anchored line this store does
    not know, rebuilt from the line (what its suffix says it became), without writing the
    note. Lines still waiting are left to the filer's next pass (journaled here, a machine
    that later takes the role could file a thought the old filer is filing). How many."""
    from vaultbrain.capture.journal import Journal

    rel = brain.inbox_rel
    if unusable_inbox(brain.vault, rel)[0]:
        return 0
    try:
        note = brain.vault.try_read(rel)
    except UserError:
        return 0
    if note is None:
        return 0
    journal = Journal(brain)
    summaries = brain.store.inbox.snapshot()
    done = 0
    seen: set[str] = set()
    for line in scan_inbox(note.text):
        cid = line.block_id
        if not cid or cid in seen or cid in summaries:
            continue
        seen.add(cid)
        words, suffix, _remark = split_taken(line.text)
        try:
            if _rebuild(brain, journal, cid, words, suffix, line.checked, rel) is not None:
                done += 1
        except VaultbrainError:
            break  # a state dir that cannot be written: the filer's next pass does it
    return done
