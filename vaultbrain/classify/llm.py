"""A client for the local LLM servers people run: LM Studio, Ollama, llama.cpp's llama-server,
llama-cpp-python, vLLM, and any other OpenAI-compatible server.

:meth:`LLMClient.chat_json` asks for a JSON answer in the *form* this endpoint and model
accept, negotiating it once and remembering it (``vaultbrain/classify/forms.py``). Which server
is at the endpoint is told apart in ``vaultbrain/classify/servers.py``; what an HTTP error
means in ``vaultbrain/classify/llm_errors.py``; the cancellable connection is
``vaultbrain/classify/transport.py``. A reply cut off by its token bound is the error kind
``length``, not a parse failure.

Errors are :class:`LLMError` with a ``kind``:

- ``unreachable`` (refused or reset connection), ``timeout``, ``server`` (502–504 or a bare
  500), ``rate_limited`` – temporary, ``retryable``;
- ``no_models`` (LM Studio's "No models loaded"), ``unknown_model`` (Ollama's 404) – the
  person loads a model, then it works: ``retryable``;
- ``format_rejected`` (only while negotiating), ``invalid_request``, ``context_exceeded``,
  ``length``, ``invalid_json``, ``wrong_model`` – the same request would fail again;
- ``cancelled`` – :meth:`LLMClient.cancel` was called (shutdown); the capture stays pending.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vaultbrain.classify.forms import (
    FormMemory,
    KnownForm,
    extract_json,
    form_order,
    read_completion,
    request_for,
)
from vaultbrain.classify.health import FailureLog
from vaultbrain.classify.servers import (
    START_HINTS,
    guess_server_by_port,
    port_guess_or_other,
    same_model,
    server_from_models,
    short_model_name,
)
from vaultbrain.classify.transport import SocketTracker, http_client, refuses_connections
from vaultbrain.errors import LLMError

if TYPE_CHECKING:
    import httpx

MAX_REPLY_BYTES = 2_000_000
SERVED_FOR = 30.0  # seconds a served model id is taken as still served (LLMClient.served_model)


@dataclass
class LLMReply:
    data: dict[str, Any]
    raw: str
    model: str
    usage: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0
    server: str = "other"
    form: str = "json_schema_strict"
    finish_reason: str | None = None

    @property
    def label(self) -> str:
        """``<server kind>:<short model name>``: what ``classified_by`` records."""
        return f"{self.server}:{short_model_name(self.model)}"

    @property
    def tokens_per_second(self) -> float | None:
        out = self.usage.get("completion_tokens")
        if not isinstance(out, int | float) or self.elapsed_ms <= 0:
            return None
        return float(out) / (self.elapsed_ms / 1000)


class LLMClient:
    def __init__(
        self,
        endpoint: str,
        model: str = "",
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
        *,
        state_dir: Path | str | None = None,
        max_tokens: int | None = 600,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        if self.endpoint.endswith("/chat/completions"):
            self.endpoint = self.endpoint[: -len("/chat/completions")]
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_tokens = max_tokens
        self.forms = FormMemory(state_dir)
        self.health = FailureLog(self.endpoint)
        self._client: httpx.Client | None = None
        self._backend: SocketTracker | None = None
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._picked: str | None = None
        self._served: tuple[float, str] | None = None  # (when asked, the id served)
        self._models_payload: tuple[Any, dict[str, str]] | None = None
        self._server: str | None = None
        self.last_tokens_per_second: float | None = None

    @classmethod
    def from_settings(
        cls, settings: Any, state_dir: Path | str | None, purpose: str = "classify"
    ) -> LLMClient:
        """A client as the settings describe it; ``purpose`` picks the ``*_max_tokens`` key
        (classify, digest, review)."""
        return cls(
            str(settings.get("endpoint")),
            str(settings.get("model") or ""),
            timeout=float(settings.get("llm_timeout_seconds")),
            state_dir=state_dir,
            max_tokens=_max_tokens(settings, purpose),
        )

    # -- transport -----------------------------------------------------------------------
    def _http(self) -> httpx.Client:
        with self._lock:
            if self._cancel.is_set():  # a request that raced cancel() gets no new connection
                raise self._cancelled_error()
            if self._client is None:
                self._backend = SocketTracker()
                self._client = http_client(self.timeout, self._backend)
            return self._client

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def cancel(self) -> None:
        """Make every request in flight, and every later one, fail at once with the kind
        ``cancelled``. Safe to call from another thread (the daemon's signal handler)."""
        self._cancel.set()
        with self._lock:
            backend, client, self._client = self._backend, self._client, None
        if backend is not None:
            backend.shutdown_all()
        if client is not None:
            try:
                client.close()
            except Exception:  # a pool closing under a live request may complain; it is done
                pass

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _cancelled_error(self) -> LLMError:
        return LLMError(
            "the LLM request was cancelled (vaultbrain is stopping)",
            kind="cancelled",
            retryable=True,
            cause="cancelled at shutdown",
        )

    def _url(self, path: str) -> str:
        if path.startswith("/api/") or path == "/props":
            return f"{self.root}{path}"
        return f"{self.endpoint}{path}"

    @property
    def root(self) -> str:
        """The server's root URL (the endpoint without its ``/v1``): Ollama's and llama.cpp's
        own routes live there."""
        parts = urlsplit(self.endpoint)
        path = re.sub(r"/v1$", "", parts.path.rstrip("/"))
        return f"{parts.scheme}://{parts.netloc}{path}"

    def _send(self, method: str, path: str, timeout: float | None = None, **kw: Any) -> Any:
        """One HTTP request; a transport failure becomes an LLMError of its kind."""
        if self._cancel.is_set():
            raise self._cancelled_error()
        if self._client is None and refuses_connections(self.endpoint):
            raise self._unreachable()  # no server: known without importing httpx
        import httpx

        if timeout is not None:
            kw["timeout"] = httpx.Timeout(timeout, connect=min(timeout, 5.0))
        try:
            return self._http().request(method, self._url(path), **kw)
        except Exception as exc:
            if self._cancel.is_set():
                raise self._cancelled_error() from exc
            if isinstance(exc, httpx.TimeoutException):
                limit = timeout if timeout is not None else self.timeout
                slow = ""
                if self.last_tokens_per_second:
                    slow = (
                        f" (the model last ran at {self.last_tokens_per_second:.1f} tokens/s; "
                        "raise llm_timeout_seconds or use a smaller model)"
                    )
                raise LLMError(
                    f"the LLM server at {self.endpoint} did not answer within {limit:g}s{slow}",
                    kind="timeout",
                    retryable=True,
                    cause=f"the LLM server did not answer within {limit:g}s",
                ) from exc
            if isinstance(exc, httpx.ConnectError):
                raise self._unreachable() from exc
            if isinstance(exc, httpx.TransportError):
                raise LLMError(
                    f"the connection to the LLM server at {self.endpoint} broke: {exc}",
                    kind="reset",
                    retryable=True,
                    cause="the connection to the LLM server broke",
                ) from exc
            raise

    def _unreachable(self) -> LLMError:
        guess = guess_server_by_port(self.endpoint)
        return LLMError(
            f"cannot reach the LLM server at {self.endpoint}; {START_HINTS[guess]}",
            kind="unreachable",
            retryable=True,
            cause=f"cannot reach the LLM server at {self.endpoint}",
        )

    def _request(self, method: str, path: str, **kw: Any) -> Any:
        """A request retried with backoff while the failure is temporary: a broken
        connection, 502–504, 429 or a bare 500. A refused connection is not retried (there is
        no server; waiting only delays the fallback) and neither is a 500 that names the cause."""
        attempt = 0
        while True:
            try:
                resp = self._send(method, path, **kw)
            except LLMError as exc:
                if exc.kind == "reset" and attempt < self.retries:
                    attempt += 1
                    self._pause(attempt)
                    continue
                raise
            if resp.status_code >= 400 and attempt < self.retries:
                err = self._error_for(resp, None)
                if err.kind in ("server", "rate_limited"):
                    attempt += 1
                    self._pause(attempt)
                    continue
            return resp

    def _pause(self, attempt: int) -> None:
        # Event.wait, not time.sleep: cancel() ends the pause at once.
        if self._cancel.wait(self.backoff * 2 ** (attempt - 1)):
            raise self._cancelled_error()

    # -- models and server ---------------------------------------------------------------
    def models(self) -> list[str]:
        resp = self._request("GET", "/models")
        if resp.status_code != 200:
            raise self._error_for(resp, None, what="GET /models")
        try:
            payload = resp.json()
            data = payload.get("data", [])
            ids = [m["id"] for m in data if isinstance(m, dict) and "id" in m]
        except (ValueError, AttributeError, TypeError) as exc:
            raise LLMError(
                "the LLM server's model list is not JSON",
                kind="server",
                cause="the LLM server's model list is not JSON",
            ) from exc
        self._models_payload = (payload, {k.lower(): v for k, v in resp.headers.items()})
        return ids

    def pick_model(self) -> str:
        if self.model:
            return self.model
        if self._picked is None:
            models = self.models()
            if not models:
                raise LLMError(
                    "the LLM server has no models loaded; load one in LM Studio "
                    "(`lms load <model>`) or pull one in Ollama (`ollama pull <model>`)",
                    kind="no_models",
                    retryable=True,
                    cause="the LLM server has no model loaded",
                )
            self._picked = models[0]
        return self._picked

    def served_model(self) -> str:
        """The id of the model that answers at this endpoint, as the server itself reports it
        (``GET /models``): the configured model when the server lists it, else the first it
        lists (a one-model server, llama.cpp's, answers with its own whatever is asked for).
        The identity the LLM's cached answers and probe record are kept under: another
        server or another model on the same port is another identity. Asked again after
        SERVED_FOR seconds, so a long-lived client notices a swap. Raises LLMError when the
        server does not say."""
        now = time.monotonic()
        if self._served is not None and now - self._served[0] < SERVED_FOR:
            return self._served[1]
        ids = self.models()
        if self.model and self.model in ids:
            served = self.model
        elif ids:
            served = ids[0] if not self.model else f"{ids[0]} (asked for {self.model})"
        else:
            raise LLMError(
                "the LLM server has no models loaded",
                kind="no_models",
                retryable=True,
                cause="the LLM server has no model loaded",
            )
        self._served = (now, served)
        return served

    def server_kind(self) -> str:
        """lmstudio, ollama, llama.cpp, llama-cpp-python, vllm or other: from the shape of
        ``/models``, the ``Server`` header, Ollama's ``/api/version``, llama.cpp's ``/props``,
        and last the port."""
        if self._server is not None:
            return self._server
        kind: str | None = None
        quick = min(self.timeout, 3.0)
        try:
            if self._models_payload is None:
                self.models()
            if self._models_payload is not None:
                kind = server_from_models(*self._models_payload)
        except LLMError as exc:
            if exc.kind in ("cancelled", "unreachable", "timeout"):
                raise  # nothing to learn from a server that does not answer
        for path, test, name in (
            ("/api/version", lambda d: "version" in d, "ollama"),
            ("/props", lambda d: "default_generation_settings" in d or "build_info" in d, None),
        ):
            if kind is not None:
                break
            try:
                resp = self._send("GET", path, timeout=quick)
                doc = resp.json() if resp.status_code == 200 else None
            except (LLMError, ValueError):
                continue
            if isinstance(doc, dict) and test(doc):
                kind = name or "llama.cpp"
        self._server = kind or port_guess_or_other(self.endpoint)
        return self._server

    # -- chat ----------------------------------------------------------------------------
    def chat_json(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str = "reply",
        temperature: float = 0.1,
        max_tokens: int | None = None,
    ) -> LLMReply:
        """The model's JSON answer, asked for in the form this server and model accept.

        Raises LLMError; every request's outcome is reported to :attr:`health`."""
        try:
            reply = self._chat_json(messages, schema, name, temperature, max_tokens)
        except LLMError as exc:
            self.health.failed(exc.kind, exc.cause)
            raise
        self.health.succeeded()
        return reply

    def _chat_json(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        temperature: float,
        max_tokens: int | None,
    ) -> LLMReply:
        from vaultbrain.classify.prompt import NET_ITEMS, NET_STRING, bound_schema

        model = self.pick_model()
        limit = max_tokens if max_tokens is not None else self.max_tokens
        schema = bound_schema(schema, NET_ITEMS, NET_STRING)  # callers may bound tighter
        known = self.forms.get(self.endpoint, model)
        if known is not None and self._server is None:
            self._server = known.server
        server = self.server_kind()
        order = form_order(server, known)
        rejected: dict[str, str] = {}
        for form in order:
            try:
                reply = self._ask(form, model, messages, schema, name, temperature, limit)
            except LLMError as exc:
                if exc.kind == "format_rejected" and form != "prompt_json":
                    rejected[form] = exc.cause
                    continue
                raise
            if known is None or known.form != form or known.server != server:
                checked = dt.datetime.now().isoformat(timespec="seconds")
                self.forms.remember(
                    self.endpoint, model, KnownForm(form, server, rejected, checked)
                )
            return reply
        raise LLMError(  # prompt_json asks for no format, so a refusal of it is not about format
            f"the LLM server refused every form of request ({', '.join(rejected)})",
            kind="invalid_request",
            cause="the LLM server refused every form of request",
        )

    def _ask(
        self,
        form: str,
        model: str,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str,
        temperature: float,
        max_tokens: int | None,
    ) -> LLMReply:
        server = self._server or "other"
        path, body = request_for(
            form, server, model, messages, schema, name, temperature, max_tokens
        )
        started = time.perf_counter()
        resp = self._request("POST", path, json=body)
        elapsed = (time.perf_counter() - started) * 1000
        if resp.status_code != 200:
            raise self._error_for(resp, form, model=model)
        if len(resp.content) > MAX_REPLY_BYTES:
            raise LLMError(
                f"the model's reply is {len(resp.content)} bytes, over the {MAX_REPLY_BYTES} limit",
                kind="invalid_json",
                cause="the model's answer was far too long",
            )
        try:
            doc = resp.json()
        except ValueError as exc:
            raise LLMError(
                "the LLM server's reply is not a chat completion",
                kind="server",
                cause="the LLM server's reply is not a chat completion",
            ) from exc
        content, finish, usage = read_completion(form, doc)
        answered_by = str(doc.get("model") or model)
        if self.model and answered_by != self.model and not same_model(answered_by, self.model):
            raise LLMError(
                f"asked for model {self.model!r} but {answered_by!r} answered; "
                "load the configured model or `vaultbrain settings set model …`",
                kind="wrong_model",
                cause=f"another model ({short_model_name(answered_by)}) answered",
            )
        reply = LLMReply({}, content, answered_by, usage, elapsed, server, form, finish)
        if reply.tokens_per_second:
            self.last_tokens_per_second = reply.tokens_per_second
        if finish == "length":
            raise LLMError(
                f"the model's answer was cut off at the {max_tokens}-token limit "
                f"(raise the *_max_tokens setting, or use a model that stops sooner)",
                kind="length",
                cause=f"the model's answer was cut off at {max_tokens} tokens",
                partial=content,
            )
        reply.data = extract_json(content)
        return reply

    def _error_for(
        self, resp: Any, form: str | None, *, model: str = "", what: str = "the request"
    ) -> LLMError:
        # only a server that answered has an error to read (not one that refused to connect)
        from vaultbrain.classify.llm_errors import error_for_response

        return error_for_response(resp, form, model=model or self.model, what=what)


def _max_tokens(settings: Any, purpose: str) -> int | None:
    try:
        value = settings.get(f"{purpose}_max_tokens")
    except Exception:  # an unknown purpose: keep the client's default
        return 600
    return int(value) if value else None
