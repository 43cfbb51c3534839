"""Takes to grade, and each holder's scorecard.

``vaultbrain tend`` asks for a grade on a bet, hunch or take whose date has come (the day it
names has passed, or it is older than ``stale_days`` and names none): an item in
``Brain/Needs Review.md`` the person grades with a gesture (tick: right; strike or ``[-]``:
wrong; ``→ right``, ``→ wrong`` or ``→ unclear`` anywhere on the line). The grades are kept
in the state store (``take_grades``) and each holder's scorecard is written as a note of
vaultbrain's own, ``Brain/Scorecards/<holder>.md``: how often their takes came true, by kind.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.vault.inline import shield
from vaultbrain.vault.names import sanitize_filename

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

COLLECTION = "take_grades"
ASKED = "asked"
VERDICTS = ("right", "wrong", "unclear")
FOLDER = "Brain/Scorecards"
_ARROW = re.compile(r"(?:→|->)\s*(right|wrong|unclear)\b", re.I)


def take_id(take: dict[str, Any]) -> str:
    key = f"{take.get('holder') or ''}|{take.get('kind')}|{take.get('text')}|{take.get('source')}"
    return hashlib.sha1(key.encode()).hexdigest()[:10]


def ask(brain: Brain, takes: list[dict[str, Any]], dry_run: bool = False) -> list[dict[str, Any]]:
    """The takes not asked before, stored as asked (unless ``dry_run``); returns them."""
    col = brain.store.collection(COLLECTION)
    new = []
    for t in takes:
        tid = take_id(t)
        if col.get(tid) is not None:
            continue
        rec = {
            "id": tid,
            "holder": t.get("holder") or "",
            "holder_note": t.get("holder_note"),
            "kind": t.get("kind"),
            "text": t.get("text"),
            "date": t.get("date"),
            "source": t.get("source"),
            "status": ASKED,
            "asked": brain.now().isoformat(),
        }
        new.append(rec)
        if not dry_run:
            col.put(rec)
    return new


def asked(brain: Brain) -> list[dict[str, Any]]:
    out = [r for r in brain.store.collection(COLLECTION).all() if r.get("status") == ASKED]
    out.sort(key=lambda r: (str(r.get("date") or ""), r["id"]))
    return out


def verdict_of(text: str) -> str | None:
    """A verdict written on the line (``→ right``), or None."""
    m = _ARROW.search(shield(text))  # (an arrow in a code span or a link is text)
    return m.group(1).lower() if m else None


def grade(brain: Brain, take: str, verdict: str) -> dict[str, Any]:
    """Record the person's verdict on a take; the holder's scorecard follows."""
    if verdict not in VERDICTS:
        raise UserError(f"{verdict!r} is no grade: right, wrong or unclear")
    col = brain.store.collection(COLLECTION)
    rec = col.get(take)
    if rec is None:
        raise UserError(f"no take {take} waiting for a grade")
    rec = dict(rec, status=verdict, graded=brain.now().isoformat())
    col.put(rec)
    brain.store.audit(
        {"at": rec["graded"], "kind": "resolution", "decision": f"take-{verdict}", "take": take}
    )
    write_scorecard(brain, rec["holder"])
    return rec


def scorecard_path(holder: str) -> str:
    return f"{FOLDER}/{sanitize_filename(holder or 'Unattributed')}.md"


def write_scorecard(brain: Brain, holder: str) -> str | None:
    """The holder's scorecard note (compare-and-swap); None when nothing is graded."""
    graded = [
        r
        for r in brain.store.collection(COLLECTION).all()
        if r.get("holder") == holder and r.get("status") in VERDICTS
    ]
    if not graded:
        return None
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    total: Counter[str] = Counter()
    for r in graded:
        by_kind[str(r.get("kind") or "take")][r["status"]] += 1
        total[r["status"]] += 1

    def rate(c: Counter[str]) -> str:
        decided = c["right"] + c["wrong"]
        return f"{c['right'] / decided:.0%}" if decided else "n/a"

    note = next((r.get("holder_note") for r in graded if r.get("holder_note")), None)
    who = holder or "Unattributed"
    if note:
        who = f"[[{note[:-3] if note.endswith('.md') else note}|{who}]]"
    lines = [
        "---",
        "type: vaultbrain-scorecard",
        "---",
        f"Takes of {who}: {total['right']} right, {total['wrong']} wrong, "
        f"{total['unclear']} unclear ({rate(total)} came true).",
        "",
        "| kind | right | wrong | unclear | came true |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind, c in sorted(by_kind.items()):
        lines.append(f"| {kind} | {c['right']} | {c['wrong']} | {c['unclear']} | {rate(c)} |")
    lines += ["", "## Graded", ""]
    for r in sorted(graded, key=lambda r: str(r.get("date") or "")):
        lines.append(f"- {r['status']}: “{r['text']}” ({r.get('date') or 'no date'})")
    text = "\n".join(lines) + "\n"
    rel = scorecard_path(holder)
    brain.vault.edit(rel, lambda _note: text)
    return rel
