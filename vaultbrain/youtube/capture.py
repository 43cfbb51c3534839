"""An inbox line that is a YouTube video URL: ingested instead of classified.

Registered with the capture router (``vaultbrain/capture/route.py``) by name, so filing never
imports this package unless a thought starts with a YouTube URL.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture, CaptureStatus, Filed, OpKind
from vaultbrain.classify.result import Classification, Destination
from vaultbrain.errors import UserError
from vaultbrain.filing.index import records
from vaultbrain.filing.records import block_link

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.capture.journal import Journal

log = logging.getLogger("vaultbrain.filing")


def take_capture(brain: Brain, journal: Journal, cap: Capture) -> Capture | None:
    from vaultbrain import youtube

    first = cap.text.split()[0] if cap.text.split() else ""
    if not youtube.is_youtube_url(first):
        return None
    text = cap.text
    dests: list[Filed] = []
    extra: dict[str, Any]
    try:
        request = youtube.parse_inbox_line(text)
        if request is None:
            raise UserError(youtube.inbox_refusal(text) or "not a single-video YouTube URL")
        request = request.with_source(block_link(brain.inbox_rel, cap.id))
        result = youtube.ingest(brain, request, progress=youtube.progress_logger(log))
    except UserError as exc:
        status, extra = CaptureStatus.NEEDS_REVIEW, {"last_error": str(exc)}
        ingested_it = False
    else:
        ingested_it = True
        title = str(getattr(result, "title", "") or result.video_id)
        if result.note_path:
            dests.append(_dest("youtube", title, result.note_path, ""))
        if result.link_path:
            link = records(brain).by_path(result.link_path)
            dests.append(_dest("link", title, result.link_path, link[1]["id"] if link else ""))
        status, extra = CaptureStatus.FILED, {"warnings": list(result.warnings or [])}

    classification = (
        Classification([], 1.0, "A YouTube video URL: ingested", "youtube")
        if ingested_it
        else _not_ingested(brain, first, text)
    )
    return journal.settled(
        cap.id,
        status,
        dests,
        warnings=extra.get("warnings", ()),
        classification=classification.to_dict(),
        last_error=extra.get("last_error"),
    )


def _not_ingested(brain: Brain, url: str, text: str) -> Classification:
    """What Needs Review shows for a video that was not ingested: that it was not, and, where
    the pack saves links, the link as the suggestion (ticking it keeps the URL, the line's
    tags and its prompt)."""
    from vaultbrain.filing.links import title_for_url
    from vaultbrain.youtube.request import _split_line

    dests = []
    link = brain.pack.get_type("link")
    if link is not None:
        words, prompt = _split_line(text)
        fields: dict[str, Any] = {"url": url}
        tags = [w[1:] for w in words[1:] if w.startswith("#") and len(w) > 1]
        if tags and "tags" in link.fields:
            fields["tags"] = list(dict.fromkeys(tags))
        if prompt and "description" in link.fields:
            fields["description"] = prompt
        dests.append(Destination("link", title_for_url(url), fields))
    why = "A YouTube video URL, not ingested" + ("; save it as a link?" if dests else "")
    return Classification(dests, 0.0, why, "youtube")


def _dest(type_name: str, title: str, path: str, record_id: str) -> Filed:
    return Filed(type_name, title, path, record_id, OpKind.CREATE)
