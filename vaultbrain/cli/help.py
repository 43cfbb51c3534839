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


# Examples of every command that does not give its own (a command's `epilog=examples(...)`
# wins), by the words that reach it; given at load by :func:`give_examples`.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "inbox": ("vaultbrain inbox", "vaultbrain inbox --status needs_review --limit 5"),
    "digest": ("vaultbrain digest run", "vaultbrain digest latest"),
    "digest latest": ("vaultbrain digest latest", "vaultbrain digest latest --json"),
    "digest run": ("vaultbrain digest run", "vaultbrain digest run --date 2026-12-01"),
    "weekly": ("vaultbrain weekly run", "vaultbrain weekly latest"),
    "weekly latest": ("vaultbrain weekly latest", "vaultbrain weekly latest --json"),
    "weekly run": ("vaultbrain weekly run", "vaultbrain weekly run --date 2026-12-06"),
    "schedule": ("vaultbrain schedule", "vaultbrain settings set digest_schedule '0 7 * * *'"),
    "review": ("vaultbrain review list", "vaultbrain review resolve k3x9q2 person"),
    "review confirm": ("vaultbrain review list", "vaultbrain review confirm k3x9q2"),
    "review dismiss": ("vaultbrain review dismiss k3x9q2   # not a thought: dropped",),
    "review list": ("vaultbrain review list", "vaultbrain review list --json"),
    "review resolve": (
        "vaultbrain review resolve k3x9q2 person",
        "vaultbrain review resolve k3x9q2 person,admin --title 'Call Sarah'",
    ),
    "fix": (
        "vaultbrain fix Sarah idea   # a title, as db show takes",
        "vaultbrain fix k3x9q2 admin",
    ),
    "trust": ("vaultbrain trust --since 1d", "vaultbrain trust --summary --write-note"),
    "db": ("vaultbrain db list person", "vaultbrain db show person Sarah"),
    "db add": ("vaultbrain db add person --set name=Sarah --set contact=s@example.com",),
    "db delete": ("vaultbrain db delete person Sarah",),
    "db export": (
        "vaultbrain db export ~/vaultbrain-records",
        "vaultbrain db export /tmp/r --json",
    ),
    "db list": ("vaultbrain db list person", "vaultbrain db list admin --json"),
    "db show": ("vaultbrain db show person Sarah", "vaultbrain db show project 'Garden makeover'"),
    "db update": ("vaultbrain db update admin 'Pay rent' --set status=done",),
    "adopt": ("vaultbrain adopt --dry-run", "vaultbrain adopt People --apply"),
    "restyle": ("vaultbrain restyle --dry-run", "vaultbrain restyle --apply"),
    "classify": (
        "vaultbrain classify 'Call Sarah about the lease'",
        "echo 'idea: bees' | vaultbrain classify -",
    ),
    "search": ("vaultbrain search garden budget", "vaultbrain search --type person beekeeping"),
    "related": (
        "vaultbrain related 'Garden makeover'",
        "vaultbrain related People/Sarah.md --limit 5",
    ),
    "embed": ("vaultbrain embed", "vaultbrain embed --status"),
    "whoknows": ("vaultbrain whoknows beekeeping", "vaultbrain whoknows garden design --limit 3"),
    "links": ("vaultbrain links Sarah", "vaultbrain links 'Garden makeover' --type people"),
    "takes": ("vaultbrain takes --since 7d", "vaultbrain takes --kind bet --holder Sarah"),
    "enrich": ("vaultbrain enrich --dry-run", "vaultbrain enrich person Sarah"),
    "youtube": ("vaultbrain youtube ingest https://youtu.be/VIDEO_ID", "vaultbrain youtube list"),
    "youtube cancel": ("vaultbrain youtube list", "vaultbrain youtube cancel JOB_ID"),
    "youtube forget": ("vaultbrain youtube forget VIDEO_ID",),
    "youtube ingest": (
        "vaultbrain youtube ingest https://youtu.be/VIDEO_ID",
        "vaultbrain youtube ingest https://youtu.be/VIDEO_ID --audio --tag talks",
    ),
    "youtube list": ("vaultbrain youtube list", "vaultbrain youtube list --json"),
    "youtube settings": (
        "vaultbrain youtube settings",
        "vaultbrain youtube settings --folder Talks",
    ),
    "youtube show": ("vaultbrain youtube show VIDEO_ID",),
    "youtube transcript": ("vaultbrain youtube transcript VIDEO_ID > talk.md",),
    "youtube vtt": ("vaultbrain youtube vtt captions.vtt",),
    "idealoom": ("vaultbrain idealoom create 'Names for the shop'", "vaultbrain idealoom list"),
    "idealoom add-idea": ("vaultbrain idealoom add-idea LIST_ID 'Bee & Bloom'",),
    "idealoom create": ("vaultbrain idealoom create 'Names for the shop' --idea 'Hive'",),
    "idealoom delete": ("vaultbrain idealoom delete LIST_ID",),
    "idealoom edit": ("vaultbrain idealoom edit LIST_ID --title 'Shop names'",),
    "idealoom export": ("vaultbrain idealoom export", "vaultbrain idealoom export LIST_ID"),
    "idealoom import": ("vaultbrain idealoom import",),
    "idealoom list": ("vaultbrain idealoom list", "vaultbrain idealoom list --json"),
    "idealoom move-idea": ("vaultbrain idealoom move-idea LIST_ID 3 1   # third becomes first",),
    "idealoom remove-idea": ("vaultbrain idealoom remove-idea LIST_ID 2",),
    "idealoom settings": (
        "vaultbrain idealoom settings",
        "vaultbrain idealoom settings --folder Lists",
    ),
    "idealoom show": ("vaultbrain idealoom show LIST_ID",),
    "schema": ("vaultbrain schema active", "vaultbrain schema detect"),
    "schema active": ("vaultbrain schema active", "vaultbrain schema active --path"),
    "schema detect": ("vaultbrain schema detect", "vaultbrain schema detect --min-notes 3"),
    "schema diff": ("vaultbrain schema diff vaultbrain-base vaultbrain-recommended",),
    "schema downgrade": ("vaultbrain schema downgrade",),
    "schema edit": ("vaultbrain schema edit my-pack",),
    "schema explain": ("vaultbrain schema explain person",),
    "schema fork": ("vaultbrain schema fork vaultbrain-base my-pack",),
    "schema graph": ("vaultbrain schema graph", "vaultbrain schema graph vaultbrain-recommended"),
    "schema init": ("vaultbrain schema init my-pack --extends vaultbrain-base",),
    "schema install": (
        "vaultbrain schema install ./my-pack",
        "vaultbrain schema install pack.tar.gz",
    ),
    "schema lint": ("vaultbrain schema lint", "vaultbrain schema lint my-pack"),
    "schema list": ("vaultbrain schema list",),
    "schema review-candidates": (
        "vaultbrain schema review-candidates",
        "vaultbrain schema review-candidates --apply Reading/",
    ),
    "schema review-orphans": (
        "vaultbrain schema review-orphans",
        "vaultbrain schema review-orphans --samples 2",
    ),
    "schema show": ("vaultbrain schema show", "vaultbrain schema show vaultbrain-recommended"),
    "schema suggest": ("vaultbrain schema suggest",),
    "schema usage": ("vaultbrain schema usage --since 30d",),
    "schema use": ("vaultbrain schema use vaultbrain-recommended",),
    "schema validate": ("vaultbrain schema validate my-pack",),
    "schema add-type": (
        "vaultbrain schema add-type recipe --folder Recipes --dry-run",
        "vaultbrain schema add-type recipe --folder Recipes --fields cuisine:text",
    ),
    "schema add-field": ("vaultbrain schema add-field project budget --kind number",),
    "schema add-link-type": ("vaultbrain schema add-link-type lead --from project --to person",),
    "schema add-alias": ("vaultbrain schema add-alias person contact",),
    "schema rename-field": (
        "vaultbrain schema rename-field project status state --dry-run",
        "vaultbrain schema rename-field project status state",
    ),
    "schema retire-type": ("vaultbrain schema retire-type idea --dry-run",),
    "schema log": ("vaultbrain schema log", "vaultbrain schema log --json"),
    "schema stats": ("vaultbrain schema stats", "vaultbrain schema stats --json"),
    "settings get": ("vaultbrain settings get", "vaultbrain settings get inbox_note --where"),
    "settings migrate": ("vaultbrain settings migrate",),
    "settings set": ("vaultbrain settings set inbox_idle_seconds 300",),
    "settings unset": ("vaultbrain settings unset inbox_idle_seconds",),
    "service status": ("vaultbrain service status", "vaultbrain service status --json"),
    "service uninstall": ("vaultbrain service uninstall",),
    "filer": ("vaultbrain filer show", "vaultbrain filer claim"),
    "filer claim": ("vaultbrain filer claim   # this machine files from now on",),
    "filer show": ("vaultbrain filer show", "vaultbrain filer show --json"),
    "statedir": ("vaultbrain statedir show", "vaultbrain statedir move"),
    "statedir move": ("vaultbrain statedir move",),
    "statedir show": ("vaultbrain statedir show", "vaultbrain statedir show --json"),
    "mcp": ("vaultbrain --vault ~/Vault mcp", "vaultbrain --vault ~/Vault mcp --allow-writes"),
}


def give_examples(command: click.Command, path: str) -> None:
    """Set the examples of ``command`` (reached by ``path``, ``"db show"``) and of every
    command below it, where it has none of its own."""
    if not command.epilog and path in EXAMPLES:
        command.epilog = examples(*EXAMPLES[path])
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            give_examples(sub, f"{path} {name}")
