"""Choosing and running a classifier: the configured LLM, or the embedded one.

When the embedded classifier decides because the LLM failed, the Classification says so
(``fallback``: the failure's kind and a one-line cause) and the audit entry keeps the
server's full answer (``llm_error``), so front ends can tell the person without raw text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.cache import ask_cached
from vaultbrain.classify.llm import LLMClient
from vaultbrain.classify.prompt import Prompt, build_prompt
from vaultbrain.classify.result import Classification, reply_schema, validate_reply
from vaultbrain.errors import LLMError
from vaultbrain.packs import ResolvedPack
from vaultbrain.store import Store
from vaultbrain.vault.inline import unshield

if TYPE_CHECKING:
    from vaultbrain.classify.reading import Embedded


class LLMClassifier:
    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def classify(
        self,
        pack: ResolvedPack,
        text: str,
        today: dt.date,
        known: list[dict[str, Any]],
        examples: list[dict[str, Any]],
        prompt: Prompt | None = None,
    ) -> tuple[Classification, dict[str, Any]]:
        """Ask the LLM. Raises LLMError on any failure; the caller decides fallback or retry.
        ``prompt``: the one built from these arguments, if the caller has it."""
        if prompt is None:
            prompt = build_prompt(pack, text, today, known, examples)
        messages, schema = prompt.messages(), reply_schema(pack)
        try:
            reply = self.client.chat_json(messages, schema, name="brain_classification")
        except LLMError as exc:
            if exc.kind != "invalid_json":
                raise
            # A small model's answer that is not JSON is often a one-off (SmolLM2 on keyboard
            # mash): asked once more, a little less cautiously, before the fallback answers.
            reply = self.client.chat_json(
                messages, schema, name="brain_classification", temperature=0.6
            )
        result = validate_reply(reply.data, pack, reply.label)
        result.model, result.raw, result.usage = reply.model, reply.raw, reply.usage
        result.elapsed_ms = reply.elapsed_ms
        audit = {
            "prompt_template": prompt.template,
            "prompt_hash": prompt.template_hash,
            "prompt_chars": len(prompt.system) + len(prompt.user),
            "examples": len(examples),
            "known": len(known),
            "server": reply.server,
            "form": reply.form,
            "finish_reason": reply.finish_reason,
        }
        return result, audit


def classify_with_fallback(
    provider: str,
    fallback: str,
    client: LLMClient | None,
    pack: ResolvedPack,
    text: str,
    today: dt.date,
    known: list[dict[str, Any]],
    examples: list[dict[str, Any]],
    auto_confidence: float,
    store: Store | None = None,
    learnt: Callable[[], Embedded] | None = None,
) -> tuple[Classification, dict[str, Any]]:
    """The LLM's classification, or the embedded one when the LLM fails and fallback allows.
    ``store``: the vault's store, whose records and corrections the embedded classifier learns,
    and in whose state dir the LLM's answers are cached (:mod:`vaultbrain.classify.cache`).
    ``learnt``: gives that embedded classifier (``capture.classify.embedded_of``, looked up once per unit
    of work) instead of it being brought up to date here.

    ``auto_confidence``: kept for the callers; the band is judged from the result
    (``result.judge``), the embedded classifier's confidence is not capped below it.

    Raises LLMError when the LLM failed and ``fallback`` is ``none``: the capture stays pending.
    """
    # No cap: the embedded classifier's confidence is its measured precision per type
    # (classify/embedded.py), judged against ``auto_confidence`` as any classifier's is.

    def embedded() -> Classification:  # the learned embedded classifier, loaded only if asked
        from vaultbrain.classify.adapt import embedded_for
        from vaultbrain.classify.embedded import classify_embedded

        model = learnt() if learnt is not None else embedded_for(store, pack)
        return classify_embedded(text, today, known, 1.0, model, pack)

    if provider == "heuristic" or client is None:
        return embedded(), {"provider": "heuristic"}
    try:
        # The same thought, pack, model and prompt answered before: not asked again.
        state = store.root if store is not None else None
        llm = LLMClassifier(client)
        result, audit = ask_cached(llm, state, pack, unshield(text), today, known, examples)
        audit["provider"] = provider
        return result, audit
    except LLMError as exc:
        # A request cancelled at shutdown is no verdict on the thought: it stays pending.
        if fallback != "heuristic" or exc.kind == "cancelled":
            raise
        result = embedded()
        result.error = f"LLM unavailable ({exc.kind}): {exc.cause}"
        result.fallback = {"kind": exc.kind, "cause": exc.cause}
        return result, {
            "provider": "heuristic",
            "fallback_from": provider,
            "fallback_kind": exc.kind,
            "fallback_cause": exc.cause,
            "llm_error": str(exc),
        }
