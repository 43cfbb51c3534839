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
    if they have none), so their records follow them by id. Nothing else in them changes,
    and a property holding a value of your own is never replaced: an `id:` of your own is
    kept (the record follows the note by path and content), another `type:` makes the note
    a conflict, left as it is. A terminal shows a progress line; Ctrl-C stops cleanly and a
    rerun goes on from there."""
    from vaultbrain.cli.progress import Progress
    from vaultbrain.errors import UserError
    from vaultbrain.filing.adopt import apply, plan

    if dry_run and do_apply:
        raise UserError("choose one of --dry-run and --apply")
    app = obj.app()
    app.refresh()
    where = f" under {folder.strip('/')}/" if folder else ""
    if not do_apply:
        planned = plan(app, folder)
        if as_json:
            echo_json([a.__dict__ for a in planned])
            return
        ready = [a for a in planned if not a.problem]
        conflicts = [a for a in planned if a.conflict]
        for a in planned:
            click.echo(a.describe())
        own = sum(a.own_id is not None for a in ready)
        click.echo(
            f"{len(ready)} hand-made note(s){where} would get an id written"
            + (f" ({own} keep their own id: instead)" if own else "")
            + (f", {len(conflicts)} left as they are (conflicts)" if conflicts else "")
            + (" (nothing written: this is a preview; --apply writes them)" if ready else "")
        )
        return
    bar = Progress.on_terminal("notes", quiet=as_json)
    try:
        result = apply(app, folder, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    if as_json:
        echo_json(
            {
                "adopted": [a.__dict__ for a in result.done],
                "problems": result.problems,
                "stopped": result.stopped,
            }
        )
        if result.stopped:
            raise SystemExit(130)
        return
    for a in result.done:
        click.echo(f"adopted {a.describe()}")
    for line in result.problems:
        click.echo(f"  {line}", err=True)
    click.echo(
        f"{len(result.done)} note(s){where} adopted, {len(result.problems)} left as they were"
    )
    if result.stopped:
        click.echo("stopped: run `vaultbrain adopt --apply` again to go on", err=True)
        raise SystemExit(130)
