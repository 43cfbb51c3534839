"""A capture's inbox line: the form its status calls for, and a line read back into a capture.

The CLI's ``capture`` adds its line and finishes it with :func:`finish_line`; the daemon
brings every line up to date in one compare-and-swap rewrite (vaultbrain/capture/inbox_pass.py)
only when the note is quiet. A line vaultbrain wrote says what its thought became, so a
store that does not know it (a lost state dir, a second machine) rebuilds the capture from
the line (:func:`rebuild_captures`, :func:`what_line_says`): never filed twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture, CaptureStatus, Filed, OpKind
from vaultbrain.capture.reasons import llm_set_up, why_waiting
from vaultbrain.classify.result import UNKNOWN
from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.filing import inbox as inbox_note
from vaultbrain.filing.inbox import REVIEW_NOTE, WAITING, split_taken, unusable_inbox
from vaultbrain.filing.index import records
from vaultbrain.filing.records import link_to
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inbox import scan_inbox

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.gestures import LineView
    from vaultbrain.capture.journal import Journal

__all__ = ["WAITING", "check_thought", "finish_line", "line_form", "rebuild_captures"]
MAX_THOUGHT = 10_000
_WIKILINK = LazyPattern(r"\[\[([^\[\]|\n]*)(?:\|([^\[\]\n]*))?\]\]")


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


def line_form(
    cap: Capture | Mapping[str, Any], short: bool = False, llm: bool = True
) -> tuple[str, bool]:
    """Our suffix for the capture's inbox line, and whether the line is ticked. ``short``
    (``note_style: minimal``): a thought that waits for the person says so in a few words
    that link to Needs Review (``→ 2 suggestions``, ``needs review: noise: a log line``);
    the notes it became are linked once it is filed. ``llm``: whether an LLM is set up
    (capture/reasons.py), so the reason a thought waits is the real one."""
    if not isinstance(cap, Capture):
        cap = Capture.from_record(cap)
    status = cap.status
    links = " · ".join(link_to(d.path, d.title) for d in cap.destinations)
    review = link_to(REVIEW_NOTE, "Needs Review")
    if status in (CaptureStatus.FILED, CaptureStatus.CORRECTED):
        return (f"→ {links}" if links else "→ filed"), True
    if status is CaptureStatus.SUGGESTED:
        if short:
            n = max(len(cap.destinations), 1)
            return f"→ {link_to(REVIEW_NOTE, f'{n} suggestion' + ('s' if n > 1 else ''))}", False
        return f"→ {links} (suggested: confirm in {review})", False
    if status is CaptureStatus.NEEDS_REVIEW:
        if short:
            why = _why(cap, llm)
            label = f"needs review: {why}" if why else "needs review"
            return f"→ {link_to(REVIEW_NOTE, label)}", False
        return f"→ needs review in {review}", False
    if status is CaptureStatus.DISMISSED:
        return "→ dismissed", True
    if cap.last_error:
        return f"{WAITING} (offline, will retry)", False
    return WAITING, False


def _why(cap: Capture, llm: bool) -> str:
    """Why a thought waits for the person (capture/reasons.py), short enough for its line,
    or "" when nothing can be said. Nothing a link label cannot hold."""
    why = why_waiting(
        {
            "review_reason": cap.review_reason,
            "last_error": cap.last_error,
            "classification": cap.classification or {},
        },
        llm,
    )
    why = re.sub(r"[\[\]|#^\n\r]+", " ", str(why)).split(";")[0]
    why = " ".join(why.split())
    if len(why) > 80:
        why = why[:79].rsplit(" ", 1)[0].rstrip(" ,:") + "…"
    return why


def short_lines(brain: Brain) -> bool:
    """Whether inbox lines take the short forms (``note_style: minimal``, the default)."""
    return str(brain.settings.get("note_style") or "minimal") != "full"


def _keeps_long(cap: Capture) -> bool:
    """A line an earlier version wrote in the long form keeps it while it waits (a style
    never rewrites what is there unasked); once filed, every line is its links."""
    written = cap.line_suffix or ""
    return "(suggested" in written or written.startswith("→ needs review in ")


def view_of(cap: Capture, short: bool = False, llm: bool = True) -> LineView:
    """What reading and drawing the capture's line needs of it (``llm``: line_form's)."""
    from vaultbrain.capture.gestures import LineView  # (the inbox pass's; a capture needs none)

    short = short and not _keeps_long(cap)
    can_accept = False
    if cap.status is CaptureStatus.NEEDS_REVIEW and cap.classification:
        can_accept = any(
            d.get("type") != UNKNOWN for d in cap.classification.get("destinations") or ()
        )
    return LineView(
        id=cap.id,
        status=cap.status,
        text=cap.text,
        written_suffix=cap.line_suffix,
        written_done=cap.line_done,
        form=line_form(cap, short, llm),
        can_accept=can_accept,
        types=tuple(dict.fromkeys(d.type for d in cap.destinations if d.type)),
    )


_REVIEW_LINK = LazyPattern(
    r"→ \[\["
    + re.escape(REVIEW_NOTE[:-3])
    + r"\|(?P<label>needs review(?:: [^\[\]|\n]*)?|\d+ suggestions?)\]\]"
)


def review_link(suffix: str) -> str | None:
    """The label of a short suffix that links to Needs Review (``needs review``, ``2
    suggestions``), or None: a suffix of another form."""
    m = _REVIEW_LINK.fullmatch(suffix)
    return m.group("label") if m else None


def add_line(brain: Brain, thought: str, capture_id: str) -> None:
    """The CLI's capture: its thought as a new, already anchored inbox line (once: a line
    that carries the anchor already is the capture's)."""
    raw = f"- [ ] {thought} {WAITING} ^vb-{capture_id}"
    inbox_note.add_line(brain.vault, brain.inbox_rel, raw, capture_id)


def finish_line(brain: Brain, journal: Journal, cap: Capture) -> Capture:
    """Rewrite the capture's line to the form its status calls for (once per form)."""
    if not cap.note:
        return cap
    short = short_lines(brain) and not _keeps_long(cap)
    suffix, done = line_form(cap, short, llm_set_up(brain.settings))
    if cap.line_suffix == suffix and cap.line_done == done:
        return cap
    present = inbox_note.rewrite_line(
        brain.vault, cap.note, cap.id, cap.line_suffix, suffix, done, cap.text or None
    )
    return journal.line_shown(cap.id, suffix, done, present)


def what_line_says(
    brain: Brain, suffix: str, cid: str | None = None
) -> tuple[CaptureStatus, list[Filed]]:
    """A capture's status and destinations, from our suffix on its line (``→ …``). A short
    suggestion (``→ 2 suggestions``) names no note: they are the notes that hold the
    capture's id (``cid``)."""
    body = suffix[len("→ ") :]
    destinations: list[Filed] = []
    waiting = review_link(suffix)
    if waiting is not None and waiting.startswith("needs review"):
        return CaptureStatus.NEEDS_REVIEW, destinations
    if waiting is not None:
        from vaultbrain.capture.write import filed_in

        return CaptureStatus.SUGGESTED, filed_in(brain, cid, since=None) if cid else []
    if body in (CaptureStatus.FILED, CaptureStatus.DISMISSED):  # "→ filed", "→ dismissed"
        return CaptureStatus(body), destinations
    if body.startswith("needs review in "):
        return CaptureStatus.NEEDS_REVIEW, destinations
    status = CaptureStatus.SUGGESTED if "(suggested" in body else CaptureStatus.FILED
    index = records(brain)
    for target, shown in _WIKILINK.findall(body.split(" (suggested")[0]):
        path = target if target.lower().endswith(".md") else f"{target}.md"
        hit = index.by_path(path)
        destinations.append(
            Filed(
                type=str(hit[1].get("type") or "") if hit else "",
                title=shown or target.rsplit("/", 1)[-1],
                path=path,
                record_id=str(hit[1].get("id") or "") if hit else "",
                op=OpKind.UPDATE,
            )
        )
    return status, destinations


def rebuild(
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
    status, destinations = what_line_says(brain, suffix, cid)
    journal.rebuild(cid, _unstruck(words), rel, status, destinations, suffix, checked)
    return suffix, checked


def _unstruck(words: str) -> str:
    """The thought without a strike the person put around it (their gesture, read from the
    line against this text, is not part of the thought). A thought's own strikes stay:
    ``~~Tuesday~~ the kiln opens`` starts with one of its words struck, not with a gesture."""
    if not words.startswith("~~"):
        return words
    inner = words[2:-2] if words.endswith("~~") and len(words) > 4 else words[2:]
    return inner if _paired(inner) else words


def _paired(text: str) -> bool:
    """Whether every ``~~`` in ``text`` opens (before a non-space) then closes (after
    one) a strike, in turn: the text holds whole strikes only."""
    opened = False
    for m in re.finditer("~~", text):
        before = text[m.start() - 1 : m.start()]
        after = text[m.end() : m.end() + 1]
        if not opened and after.strip():
            opened = True
        elif opened and before.strip():
            opened = False
        else:
            return False
    return not opened


def rebuild_captures(brain: Brain) -> int:
    """``reindex``'s part of the inbox: the capture of every anchored line this store does
    not know, rebuilt from the line (what its suffix says it became), without writing the
    note. Lines still waiting are left to the filer's next pass (journaled here, a machine
    that later takes the role could file a thought the old filer is filing). How many.
    The daily notes' capture sections (vaultbrain/capture/daily_pass.py) are inboxes too."""
    from vaultbrain.capture.daily import capture_heading, watched_daily_notes
    from vaultbrain.capture.journal import Journal

    journal = Journal(brain)
    summaries = brain.store.inbox.snapshot()
    seen: set[str] = set()
    done = 0
    heading = capture_heading(brain)
    for rel, section in [
        (brain.inbox_rel, ""),
        *((r, heading) for r in watched_daily_notes(brain)),
    ]:
        try:
            done += _rebuild_note(brain, journal, rel, section, summaries, seen)
        except VaultbrainError:
            break  # a state dir that cannot be written: the filer's next pass does it
    return done


def _rebuild_note(
    brain: Brain,
    journal: Journal,
    rel: str,
    heading: str,
    summaries: Mapping[str, Any],
    seen: set[str],
) -> int:
    if unusable_inbox(brain.vault, rel)[0]:
        return 0
    try:
        note = brain.vault.try_read(rel)
    except UserError:
        return 0
    if note is None:
        return 0
    lines = scan_inbox(note.text)
    if heading:
        from vaultbrain.vault.daily import section_lines

        section = section_lines(note.text, heading)
        lines = [line for line in lines if line.number in section]
    done = 0
    for line in lines:
        cid = line.block_id
        if not cid or cid in seen or cid in summaries:
            continue
        seen.add(cid)
        words, suffix, _remark = split_taken(line.text)
        if rebuild(brain, journal, cid, words, suffix, line.checked, rel) is not None:
            done += 1
    return done
