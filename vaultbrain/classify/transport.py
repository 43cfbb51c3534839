"""The HTTP connection to a local LLM server, made cancellable: :class:`TrackingBackend`
keeps the sockets httpcore opens so that :meth:`vaultbrain.classify.llm.LLMClient.cancel`
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


def http_client(timeout: float, backend: TrackingBackend) -> httpx.Client:
    """An httpx client whose connection pool opens its sockets through ``backend``."""
    from vaultbrain import logs

    logs.settle()  # (httpx logs on its own: its lines meet the command's configuration)
    import httpcore
    import httpx

    # httpx has no public way to hand its pool a network backend; the pool is the one
    # object that opens sockets, and cancel() needs them. The transport (which uses nothing
    # but its ``_pool``) is made without its __init__: that builds a pool of its own, TLS
    # context and CA certificates included, which cost the daemon's first capture about
    # 25 ms only to be thrown away. (An https endpoint gets its context from the pool below.)
    transport = httpx.HTTPTransport.__new__(httpx.HTTPTransport)
    transport._pool = httpcore.ConnectionPool(
        max_connections=16,
        max_keepalive_connections=8,
        keepalive_expiry=5.0,
        network_backend=backend,  # type: ignore[arg-type]  # (httpcore's interface, by duck)
    )
    return httpx.Client(
        transport=transport,
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        trust_env=False,  # never route a local model through a proxy
    )


class TrackingBackend:
    """httpcore's sync network backend, keeping the sockets it opens so that
    ``LLMClient.cancel`` can shut them down: closing a socket does not wake a thread blocked
    reading it, ``shutdown`` does."""

    def __init__(self) -> None:
        import httpcore

        self._inner = httpcore.SyncBackend()
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._lock = threading.Lock()
        self.cancelled = threading.Event()

    def connect_tcp(self, *args: Any, **kw: Any) -> Any:
        stream = self._inner.connect_tcp(*args, **kw)
        sock = stream.get_extra_info("socket")
        if sock is not None:
            with self._lock:
                self._sockets.add(sock)
            if self.cancelled.is_set():
                _shutdown(sock)
        return stream

    def connect_unix_socket(self, *args: Any, **kw: Any) -> Any:
        return self._inner.connect_unix_socket(*args, **kw)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)

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
