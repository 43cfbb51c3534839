"""Classification: the LLM client, prompts and the embedded fallback. Returns data, writes nothing."""

from __future__ import annotations
