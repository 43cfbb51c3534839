"""db list|show|add|update|delete: the records, by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.render import echo_json, echo_table, field_lines, parse_sets


@click.group("db")
def db() -> None:
    """List, show, add, update and delete records (notes and store together)."""


@db.command("list")
@click.argument("type_name", metavar="TYPE")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def db_list(obj: Any, type_name: str, as_json: bool) -> None:
    """Every record of TYPE (person, project, idea, admin, …)."""
    from vaultbrain.filing.db import list_records

    app = obj.app()
    rows = list_records(app, type_name)
    if as_json:
        echo_json(rows)
        return
    echo_table(
        [(r["id"], r.get("title"), r.get("path"), r.get("updated")) for r in rows],
        ["id", "title", "path", "updated"],
    )
    if not rows:
        from vaultbrain.filing.setup import scanned

        if not scanned(app):  # the notes the vault had are not records until a reindex
            click.echo(
                hint("no records yet: `vaultbrain reindex` reads the vault's notes in"), err=True
            )


@db.command("show")
@click.argument("type_name", metavar="TYPE")
@click.argument("ref", metavar="ID")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def db_show(obj: Any, type_name: str, ref: str, as_json: bool) -> None:
    """One record, by id or title."""
    from vaultbrain.filing.db import find_record, resolve_type

    app = obj.app()
    rec = find_record(app, resolve_type(app, type_name), ref)
    if as_json:
        echo_json(rec)
        return
    click.echo(f"{rec['title']}  ({rec['type']} {rec['id']})")
    click.echo(f"  path: {rec.get('path')}")
    for k, v in rec.get("fields", {}).items():
        for line in field_lines(k, v):
            click.echo(line)


@db.command("add")
@click.argument("type_name", metavar="TYPE")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="A field (repeatable).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def db_add(obj: Any, type_name: str, sets: tuple[str, ...], as_json: bool) -> None:
    """Add a record with the fields given.

    For example: `db add person --set name=Sarah --set contact=sarah@example.com`.
    """
    from vaultbrain.filing.db import add_record

    rec = add_record(obj.app(), type_name, parse_sets(sets))
    echo_json(rec) if as_json else click.echo(f"added {rec['type']} {rec['id']}: {rec['path']}")


@db.command("update")
@click.argument("type_name", metavar="TYPE")
@click.argument("ref", metavar="ID")
@click.option("--set", "sets", multiple=True, required=True, metavar="KEY=VALUE")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def db_update(obj: Any, type_name: str, ref: str, sets: tuple[str, ...], as_json: bool) -> None:
    """Change fields; the note's other lines stay as they are. Lists: --set topics=a,b."""
    from vaultbrain.filing.db import update_record

    rec = update_record(obj.app(), type_name, ref, parse_sets(sets))
    echo_json(rec) if as_json else click.echo(f"updated {rec['type']} {rec['id']}: {rec['path']}")


@db.command("delete")
@click.argument("type_name", metavar="TYPE")
@click.argument("ref", metavar="ID")
@click.pass_obj
def db_delete(obj: Any, type_name: str, ref: str) -> None:
    """Delete a record.

    Its note moves to the state dir's trash/, where it can be recovered.
    """
    from vaultbrain.filing.db import delete_record

    app = obj.app()
    rec = delete_record(app, type_name, ref)
    moved = rec.get("trashed_to")
    click.echo(
        f"deleted {rec['type']} {rec['id']}"
        + (f"; note moved to {app.state_dir / moved}" if moved else "")
    )


@db.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def db_export(obj: Any, directory: Path, as_json: bool) -> None:
    """Write every record as JSON files, one per record.

    DIRECTORY/<collection>/<id>/index.json, outside the vault: the state database's records
    in a form any tool can read.
    """
    app = obj.app()
    target = directory.expanduser().resolve()
    vault_root = app.vault.root.resolve()
    if target == vault_root or vault_root in target.parents:
        from vaultbrain.errors import UserError

        raise UserError(f"{directory} is inside the vault: export the records somewhere else")
    count = app.store.export(target)
    if as_json:
        echo_json({"directory": str(target), "records": count})
        return
    click.echo(f"{count} records written to {target}")
