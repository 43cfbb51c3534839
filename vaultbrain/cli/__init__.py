"""The command line: a thin front end. Commands parse, call one core function, render.

Command groups live in their own modules and are imported only when used, which keeps
``vaultbrain capture`` quick to start.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from vaultbrain import __version__
from vaultbrain.errors import VaultbrainError

# command name -> "module:attribute"
COMMANDS: dict[str, str] = {
    "init": "vaultbrain.cli.core:init_cmd",
    "capture": "vaultbrain.cli.core:capture_cmd",
    "inbox": "vaultbrain.cli.core:inbox_cmd",
    "db": "vaultbrain.cli.db:db",
    "settings": "vaultbrain.cli.core:settings_cmd",
    "doctor": "vaultbrain.cli.doctor:doctor_cmd",
    "reindex": "vaultbrain.cli.core:reindex_cmd",
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


class LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except VaultbrainError as exc:
            obj = ctx.obj
            if obj is not None and getattr(obj, "verbose", 0):
                traceback.print_exc()
            raise ReportedError(exc) from exc
        except OSError as exc:
            # The disk said no somewhere a write seam did not name it: still one line.
            obj = ctx.obj
            if obj is not None and getattr(obj, "verbose", 0):
                traceback.print_exc()
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            raise ReportedError(VaultbrainError(f"{exc.strerror or exc}{where}")) from exc

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
        self._app: Any = None

    @property
    def vault_dir(self) -> Path:
        return Path(self.vault_arg or os.environ.get("VAULTBRAIN_VAULT") or ".")

    def app(self, *, must_exist: bool = True) -> Any:
        if self._app is None:
            from vaultbrain.brain import Brain
            from vaultbrain.errors import UserError

            root = self.vault_dir
            if must_exist and not root.is_dir():
                raise UserError(
                    f"no vault at {root}; run `vaultbrain --vault {root} init` to make one"
                )
            self._app = Brain(root, self.state_dir, self.schema_pack)
        return self._app


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--vault", "vault", metavar="DIR", help="The vault (default $VAULTBRAIN_VAULT, then .)."
)
@click.option("--state-dir", metavar="DIR", help="Machine state (default <vault>/.vaultbrain).")
@click.option("--schema-pack", metavar="NAME", help="Use this schema pack for this run.")
@click.option("-v", "--verbose", count=True, help="Debug logs and tracebacks.")
@click.version_option(__version__, prog_name="vaultbrain")
@click.pass_context
def cli(
    ctx: click.Context,
    vault: str | None,
    state_dir: str | None,
    schema_pack: str | None,
    verbose: int,
) -> None:
    """vaultbrain: a second brain that lives inside your Obsidian vault.

    Write one thought per line in Inbox.md; the daemon files each as notes in People/,
    Projects/, Ideas/ and Admin/ using a local LLM (LM Studio or any OpenAI-compatible
    server), or the embedded classifier when none is running.
    """
    ctx.obj = Context(vault, state_dir, schema_pack, verbose)
    import logging

    # journald and launchd stamp each line themselves; a terminal gets the time from us.
    under_service = bool(os.environ.get("JOURNAL_STREAM") or os.environ.get("XPC_SERVICE_NAME"))
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format=("" if under_service else "%(asctime)s ") + "%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not verbose:
        for noisy in ("httpx", "httpcore", "apscheduler", "watchdog"):
            logging.getLogger(noisy).setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> None:
    """Entry point: one place turns errors into a one-line message and an exit code."""
    verbose = any(a in ("-v", "--verbose") or a.startswith("-vv") for a in (argv or sys.argv[1:]))
    try:
        cli.main(args=argv, prog_name="vaultbrain", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except VaultbrainError as exc:
        if verbose:
            traceback.print_exc()
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    sys.exit(0)
