"""Regular expressions a pack supplies (a link type's ``inference.regex``, a subtype's
``path_pattern``), run by RE2 (google-re2): its time is linear in the text's length whatever
the pattern, so no pattern of a pack can make a reindex backtrack for hours on a line that
almost matches (``(a+)+$``). RE2 leaves out what needs backtracking (lookarounds,
backreferences); a pattern using them cannot run, which ``schema lint`` says in one line.
"""

from __future__ import annotations

import functools
from typing import Any

import re2  # type: ignore[import-untyped]


class UnsupportedRegex(ValueError):
    """A pack's pattern RE2 cannot run; the message is one line."""


@functools.lru_cache(maxsize=256)
def compile_pack_regex(pattern: str, ignore_case: bool = False) -> Any:
    """``pattern`` compiled by RE2 (its ``search``, ``finditer``, ``groups``... as ``re``'s);
    :class:`UnsupportedRegex` when RE2 cannot run it."""
    options = re2.Options()
    options.log_errors = False  # (the reason is raised, not written to stderr)
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise UnsupportedRegex(
            f"the linear-time engine (RE2) cannot run it: {reason} "
            "(lookarounds and backreferences are not supported)"
        ) from None


def unsupported_reason(pattern: str) -> str | None:
    """Why RE2 cannot run ``pattern``, in one line; None when it can."""
    try:
        compile_pack_regex(pattern)
    except UnsupportedRegex as exc:
        return str(exc)
    return None
