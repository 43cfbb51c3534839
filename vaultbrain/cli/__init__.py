"""The command line: a thin front end. Commands parse, call one core function, render.

Command groups live in their own modules and are imported only when used, which keeps
``vaultbrain capture`` quick to start.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vaultbrain import __version__
from vaultbrain.errors import VaultbrainError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

# command name -> "module:attribute"
COMMANDS: dict[str, str] = {
    "init": "vaultbrain.cli.core:init_cmd",
    "capture": "vaultbrain.cli.core:capture_cmd",
    "inbox": "vaultbrain.cli.core:inbox_cmd",
    "db": "vaultbrain.cli.db:db",
    "settings": "vaultbrain.cli.settings:settings_cmd",
    "doctor": "vaultbrain.cli.doctor:doctor_cmd",
    "filer": "vaultbrain.cli.filer:filer",
    "statedir": "vaultbrain.cli.statedir:statedir",
    "reindex": "vaultbrain.cli.core:reindex_cmd",
    "adopt": "vaultbrain.cli.adopt:adopt_cmd",
    "daemon": "vaultbrain.cli.daemon:daemon_cmd",
    "service": "vaultbrain.cli.daemon:service",
    "review": "vaultbrain.cli.review:review",
    "fix": "vaultbrain.cli.review:fix_cmd",
    "trust": "vaultbrain.cli.review:trust_cmd",
    "digest": "vaultbrain.cli.digest:digest",
    "weekly": "vaultbrain.cli.digest:weekly",
    "schedule": "vaultbrain.cli.digest:schedule_cmd",
    "youtube": "vaultbrain.cli.youtube:youtube",
    "idealoom": "vaultbrain.cli.idealoom:idealoom",
    "schema": "vaultbrain.cli.schema:schema",
    "classify": "vaultbrain.cli.classify:classify_cmd",
    "search": "vaultbrain.cli.graph:search_cmd",
    "whoknows": "vaultbrain.cli.graph:whoknows_cmd",
    "links": "vaultbrain.cli.graph:links_cmd",
    "takes": "vaultbrain.cli.graph:takes_cmd",
    "enrich": "vaultbrain.cli.graph:enrich_cmd",
}


class ReportedError(click.ClickException):
    """A VaultbrainError on its way out: one line on stderr, its exit code."""

    def __init__(self, exc: VaultbrainError) -> None:
        super().__init__(str(exc))
        self.exit_code = exc.exit_code

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


# Flags that mean the same wherever they stand (`vaultbrain db list person -v`), as in llm
# and yt-dlp. Only exact tokens move, and nothing after `--`.
_GLOBAL_FLAG = re.compile(r"-v+|--verbose|-q|--quiet")


def hoist_global_flags(args: Sequence[str]) -> list[str]:
    """``args`` with -v/-q (anywhere before ``--``) moved in front of the subcommand."""
    args = list(args)
    end = args.index("--") if "--" in args else len(args)
    flags = [a for a in args[:end] if _GLOBAL_FLAG.fullmatch(a)]
    rest = [a for a in args[:end] if not _GLOBAL_FLAG.fullmatch(a)]
    return flags + rest + args[end:]


def _with_suggestion(exc: click.UsageError) -> click.UsageError:
    """ "No such command 'captur'." gains "did you mean capture?" (any group, any depth)."""
    ctx = exc.ctx
    match = re.match(r"No such command '(.+)'\.", exc.message)
    if ctx is None or match is None or not isinstance(ctx.command, click.Group):
        return exc
    names = ctx.command.list_commands(ctx)
    close = difflib.get_close_matches(match.group(1), names, n=1, cutoff=0.6)
    if not close:
        return exc
    return click.UsageError(f"{exc.message.rstrip('.')}; did you mean {close[0]}?", ctx)


class LazyGroup(click.Group):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.parent is None:
            args = hoist_global_flags(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise _with_suggestion(exc) from None
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except (VaultbrainError, OSError, KeyboardInterrupt) as exc:
            obj = ctx.obj
            raise as_click_error(exc, bool(obj is not None and getattr(obj, "verbose", 0))) from exc

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if self.get_command(ctx, name) is not None]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None
            raise
        return getattr(module, attr, None)


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
        self._app: Brain | None = None

    @property
    def vault_dir(self) -> Path:
        return Path(self.vault_arg or os.environ.get("VAULTBRAIN_VAULT") or ".")

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
            # As the command ends: what an editor wrote late into a note it rewrote.
            vault = self._app.vault
            ctx = click.get_current_context(silent=True)
            if ctx is not None:
                ctx.find_root().call_on_close(lambda: vault.catch_late_writes(final=True))
                # The graph index's connection closed as the command ends (folding its
                # write-ahead log in), not whenever the collector frees the brain: in a
                # process that runs many commands, that was in the middle of another one.
                ctx.find_root().call_on_close(_closer(self._app))
        return self._app


def _closer(brain: Brain) -> Callable[[], None]:
    import weakref

    ref = weakref.ref(brain)

    def close() -> None:
        app = ref()
        if app is not None and app.graph_if_open is not None:
            app.forget_state()  # (all it learnt let go, the graph index closed: it is done)

    return close


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--vault", "vault", metavar="DIR", help="The vault (default $VAULTBRAIN_VAULT, then .)."
)
@click.option(
    "--state-dir",
    metavar="DIR",
    envvar="VAULTBRAIN_STATE_DIR",
    help="This machine's state (default: the per-user state folder; $VAULTBRAIN_STATE_DIR).",
)
@click.option("--schema-pack", metavar="NAME", help="Use this schema pack for this run.")
@click.option("-v", "--verbose", count=True, help="Debug logs and tracebacks (anywhere).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors (anywhere).")
@click.version_option(__version__, prog_name="vaultbrain")
@click.pass_context
def cli(
    ctx: click.Context,
    vault: str | None,
    state_dir: str | None,
    schema_pack: str | None,
    verbose: int,
    quiet: bool,
) -> None:
    """vaultbrain: a second brain that lives inside your Obsidian vault.

    Write one thought per line in Inbox.md; the daemon files each as notes in People/,
    Projects/, Ideas/ and Admin/ using a local LLM (LM Studio or any OpenAI-compatible
    server), or the embedded classifier when none is running.
    """
    if ctx.invoked_subcommand is None:
        # Bare `vaultbrain`: the help is what was asked for, so stdout and exit 0.
        click.echo(ctx.get_help())
        ctx.exit(0)
    ctx.obj = Context(vault, state_dir, schema_pack, verbose)
    ctx.obj.quiet = quiet
    import logging

    # journald and launchd stamp each line themselves; a terminal gets the time from us.
    under_service = bool(os.environ.get("JOURNAL_STREAM") or os.environ.get("XPC_SERVICE_NAME"))
    level = logging.DEBUG if verbose else logging.ERROR if quiet else logging.INFO
    logging.basicConfig(
        level=level,
        format=("" if under_service else "%(asctime)s ") + "%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not verbose:
        for noisy in ("httpx", "httpcore", "apscheduler", "watchdog"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    if quiet and not verbose:
        # Everything but errors goes: logs below ERROR (the handler above keeps the real
        # stderr for those), and what commands print. A command's error is shown after its
        # context closes, so it reaches stderr too.
        devnull = ctx.with_resource(open(os.devnull, "w", encoding="utf-8"))
        ctx.with_resource(contextlib.redirect_stdout(devnull))
        ctx.with_resource(contextlib.redirect_stderr(devnull))


def as_click_error(
    exc: BaseException, verbose: bool
) -> click.ClickException | click.exceptions.Exit:
    """The one error ladder: what vaultbrain raised, as one line and an exit code (beets'
    ``main``). A closed pipe is a quiet exit; a disk's refusal is one line like any other."""
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()  # the reader went away (`… | head`): exit quietly, like cat
        return click.exceptions.Exit(0)
    if verbose:
        traceback.print_exc()
    if isinstance(exc, KeyboardInterrupt):
        error = VaultbrainError("interrupted")
        error.exit_code = 130
        return ReportedError(error)
    if isinstance(exc, OSError) and not isinstance(exc, VaultbrainError):
        # The disk said no somewhere a write seam did not name it: still one line.
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return ReportedError(VaultbrainError(f"{exc.strerror or exc}{where}"))
    assert isinstance(exc, VaultbrainError)
    return ReportedError(exc)


def _raw_main(argv: list[str] | None) -> None:
    cli.main(args=argv, prog_name="vaultbrain", standalone_mode=False)
    sys.stdout.flush()  # a closed pipe shows here, inside the ladder, not at exit


def main(argv: list[str] | None = None) -> None:
    """Entry point: the errors a command raises are turned into one line and an exit code by
    :func:`as_click_error` (inside the group, so tests driving ``cli`` see the same); here
    only what happens around a command (parsing, Ctrl-C at the prompt, the last flush)."""
    verbose = any(a in ("-v", "--verbose") or a.startswith("-vv") for a in (argv or sys.argv[1:]))
    try:
        _raw_main(argv)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except (VaultbrainError, OSError, KeyboardInterrupt) as exc:
        error = as_click_error(exc, verbose)
        if isinstance(error, click.ClickException):
            error.show()
        sys.exit(error.exit_code)
    sys.exit(0)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered cannot complain at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
