"""An httpx transport that tells a :class:`~vaultbrain.classify.transport.SocketTracker` of
every socket it opens, through httpcore's public ``trace`` request extension. Imported
with httpx, on the first request (vaultbrain/classify/transport.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from vaultbrain.classify.transport import SocketTracker


class TrackedTransport(httpx.BaseTransport):
    """Hands every request to ``inner`` with the tracker's ``trace`` extension (a trace the
    request had of its own still gets every event)."""

    def __init__(self, inner: httpx.BaseTransport, tracker: SocketTracker) -> None:
        self.inner = inner
        self.tracker = tracker

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        theirs = request.extensions.get("trace")
        track = self.tracker.trace

        def trace(event: str, info: dict[str, Any]) -> None:
            track(event, info)
            if theirs is not None:
                theirs(event, info)

        request.extensions = {**request.extensions, "trace": trace}
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()
