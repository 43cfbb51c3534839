"""``Brain/Needs Review.md``: the queue the person resolves in Obsidian.

Three sections: thoughts that need a decision, suggestions to confirm, and sync conflicts;
a fourth, "Can't read", lists the notes vaultbrain cannot read (vaultbrain/filing/unreadable.py)
until they are fixed. The person's gestures on its items (documented in the note's header,
and read with the inbox's by vaultbrain/capture/gestures.py) are carried out by the inbox
pass and by :meth:`ReviewQueue.refresh`, only once the note has been quiet for the settle
time; an item they deleted is dismissed only when the version of the note they edited is
known (its ``updated`` property names the render it came from), so a device's old copy of
the note never dismisses what it never showed.

The note is regenerated (compare-and-swap) whenever the queue changes, but only when it has
been quiet for the settle time, and always after reading the decisions already written in
it. A gesture that cannot be carried out stays, with a short note why.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import WAITING_FOR_PERSON, CaptureStatus
from vaultbrain.capture.reasons import llm_set_up, why_waiting
from vaultbrain.errors import UserError
from vaultbrain.filing.inbox import REVIEW_NOTE
from vaultbrain.filing.records import link_to
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.note import parse_note
from vaultbrain.vault.typed import inert

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.gestures import ReviewItem

log = logging.getLogger("vaultbrain.review")
STATE = "review-state.json"
RENDERS_KEPT = 8  # the last renders whose items are known (a device may edit an older one)
_ITEM = LazyPattern(r"^(?P<indent>\s*)[-*+] \[(?P<box>.)\] (?P<rest>.*)$")
_ID = LazyPattern(r"(?:^|\s)\^(?P<kind>vbr|vbc|vbs|vbm|vbg)-(?P<id>[A-Za-z0-9-]+)(?=\s|$)")
_HEADING = LazyPattern(r"^#{1,6}[ \t]+(?P<title>.*)$")
_THOUGHT = LazyPattern(r"\*\*(?P<text>.+?)\*\*")
_NOTE_MARK = " ⚠ "
_STAMP = LazyPattern(r"^updated: [^\n]*$", re.MULTILINE)

TITLE = "# Needs Review\n\n"
HEADER = """\
> [!info] How to resolve an item
> - **Accept** what vaultbrain suggests: tick the box (every item of a section at once:
>   tick its "confirm all … below" line).
> - **Choose the type**: write it after an arrow anywhere on the line, e.g. `→ project`
>   (several: `→ person, admin`).
> - **Dismiss** (not a thought): strike it through (`~~like this~~`), mark it `[-]`, or
>   delete the line.
> - **Conflicts**: fix the note by hand, then tick the box; the note's version is kept.
>
> vaultbrain applies each decision within seconds and the item leaves this list. The same
> gestures work on the thought's line in the inbox. From a terminal:
> `vaultbrain review list`, `review resolve ID TYPE`, `review confirm ID`.
"""


@dataclass(frozen=True)
class ReviewRead:
    """What the person left in the note: its items, and the items of the render it was
    edited from (None: unknown, so nothing counts as deleted)."""

    items: tuple[ReviewItem, ...]
    base: tuple[str, ...] | None
    hash: str

    def forget_base(self) -> None:
        return None  # a deleted item dismissed is gone from the next render by itself


def queue(brain: Brain) -> dict[str, list[dict[str, Any]]]:
    """The three sections, newest first."""
    decide: list[dict[str, Any]] = []
    suggest: list[dict[str, Any]] = []
    for s in brain.store.inbox.summaries():
        status = s.get("status")
        if CaptureStatus.of(status) not in WAITING_FOR_PERSON:
            continue
        rec = brain.store.inbox.get(s["id"])
        if rec is None:
            continue
        (decide if status == CaptureStatus.NEEDS_REVIEW else suggest).append(rec)
    conflicts = [c for c in brain.store.collection("conflicts").all() if not c.get("resolved")]
    for items in (decide, suggest, conflicts):
        items.sort(key=lambda r: str(r.get("created") or r.get("at") or ""), reverse=True)
    from vaultbrain.capture.grades import asked  # (the nightly `tend`'s takes to grade)
    from vaultbrain.capture.merge import proposals  # (the nightly `tend`'s merges)
    from vaultbrain.filing.unreadable import listed

    return {
        "decide": decide,
        "suggest": suggest,
        "conflicts": conflicts,
        "unreadable": listed(brain),
        "merges": proposals(brain),
        "grades": asked(brain),
    }


ALL_BELOW = "confirm all {n} below"


def acceptable(rec: dict[str, Any]) -> bool:
    """A waiting capture a tick accepts: a suggestion, or a thought in review with one."""
    if rec.get("status") == CaptureStatus.SUGGESTED.value:
        return True
    dests = (rec.get("classification") or {}).get("destinations") or ()
    return any(d.get("type") not in (None, "unknown") for d in dests)


def _describe(rec: dict[str, Any], llm: bool = True) -> str:
    cls = rec.get("classification") or {}
    conf = cls.get("confidence")
    by = cls.get("classified_by") or "?"
    reasoning = (cls.get("reasoning") or "").replace("\n", " ").strip()
    parts = []
    if rec.get("destinations"):
        parts.append(
            "filed to "
            + ", ".join(
                f"{d['type']} {link_to(d['path'], d['title'])}" for d in rec["destinations"]
            )
        )
    else:
        sugg = [d for d in cls.get("destinations", []) if d.get("type") != "unknown"]
        if sugg:
            parts.append("suggests " + ", ".join(f"{d['type']} “{d['title']}”" for d in sugg))
        else:
            parts.append("no suggestion")
    if conf is not None:
        parts.append(f"{conf:.2f} by {by}")
    if reasoning:
        parts.append(f"“{_clip(reasoning, 200)}”")
    why = why_waiting(rec, llm)  # the real reason (capture/reasons.py), as the inbox says it
    if why:
        parts.append(f"({_clip(why.replace(chr(10), ' '), 240)})")
    return " · ".join(parts)


def _clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word and marked, never mid-word."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _defuse(text: str) -> str:
    """Our gestures must never appear by accident in what we render (thoughts, reasoning)."""
    return text.replace("\n", " ").replace("~~", "～～").replace("→", "⇢").replace("->", "-›")


def thought_of(text: str) -> str:
    """The thought as an item shows it (and as a line without its id is matched by)."""
    text = _defuse(inert(text)).strip()  # a copy: never a second task or field
    return text if len(text) <= 300 else text[:299] + "…"


def render(
    brain: Brain, items: dict[str, list[dict[str, Any]]], notes: dict[str, str], now: str
) -> str:
    fm = (
        "---\ntype: vaultbrain-review\n"
        f"updated: {now}\nneeds_decision_count: {len(items['decide'])}\n"
        f"suggestions_count: {len(items['suggest'])}\nconflicts_count: {len(items['conflicts'])}\n"
        "tags:\n  - vaultbrain\n---\n"
    )
    from vaultbrain.capture.review_status import read_status, status_line

    # Which machine files and whether its LLM answers (capture/review_status.py), first.
    out = [fm, TITLE, status_line(read_status(brain)), "\n", HEADER]
    llm = llm_set_up(brain.settings)

    def line(kind: str, rid: str, body: str) -> str:
        extra = f"{_NOTE_MARK}{notes[rid]}" if rid in notes else ""
        return f"- [ ] {body}{extra} ^{kind}-{rid}\n"

    for heading, key in (
        ("Thoughts that need a decision", "decide"),
        ("Suggestions to confirm", "suggest"),
    ):
        out.append(f"\n## {heading}\n")
        if not items[key]:
            out.append("_Nothing waiting._\n")
        n = sum(1 for rec in items[key] if acceptable(rec))
        if n >= 2:
            # one tick accepts every suggestion below (capture/gestures.py, decide_lines)
            out.append(f"- [ ] {ALL_BELOW.format(n=n)} ^vbs-{key}\n")
        for rec in items[key]:
            body = f"**{thought_of(rec['text'])}** — {_defuse(_describe(rec, llm))}"
            out.append(line("vbr", rec["id"], body))
    out.append("\n## Sync conflicts\n")
    if not items["conflicts"]:
        out.append("_None._\n")
    for c in items["conflicts"]:
        target = link_to(c["path"], c.get("title") or c["path"])
        detail = _defuse(str(c.get("detail") or c["kind"]))
        out.append(line("vbc", c["id"], f"{target}: {detail} (since {str(c.get('at'))[:16]})"))
    merges = [m for m in items.get("merges") or () if not m.get("kind")]
    if merges:
        out.append("\n## Possible duplicates\n")
        out.append(MERGE_HOWTO)
        for m in merges:
            other, keep = (
                link_to(m["other"], _stem(m["other"])),
                link_to(m["keep"], _stem(m["keep"])),
            )
            why = _defuse(str(m.get("why") or ""))
            out.append(line("vbm", m["id"], f"Merge {other} into {keep} — {why}"))
    backlinks = [m for m in items.get("merges") or () if m.get("kind") == "backlink"]
    if backlinks:  # (the nightly `tend`'s, vaultbrain/tend/backlinks.py)
        out.append("\n## Links to add\n")
        out.append(BACKLINK_HOWTO)
        for m in backlinks:
            keep, other = (
                link_to(m["keep"], _stem(m["keep"])),
                link_to(m["other"], _stem(m["other"])),
            )
            field = _defuse(str(m.get("field")))
            out.append(line("vbm", m["id"], f"Add {other} to {keep}'s `{field}`"))
    if items.get("grades"):
        out.append("\n## Takes to grade\n")
        out.append(GRADE_HOWTO)
        for g in items["grades"]:
            who = _defuse(str(g.get("holder") or "someone"))
            said = _defuse(_clip(str(g.get("text") or ""), 200))
            when = f", {g['date']}" if g.get("date") else ""
            out.append(line("vbg", g["id"], f"{who}: “{said}” ({g.get('kind')}{when})"))
    if items.get("unreadable"):
        # Nothing to tick: fixing the note is the gesture, and the line leaves by itself.
        out.append("\n## Can't read\n")
        for u in items["unreadable"]:
            target = link_to(u["path"], u["path"])
            out.append(f"- {target}: {_defuse(str(u.get('problem')))}\n")
    return "".join(out)


def unstamped(text: str) -> str:
    """The note's text without its ``updated:`` stamp: what says whether a drawing changes
    anything (a stamp alone is no change)."""
    return _STAMP.sub("", text, count=1)


MERGE_HOWTO = (
    "_Tick to merge (the first note's properties, text and links go into the second; the first"
    " moves to Brain/Archive/, `vaultbrain tend undo ID` puts it back); strike it or mark it"
    " `[-]` to keep both for good._\n"
)


BACKLINK_HOWTO = (
    "_Tick to write the link into the note's property (a note linking another names it back);"
    " strike it or mark it `[-]` to leave the note as it is for good._\n"
)


GRADE_HOWTO = (
    "_Tick if it came true, strike it or mark it `[-]` if not, or write `unclear` after an"
    " arrow; each holder's scorecard is in Brain/Scorecards/._\n"
)


def _stem(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def parse_items(text: str, thoughts: dict[str, str] | None = None) -> list[ReviewItem]:
    """Every item line of the note as the person left it. ``thoughts``: the thought each
    rendered item showed, by id: a line whose block id the person removed is still its item."""
    from vaultbrain.capture.gestures import ReviewItem  # (the note's reader; a render needs none)

    by_text = {v: k for k, v in (thoughts or {}).items()}
    out: list[ReviewItem] = []
    section = ""
    for n, raw in enumerate(text.splitlines()):
        heading = _HEADING.match(raw)
        if heading:
            section = heading.group("title").strip()
            continue
        m = _ITEM.match(raw)
        if not m:
            continue
        rest = m.group("rest")
        ids = list(_ID.finditer(rest))
        if ids:
            found = ids[-1]
            kind, rid = found.group("kind"), found.group("id")
            body, after = rest[: found.start()], rest[found.end() :]
        else:
            thought = _THOUGHT.search(rest)
            rid = by_text.get(thought.group("text")) if thought else None
            if rid is None:
                continue
            kind, body, after = "vbr", rest, ""
        mark = body.find(_NOTE_MARK)
        if mark >= 0:
            body = body[:mark]
        out.append(ReviewItem(kind, rid, n, m.group("box"), body.rstrip(), after, section))
    return out


def read_review(brain: Brain, now: bool = False) -> ReviewRead | None:
    """The items of Needs Review if the person may have changed it since vaultbrain wrote it
    and has left it alone for the settle time (None otherwise: nothing to read yet).
    ``now``: whether or not it is quiet (a command the person just ran)."""
    try:
        note = brain.vault.try_read(REVIEW_NOTE)
    except UserError:
        return None
    if note is None:
        return None
    state = brain.store.read_json(STATE, {}) or {}
    if note.hash == state.get("hash"):
        return None  # as vaultbrain wrote it
    parsed = parse_note(note.text)
    if parsed.data.get("type") not in (None, "vaultbrain-review"):
        return None  # a note of the person's own at this path
    if not now and not quiet(brain, REVIEW_NOTE):
        return None
    stamp = str(parsed.data.get("updated") or "")
    renders = state.get("renders") or {}
    base = renders.get(stamp)
    if base is None and not renders and state.get("rendered") is not None:
        base = state["rendered"]  # a state from before renders were kept: the last one
    items = parse_items(note.text, state.get("thoughts") or {})
    return ReviewRead(tuple(items), tuple(base) if base is not None else None, note.hash)


def quiet(brain: Brain, rel: str) -> bool:
    """Nobody is editing ``rel``: untouched for the settle time, or as vaultbrain wrote it."""
    try:
        mtime = brain.vault.resolve(rel).stat().st_mtime
    except (OSError, UserError):
        return True
    settle = float(brain.settings.get("inbox_settle_seconds"))
    return time.time() - mtime >= settle or brain.vault.last_written_by_vaultbrain(rel)


def note_for(brain: Brain, capture_id: str, why: str | None) -> bool:
    """Keep (or with None, drop) the note shown on an item in Needs Review: why a gesture
    was not carried out. True when it is new (said in the log once)."""
    state = brain.store.read_json(STATE, {}) or {}
    notes = dict(state.get("notes", {}))
    if why is None:
        if capture_id not in notes:
            return False
        del notes[capture_id]
    elif notes.get(capture_id) == why:
        return False
    else:
        notes[capture_id] = why
    state["notes"] = notes
    state["hash"] = None  # drawn again, with the note
    brain.store.write_json(STATE, state)
    notes_changed(brain)[0] += 1  # this process's review queue draws it at its next refresh
    return why is not None


def notes_changed(brain: Brain) -> list[int]:
    """How often this process changed the notes shown on items (a gesture on an inbox line
    that could not be done changes no capture: the queue's versions count this too)."""
    counter: list[int] = brain.memo("review-notes", None, lambda: [0])
    return counter


def resolve_conflict(brain: Brain, conflict_id: str) -> None:
    """The person fixed the note: the note's version wins and the conflict is closed."""
    col = brain.store.collection("conflicts")
    c = col.get(conflict_id)
    if c is None or c.get("resolved"):
        return
    rec_col = brain.store.collection(c["collection"])
    rec = rec_col.get(c["record_id"], include_deleted=True)
    if rec is not None:
        rec.pop("store_dirty", None)
        rec_col.put(rec)
        if not rec.get("deleted"):
            from vaultbrain.filing.sync import notes_sync  # (the graph: only for a conflict)

            notes_sync(brain).force_import(c["collection"], c["record_id"])
    c["resolved"] = True
    c["resolved_at"] = brain.now().isoformat()
    col.put(c)
    brain.store.audit(
        {
            "at": c["resolved_at"],
            "kind": "resolution",
            "decision": "conflict-resolved",
            "conflict": conflict_id,
            "record": c["record_id"],
            "path": c["path"],
        }
    )
