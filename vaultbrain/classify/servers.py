"""Which local LLM server is at an endpoint, and how to start it: the kinds vaultbrain knows
(LM Studio, Ollama, llama.cpp's llama-server, llama-cpp-python, vLLM, other), guessed from a
``GET /models`` answer or the port, and how a model id reads to a person.

Used by :class:`vaultbrain.classify.llm.LLMClient` (``server_kind``) and by
``vaultbrain/doctor.py`` (what to start when nothing answers).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

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


def short_model_name(model: str) -> str:
    """A model id as a person names it: the file stem of a path, the last part of ``org/name``."""
    name = re.split(r"[\\/]", str(model).strip().rstrip("/\\"))[-1]
    for suffix in (".gguf", ".bin", ".safetensors"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or str(model)


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


def port_guess_or_other(endpoint: str) -> str:
    guess = guess_server_by_port(endpoint)
    # Port 8000 is both llama-cpp-python's and vLLM's: only a default, never a finding.
    return "other" if guess == "llama-cpp-python" else guess


def same_model(a: str, b: str) -> bool:
    """LM Studio sometimes answers with a path-like id (publisher/model or model.gguf)."""
    return short_model_name(a).lower() == short_model_name(b).lower()
