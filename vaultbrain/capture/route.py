"""Special inputs: thoughts that are handled without the classifier.

A handler registers a cheap test on the thought's text and the function that takes such a
capture, named as ``"module:function"`` and imported only when a thought matches: a YouTube
URL starts an ingest without the filing code importing the YouTube package, and a plain
thought never pays for importing either.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultbrain.capture.model import Capture

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal


@dataclass(frozen=True)
class Special:
    name: str
    claims: Callable[[str], bool]  # a quick test of the thought; no heavy imports
    target: str  # "module:function(brain, journal, capture) -> Capture | None"


_HANDLERS: list[Special] = []


def register(handler: Special) -> None:
    """Add a handler (a later registration with the same name replaces the earlier one)."""
    _HANDLERS[:] = [h for h in _HANDLERS if h.name != handler.name]
    _HANDLERS.append(handler)


def handlers() -> list[Special]:
    return list(_HANDLERS)


def take_special(brain: Brain, journal: Journal, cap: Capture) -> Capture | None:
    """The capture as a handler left it, or None when no handler claims the thought (or the
    one that did declined it)."""
    for handler in _HANDLERS:
        if not handler.claims(cap.text):
            continue
        module_name, attr = handler.target.split(":")
        run = getattr(importlib.import_module(module_name), attr)
        done = run(brain, journal, cap)
        if done is not None:
            return done
    return None


def _first_word(text: str) -> str:
    words = text.split()
    return words[0] if words else ""


def _youtube_like(text: str) -> bool:
    # Every YouTube host has "youtu" in its name.
    return "youtu" in _first_word(text).lower()


def _bare_url_like(text: str) -> bool:
    # (or a Markdown link and nothing else: ``[the guide](https://…)``)
    return "://" in text and (len(text.split()) == 1 or text.lstrip().startswith("["))


register(Special("youtube", _youtube_like, "vaultbrain.youtube.capture:take_capture"))
register(Special("url", _bare_url_like, "vaultbrain.capture.special:take_bare_url"))
