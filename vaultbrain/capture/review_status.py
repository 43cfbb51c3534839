"""What ``Brain/Needs Review.md``'s header says about the filer: which machine files the
inbox, whether its daemon runs, and whether its LLM answers.

The filer's daemon keeps one document in the store (``filer-status.json``) and changes it
only at a start, at a stop (SIGTERM included) and when its LLM comes or goes; every process
that draws Needs Review (the daemon, a `review` command) draws the same line from it. The
line carries no clock but the start's and the stop's, so a drawing that changes nothing else
writes nothing (a note is rewritten only when its content changes).
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

STATUS = "filer-status.json"


class LLMState(enum.StrEnum):
    """Whether the filer's LLM answers, as its daemon last found it."""

    ANSWERS = "answers"
    SILENT = "silent"  # set up (or the default server tried) and not answering
    NONE = "none"  # provider heuristic: the embedded classifier files alone


@dataclass(frozen=True)
class FilerStatus:
    host: str
    running: bool
    since: str  # the start's or the stop's time, to the minute ("": not known)
    llm: str = LLMState.NONE.value
    model: str = ""
    endpoint: str = ""
    set_up: bool = False  # the person set up an LLM (capture/reasons.py ``llm_set_up``)
    fallback: str = "heuristic"

    @classmethod
    def of(cls, doc: Any) -> FilerStatus | None:
        if not isinstance(doc, dict):
            return None
        try:
            return cls(**{k: doc[k] for k in cls.__dataclass_fields__ if k in doc})
        except TypeError:
            return None  # (a document of another version: said as unknown)


def read_status(brain: Brain) -> FilerStatus | None:
    return FilerStatus.of(brain.store.read_json(STATUS, None))


def keep_status(brain: Brain, status: FilerStatus) -> bool:
    """Keep ``status``; True when it differs from what was kept (Needs Review is drawn
    again by the next refresh of this process's queue)."""
    if read_status(brain) == status:
        return False
    brain.store.write_json(STATUS, asdict(status))
    status_changed(brain)[0] += 1
    return True


def status_changed(brain: Brain) -> list[int]:
    """How often this process changed the status (the review queue's versions count it)."""
    counter: list[int] = brain.memo("filer-status", None, lambda: [0])
    return counter


def status_line(status: FilerStatus | None) -> str:
    """The header's callout: one line a person reads at a glance."""
    if status is None:
        return (
            "> [!warning] vaultbrain is not running yet: new lines in the inbox wait until "
            "you start it (`vaultbrain daemon`).\n"
        )
    where = f"**{status.host}**"
    if not status.running:
        when = f" (stopped {status.since})" if status.since else ""
        return (
            f"> [!warning] vaultbrain is not running on {where}{when}: new lines in the inbox "
            "wait until it runs again (`vaultbrain daemon`).\n"
        )
    head = f"> [!note] vaultbrain is running on {where} (since {status.since}) and files the inbox"
    if status.llm == LLMState.ANSWERS:
        model = f"{status.model} at " if status.model else ""
        return f"{head}; its LLM answers ({model}{status.endpoint}).\n"
    if status.llm == LLMState.SILENT and status.set_up:
        then = (
            "the embedded classifier files alone meanwhile"
            if status.fallback != "none"
            else "thoughts wait until it answers"
        )
        return f"{head}; its LLM at {status.endpoint} does not answer: {then}.\n"
    return f"{head} with the embedded classifier (no LLM set up).\n"
