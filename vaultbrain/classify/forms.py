"""Structured output: the *forms* in which a local LLM server can be asked for JSON, the
request body and reply shape of each, and the per-endpoint memory of which form worked.

Servers agree on ``POST /chat/completions`` but not on how to ask for JSON, so
:meth:`vaultbrain.classify.llm.LLMClient.chat_json` tries these in order, moving on only when
the server rejects the request (the error kind ``format_rejected``, see
``vaultbrain/classify/llm_errors.py``):

1. ``json_schema_strict`` – ``response_format: {"type": "json_schema", "json_schema": {…, "strict": true}}``
   (LM Studio, llama-server, vLLM, Ollama's /v1);
2. ``json_schema`` – the same without ``strict`` (servers that refuse strict schemas);
3. ``json_object_schema`` – ``{"type": "json_object", "schema": …}`` (llama-cpp-python);
4. ``ollama_format`` – Ollama's native ``/api/chat`` with ``format: <schema>`` (Ollama only);
5. ``prompt_json`` – the schema in the prompt and the reply validated, for anything else.

What worked is remembered in the state dir's database, as its document ``llm-forms.json``
(:class:`FormMemory`), keyed by endpoint and model, so each later request goes straight to it; a new model is probed again.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, StorageError
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from vaultbrain.store import Store

FORMS_FILE = "llm-forms.json"
FORMS = ("json_schema_strict", "json_schema", "json_object_schema", "ollama_format", "prompt_json")
# Servers that take llama.cpp's sampler option; others may reject a field they do not know.
_REPEAT_PENALTY_SERVERS = ("lmstudio", "llama.cpp", "llama-cpp-python")
REPEAT_PENALTY = 1.1
_FENCE = LazyPattern(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class KnownForm:
    """What an endpoint+model answered in last time (an entry of ``llm-forms.json``)."""

    form: str
    server: str | None = None
    rejected: dict[str, str] = field(default_factory=dict)  # form -> why it was refused
    checked: str = ""  # when, ISO seconds

    @classmethod
    def from_dict(cls, entry: Any) -> KnownForm | None:
        """The entry as stored; None for anything that is not one (an old or broken file)."""
        if not isinstance(entry, dict) or entry.get("form") not in FORMS:
            return None
        rejected = entry.get("rejected")
        return cls(
            str(entry["form"]),
            str(entry["server"]) if entry.get("server") else None,
            dict(rejected) if isinstance(rejected, dict) else {},
            str(entry.get("checked") or ""),
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def form_order(server: str, known: KnownForm | None) -> list[str]:
    """The forms to try, in order: Ollama's own only on Ollama, and what worked last time
    first (if it is refused now, the rest are probed again from the top)."""
    order = [f for f in FORMS if f != "ollama_format" or server == "ollama"]
    if known is not None:
        order = [known.form, *(f for f in order if f != known.form)]
    return order


def request_for(
    form: str,
    server: str,
    model: str,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    name: str,
    temperature: float,
    max_tokens: int | None,
) -> tuple[str, dict[str, Any]]:
    """The path and JSON body that ask ``server`` for ``schema`` in ``form``. Every reply is
    bounded (``max_tokens``, and a repetition penalty where the server takes one)."""
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
        return "/api/chat", body
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
    return "/chat/completions", body


def read_completion(form: str, doc: Any) -> tuple[str, str | None, dict[str, Any]]:
    """The content, finish reason and token usage of a chat reply in ``form``'s shape.

    Raises LLMError ``server`` when the reply is not a chat completion."""
    try:
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
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError(
            "the LLM server's reply is not a chat completion",
            kind="server",
            cause="the LLM server's reply is not a chat completion",
        ) from exc
    return content, finish, usage


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


class FormMemory:
    """What form each endpoint+model answered in: the document ``llm-forms.json`` of the
    state dir's store (none without a state dir: remembered by this object only)."""

    def __init__(self, state_dir: Path | str | None) -> None:
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self._lock = threading.Lock()
        self._cache: dict[str, Any] | None = None

    def _store(self) -> Store | None:
        from vaultbrain.store import Store

        return Store.of(self.state_dir) if self.state_dir is not None else None

    @staticmethod
    def key(endpoint: str, model: str) -> str:
        return f"{endpoint} {model}"

    def _load(self) -> dict[str, Any]:
        if self._cache is None:
            self._cache = {}
            try:
                store = self._store()
                doc = store.read_json(FORMS_FILE) if store is not None else None
                if isinstance(doc, dict) and isinstance(doc.get("entries"), dict):
                    self._cache = doc["entries"]
            except (StorageError, ValueError):
                pass  # a lost or broken cache only means probing again
        return self._cache

    def get(self, endpoint: str, model: str) -> KnownForm | None:
        with self._lock:
            return KnownForm.from_dict(self._load().get(self.key(endpoint, model)))

    def remember(self, endpoint: str, model: str, known: KnownForm) -> None:
        entry = known.as_dict()
        with self._lock:
            entries = self._load()
            key = self.key(endpoint, model)
            if entries.get(key) == entry:
                return
            entries[key] = entry
            try:
                store = self._store()
                if store is not None:
                    doc = {"version": 1, "entries": entries}
                    store.write_json(FORMS_FILE, doc, durable=False)
            except StorageError:
                pass  # remembering is an optimisation; the next process probes again
