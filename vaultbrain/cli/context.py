"""What every command shares: the context the group's options decide (:class:`Context`), the
hints that repeat the person's --vault, the one error ladder (:func:`error_line`) and the
logging. The click group (vaultbrain/cli/group.py) builds on it."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from vaultbrain.errors import VaultbrainError
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from pathlib import Path

    from vaultbrain.brain import Brain

# A next-step hint names a command in backticks: `vaultbrain reindex`.
_HINT = LazyPattern(r"`vaultbrain (?!--vault )")


def hint(text: str, obj: Context | None = None) -> str:
    """``text`` with each `vaultbrain …` it suggests carrying the --vault (and --state-dir)
    the person gave, so the command can be pasted as it is. Core code writes hints without
    them: it does not know how the person named the vault. ``obj``: the command's context
    (by default the running click command's)."""
    if obj is None:
        import click

        ctx = click.get_current_context(silent=True)
        obj = ctx.find_root().obj if ctx is not None else None
    if not isinstance(obj, Context) or "`vaultbrain " not in text:
        return text
    given = obj.given_options()
    return _HINT.sub(f"`vaultbrain {given} ", text) if given else text


class Context:
    """What the group's options decided, handed to every command."""

    def __init__(
        self, vault: str | None, state_dir: str | None, schema_pack: str | None, verbose: int
    ) -> None:
        self.vault_arg = vault
        self.state_dir = state_dir
        self.schema_pack = schema_pack
        self.verbose = verbose
        self.quiet = False
        self.state_dir_given = False  # on the command line, not from $VAULTBRAIN_STATE_DIR
        self._app: Brain | None = None
        self._closers: list[Callable[[], object]] = []

    @property
    def vault_dir(self) -> Path:
        from pathlib import Path

        return Path(self.vault_arg or os.environ.get("VAULTBRAIN_VAULT") or ".")

    def given_options(self) -> str:
        """The --vault and --state-dir typed on this command line, ready to paste."""
        import shlex

        words = []
        if self.vault_arg:
            words += ["--vault", shlex.quote(self.vault_arg)]
        if self.state_dir and self.state_dir_given:
            words += ["--state-dir", shlex.quote(self.state_dir)]
        return " ".join(words)

    def app(self, *, must_exist: bool = True) -> Brain:
        if self._app is None:
            from vaultbrain.brain import Brain, looks_like_vault
            from vaultbrain.errors import UserError

            root = self.vault_dir
            if must_exist and not looks_like_vault(root, self.state_dir):
                raise UserError(
                    f"{root} is not a vault (no .obsidian/, no Inbox.md, no vaultbrain state); "
                    f"run `vaultbrain --vault {root} init` to make it one"
                )
            self._app = Brain(root, self.state_dir, self.schema_pack)
            vault = self._app.vault
            from vaultbrain.vault.atomic import leftovers_line  # (a killed write's temps)

            swept = leftovers_line(vault.root, vault.state_dir)
            if swept:
                sys.stderr.write(f"{swept}\n")
            if getattr(vault, "identity_notice", None):
                # Said to the person in one line, whatever the log level (a copied vault
                # given its own id: vault/identity.py), as well as in the log.
                sys.stderr.write(f"{vault.identity_notice}\n")
                sys.stderr.flush()
            # As the command ends: what an editor wrote late into a note it rewrote.
            self._closers.append(lambda: vault.catch_late_writes(final=True))
            # The graph index's connection closed as the command ends (folding its
            # write-ahead log in), not whenever the collector frees the brain: in a
            # process that runs many commands, that was in the middle of another one.
            self._closers.append(_closer(self._app))
        return self._app

    def close(self) -> None:
        """The command is ending: what its brain holds is let go (the last one first)."""
        while self._closers:
            self._closers.pop()()


def _closer(brain: Brain) -> Callable[[], None]:
    import weakref

    ref = weakref.ref(brain)

    def close() -> None:
        app = ref()
        if app is not None and app.kept("graph") is not None:
            app.forget()  # (all it learnt let go, the graph index closed: it is done)
        if app is not None:
            app.store.close()  # (state.db's write-ahead log folded in now, as the graph's)

    return close


def error_line(
    exc: BaseException, verbose: bool, obj: Context | None = None
) -> tuple[str | None, int]:
    """The one error ladder (beets' ``main``): what vaultbrain raised, as the one line to
    print after "error: " (its hints carrying the person's --vault) and the exit code. No
    line for a closed pipe: a quiet exit. A disk's refusal is one line like any other."""
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()  # the reader went away (`… | head`): exit quietly, like cat
        return None, 0
    if verbose:
        import traceback

        traceback.print_exc()
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", 130
    if isinstance(exc, OSError) and not isinstance(exc, VaultbrainError):
        # The disk said no somewhere a write seam did not name it: still one line.
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return hint(f"{exc.strerror or exc}{where}", obj), VaultbrainError.exit_code
    assert isinstance(exc, VaultbrainError)
    return hint(str(exc), obj), exc.exit_code


def set_up_logging(daemon: bool, verbose: int, quiet: bool) -> None:
    """Log lines are the daemon's voice, and everyone's with -v. Any other command says
    what happened in its own words (a capture's "embedded classifier: the LLM server is not
    running"), so a warning the core logs on the way (the same cause, timestamped) would only
    say it twice: such a command shows a log line only when it is an error."""
    import logging

    if verbose:
        level = logging.DEBUG
    elif quiet or not daemon:
        level = logging.ERROR
    else:
        level = logging.INFO
    # journald and launchd stamp each line themselves; a terminal gets the time from us.
    under_service = bool(os.environ.get("JOURNAL_STREAM") or os.environ.get("XPC_SERVICE_NAME"))
    stamp = daemon or verbose
    logging.basicConfig(
        level=level,
        format=("%(asctime)s " if stamp and not under_service else "")
        + "%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not verbose:
        for noisy in ("httpx", "httpcore", "apscheduler", "watchdog"):
            logging.getLogger(noisy).setLevel(logging.WARNING)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered cannot complain at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
