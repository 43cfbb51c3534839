"""The special inputs vaultbrain itself handles: a bare URL is saved as a link, and so is a
line that is only a Markdown link to an address (``[The guide](https://x.org/g)``, as a
web page's "copy as Markdown" gives it), titled by its text.

(The YouTube handler lives with the YouTube package: ``vaultbrain/youtube/capture.py``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.capture.classify import store_classification
from vaultbrain.capture.model import Capture
from vaultbrain.classify.result import Classification, Destination
from vaultbrain.filing.links import bare_url, title_for_url
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inline import plain_words

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal


_MD_LINK = LazyPattern(r"\[(?P<text>(?:[^\[\]\\\n]|\\.)+)\]\((?P<url>https?://[^\s()<>]+)\)")


def take_bare_url(brain: Brain, journal: Journal, cap: Capture) -> Capture | None:
    url, title = bare_url(cap.text), ""
    if url is None:
        m = _MD_LINK.fullmatch(cap.text.strip())
        if m is None:
            return None
        url, title = m.group("url"), plain_words(m.group("text"))
    result = Classification(
        [Destination("link", title or title_for_url(url), {"url": url})],
        1.0,
        "A bare URL: saved as a link",
        "url",
    )
    return store_classification(brain, journal, cap, result, {"provider": "url"}, 0.0)
