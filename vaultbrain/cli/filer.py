"""``vaultbrain filer show|claim``: which machine takes this vault's inbox lines (see
vaultbrain/machine.py). Only the filer files; a daemon anywhere else observes."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.render import echo_json


@click.group("filer")
def filer() -> None:
    """Which machine files this vault's inbox lines (named in vaultbrain.yml)."""


@filer.command("show")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def show_cmd(obj: Any, as_json: bool) -> None:
    """This machine's id and role, and the filer vaultbrain.yml names."""
    from vaultbrain.machine import role

    app = obj.app()
    found = role(app.vault, app.state_dir)
    if as_json:
        echo_json(
            {
                "machine": found.machine.id,
                "host": found.machine.host,
                "filer": found.filer,
                "is_filer": found.is_filer,
            }
        )
        return
    if found.filer is None:
        click.echo(
            f"no filer named yet: the first daemon to start takes the role "
            f"(this machine is {found.machine})"
        )
    else:
        click.echo(found.describe())


@filer.command("claim")
@click.pass_obj
def claim_cmd(obj: Any) -> None:
    """Make this machine the one that takes inbox lines.

    It is written to vaultbrain.yml; a daemon on the machine that filed until now becomes
    an observer within a moment.
    """
    from vaultbrain.machine import name_filer, named_filer, this_machine

    app = obj.app()
    machine = this_machine(app.state_dir)
    before = named_filer(app.vault)
    name_filer(app.vault, machine, only_if_none=False)
    if before == machine.id:
        click.echo(f"this machine {machine} is already the filer")
    elif before:
        click.echo(f"this machine {machine} is now the filer (was {before})")
    else:
        click.echo(f"this machine {machine} is now the filer")
