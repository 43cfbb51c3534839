"""A client for the local LLM servers people run: LM Studio, Ollama, llama.cpp's llama-server,
llama-cpp-python, vLLM, and any other OpenAI-compatible server.

Servers agree on ``POST /chat/completions`` but not on how to ask for JSON, so the client
negotiates a *form* per endpoint and model, in this order, moving on only when the server
rejects the request (a 4xx/5xx whose body names the response format, a schema or a grammar):

1. ``json_schema_strict`` – ``response_format: {"type": "json_schema", "json_schema": {…, "strict": true}}``
   (LM Studio, llama-server, vLLM, Ollama's /v1);
2. ``json_schema`` – the same without ``strict`` (servers that refuse strict schemas);
3. ``json_object_schema`` – ``{"type": "json_object", "schema": …}`` (llama-cpp-python);
4. ``ollama_format`` – Ollama's native ``/api/chat`` with ``format: <schema>`` (Ollama only);
5. ``prompt_json`` – the schema in the prompt and the reply validated, for anything else.

What worked is remembered in ``<state_dir>/llm-forms.json`` keyed by endpoint and model, so
each later request goes straight to it; a new model is probed again. Every reply is bounded
(``max_tokens``, and a repetition penalty where the server takes one), and a reply cut off by
that bound is the error kind ``length``, not a parse failure.

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
import json
import re
import socket
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vaultbrain.classify.health import FailureLog
from vaultbrain.errors import LLMError, StorageError

if TYPE_CHECKING:
    import httpx  # imported when the first request is made: the embedded classifier never pays

MAX_REPLY_BYTES = 2_000_000
FORMS_FILE = "llm-forms.json"
FORMS = ("json_schema_strict", "json_schema", "json_object_schema", "ollama_format", "prompt_json")
SERVER_KINDS = ("lmstudio", "ollama", "llama.cpp", "llama-cpp-python", "vllm", "other")
# The port each server listens on out of the box: the best guess when nothing answers.
DEFAULT_PORTS = {1234: "lmstudio", 11434: "ollama", 8080: "llama.cpp", 8000: "llama-cpp-python"}
START_HINTS = {
    "lmstudio": "start LM Studio's server (`lms server start`, or the Developer tab) and load "
    "a model (`lms load <model>`)",
    "ollama": "start Ollama (`ollama serve`) and pull a model (`ollama pull <model>`)",
    "llama.cpp": "start llama.cpp's server: `llama-server -m <model.gguf> --port 8080`",
    "llama-cpp-python": "start llama-cpp-python's server: "
    "`python -m llama_cpp.server --model <model.gguf>` (or vLLM: `vllm serve <model>`)",
    "vllm": "start vLLM: `vllm serve <model>`",
    "other": "start your OpenAI-compatible server, or point vaultbrain at it with "
    "`vaultbrain settings set endpoint http://host:port/v1`",
}
# Servers that take llama.cpp's sampler option; others may reject a field they do not know.
_REPEAT_PENALTY_SERVERS = ("lmstudio", "llama.cpp", "llama-cpp-python")
REPEAT_PENALTY = 1.1
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|schema|grammar", re.I)
_CONTEXT_WORDS = re.compile(
    r"context size|context length|context window|exceeds? the (?:available )?context|"
    r"maximum context|too many tokens|exceed_context",
    re.I,
)


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


def short_model_name(model: str) -> str:
    """A model id as a person names it: the file stem of a path, the last part of ``org/name``."""
    name = re.split(r"[\\/]", str(model).strip().rstrip("/\\"))[-1]
    for suffix in (".gguf", ".bin", ".safetensors"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or str(model)


def extract_json(content: str) -> dict[str, Any]:
    """The JSON object in a reply: bare, fenced (```json), or after some prose."""
    text = content.strip()
    candidates = [text]
    m = _FENCE.search(text)
    if m:
        candidates.append(m.group(1).strip())
    start = text.find("{")
    if start > 0:
        candidates.append(text[start:])
    decoder = json.JSONDecoder()
    for cand in candidates:
        try:
            obj, _ = decoder.raw_decode(cand)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    raise LLMError(
        "the model's reply is not a JSON object",
        kind="invalid_json",
        cause="the model's answer was not JSON",
    )


def guess_server_by_port(endpoint: str) -> str:
    """The server an endpoint's port suggests (LM Studio 1234, Ollama 11434, llama.cpp 8080)."""
    try:
        port = urlsplit(endpoint).port
    except ValueError:
        return "other"
    return DEFAULT_PORTS.get(port or 0, "other")


def server_from_models(payload: Any, headers: dict[str, str] | None = None) -> str | None:
    """The server kind a ``GET /models`` answer gives away, if it does."""
    server_header = (headers or {}).get("server", "").lower()
    if "llama.cpp" in server_header:
        return "llama.cpp"
    if not isinstance(payload, dict):
        return None
    data = [m for m in payload.get("data") or [] if isinstance(m, dict)]
    owners = {str(m.get("owned_by", "")).lower() for m in data}
    if "organization_owner" in owners:
        return "lmstudio"
    if "llamacpp" in owners or isinstance(payload.get("models"), list):
        return "llama.cpp"
    if "vllm" in owners or any("max_model_len" in m for m in data):
        return "vllm"
    if owners == {"me"} and all("permissions" in m for m in data):
        return "llama-cpp-python"
    if "library" in owners or "ollama" in owners:
        return "ollama"
    return None


class FormMemory:
    """What form each endpoint+model answered in: ``<state_dir>/llm-forms.json``."""

    def __init__(self, state_dir: Path | str | None) -> None:
        self.path = Path(state_dir) / FORMS_FILE if state_dir is not None else None
        self._lock = threading.Lock()
        self._cache: dict[str, Any] | None = None

    @staticmethod
    def key(endpoint: str, model: str) -> str:
        return f"{endpoint} {model}"

    def _load(self) -> dict[str, Any]:
        if self._cache is None:
            self._cache = {}
            if self.path is not None:
                try:
                    doc = json.loads(self.path.read_text("utf-8"))
                    if isinstance(doc, dict) and isinstance(doc.get("entries"), dict):
                        self._cache = doc["entries"]
                except (OSError, ValueError):
                    pass  # a lost or broken cache only means probing again
        return self._cache

    def get(self, endpoint: str, model: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._load().get(self.key(endpoint, model))
        return dict(entry) if isinstance(entry, dict) and entry.get("form") in FORMS else None

    def remember(self, endpoint: str, model: str, entry: dict[str, Any]) -> None:
        with self._lock:
            entries = self._load()
            key = self.key(endpoint, model)
            if entries.get(key) == entry:
                return
            entries[key] = entry
            if self.path is None:
                return
            from vaultbrain.vault.files import atomic_write_file

            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                doc = {"version": 1, "entries": entries}
                atomic_write_file(self.path, json.dumps(doc, indent=1), durable=False)
            except (OSError, StorageError):
                pass  # remembering is an optimisation; the next process probes again


class _TrackingBackend:
    """httpcore's sync network backend, keeping the sockets it opens so that :meth:`LLMClient.
    cancel` can shut them down: closing a socket does not wake a thread blocked reading it,
    ``shutdown`` does."""

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
        self._backend: _TrackingBackend | None = None
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._picked: str | None = None
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

    @classmethod
    def from_app(cls, app: Any, purpose: str = "classify") -> LLMClient:
        return cls.from_settings(app.settings, app.state_dir, purpose)

    # -- transport -----------------------------------------------------------------------
    def _http(self) -> httpx.Client:
        import httpx

        with self._lock:
            if self._cancel.is_set():  # a request that raced cancel() gets no new connection
                raise self._cancelled_error()
            if self._client is None:
                import httpcore

                self._backend = _TrackingBackend()
                transport = httpx.HTTPTransport()
                # httpx has no public way to hand its pool a network backend; the pool is the
                # one object that opens sockets, and cancel() needs them.
                transport._pool = httpcore.ConnectionPool(
                    max_connections=16,
                    max_keepalive_connections=8,
                    keepalive_expiry=5.0,
                    network_backend=self._backend,
                )
                self._client = httpx.Client(
                    transport=transport,
                    timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 5.0)),
                    trust_env=False,  # never route a local model through a proxy
                )
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
        import httpx

        if self._cancel.is_set():
            raise self._cancelled_error()
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
                guess = guess_server_by_port(self.endpoint)
                raise LLMError(
                    f"cannot reach the LLM server at {self.endpoint}; {START_HINTS[guess]}",
                    kind="unreachable",
                    retryable=True,
                    cause=f"cannot reach the LLM server at {self.endpoint}",
                ) from exc
            if isinstance(exc, httpx.TransportError):
                raise LLMError(
                    f"the connection to the LLM server at {self.endpoint} broke: {exc}",
                    kind="reset",
                    retryable=True,
                    cause="the connection to the LLM server broke",
                ) from exc
            raise

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
        self._server = kind or _port_guess_or_other(self.endpoint)
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
            self._server = known.get("server") or None
        server = self.server_kind()
        order = [f for f in FORMS if f != "ollama_format" or server == "ollama"]
        if known is not None:
            # What worked last time first; if it is refused now, probe again from the top.
            order = [known["form"], *(f for f in order if f != known["form"])]
        rejected: dict[str, str] = {}
        for form in order:
            try:
                reply = self._ask(form, model, messages, schema, name, temperature, limit)
            except LLMError as exc:
                if exc.kind == "format_rejected" and form != "prompt_json":
                    rejected[form] = exc.cause
                    continue
                raise
            if known is None or known["form"] != form or known.get("server") != server:
                self.forms.remember(
                    self.endpoint,
                    model,
                    {
                        "form": form,
                        "server": server,
                        "rejected": rejected,
                        "checked": dt.datetime.now().isoformat(timespec="seconds"),
                    },
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
        if form == "ollama_format":
            options: dict[str, Any] = {"temperature": temperature, "repeat_penalty": REPEAT_PENALTY}
            if max_tokens:
                options["num_predict"] = max_tokens
            body: dict[str, Any] = {
                "model": model,
                "messages": messages,
                "stream": False,
                "format": schema,
                "options": options,
            }
            path = "/api/chat"
        else:
            if form == "prompt_json":
                messages = with_schema_instruction(messages, schema)
            body = {"model": model, "messages": messages, "temperature": temperature}
            body["stream"] = False
            if max_tokens:
                body["max_tokens"] = max_tokens
            if server in _REPEAT_PENALTY_SERVERS:
                body["repeat_penalty"] = REPEAT_PENALTY
            if form == "json_schema_strict":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "strict": True, "schema": schema},
                }
            elif form == "json_schema":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema},
                }
            elif form == "json_object_schema":
                body["response_format"] = {"type": "json_object", "schema": schema}
            path = "/chat/completions"
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
            if form == "ollama_format":
                content = doc["message"]["content"] or ""
                finish = doc.get("done_reason")
                usage = {
                    "prompt_tokens": doc.get("prompt_eval_count"),
                    "completion_tokens": doc.get("eval_count"),
                }
            else:
                choice = doc["choices"][0]
                content = choice["message"]["content"] or ""
                finish = choice.get("finish_reason")
                usage = doc.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMError(
                "the LLM server's reply is not a chat completion",
                kind="server",
                cause="the LLM server's reply is not a chat completion",
            ) from exc
        answered_by = str(doc.get("model") or model)
        if self.model and answered_by != self.model and not _same_model(answered_by, self.model):
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
            )
        reply.data = extract_json(content)
        return reply

    def _error_for(
        self, resp: Any, form: str | None, *, model: str = "", what: str = "the request"
    ) -> LLMError:
        detail = _error_text(resp)
        status = resp.status_code
        said = f"the LLM server answered {status} to {what}: {detail or resp.reason_phrase}"
        if status == 400 and "no models loaded" in detail.lower():
            return LLMError(
                "the LLM server has no model loaded; load one in LM Studio (the Developer tab) "
                "or run `lms load <model>`",
                kind="no_models",
                retryable=True,
                cause="the LLM server has no model loaded",
            )
        if status == 404 and re.search(r"model.*(not found|does not exist)", detail, re.I | re.S):
            name = short_model_name(model or self.model)
            return LLMError(
                f"{said}; pull or load the model (`ollama pull {name}`), or "
                "`vaultbrain settings set model …` to one the server has",
                kind="unknown_model",
                retryable=True,
                cause=f"the LLM server has no model {name!r}",
            )
        if form is not None and status >= 400 and _FORMAT_WORDS.search(detail):
            return LLMError(
                said,
                kind="format_rejected",
                cause=f"the LLM server refused the {form} request format",
            )
        if status >= 400 and _CONTEXT_WORDS.search(detail):
            return LLMError(
                f"{said}; the prompt and answer do not fit the model's context: start the "
                "server with a larger context (e.g. --n_ctx 4096 / -c 4096) or lower the "
                "*_max_tokens setting",
                kind="context_exceeded",
                cause="the request did not fit the model's context",
            )
        if status in (502, 503, 504):
            return LLMError(
                said,
                kind="server",
                retryable=True,
                cause=f"the LLM server is temporarily unavailable ({status})",
            )
        if status == 429:
            return LLMError(
                said, kind="rate_limited", retryable=True, cause="the LLM server is busy (429)"
            )
        if 400 <= status < 500 or re.search(r"invalid|validation|literal_error", detail, re.I):
            return LLMError(
                said,
                kind="invalid_request",
                cause=f"the LLM server refused the request ({status})",
            )
        return LLMError(
            said, kind="server", retryable=True, cause=f"the LLM server failed ({status})"
        )


def with_schema_instruction(
    messages: list[dict[str, str]], schema: dict[str, Any]
) -> list[dict[str, str]]:
    """The messages with the schema spelled out, for servers that take no response format."""
    note = (
        "\n\nAnswer with one JSON object only, no prose and no code fence. "
        "It must match this JSON schema:\n" + json.dumps(schema, separators=(",", ":"))
    )
    out = [dict(m) for m in messages]
    for m in out:
        if m.get("role") == "system":
            m["content"] = m.get("content", "") + note
            return out
    return [{"role": "system", "content": note.strip()}, *out]


def _error_text(resp: Any) -> str:
    try:
        detail = resp.json().get("error")
        if isinstance(detail, dict):
            detail = detail.get("message")
        elif detail is None:
            detail = resp.json().get("detail") or resp.text
    except (ValueError, AttributeError):
        detail = resp.text
    return " ".join(str(detail or "").split())[:2000]


def _max_tokens(settings: Any, purpose: str) -> int | None:
    try:
        value = settings.get(f"{purpose}_max_tokens")
    except Exception:  # an unknown purpose: keep the client's default
        return 600
    return int(value) if value else None


def _port_guess_or_other(endpoint: str) -> str:
    guess = guess_server_by_port(endpoint)
    # Port 8000 is both llama-cpp-python's and vLLM's: only a default, never a finding.
    return "other" if guess == "llama-cpp-python" else guess


def _same_model(a: str, b: str) -> bool:
    """LM Studio sometimes answers with a path-like id (publisher/model or model.gguf)."""
    return short_model_name(a).lower() == short_model_name(b).lower()
