"""vaultbrain's loggers: :mod:`logging` is loaded when a line is to be written, not when a
module that may write one is imported.

A command other than the daemon shows a log line only when it is an error
(vaultbrain/cli/context.py ``set_up_logging``): what it has to say it prints in its own
words. Yet every module on a cold ``vaultbrain capture``'s way named its logger at import,
and loading logging (with threading, traceback, linecache, tokenize, string) was some 6 ms
of a command that then wrote no line. Here a module's logger is a :class:`Logger` that
stands for ``logging.getLogger(name)``; while the configuration is deferred (:func:`defer`:
a command that shows errors only, in a process that has not loaded logging), a line below
the level shown is dropped on the spot, and the first line at or above it loads logging and
configures it, then is written as ever. Once logging is loaded and configured, each call goes
straight to the real logger, so a test's ``caplog`` and the daemon's handlers see every line.

A library that loads logging itself (httpx, on the first request to an LLM server) is
preceded by :func:`settle`, so that its lines meet the configuration too. A leaf module.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

DEBUG, INFO, WARNING, ERROR, CRITICAL = 10, 20, 30, 40, 50

# While set: lines below this level are not written, and logging is not loaded for them.
_shown_from: int | None = None
_configure: Callable[[], None] | None = None


def defer(level: int, configure: Callable[[], None]) -> None:
    """Configure logging with ``configure`` the first time a line at ``level`` or above is
    to be written (at once when logging is loaded already: its lines may come from
    anywhere)."""
    global _shown_from, _configure
    if "logging" in sys.modules:
        configure_now(configure)
        return
    _shown_from, _configure = level, configure


def configure_now(configure: Callable[[], None]) -> None:
    """Configure logging with ``configure`` now (a configuration deferred before is dropped)."""
    global _shown_from, _configure
    _shown_from = _configure = None
    configure()


def settle() -> None:
    """Load and configure logging now, if a configuration waits (before a library that logs
    on its own is loaded)."""
    global _shown_from, _configure
    configure = _configure
    _shown_from = _configure = None
    if configure is not None:
        configure()


class Logger:
    """``logging.getLogger(name)``, got when first needed (see the module's docstring)."""

    __slots__ = ("_real", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._real: Any = None

    def _logger(self) -> Any:
        settle()
        real = self._real
        if real is None:
            import logging

            real = self._real = logging.getLogger(self.name)
        return real

    # Each way in hands the line to _emit, which hands it to the real logger: the line's file
    # and function are the caller's, two frames up (``stacklevel`` counts from there).
    def _emit(self, level: int, msg: object, args: tuple[object, ...], kwargs: Any) -> None:
        shown_from = _shown_from
        if shown_from is not None and level < shown_from:
            return
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 2
        self._logger().log(level, msg, *args, **kwargs)

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        self._emit(level, msg, args, kwargs)

    def debug(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._emit(DEBUG, msg, args, kwargs)

    def info(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._emit(INFO, msg, args, kwargs)

    def warning(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._emit(WARNING, msg, args, kwargs)

    def error(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._emit(ERROR, msg, args, kwargs)

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kwargs: Any) -> None:
        self._emit(ERROR, msg, args, {**kwargs, "exc_info": exc_info})

    def critical(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._emit(CRITICAL, msg, args, kwargs)

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 (logging's name)
        shown_from = _shown_from
        if shown_from is not None and level < shown_from:
            return False
        return bool(self._logger().isEnabledFor(level))

    def __getattr__(self, name: str) -> Any:
        # Anything else (setLevel, handlers, ...): the real logger's.
        return getattr(self._logger(), name)

    def __repr__(self) -> str:
        return f"<vaultbrain logger {self.name}>"


_loggers: dict[str, Logger] = {}


def get_logger(name: str) -> Logger:
    """The logger named ``name`` (one object per name, as logging's own)."""
    found = _loggers.get(name)
    if found is None:
        found = _loggers[name] = Logger(name)
    return found
