"""restyle: rewrite the notes vaultbrain made to the current note style, previewed first
(vaultbrain/filing/restyle.py)."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.render import echo_json


@click.command("restyle")
@click.option("--dry-run", "dry_run", is_flag=True, help="List what would change (default).")
@click.option("--apply", "do_apply", is_flag=True, help="Rewrite them (compare-and-swap).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def restyle_cmd(obj: Any, dry_run: bool, do_apply: bool, as_json: bool) -> None:
    """Give the record notes vaultbrain made the look `note_style` asks for now (minimal:
    no machine properties, id last, no H1 under Obsidian's inline title; full: all of them).
    Notes you made are never touched; what leaves a note stays in the store."""
    from vaultbrain.errors import UserError
    from vaultbrain.filing.restyle import apply, plan

    if dry_run and do_apply:
        raise UserError("choose one of --dry-run and --apply")
    app = obj.app()
    app.refresh()
    planned = plan(app)
    style = str(app.settings.get("note_style"))
    if not do_apply:
        if as_json:
            echo_json({"style": style, "notes": [p.__dict__ for p in planned]})
            return
        for p in planned:
            click.echo(p.describe())
        ready = [p for p in planned if not p.problem]
        click.echo(
            f"{len(ready)} note(s) would be restyled to {style}"
            + (" (nothing written: this is a preview; --apply writes them)" if ready else "")
        )
        return
    done, problems = apply(app, planned)
    if as_json:
        echo_json({"style": style, "restyled": [p.__dict__ for p in done], "problems": problems})
        return
    for p in done:
        click.echo(f"restyled {p.describe()}")
    for line in problems:
        click.echo(f"  {line}", err=True)
    click.echo(f"{len(done)} note(s) restyled to {style}, {len(problems)} left as they were")
