"""A real HTTP server on 127.0.0.1 that answers like the local LLM servers people run.

By default it is LM Studio's OpenAI-compatible API. ``persona`` makes it another server as
vaultbrain sees it: the shape of ``GET /models``, the routes only that server has (Ollama's
``/api/version`` and ``/api/chat``, llama.cpp's ``/props``), and the response formats it
refuses, with that server's exact error body (see ``ERRORS``).

Tests set ``server.mode`` (ok, error500, hang, invalid_json, no_models, wrong_model, huge,
schema_violation, context_exceeded, unknown_model, length, bad_gateway, or ``replay:<name>``
to answer every POST with ``ERRORS[name]``), ``server.refuse_formats`` (response_format types
refused on top of the persona's own) or a ``responder(request_json) -> content string``. Every POST body is kept in
``server.requests`` and its path in ``server.paths`` so tests can check what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PERSONAS = ("lmstudio", "llama-cpp-python", "llama.cpp", "ollama", "vllm", "openai", "plain")

# The error bodies the real servers send, byte for byte where it matters to the client.
ERRORS: dict[str, tuple[int, Any]] = {
    # llama-cpp-python 0.3.x (`python -m llama_cpp.server`) to response_format json_schema:
    # its request model only knows "text" and "json_object". Captured verbatim from the real
    # server (0.3.36), with the server machine's file path it leaks.
    "llama-cpp-python-json-schema": (
        500,
        {
            "error": {
                "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/work/wt16/.venv/lib/python3.11/site-packages/llama_cpp/server/app.py\", line 376, in create_chat_completion\n    POST /v1/chat/completions",
                "type": "internal_server_error",
                "param": None,
                "code": None,
            }
        },
    ),
    # llama.cpp's llama-server when a request (or a looping answer) fills the slot's context.
    "llama.cpp-context": (
        500,
        {
            "error": {
                "code": 500,
                "message": "Context size has been exceeded.",
                "type": "server_error",
            }
        },
    ),
    # LM Studio with its server on and no model loaded.
    "lmstudio-no-models": (
        400,
        {
            "error": "No models loaded. Please load a model in the developer page or use the "
            "`lms load` command."
        },
    ),
    # Ollama's /v1 for a model it has not pulled.
    "ollama-unknown-model": (
        404,
        {
            "error": {
                "message": 'model "{model}" not found, try pulling it first',
                "type": "api_error",
                "param": None,
                "code": None,
            }
        },
    ),
    # OpenAI-style servers that refuse strict schemas using keywords they do not support.
    "openai-strict": (
        400,
        {
            "error": {
                "message": "Invalid schema for response_format 'brain_classification': In "
                "context=(), 'maxItems' is not permitted.",
                "type": "invalid_request_error",
                "param": "response_format",
                "code": None,
            }
        },
    ),
    # A minimal OpenAI-compatible server that takes no response_format at all.
    "plain-no-format": (
        400,
        {
            "error": {
                "message": "Unsupported parameter: 'response_format'",
                "type": "invalid_request_error",
            }
        },
    ),
}


class FakeLMStudio:
    def __init__(self, model: str = "test-model", port: int = 0, persona: str = "lmstudio") -> None:
        assert persona in PERSONAS, persona
        self.model = model
        self.persona = persona
        self.mode = "ok"
        self.refuse_formats: set[str] = set()
        self.responder: Callable[[dict[str, Any]], str] | None = None
        self.cut_answer: str | None = None  # what mode "length" answers before the cut
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.delay = 0.0
        self._lock = threading.Lock()
        self.hang_seconds = 30.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave at once, as a real server does

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: Any, raw: bool = False) -> None:
                data = body if raw else json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if outer.persona in ("llama-cpp-python", "vllm"):
                    self.send_header("Server", "uvicorn")
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _replay(self, name: str) -> None:
                code, body = ERRORS[name]
                text = json.dumps(body).replace("{model}", outer.model)
                self._send(code, text.encode(), raw=True)

            def do_GET(self) -> None:
                path = self.path.rstrip("/")
                if path.endswith("/models"):
                    if outer.mode == "error500":
                        return self._send(500, {"error": "boom"})
                    data = [] if outer.mode == "no_models" else [outer.model_entry()]
                    payload: dict[str, Any] = {"object": "list", "data": data}
                    if outer.persona == "llama.cpp":
                        payload["models"] = [{"name": outer.model, "model": outer.model}]
                    return self._send(200, payload)
                if path == "/api/version" and outer.persona == "ollama":
                    return self._send(200, {"version": "0.5.7"})
                if path == "/props" and outer.persona == "llama.cpp":
                    return self._send(
                        200,
                        {"default_generation_settings": {"n_ctx": 2048}, "build_info": "b4000"},
                    )
                self._send(404, {"error": "not found"})
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    outer.paths.append(self.path)
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if self.path.rstrip("/").endswith("/embeddings"):
                        return self._send(404, {"error": "not found"})  # a chat model alone
                    if self.path.rstrip("/") == "/api/chat":
                        if outer.persona != "ollama":
                            return self._send(404, {"error": "not found"})
                        return self._answer(body, native=True)
                    refusal = outer.refusal(body.get("response_format"))
                    if refusal is not None:
                        return self._replay(refusal)
                    self._answer(body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

            def _answer(self, body: dict[str, Any], native: bool = False) -> None:
                mode = outer.mode
                if outer.delay:
                    time.sleep(outer.delay)
                if mode == "hang":
                    time.sleep(outer.hang_seconds)
                    return self._send(504, {"error": "late"})
                if mode == "error500":
                    return self._send(500, {"error": {"message": "internal error"}})
                if mode == "bad_gateway":
                    return self._send(502, {"error": {"message": "Bad Gateway"}})
                if mode.startswith("replay:"):
                    return self._replay(mode.split(":", 1)[1])
                if mode == "no_models":
                    return self._replay("lmstudio-no-models")
                if mode == "context_exceeded":
                    return self._replay("llama.cpp-context")
                if mode == "unknown_model":
                    return self._replay("ollama-unknown-model")
                finish = "stop"
                if mode == "invalid_json":
                    content = "this is not json {"
                elif mode == "huge":
                    content = (
                        '{"destinations": [], "confidence": 0.9, "reasoning": "'
                        + "x" * 5_000_000
                        + '"}'
                    )
                elif mode == "schema_violation":
                    content = json.dumps({"destinations": "person", "confidence": "high"})
                elif mode == "length":
                    # A small model looping on a list until max_tokens: cut mid-answer.
                    content = outer.cut_answer or (
                        '{"destinations": [{"type": "person", "title": "Person", '
                        '"fields": {"topics": ["Person", "Person", "Per'
                    )
                    finish = "length"
                elif outer.responder is not None:
                    content = outer.responder(body)
                else:
                    content = json.dumps(
                        {"destinations": [], "confidence": 0.1, "reasoning": "no responder"}
                    )
                model = "other-model" if mode == "wrong_model" else body.get("model") or outer.model
                if native:
                    return self._send(
                        200,
                        {
                            "model": model,
                            "created_at": "2026-12-01T10:00:00Z",
                            "message": {"role": "assistant", "content": content},
                            "done": True,
                            "done_reason": finish,
                            "prompt_eval_count": 100,
                            "eval_count": 50,
                        },
                    )
                self._send(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": finish,
                                "message": {"role": "assistant", "content": content},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 50,
                            "total_tokens": 150,
                        },
                    },
                )
                return None

        ThreadingHTTPServer.allow_reuse_address = True
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def model_entry(self) -> dict[str, Any]:
        """One model of ``GET /models`` as this persona lists it."""
        base: dict[str, Any] = {"id": self.model, "object": "model"}
        if self.persona == "lmstudio":
            return {**base, "owned_by": "organization_owner"}
        if self.persona == "llama-cpp-python":
            return {**base, "owned_by": "me", "permissions": []}
        if self.persona == "llama.cpp":
            return {
                **base,
                "created": 1764583200,
                "owned_by": "llamacpp",
                "meta": {"n_ctx_train": 8192},
            }
        if self.persona == "ollama":
            return {**base, "created": 1764583200, "owned_by": "library"}
        if self.persona == "vllm":
            return {**base, "owned_by": "vllm", "root": self.model, "max_model_len": 4096}
        return {**base, "owned_by": "system"}

    def refusal(self, response_format: Any) -> str | None:
        """The ERRORS entry this persona answers a response format with, or None."""
        if not isinstance(response_format, dict):
            return None
        kind = response_format.get("type")
        if kind in self.refuse_formats:
            return "plain-no-format"
        if self.persona == "llama-cpp-python" and kind == "json_schema":
            return "llama-cpp-python-json-schema"
        if self.persona == "openai" and kind == "json_schema":
            if (response_format.get("json_schema") or {}).get("strict"):
                return "openai-strict"
        if self.persona == "plain":
            return "plain-no-format"
        return None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeLMStudio:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def reply(
    destinations: list[dict[str, Any]], confidence: float = 0.9, reasoning: str = "test"
) -> str:
    return json.dumps(
        {"destinations": destinations, "confidence": confidence, "reasoning": reasoning}
    )


_PROBE: dict[str, Any] | None = None


def thought_of(body: dict[str, Any]) -> str:
    """The thought a classification request asks about (the user message's JSON string)."""
    content = body["messages"][-1]["content"]
    return str(json.loads(content.split("\n", 1)[1]))


def probe_answer(thought: str) -> str | None:
    """A capable model's answer to one of the thoughts vaultbrain's probe asks a model it meets
    (``corpus/probe.txt``, vaultbrain/classify/probe.py): right every time. None for any other
    thought. A responder made for one test's thoughts answers the probe with this, so the
    model it stands for is measured as good as it is meant to be, not as a model that calls
    every thought the same thing."""
    global _PROBE
    if _PROBE is None:
        from vaultbrain.classify.probe import load_probe

        _PROBE = {ex.text: ex for ex in load_probe()}
    ex = _PROBE.get(thought)
    if ex is None:
        return None
    if not ex.labels:
        return reply([{"type": "unknown", "title": "", "fields": {}}], 0.9, "probe")
    names = iter(ex.people)
    dests = [
        {"type": t, "title": next(names, "") if t == "person" else thought[:40], "fields": {}}
        for t in ex.labels
    ]
    return reply([d for d in dests if d["title"]] or [{**dests[0], "title": thought[:40]}], 0.9)
