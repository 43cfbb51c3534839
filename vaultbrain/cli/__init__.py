"""The command line: a thin front end. Commands parse, call one core function, render.

Each command lives in its own module and is imported only when it runs: the table below
names it, its section of ``vaultbrain --help`` and its one-line summary, so the help is
printed without importing any command (``vaultbrain capture`` loads only what a capture
needs). A new command is one line in ``COMMANDS``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import click

from vaultbrain import __version__
from vaultbrain.errors import VaultbrainError
from vaultbrain.patterns import LazyPattern

if TYPE_CHECKING:
    from pathlib import Path

    from vaultbrain.brain import Brain


class Cmd(NamedTuple):
    target: str  # "module:attribute", imported when the command runs
    section: str  # its heading in `vaultbrain --help`
    summary: str  # one line that fits 80 columns beside its name


EVERYDAY = "Everyday"
REVIEW = "Review and fix"
KNOWLEDGE = "Knowledge"
SCHEMA = "Schema"
MACHINE = "Machine and service"
SECTIONS = (EVERYDAY, REVIEW, KNOWLEDGE, SCHEMA, MACHINE)

COMMANDS: dict[str, Cmd] = {
    "init": Cmd("vaultbrain.cli.core:init_cmd", EVERYDAY, "Make a vault: the pack's folders and Inbox.md"),
    "capture": Cmd("vaultbrain.cli.core:capture_cmd", EVERYDAY, "Capture one thought now and file it"),
    "daemon": Cmd("vaultbrain.cli.daemon:daemon_cmd", EVERYDAY, "Watch the vault and file each finished inbox line"),
    "inbox": Cmd("vaultbrain.cli.core:inbox_cmd", EVERYDAY, "Recent captures and what each became"),
    "digest": Cmd("vaultbrain.cli.digest:digest", EVERYDAY, "The daily digest: write it now, or print the latest"),
    "weekly": Cmd("vaultbrain.cli.digest:weekly", EVERYDAY, "The weekly review: write it now, or print the latest"),
    "schedule": Cmd("vaultbrain.cli.digest:schedule_cmd", EVERYDAY, "When digests and reviews last ran and run next"),
    "review": Cmd("vaultbrain.cli.review:review", REVIEW, "Decide on the thoughts waiting in Needs Review"),
    "fix": Cmd("vaultbrain.cli.review:fix_cmd", REVIEW, "Re-file a record as another type"),
    "trust": Cmd("vaultbrain.cli.review:trust_cmd", REVIEW, "The audit trail: classifications, corrections, syncs"),
    "db": Cmd("vaultbrain.cli.db:db", REVIEW, "List, show, add, update and delete records by hand"),
    "reindex": Cmd("vaultbrain.cli.core:reindex_cmd", REVIEW, "Rescan the vault into the store (notes are the truth)"),
    "adopt": Cmd("vaultbrain.cli.adopt:adopt_cmd", REVIEW, "Write ids into hand-made record notes, when asked"),
    "restyle": Cmd("vaultbrain.cli.restyle:restyle_cmd", REVIEW, "Rewrite vaultbrain's own notes in the current note_style"),
    "classify": Cmd("vaultbrain.cli.classify:classify_cmd", REVIEW, "What the classifiers would do with a thought"),
    "search": Cmd("vaultbrain.cli.graph:search_cmd", KNOWLEDGE, "Search every note by words and by meaning"),
    "related": Cmd("vaultbrain.cli.graph:related_cmd", KNOWLEDGE, "The notes nearest a note in meaning"),
    "embed": Cmd("vaultbrain.cli.graph:embed_cmd", KNOWLEDGE, "Embed notes for search by meaning, or show how far"),
    "whoknows": Cmd("vaultbrain.cli.graph:whoknows_cmd", KNOWLEDGE, "Who in the vault is tied to a topic, and why"),
    "links": Cmd("vaultbrain.cli.graph:links_cmd", KNOWLEDGE, "A note's typed links, both ways"),
    "takes": Cmd("vaultbrain.cli.graph:takes_cmd", KNOWLEDGE, "Facts, takes, bets and hunches found in notes"),
    "enrich": Cmd("vaultbrain.cli.graph:enrich_cmd", KNOWLEDGE, "Fill records' empty fields from what the vault says"),
    "youtube": Cmd("vaultbrain.cli.youtube:youtube", KNOWLEDGE, "Bring a YouTube video's transcript into the vault"),
    "idealoom": Cmd("vaultbrain.cli.idealoom:idealoom", KNOWLEDGE, "IdeaLoom lists: a prompt and its ordered ideas"),
    "schema": Cmd("vaultbrain.cli.schema:schema", SCHEMA, "Schema packs: the note types, folders and fields"),
    "settings": Cmd("vaultbrain.cli.settings:settings_cmd", MACHINE, "Show or change settings (the vault's, this machine's)"),
    "doctor": Cmd("vaultbrain.cli.doctor:doctor_cmd", MACHINE, "Check the set-up: vault, state, LLM server, tools"),
    "service": Cmd("vaultbrain.cli.daemon:service", MACHINE, "Run the daemon as a systemd or launchd service"),
    "filer": Cmd("vaultbrain.cli.filer:filer", MACHINE, "Which machine takes this vault's inbox lines"),
    "statedir": Cmd("vaultbrain.cli.statedir:statedir", MACHINE, "Where this machine keeps the vault's state"),
    "mcp": Cmd("vaultbrain.cli.agents:mcp_cmd", MACHINE, "Serve the brain to agents over MCP (stdio)"),
}  # fmt: skip

# `--json` reads the same on every command that has it.
JSON_HELP = "Print one JSON document instead of text."

EXAMPLES = """\
Examples:
  vaultbrain --vault ~/Vault init
  vaultbrain --vault ~/Vault capture "Call the plumber on Monday"
  vaultbrain --vault ~/Vault daemon        # the main job, in this terminal
  vaultbrain --vault ~/Vault review list   # what waits for you
  export VAULTBRAIN_VAULT=~/Vault          # then --vault can be left out

Learn more:
  vaultbrain COMMAND --help   a command's options and examples
  vaultbrain doctor           what is set up and what is missing
  README.md                   the whole guide"""


class ReportedError(click.ClickException):
    """A VaultbrainError on its way out: one line on stderr, its exit code."""

    def __init__(self, exc: VaultbrainError) -> None:
        super().__init__(hint(str(exc)))  # made inside the command, where --vault is known
        self.exit_code = exc.exit_code

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


# A next-step hint names a command in backticks: `vaultbrain reindex`.
_HINT = LazyPattern(r"`vaultbrain (?!--vault )")


def hint(text: str) -> str:
    """``text`` with each `vaultbrain …` it suggests carrying the --vault (and --state-dir)
    the person gave, so the command can be pasted as it is. Core code writes hints without
    them: it does not know how the person named the vault."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    if not isinstance(obj, Context) or "`vaultbrain " not in text:
        return text
    given = obj.given_options()
    return _HINT.sub(f"`vaultbrain {given} ", text) if given else text


# Flags that mean the same wherever they stand (`vaultbrain db list person -v`), as in llm
# and yt-dlp. Only exact tokens move, and nothing after `--`.
_GLOBAL_FLAG = LazyPattern(r"-v+|--verbose|-q|--quiet")


def hoist_global_flags(args: Sequence[str]) -> list[str]:
    """``args`` with -v/-q (anywhere before ``--``) moved in front of the subcommand."""
    args = list(args)
    end = args.index("--") if "--" in args else len(args)
    flags = [a for a in args[:end] if _GLOBAL_FLAG.fullmatch(a)]
    rest = [a for a in args[:end] if not _GLOBAL_FLAG.fullmatch(a)]
    return flags + rest + args[end:]


def _with_suggestion(exc: click.UsageError) -> click.UsageError:
    """ "No such command 'captur'." gains "did you mean capture?" (any group, any depth)."""
    import difflib

    ctx = exc.ctx
    match = re.match(r"No such command '(.+)'\.", exc.message)
    if ctx is None or match is None or not isinstance(ctx.command, click.Group):
        return exc
    names = ctx.command.list_commands(ctx)
    close = difflib.get_close_matches(match.group(1), names, n=1, cutoff=0.6)
    if not close:
        return exc
    return click.UsageError(f"{exc.message.rstrip('.')}; did you mean {close[0]}?", ctx)


def describe_json(command: click.Command) -> None:
    """Give every ``--json`` option under ``command`` the one description."""
    for param in command.params:
        if isinstance(param, click.Option) and "--json" in param.opts:
            param.help = JSON_HELP
    for sub in getattr(command, "commands", {}).values():
        describe_json(sub)


def _help_width() -> int:
    """shutil.get_terminal_size's answer (COLUMNS, else the terminal, else 80) without
    importing shutil, which brings the compression modules into `vaultbrain --help`."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _HelpContext(click.Context):
    def make_formatter(self) -> click.HelpFormatter:
        width = self.terminal_width or max(min(_help_width(), 80) - 2, 50)
        return click.HelpFormatter(width=width, max_width=self.max_content_width)


class LazyGroup(click.Group):
    """The top-level group: commands come from ``COMMANDS``, imported when they run; the
    help lists them by section from the table alone (as gh and git group theirs)."""

    context_class = _HelpContext

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
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        module_name, attr = entry.target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        describe_json(command)
        return command

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Commands first, then the options, then examples (git's and gh's order).
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_commands(ctx, formatter)
        click.Command.format_options(self, ctx, formatter)
        formatter.write_paragraph()
        for line in EXAMPLES.splitlines():
            formatter.write(f"{line}\n" if line else "\n")

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = max(len(name) for name in COMMANDS)
        for section in SECTIONS:
            rows = [
                (n.ljust(width), c.summary) for n, c in COMMANDS.items() if c.section == section
            ]
            if rows:
                with formatter.section(section):
                    formatter.write_dl(rows)


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
            # As the command ends: what an editor wrote late into a note it rewrote.
            vault = self._app.vault
            if getattr(vault, "identity_notice", None):
                # Said to the person in one line, whatever the log level (a copied vault
                # given its own id: vault/identity.py), as well as in the log.
                click.echo(vault.identity_notice, err=True)
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
        if app is not None and app.kept("graph") is not None:
            app.forget()  # (all it learnt let go, the graph index closed: it is done)

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
    source = ctx.get_parameter_source("state_dir")
    ctx.obj.state_dir_given = source is click.core.ParameterSource.COMMANDLINE
    set_up_logging(ctx.invoked_subcommand == "daemon", verbose, quiet)
    if quiet and not verbose:
        # Everything but errors goes: logs below ERROR (the handler above keeps the real
        # stderr for those), and what commands print. A command's error is shown after its
        # context closes, so it reaches stderr too.
        devnull = ctx.with_resource(open(os.devnull, "w", encoding="utf-8"))
        ctx.with_resource(contextlib.redirect_stdout(devnull))
        ctx.with_resource(contextlib.redirect_stderr(devnull))


def set_up_logging(daemon: bool, verbose: int, quiet: bool) -> None:
    """Log lines are the daemon's voice, and everyone's with -v. Any other command says
    what happened in its own words (a capture's "embedded classifier: the LLM server is not
    running"), so a warning the core logs on the way (the same cause, timestamped) would only
    say it twice: such a command shows a log line only when it is an error."""
    import logging

    # journald and launchd stamp each line themselves; a terminal gets the time from us.
    under_service = bool(os.environ.get("JOURNAL_STREAM") or os.environ.get("XPC_SERVICE_NAME"))
    if verbose:
        level = logging.DEBUG
    elif quiet or not daemon:
        level = logging.ERROR
    else:
        level = logging.INFO
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


def as_click_error(
    exc: BaseException, verbose: bool
) -> click.ClickException | click.exceptions.Exit:
    """The one error ladder: what vaultbrain raised, as one line and an exit code (beets'
    ``main``). A closed pipe is a quiet exit; a disk's refusal is one line like any other."""
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()  # the reader went away (`… | head`): exit quietly, like cat
        return click.exceptions.Exit(0)
    if verbose:
        import traceback

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


# True in the `vaultbrain` script's process, which runs one command and exits (a command may
# then leave what a process that goes on would tidy: cli/core.py's capture and the collector).
ONE_COMMAND = False


def main(argv: list[str] | None = None) -> None:
    """Entry point: the errors a command raises are turned into one line and an exit code by
    :func:`as_click_error` (inside the group, so tests driving ``cli`` see the same); here
    only what happens around a command (parsing, Ctrl-C at the prompt, the last flush)."""
    global ONE_COMMAND
    ONE_COMMAND = True
    verbose = any(a in ("-v", "--verbose") or a.startswith("-vv") for a in (argv or sys.argv[1:]))
    try:
        _raw_main(argv)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        _leave(130)
    except click.exceptions.Exit as exc:
        _leave(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        _leave(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except (VaultbrainError, OSError, KeyboardInterrupt) as exc:
        error = as_click_error(exc, verbose)
        if isinstance(error, click.ClickException):
            error.show()
        _leave(error.exit_code)
    _leave(0)


def _leave(code: int) -> NoReturn:
    """The command is done. The exit handlers run (the last look at the files a swap displaced,
    the logs flushed), then the process ends without tearing the interpreter down: freeing
    the objects of a 10,000-note vault's indexes one by one, and a last collection, is time
    a person (or a phone's shortcut) waits for and nothing else. When another thread still
    runs, the usual exit waits for it."""
    import atexit
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate()[1:]):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered cannot complain at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
