"""The special inputs vaultbrain itself handles: a bare URL is saved as a link.

(The YouTube handler lives with the YouTube package: ``vaultbrain/youtube/capture.py``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.capture.classify import store_classification
from vaultbrain.capture.model import Capture
from vaultbrain.classify.result import Classification, Destination
from vaultbrain.filing.links import bare_url, title_for_url

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal


def take_bare_url(brain: Brain, journal: Journal, cap: Capture) -> Capture | None:
    url = bare_url(cap.text)
    if url is None:
        return None
    result = Classification(
        [Destination("link", title_for_url(url), {"url": url})],
        1.0,
        "A bare URL: saved as a link",
        "url",
    )
    return store_classification(brain, journal, cap, result, {"provider": "url"}, 0.0)
