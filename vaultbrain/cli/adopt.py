"""adopt: write ``id:`` (and ``type:``) into hand-made record notes, previewed first
(vaultbrain/filing/adopt.py)."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.render import echo_json


@click.command("adopt")
@click.argument("folder", required=False, default="")
@click.option("--dry-run", "dry_run", is_flag=True, help="List what would be written (default).")
@click.option("--apply", "do_apply", is_flag=True, help="Write the ids (compare-and-swap).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def adopt_cmd(obj: Any, folder: str, dry_run: bool, do_apply: bool, as_json: bool) -> None:
    """Give the hand-made record notes under FOLDER (all: no FOLDER) an `id:` (and a `type:`
    if they have none), so their records follow them by id. Nothing else in them changes."""
    from vaultbrain.errors import UserError
    from vaultbrain.filing.adopt import apply, plan

    if dry_run and do_apply:
        raise UserError("choose one of --dry-run and --apply")
    app = obj.app()
    app.refresh()
    planned = plan(app, folder)
    where = f" under {folder.strip('/')}/" if folder else ""
    if not do_apply:
        if as_json:
            echo_json([a.__dict__ for a in planned])
            return
        ready = [a for a in planned if not a.problem]
        for a in planned:
            click.echo(a.describe())
        click.echo(
            f"{len(ready)} hand-made note(s){where} would get an id written"
            + (" (nothing written: this is a preview; --apply writes them)" if ready else "")
        )
        return
    done, problems = apply(app, planned)
    if as_json:
        echo_json({"adopted": [a.__dict__ for a in done], "problems": problems})
        return
    for a in done:
        click.echo(f"adopted {a.describe()}")
    for line in problems:
        click.echo(f"  {line}", err=True)
    click.echo(f"{len(done)} note(s){where} adopted, {len(problems)} left as they were")
