"""A real HTTP server on 127.0.0.1 that embeds text fast and deterministically: the words
and character trigrams of a text hashed into ``dim`` buckets (signed), so texts sharing
words or word stems are near each other. Good enough to test and measure everything
around the model: what is sent, stored, updated, fused; and fast enough for 10,000 notes.

``mode`` makes it a server that will not embed, as the real ones refuse:
``no_embeddings`` (llama-cpp-python started without ``--embedding``: its 500 and message),
``not_found`` (a server with no such route: 404), ``per_token`` (no pooling: one vector per
token, as llama-cpp-python serves a chat model), ``string_only`` (refuses a list ``input``),
``error503`` (temporarily unavailable). ``posts`` counts requests to the embeddings route,
``calls`` those answered with vectors, and ``texts`` keeps every text embedded.

``faults`` (a word -> a fault) makes it a server that fails on some texts only, as real
ones do: any text holding the word gets ``error500`` (the whole request answered 500),
``too_long`` (a 400 saying the text exceeds the context, when the text is longer than
``context_chars``), ``nan`` / ``inf`` (a number of its vector NaN or infinity),
``empty`` (an empty list), ``wide`` (a vector of the wrong size) or ``zeros``. ``dim`` may
change while it runs (a model that changed size under the same name).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_TOKEN = re.compile(r"\w+", re.UNICODE)
LLAMA_CPP_PYTHON_NO_EMBEDDING = (
    "Llama model must be created with embedding=True to call this method"
)


def hash_embed(text: str, dim: int = 256) -> list[float]:
    """The vector of ``text``: hashed words (weight 1) and character trigrams of each word
    (weight 0.5), L2-normalised."""
    vec = [0.0] * dim
    for word in _TOKEN.findall(text.lower()):
        grams = [word] + [f"#{word}#"[i : i + 3] for i in range(len(word))]
        for j, gram in enumerate(grams):
            h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "little")
            vec[h % dim] += (1.0 if j == 0 else 0.5) * (1 if (h >> 32) & 1 else -1)
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


class HashEmbedServer:
    def __init__(self, dim: int = 256, model: str = "hash-embed", persona: str = "lmstudio"):
        self.dim = dim
        self.model = model
        self.persona = persona
        self.mode = "ok"
        self.calls = 0  # embedding requests answered with vectors
        self.posts = 0  # every request to the embeddings route, refused or not
        self.texts: list[str] = []
        self.delay = 0.0  # seconds each embedding request takes (a slow server)
        self.faults: dict[str, str] = {}
        self.context_chars = 400
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    owned = "me" if owner.persona == "llama-cpp-python" else "organization_owner"
                    entry: dict[str, Any] = {
                        "id": owner.model,
                        "object": "model",
                        "owned_by": owned,
                    }
                    if owner.persona == "llama-cpp-python":
                        entry["permissions"] = []
                    self._send(200, {"object": "list", "data": [entry]})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": "bad json"})
                    return
                if not self.path.rstrip("/").endswith("/embeddings"):
                    self._send(404, {"error": {"message": "Not Found"}})
                    return
                owner._embed(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _embed(self, handler: Any, body: dict[str, Any]) -> None:
        mode = self.mode
        with self._lock:
            self.posts += 1
        if mode == "no_embeddings":
            handler._send(
                500,
                {
                    "error": {
                        "message": LLAMA_CPP_PYTHON_NO_EMBEDDING,
                        "type": "internal_server_error",
                        "param": None,
                        "code": None,
                    }
                },
            )
            return
        if mode == "not_found":
            handler._send(404, {"detail": "Not Found"})
            return
        if mode == "error503":
            handler._send(503, {"error": {"message": "loading model"}})
            return
        raw = body.get("input")
        if mode == "string_only" and not isinstance(raw, str):
            handler._send(400, {"error": {"message": "'input' must be a string"}})
            return
        texts = [raw] if isinstance(raw, str) else list(raw or [])
        faults = [self._fault(str(t)) for t in texts]
        if "error500" in faults:
            handler._send(500, {"error": {"message": "internal server error"}})
            return
        if "too_long" in faults:
            handler._send(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "the request exceeds the available context size, "
                        "try increasing it",
                        "type": "exceed_context_size_error",
                    }
                },
            )
            return
        if self.delay:
            time.sleep(self.delay)
        with self._lock:
            self.calls += 1
            self.texts += [str(t) for t in texts]
        data = []
        for i, text in enumerate(texts):
            vec: Any = hash_embed(str(text), self.dim)
            if mode == "per_token":
                # what a server without pooling sends: a vector per token (the mean is vec)
                vec = [[2 * x for x in vec], [0.0] * self.dim]
            fault = faults[i]
            if fault == "nan":
                vec[0] = float("nan")
            elif fault == "inf":
                vec[1] = float("inf")
            elif fault == "empty":
                vec = []
            elif fault == "wide":
                vec = vec + [0.1] * 7
            elif fault == "zeros":
                vec = [0.0] * self.dim
            data.append({"object": "embedding", "embedding": vec, "index": i})
        handler._send(200, {"object": "list", "data": data, "model": self.model})

    def _fault(self, text: str) -> str | None:
        for word, fault in self.faults.items():
            if word in text:
                if fault == "too_long" and len(text) <= self.context_chars:
                    continue
                return fault
        return None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> HashEmbedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":  # a server of its own (bench/bench_embed.py): prints its URL
    import argparse

    parser = argparse.ArgumentParser(description="a hashing embedding server on 127.0.0.1")
    parser.add_argument("--dim", type=int, default=384)
    args = parser.parse_args()
    server = HashEmbedServer(dim=args.dim).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()
