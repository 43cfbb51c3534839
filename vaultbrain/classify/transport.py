"""The HTTP connection to a local LLM server, made cancellable: :class:`SocketTracker`
keeps the sockets httpx opens so that :meth:`vaultbrain.classify.llm.LLMClient.cancel`
(the daemon stopping) can shut them down and wake a thread blocked reading a slow reply.

httpx is imported only when the first request is made: the embedded classifier never pays,
and neither does a request to an endpoint where nothing listens (:func:`refuses_connections`).
"""

from __future__ import annotations

import socket
import threading
import weakref
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httpx


def refuses_connections(endpoint: str) -> bool:
    """Whether nothing listens at the endpoint's host and port, found with one connect(). A
    person with no LLM server running meets this at every capture: knowing it this way spares
    importing httpx (a fifth of a cold `vaultbrain capture`) only to be told the same. Any
    other outcome (a server, a slow or unknown host) is left to the request to find and say."""
    parts = urlsplit(endpoint)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    host = parts.hostname
    if not host:
        return False
    try:
        # An ASCII name as bytes: a str would load the idna codec (12 ms) to say the same.
        name = host.encode("ascii") if host.isascii() else host
        with socket.create_connection((name, port), timeout=0.5):  # type: ignore[arg-type]
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


def http_client(timeout: float, tracker: SocketTracker) -> httpx.Client:
    """An httpx client whose sockets ``tracker`` keeps, so that they can be shut down."""
    import httpx

    from vaultbrain.classify.tracked import TrackedTransport

    transport = TrackedTransport(
        httpx.HTTPTransport(
            limits=httpx.Limits(
                max_connections=16, max_keepalive_connections=8, keepalive_expiry=5.0
            )
        ),
        tracker,
    )
    return httpx.Client(
        transport=transport,
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        trust_env=False,  # never route a local model through a proxy
    )


class SocketTracker:
    """The sockets a client opened, kept so that ``LLMClient.cancel`` can shut them down:
    closing a socket does not wake a thread blocked reading it, ``shutdown`` does. They are
    learnt from httpcore's ``trace`` request extension (its ``connect_tcp`` event)."""

    def __init__(self) -> None:
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._lock = threading.Lock()
        self.cancelled = threading.Event()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event != "connection.connect_tcp.complete":
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return
        with self._lock:
            self._sockets.add(sock)
        if self.cancelled.is_set():
            _shutdown(sock)

    def shutdown_all(self) -> None:
        self.cancelled.set()
        with self._lock:
            socks = list(self._sockets)
        for sock in socks:
            _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
