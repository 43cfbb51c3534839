"""Help that reads like a good CLI's: a group whose experimental verbs stand apart.

``schema`` has verbs marked "(experimental)" (they may change or go). Its ``--help`` lists
the others and names the experimental ones in one line; ``--help-all`` describes them too, in
their own section, as git keeps its plumbing out of the common list.
"""

from __future__ import annotations

from typing import Any

import click

EXPERIMENTAL = "(experimental)"
_ALL = "vaultbrain.help_all"


def _help_all(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    ctx.meta[_ALL] = True
    click.echo(ctx.get_help(), color=ctx.color)
    ctx.exit()


class ExperimentalApart(click.Group):
    """A group that lists its experimental verbs apart, and describes them with --help-all."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.append(
            click.Option(
                ["--help-all"],
                is_flag=True,
                expose_value=False,
                is_eager=True,
                callback=_help_all,
                help="Show this message with the experimental verbs, and exit.",
            )
        )

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        stable: list[tuple[str, click.Command]] = []
        trial: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            experimental = (cmd.short_help or cmd.help or "").startswith(EXPERIMENTAL)
            (trial if experimental else stable).append((name, cmd))
        width = max((len(name) for name, _ in stable + trial), default=0)
        limit = formatter.width - 6 - width

        def rows(commands: list[tuple[str, click.Command]], marked: int) -> list[tuple[str, str]]:
            # `marked`: the "(experimental) " a summary starts with, which is not shown
            return [(n.ljust(width), c.get_short_help_str(limit + marked)) for n, c in commands]

        if stable:
            with formatter.section("Commands"):
                formatter.write_dl(rows(stable, 0))
        if not trial:
            return
        if ctx.meta.get(_ALL):
            with formatter.section("Experimental (may change or go)"):
                formatter.write_dl(
                    [
                        (n, h.removeprefix(EXPERIMENTAL).strip())
                        for n, h in rows(trial, len(EXPERIMENTAL) + 1)
                    ]
                )
        else:
            with formatter.section("Experimental"):
                names = ", ".join(name for name, _ in trial)
                formatter.write_text(f"`{ctx.command_path} --help-all` also lists {names}.")


def examples(*lines: str) -> str:
    """A command's epilog: its examples as typed, kept as they are (click rewraps text
    that does not start with its no-rewrap mark)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)
