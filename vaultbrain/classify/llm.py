"""A small client for LM Studio's OpenAI-compatible server (Ollama's /v1 and llama.cpp too).

``GET /models`` is the health check and picks a model when none is configured;
``POST /chat/completions`` asks for JSON with ``response_format: json_schema`` (LM Studio
rejects ``json_object``). Connection errors and 5xx are retried with backoff; everything
else becomes an :class:`LLMError` with a kind the caller can act on.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError

if TYPE_CHECKING:
    import httpx  # imported when the first request is made: the embedded classifier never pays

MAX_REPLY_BYTES = 2_000_000
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


@dataclass
class LLMReply:
    data: dict[str, Any]
    raw: str
    model: str
    usage: dict[str, Any] = field(default_factory=dict)
    elapsed_ms: float = 0.0


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
    raise LLMError("the model's reply is not a JSON object", kind="invalid_json")


class LLMClient:
    def __init__(
        self,
        endpoint: str,
        model: str = "",
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        if self.endpoint.endswith("/chat/completions"):
            self.endpoint = self.endpoint[: -len("/chat/completions")]
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._client: httpx.Client | None = None
        self._picked: str | None = None

    @classmethod
    def from_app(cls, app: Any) -> LLMClient:
        s = app.settings
        return cls(s.get("endpoint"), s.get("model"), timeout=float(s.get("llm_timeout_seconds")))

    def _http(self) -> httpx.Client:
        import httpx

        if self._client is None:
            self._client = httpx.Client(
                timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 5.0)),
                limits=httpx.Limits(max_connections=16, max_keepalive_connections=8),
                trust_env=False,  # never route a local model through a proxy
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        import httpx

        url = f"{self.endpoint}{path}"
        attempt = 0
        while True:
            try:
                resp = self._http().request(method, url, **kw)
            except httpx.TimeoutException as exc:
                raise LLMError(
                    f"the LLM server at {self.endpoint} did not answer within {self.timeout:g}s",
                    kind="timeout",
                    retryable=True,
                ) from exc
            except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
                # A refused connection means no server: retrying here only delays the fallback.
                if attempt < self.retries and not isinstance(exc, httpx.ConnectError):
                    attempt += 1
                    time.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise LLMError(
                    f"cannot reach the LLM server at {self.endpoint} (is LM Studio's server running?)",
                    kind="unreachable",
                    retryable=True,
                ) from exc
            except httpx.HTTPError as exc:
                raise LLMError(
                    f"LLM request failed: {exc}", kind="unreachable", retryable=True
                ) from exc
            if resp.status_code >= 500 and attempt < self.retries:
                attempt += 1
                time.sleep(self.backoff * 2 ** (attempt - 1))
                continue
            return resp

    def models(self) -> list[str]:
        resp = self._request("GET", "/models")
        if resp.status_code != 200:
            raise LLMError(
                f"the LLM server answered {resp.status_code} to GET /models",
                kind="server",
                retryable=resp.status_code >= 500,
            )
        try:
            data = resp.json().get("data", [])
            return [m["id"] for m in data if isinstance(m, dict) and "id" in m]
        except (ValueError, AttributeError) as exc:
            raise LLMError("the LLM server's model list is not JSON", kind="server") from exc

    def pick_model(self) -> str:
        if self.model:
            return self.model
        if self._picked is None:
            models = self.models()
            if not models:
                raise LLMError(
                    "the LLM server has no models loaded; load one in LM Studio or run `lms load`",
                    kind="no_models",
                    retryable=True,
                )
            self._picked = models[0]
        return self._picked

    def chat_json(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        name: str = "reply",
        temperature: float = 0.1,
    ) -> LLMReply:
        model = self.pick_model()
        body = {
            "model": model,
            "messages": messages,
            "temperature": temperature,
            "stream": False,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema},
            },
        }
        started = time.perf_counter()
        resp = self._request("POST", "/chat/completions", json=body)
        elapsed = (time.perf_counter() - started) * 1000
        if resp.status_code != 200:
            raise self._error_for(resp)
        if len(resp.content) > MAX_REPLY_BYTES:
            raise LLMError(
                f"the model's reply is {len(resp.content)} bytes, over the {MAX_REPLY_BYTES} limit",
                kind="invalid_json",
            )
        try:
            doc = resp.json()
            content = doc["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMError(
                "the LLM server's reply is not a chat completion", kind="server"
            ) from exc
        answered_by = str(doc.get("model") or model)
        if self.model and answered_by != self.model and not _same_model(answered_by, self.model):
            raise LLMError(
                f"asked for model {self.model!r} but {answered_by!r} answered; "
                "load the configured model or `vaultbrain settings set model …`",
                kind="wrong_model",
            )
        data = extract_json(content)
        return LLMReply(data, content, answered_by, doc.get("usage") or {}, elapsed)

    def _error_for(self, resp: httpx.Response) -> LLMError:
        try:
            detail = resp.json().get("error")
            if isinstance(detail, dict):
                detail = detail.get("message")
        except (ValueError, AttributeError):
            detail = resp.text[:200]
        detail = str(detail or "").strip()
        if resp.status_code == 400 and "no models loaded" in detail.lower():
            return LLMError(
                "LM Studio has no model loaded; load one in LM Studio or run `lms load <model>`",
                kind="no_models",
                retryable=True,
            )
        return LLMError(
            f"the LLM server answered {resp.status_code}: {detail or resp.reason_phrase}",
            kind="server",
            retryable=resp.status_code >= 500 or resp.status_code == 429,
        )


def _same_model(a: str, b: str) -> bool:
    """LM Studio sometimes answers with a path-like id (publisher/model or model.gguf)."""

    def norm(x: str) -> str:
        return x.lower().rsplit("/", 1)[-1].removesuffix(".gguf")

    return norm(a) == norm(b)
