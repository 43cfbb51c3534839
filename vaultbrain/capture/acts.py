"""The person's gestures, carried out: what :func:`vaultbrain.capture.gestures.decide_lines`
decided for a pass, done through the same decisions the CLI's review commands make
(vaultbrain/capture/resolution.py), so a tick, an arrow or a strike gives what ``review
confirm``, ``review resolve`` and ``review dismiss`` give.

What cannot be done (a type that is not one, two gestures at odds, a decision that fails)
is said once in the daemon's log and kept as a note on the item in Needs Review until the
person changes the line; each gesture done is one INFO line in the daemon's log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vaultbrain.capture.gestures import Act, Gesture, Source, TypeNames
from vaultbrain.capture.model import CaptureStatus
from vaultbrain.errors import UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

log = logging.getLogger("vaultbrain.review")


@dataclass
class Outcome:
    done: list[str] = field(default_factory=list)  # "abc123: confirmed (ticked in the inbox)"
    said: list[str] = field(default_factory=list)  # what could not be done, said once


def type_names(brain: Brain) -> TypeNames:
    """The types a person may write after an arrow: the active pack's (``→ link`` saves a
    thought's URL, though the classifier never files a link)."""
    from vaultbrain.classify.result import UNKNOWN

    return TypeNames(tuple(t.name for t in brain.pack.types if t.name != UNKNOWN))


def carry_out(brain: Brain, acts: Iterable[Act]) -> Outcome:
    from vaultbrain.capture import resolution
    from vaultbrain.capture.review import note_for, resolve_conflict

    outcome = Outcome()
    for act in acts:
        where = " and ".join(_WHERE[s] for s in act.sources) or "Needs Review"
        try:
            if act.kind == "vbc":
                resolve_conflict(brain, act.id)
                outcome.done.append(f"conflict {act.id}: the note's version kept ({where})")
                continue
            if act.kind == "vbg":  # a take graded (vaultbrain/capture/grades.py)
                from vaultbrain.capture.grades import grade

                grade(brain, act.id, act.types[0])
                outcome.done.append(f"take {act.id}: {act.types[0]} ({where})")
                continue
            if act.kind == "vbm":  # a merge proposal of `tend` (vaultbrain/capture/merge.py)
                from vaultbrain.capture import merge

                if act.gesture is Gesture.CONFIRM:
                    merge.accept(brain, act.id)
                    outcome.done.append(f"merge {act.id}: accepted ({where})")
                else:
                    merge.reject(brain, act.id)
                    outcome.done.append(f"merge {act.id}: rejected ({where})")
                continue
            if act.gesture is Gesture.UNCLEAR:
                if note_for(brain, act.id, act.why):
                    outcome.said.append(f"^vb-{act.id}: nothing done: {act.why}")
                continue
            if act.gesture is Gesture.CONFIRM:
                resolution.confirm(brain, act.id)
                done = "confirmed"
            elif act.gesture is Gesture.RETYPE:
                resolution.resolve(brain, act.id, ",".join(act.types), title=act.title or None)
                done = f"filed as {', '.join(act.types)}" + (f" “{act.title}”" if act.title else "")
            elif act.gesture is Gesture.DISMISS:
                resolution.dismiss(brain, act.id)
                done = CaptureStatus.DISMISSED.value
            else:
                continue
        except UserError as exc:
            why = str(exc).split(";")[0][:160]
            if note_for(brain, act.id, why):
                outcome.said.append(f"^vb-{act.id}: {act.gesture.value} not done: {exc}")
            continue
        note_for(brain, act.id, None)
        line = f"capture {act.id}: {done} ({_VERB[act.gesture]} {where})"
        log.info("%s", line)
        outcome.done.append(line)
    return outcome


_WHERE = {
    Source.INBOX: "in the inbox",
    Source.REVIEW: "in Needs Review",
    Source.SECTION: "with its section's “confirm all” in Needs Review",
}
_VERB = {
    Gesture.CONFIRM: "ticked",
    Gesture.RETYPE: "a type written",
    Gesture.DISMISS: "struck out or deleted",
}
