"""A real HTTP server on 127.0.0.1 that answers like LM Studio's OpenAI-compatible API.

Tests set ``server.mode`` (ok, error500, hang, invalid_json, no_models, wrong_model, huge,
schema_violation) or a ``responder(request_json) -> content string``. Every request body is
kept in ``server.requests`` so tests can check what the classifier was sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeLMStudio:
    def __init__(self, model: str = "test-model", port: int = 0) -> None:
        self.model = model
        self.mode = "ok"
        self.responder: Callable[[dict[str, Any]], str] | None = None
        self.requests: list[dict[str, Any]] = []
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
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    if outer.mode == "error500":
                        return self._send(500, {"error": "boom"})
                    data = (
                        []
                        if outer.mode == "no_models"
                        else [
                            {"id": outer.model, "object": "model", "owned_by": "organization_owner"}
                        ]
                    )
                    return self._send(200, {"object": "list", "data": data})
                self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    self._answer(body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                mode = outer.mode
                if outer.delay:
                    time.sleep(outer.delay)
                if mode == "hang":
                    time.sleep(outer.hang_seconds)
                    return self._send(504, {"error": "late"})
                if mode == "error500":
                    return self._send(500, {"error": {"message": "internal error"}})
                if mode == "no_models":
                    return self._send(
                        400,
                        {
                            "error": "No models loaded. Please load a model in the developer page or use the `lms load` command."
                        },
                    )
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
                elif outer.responder is not None:
                    content = outer.responder(body)
                else:
                    content = json.dumps(
                        {"destinations": [], "confidence": 0.1, "reasoning": "no responder"}
                    )
                model = "other-model" if mode == "wrong_model" else body.get("model") or outer.model
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
                                "finish_reason": "stop",
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

        ThreadingHTTPServer.allow_reuse_address = True
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

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
