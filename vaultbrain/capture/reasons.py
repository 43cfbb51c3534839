"""Why a thought waits for the person, said as it is: the one reason its inbox mark
(``needs review: …``, capture/lines.py) and its item in ``Brain/Needs Review.md``
(capture/review.py) both show.

The reasons, first that applies:

==========================  ===================================================  ===========
what happened               what the person reads                                 kind
==========================  ===================================================  ===========
a name fits two notes, an   the pipeline's own reason (``review_reason``)         given
ingest failed
the thought is noise        ``noise: a Python traceback``                         noise
a type read, no name found  ``no name found: which person? write → person Name``  unnamed
an LLM is set up and failed ``model unreachable: <cause>``                        unreachable
no LLM is set up            ``no LLM configured, embedded classifier unsure       no-llm
                            (0.62)``
the LLM answered, unsure    ``model unsure (0.41)``                               unsure
==========================  ===================================================  ===========

"An LLM is set up": the provider is not ``heuristic`` and the person set an endpoint, a
model or the provider (a fresh vault whose default ``localhost:1234`` refuses the
connection has no LLM; the README's quick start is that vault). Pure: the caller passes
whether an LLM is set up (:func:`llm_set_up`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.result import UNKNOWN

if TYPE_CHECKING:
    from vaultbrain.settings import Settings

__all__ = ["ask_for_name", "llm_set_up", "why_waiting"]

_EMBEDDED = ("heuristic", "embedded")
# Failures that say no server is there at all (nothing listens at the address).
_ABSENT = ("unreachable", "refused", "connection")


def llm_set_up(settings: Settings) -> bool:
    """Whether the person set up an LLM (provider not heuristic, and an endpoint, a model or
    the provider set anywhere: vaultbrain.yml, the state dir, the environment)."""
    if str(settings.get("provider")) == "heuristic":
        return False
    return any(settings.source(k) != "default" for k in ("provider", "endpoint", "model"))


def ask_for_name(type_name: str) -> str:
    """What the person is asked when a type needs a name the thought does not give."""
    return f"which {type_name}? write → {type_name} Name"


def why_waiting(rec: Mapping[str, Any], llm_configured: bool) -> str:
    """The real reason the capture ``rec`` (its store record, or a Capture's ``to_record``)
    waits for the person; "" when there is none to say."""
    given = rec.get("review_reason")
    if given:
        return str(given)
    cls = rec.get("classification") or {}
    if not cls:
        return str(rec.get("last_error") or "")
    noise = cls.get("noise")
    if noise:
        return f"noise: {noise}"
    dests = [d for d in cls.get("destinations") or () if d.get("type") not in (None, UNKNOWN)]
    named = {d.get("type") for d in dests if str(d.get("title") or "").strip()}
    unnamed = [t for t in cls.get("unnamed") or () if t not in named]
    if unnamed:
        return f"no name found: {ask_for_name(str(unnamed[0]))}"
    conf = _confidence(cls)
    fallback = cls.get("fallback")
    by = str(cls.get("classified_by") or "")
    if isinstance(fallback, Mapping) or (cls.get("error") and by.startswith(_EMBEDDED)):
        kind = str((fallback or {}).get("kind") or "")
        cause = str((fallback or {}).get("cause") or cls.get("error") or "")
        absent = not kind or any(word in kind for word in _ABSENT)
        if llm_configured or not absent:
            return f"model unreachable: {cause}" if cause else "model unreachable"
        return f"no LLM configured, embedded classifier unsure{conf}"
    if by.startswith(_EMBEDDED):
        if not dests:
            return "no LLM configured, the embedded classifier found nothing to file"
        return f"no LLM configured, embedded classifier unsure{conf}"
    if cls.get("error") and not dests:
        return str(cls["error"])
    if rec.get("last_error"):
        return str(rec["last_error"])
    return f"model unsure{conf}"


def _confidence(cls: Mapping[str, Any]) -> str:
    value = cls.get("confidence")
    if not isinstance(value, (int, float)) or cls.get("confidence_known") is False:
        return ""
    return f" ({float(value):.2f})"
