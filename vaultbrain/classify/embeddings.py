"""Embeddings for search by meaning, from the server the person already runs.

LM Studio, Ollama, llama.cpp's ``llama-server``, llama-cpp-python and vLLM all answer
``POST /v1/embeddings``, but not alike, so the request is negotiated once per endpoint and
model, as chat forms are (:mod:`vaultbrain.classify.forms`), and remembered in the state
dir's database (its document ``embedding-forms.json``):

1. ``openai_batch`` – ``{"model": …, "input": [texts]}``, the vectors in ``data[i].embedding``;
2. ``openai_single`` – one text per request, for servers that take only a string;
3. ``ollama_embed`` – Ollama's own ``POST /api/embed`` (Ollama only).

A server that pools nothing (llama-cpp-python and ``llama-server --pooling none`` with a chat
model such as SmolLM2: one vector per token) is mean-pooled here. A server that will not
embed (llama-cpp-python started without ``--embedding true`` answers 500 "Llama model must be
created with embedding=True"; llama-server without ``--embeddings`` 501; LM Studio with only a
chat model loaded) is remembered as such with its reason for :data:`RETRY_AFTER` seconds, so
the daemon asks again now and then rather than at every turn, and says so once.

The ``embedding_model`` setting: empty picks a model the server lists whose name says
``embed`` (LM Studio's ``text-embedding-…``, Ollama's ``nomic-embed-text``), else the chat
model (a llama-cpp-python or llama-server serving one model); ``off`` turns it all off.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.llm_errors import error_text
from vaultbrain.classify.servers import short_model_name
from vaultbrain.errors import LLMError, StorageError

if TYPE_CHECKING:
    from vaultbrain.classify.llm import LLMClient

EMBED_FORMS = ("openai_batch", "openai_single", "ollama_embed")
FORMS_FILE = "embedding-forms.json"
RETRY_AFTER = 600.0  # seconds before a server that would not embed is asked again
BATCH = 16  # texts per request
MAX_INPUT_CHARS = 2000  # a chunk is cut here: about 500 tokens, inside any model's context
OFF = "off"
# Failures where the same request may work a moment later: the model is not "unavailable".
TEMPORARY = ("timeout", "reset", "server", "rate_limited", "cancelled")


@dataclass(frozen=True)
class EmbedInfo:
    """What an endpoint and model answered last time (an entry of ``embedding-forms.json``).
    ``form`` None: it would not embed, ``why`` says how it refused."""

    model: str
    form: str | None
    dim: int = 0
    pooled: str = "server"  # or "client": per-token vectors, mean-pooled here
    why: str = ""
    checked: float = 0.0  # time.time() of the answer

    @property
    def ok(self) -> bool:
        return self.form is not None and self.dim > 0

    @property
    def identity(self) -> str:
        """What vectors made by this model are comparable under: the model and its size."""
        return f"{short_model_name(self.model)}:{self.dim}"

    @classmethod
    def from_dict(cls, entry: Any) -> EmbedInfo | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("model"), str):
            return None
        form = entry.get("form")
        if form is not None and form not in EMBED_FORMS:
            return None
        try:
            return cls(
                entry["model"],
                form,
                int(entry.get("dim") or 0),
                str(entry.get("pooled") or "server"),
                str(entry.get("why") or ""),
                float(entry.get("checked") or 0.0),
            )
        except (TypeError, ValueError):
            return None


class EmbedMemory:
    """The document ``embedding-forms.json`` of the state dir's store: endpoint+setting ->
    :class:`EmbedInfo` (nothing kept without a state dir)."""

    def __init__(self, state_dir: Path | str | None) -> None:
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, Any]:
        if self.state_dir is None:
            return {}
        from vaultbrain.store import Store

        try:
            doc = Store.of(self.state_dir).read_json(FORMS_FILE)
        except (StorageError, ValueError):
            return {}  # a lost or broken entry only means asking the server again
        entries = doc.get("entries") if isinstance(doc, dict) else None
        return entries if isinstance(entries, dict) else {}

    def get(self, key: str) -> EmbedInfo | None:
        with self._lock:
            return EmbedInfo.from_dict(self._load().get(key))

    def remember(self, key: str, info: EmbedInfo) -> None:
        if self.state_dir is None:
            return
        from vaultbrain.store import Store

        with self._lock:
            entries = self._load()
            entries[key] = asdict(info)
            try:
                doc = {"version": 1, "entries": entries}
                Store.of(self.state_dir).write_json(FORMS_FILE, doc, durable=False)
            except StorageError:
                pass  # remembering is an optimisation; the next process asks again


class EmbeddingClient:
    """Vectors for texts from the endpoint's embeddings route, over the chat client's
    connection (same endpoint, timeouts, cancellation)."""

    def __init__(self, llm: LLMClient, setting: str = "", state_dir: Path | str | None = None):
        self.llm = llm
        self.setting = setting.strip()
        self.memory = EmbedMemory(state_dir)
        self._info: EmbedInfo | None = None

    @classmethod
    def from_settings(cls, s: Any, state_dir: Path) -> EmbeddingClient | None:
        """The client the settings describe; None when search by meaning is off (the
        setting ``off``, or ``provider: heuristic``: no server at all)."""
        from vaultbrain.classify.llm import LLMClient

        setting = str(s.get("embedding_model") or "").strip()
        if setting.lower() == OFF or s.get("provider") == "heuristic":
            return None
        llm = LLMClient.from_settings(s, state_dir)
        llm.retries = 0  # a refusal is remembered and the daemon asks again later
        return cls(llm, setting, state_dir)

    @property
    def endpoint(self) -> str:
        return self.llm.endpoint

    @property
    def key(self) -> str:
        return f"{self.llm.endpoint} {self.setting}"

    def close(self) -> None:
        self.llm.close()

    def cancel(self) -> None:
        self.llm.cancel()

    # -- what is known ---------------------------------------------------------------------
    def known(self) -> EmbedInfo | None:
        """What the last answer was (this process's, else the remembered one); no request."""
        if self._info is None:
            self._info = self.memory.get(self.key)
        return self._info

    def due_for_probe(self, now: float | None = None) -> bool:
        """True when nothing is known, or the server refused long enough ago to ask again."""
        info = self.known()
        if info is None:
            return True
        return not info.ok and (now or time.time()) - info.checked >= RETRY_AFTER

    # -- asking ----------------------------------------------------------------------------
    def probe(self) -> EmbedInfo:
        """Ask the server for one vector, negotiating the form; remembered either way.
        Raises LLMError only for a failure that may pass (unreachable, timeout, a 503)."""
        try:
            model = self._pick_model()
        except LLMError as exc:
            if exc.kind in TEMPORARY or exc.kind == "unreachable":
                raise
            return self._refused(self.setting or "?", exc)
        return self._negotiate(model, ["vaultbrain"])[0]

    def embed(self, texts: list[str], timeout: float | None = None) -> list[list[float]]:
        """One pooled vector per text, in order. Raises LLMError (kind ``no_embeddings``
        when the server will not embed)."""
        if not texts:
            return []
        texts = [t[:MAX_INPUT_CHARS] or " " for t in texts]
        info = self.known()
        if info is None or not info.ok:
            if info is not None and not self.due_for_probe():
                raise LLMError(
                    f"no embeddings at {self.endpoint}: {info.why}",
                    kind="no_embeddings",
                    cause=info.why,
                )
            info, first = self._negotiate(
                self._pick_model() if info is None else info.model, texts[:BATCH], timeout
            )
            if not info.ok:
                raise LLMError(
                    f"no embeddings at {self.endpoint}: {info.why}",
                    kind="no_embeddings",
                    cause=info.why,
                )
            out = list(first)
            rest = texts[BATCH:]
        else:
            out, rest = [], texts
        for i in range(0, len(rest), BATCH):
            out += self._ask(info.form or "", info.model, rest[i : i + BATCH], timeout)
        return out

    def _pick_model(self) -> str:
        if self.setting:
            return self.setting
        ids = self.llm.models()
        named = [m for m in ids if "embed" in m.lower()]
        if named:
            return named[0]
        if self.llm.model:
            return self.llm.model
        if not ids:
            raise LLMError(
                f"the server at {self.endpoint} lists no model",
                kind="no_models",
                retryable=True,
                cause="the server lists no model",
            )
        return ids[0]

    def _negotiate(
        self, model: str, texts: list[str], timeout: float | None = None
    ) -> tuple[EmbedInfo, list[list[float]]]:
        server = "other"
        try:
            server = self.llm.server_kind()
        except LLMError as exc:
            if exc.kind in ("unreachable", *TEMPORARY):
                raise
        first: LLMError | None = None
        for form in EMBED_FORMS:
            if form == "ollama_embed" and server != "ollama":
                continue
            try:
                raw = self._request(form, model, texts, timeout)
            except LLMError as exc:
                if exc.kind in ("unreachable", *TEMPORARY):
                    raise
                first = first or exc
                continue
            vectors, pooled = raw
            dims = {len(v) for v in vectors}
            if len(dims) != 1 or 0 in dims:
                first = first or _refusal("the vectors it sent differ in size")
                continue
            info = EmbedInfo(model, form, dims.pop(), pooled, "", time.time())
            self._keep(info)
            return info, vectors
        assert first is not None
        return self._refused(model, first), []

    def _refused(self, model: str, exc: LLMError) -> EmbedInfo:
        info = EmbedInfo(model, None, 0, "server", exc.cause or str(exc), time.time())
        self._keep(info)
        return info

    def _keep(self, info: EmbedInfo) -> None:
        self._info = info
        self.memory.remember(self.key, info)

    def _ask(
        self, form: str, model: str, texts: list[str], timeout: float | None
    ) -> list[list[float]]:
        vectors, _ = self._request(form, model, texts, timeout)
        return vectors

    def _request(
        self, form: str, model: str, texts: list[str], timeout: float | None
    ) -> tuple[list[list[float]], str]:
        """(vectors, "server" | "client" pooling) for ``texts`` asked in ``form``."""
        kw: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
        if form == "openai_single":
            out: list[list[float]] = []
            pooled = "server"
            for text in texts:
                got, pooled = self._post("/embeddings", {"model": model, "input": text}, 1, kw)
                out += got
            return out, pooled
        if form == "ollama_embed":
            body = {"model": model, "input": texts}
            return self._post("/api/embed", body, len(texts), kw)
        return self._post("/embeddings", {"model": model, "input": texts}, len(texts), kw)

    def _post(
        self, path: str, body: dict[str, Any], n: int, kw: dict[str, Any]
    ) -> tuple[list[list[float]], str]:
        resp = self.llm._request("POST", path, json=body, **kw)  # noqa: SLF001
        if resp.status_code != 200:
            raise self._error(resp)
        try:
            doc = resp.json()
        except ValueError as exc:
            raise _refusal("its answer to /embeddings is not JSON") from exc
        return _vectors(doc, n)

    def _error(self, resp: Any) -> LLMError:
        detail = " ".join((error_text(resp) or resp.reason_phrase or "").split())[:300]
        status = resp.status_code
        if status in (429, 502, 503, 504):
            return LLMError(
                f"the server at {self.endpoint} answered {status} to /embeddings: {detail}",
                kind="rate_limited" if status == 429 else "server",
                retryable=True,
                cause=f"the server answered {status}",
            )
        return _refusal(_hint(status, detail))


def _hint(status: int, detail: str) -> str:
    """Why a server would not embed, and what starts it embedding."""
    low = detail.lower()
    if "embedding=true" in low:
        return (
            "llama-cpp-python was started without embeddings: start it with "
            "`--embedding true` (or add a model entry with `embedding: true` to its config file)"
        )
    if "--embedding" in low or "does not support embeddings" in low:
        return "llama-server was started without embeddings: add `--embeddings`"
    if "not an embedding model" in low or ("embedding" in low and "model" in low):
        return (
            f"the model refused to embed ({detail[:160]}): load an embedding model, or "
            "`vaultbrain settings set embedding_model <model>`"
        )
    if status in (404, 405, 501):
        return f"it serves no /embeddings ({status})"
    return f"it answered {status} to /embeddings ({detail[:200]})"


def _refusal(why: str) -> LLMError:
    return LLMError(f"no embeddings: {why}", kind="no_embeddings", cause=why)


def _vectors(doc: Any, n: int) -> tuple[list[list[float]], str]:
    """The ``n`` vectors of an OpenAI-style or Ollama answer, in input order, pooled."""
    if isinstance(doc, dict) and isinstance(doc.get("embeddings"), list):
        rows: list[Any] = doc["embeddings"]  # Ollama's /api/embed
    elif isinstance(doc, dict) and isinstance(doc.get("data"), list):
        data = [d for d in doc["data"] if isinstance(d, dict)]
        data.sort(key=lambda d: d.get("index", 0) if isinstance(d.get("index"), int) else 0)
        rows = [d.get("embedding") for d in data]
    else:
        raise _refusal("its answer holds no embeddings")
    if len(rows) != n:
        raise _refusal(f"it sent {len(rows)} vectors for {n} texts")
    out: list[list[float]] = []
    pooled = "server"
    for row in rows:
        if isinstance(row, list) and row and isinstance(row[0], list):
            # One vector per token (no pooling on the server): their mean.
            pooled = "client"
            width = len(row[0])
            if width == 0 or any(len(t) != width for t in row):
                raise _refusal("its per-token vectors differ in size")
            row = [sum(col) / len(row) for col in zip(*row, strict=True)]
        if not isinstance(row, list) or not row:
            raise _refusal("an embedding it sent is empty")
        try:
            out.append([float(x) for x in row])
        except (TypeError, ValueError) as exc:
            raise _refusal("an embedding it sent is not numbers") from exc
    return out, pooled


def doctor_line(s: Any, state_dir: Path) -> tuple[bool, str]:
    """``vaultbrain doctor``'s probe: one embedding asked of the server now (whatever was
    remembered), negotiated and remembered for the daemon."""
    if s.get("provider") == "heuristic":
        return True, "no server (provider: heuristic): search is by keywords"
    client = EmbeddingClient.from_settings(s, state_dir)
    if client is None:
        return True, "off (embedding_model: off): search is by keywords"
    started = time.perf_counter()
    try:
        info = client.probe()
    except LLMError as exc:
        return False, f"{exc.cause or exc}; search stays by keywords"
    finally:
        client.close()
    ms = (time.perf_counter() - started) * 1000
    if not info.ok:
        return False, f"no embeddings at {client.endpoint}: {info.why}; search stays by keywords"
    pooled = ", mean-pooled here" if info.pooled == "client" else ""
    return True, (
        f"{client.endpoint}: {info.model} embeds ({info.dim} numbers, form {info.form}"
        f"{pooled}) in {ms:.0f} ms; search is hybrid once notes are embedded "
        "(the daemon does it; `vaultbrain embed --status`)"
    )
