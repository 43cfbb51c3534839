"""What an LLM server's HTTP error means: each refusal becomes an :class:`LLMError` with a
``kind`` that says whether waiting helps, and a message that says what to do.

- ``server`` (502–504 or a bare 500), ``rate_limited`` (429) – temporary, ``retryable``;
- ``no_models`` (LM Studio's "No models loaded"), ``unknown_model`` (Ollama's 404) – the
  person loads a model, then it works: ``retryable``;
- ``format_rejected`` (only while negotiating a form, see ``vaultbrain/classify/forms.py``),
  ``invalid_request``, ``context_exceeded`` – the same request would fail again.

Transport failures (``unreachable``, ``timeout``, ``reset``) and the reply's own kinds
(``length``, ``invalid_json``, ``wrong_model``, ``cancelled``) are raised by
``vaultbrain/classify/llm.py``.
"""

from __future__ import annotations

import re
from typing import Any

from vaultbrain.classify.servers import short_model_name
from vaultbrain.errors import LLMError
from vaultbrain.patterns import LazyPattern

_FORMAT_WORDS = LazyPattern(r"response_format|json_schema|json_object|schema|grammar", re.I)
_CONTEXT_WORDS = LazyPattern(
    r"context size|context length|context window|exceeds? the (?:available )?context|"
    r"maximum context|too many tokens|exceed_context",
    re.I,
)


def error_for_response(
    resp: Any, form: str | None, *, model: str = "", what: str = "the request"
) -> LLMError:
    """The error an HTTP error ``resp`` stands for; ``form`` is the form being negotiated
    (None outside negotiation, so a schema complaint is then not ``format_rejected``) and
    ``model`` the model asked for."""
    detail = error_text(resp)
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
        name = short_model_name(model)
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
    return LLMError(said, kind="server", retryable=True, cause=f"the LLM server failed ({status})")


def error_text(resp: Any) -> str:
    try:
        detail = resp.json().get("error")
        if isinstance(detail, dict):
            detail = detail.get("message")
        elif detail is None:
            detail = resp.json().get("detail") or resp.text
    except (ValueError, AttributeError):
        detail = resp.text
    return " ".join(str(detail or "").split())[:2000]
