"""The click group: every command.

Each command lives in its own module and is imported only when it runs: the table below
names it, its section of ``vaultbrain --help`` and its one-line summary, so the help is
printed without importing any command (``vaultbrain capture --json -`` loads only what a
capture needs). A new command is one line in ``COMMANDS``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

import click

from vaultbrain import __version__
from vaultbrain.cli.context import Context, error_line, set_up_logging
from vaultbrain.errors import VaultbrainError
from vaultbrain.patterns import LazyPattern


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
    "capture": Cmd("vaultbrain.cli.capture:capture_cmd", EVERYDAY, "Capture one thought now and file it"),
    "daemon": Cmd("vaultbrain.cli.daemon:daemon_cmd", EVERYDAY, "Watch the vault and file each finished inbox line"),
    "inbox": Cmd("vaultbrain.cli.core:inbox_cmd", EVERYDAY, "Recent captures and what each became"),
    "digest": Cmd("vaultbrain.cli.digest:digest", EVERYDAY, "The daily digest: write it now, or print the latest"),
    "weekly": Cmd("vaultbrain.cli.digest:weekly", EVERYDAY, "The weekly review: write it now, or print the latest"),
    "schedule": Cmd("vaultbrain.cli.digest:schedule_cmd", EVERYDAY, "When digests and reviews last ran and run next"),
    "tend": Cmd("vaultbrain.cli.tend:tend", EVERYDAY, "The nightly maintenance cycle now, and its merge proposals"),
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
    """An error on its way out: one line on stderr (:func:`vaultbrain.cli.error_line`), its
    exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # (click's is a class default)

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


def as_click_error(
    exc: BaseException, verbose: bool
) -> click.ClickException | click.exceptions.Exit:
    """The one error ladder (:func:`vaultbrain.cli.error_line`) as click's exceptions; made
    inside the command, where the --vault its hint repeats is known."""
    message, code = error_line(exc, verbose)
    return click.exceptions.Exit(code) if message is None else ReportedError(message, code)


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
        from vaultbrain.cli.help import give_examples  # (not for `vaultbrain --help`)

        give_examples(command, name)
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
    # As the command ends (before stdout and stderr are given back): what the brain holds.
    ctx.call_on_close(ctx.obj.close)


def run(argv: Sequence[str]) -> int:
    """Run one command line through the group; its exit code. The errors a command raises
    are turned into one line and an exit code by :func:`as_click_error` (inside the group,
    so tests driving ``cli`` see the same); here only what happens around a command
    (parsing, Ctrl-C at the prompt, the last flush)."""
    verbose = any(a in ("-v", "--verbose") or a.startswith("-vv") for a in argv)
    try:
        cli.main(args=list(argv), prog_name="vaultbrain", standalone_mode=False)
        sys.stdout.flush()  # a closed pipe shows here, inside the ladder, not at exit
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return 2 if isinstance(exc, click.UsageError) else exc.exit_code
    except (VaultbrainError, OSError, KeyboardInterrupt) as exc:
        error = as_click_error(exc, verbose)
        if isinstance(error, click.ClickException):
            error.show()
        return error.exit_code
    return 0
