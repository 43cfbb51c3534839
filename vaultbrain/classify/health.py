"""One log line per kind of LLM failure, and one when the server works again.

A daemon that files a hundred lines while the server is down must not write a hundred
warnings: :class:`FailureLog` warns the first time a kind of failure is seen (``unreachable``,
``timeout``, ``format_rejected`` …), stays quiet while it repeats, and writes one recovery
line after the next request that succeeds. Every :class:`~vaultbrain.classify.llm.LLMClient`
owns one and reports each request to it, so a front end that keeps its client (the daemon's
``Filer``) gets this behaviour without calling anything itself.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

log = logging.getLogger("vaultbrain.llm")


class FailureLog:
    def __init__(self, where: str, logger: logging.Logger | None = None) -> None:
        self.where = where
        self.log = logger or log
        self._lock = threading.Lock()
        self._failing: dict[str, str] = {}  # kind -> the cause first seen

    @property
    def failing(self) -> dict[str, str]:
        """The kinds of failure seen since the last success, with their first cause."""
        with self._lock:
            return dict(self._failing)

    def failed(self, kind: str, cause: str) -> bool:
        """Note a failed request; True when it was the first of its kind (and was logged)."""
        if kind == "cancelled":
            return False  # a shutdown is not a fault of the server
        with self._lock:
            if kind in self._failing:
                return False
            self._failing[kind] = cause
        where = "" if self.where in cause else f" (at {self.where})"
        self.log.warning(
            "%s%s [%s]; captures use the fallback or wait until the server works again",
            cause,
            where,
            kind,
        )
        return True

    def succeeded(self) -> bool:
        """Note a request that worked; True when it ended a run of failures (and was logged)."""
        with self._lock:
            if not self._failing:
                return False
            kinds = sorted(self._failing)
            self._failing.clear()
        self.log.info("LLM server %s works again (after: %s)", self.where, ", ".join(kinds))
        return True
