"""``vaultbrain settings``: get, set, unset, migrate (vaultbrain/settings.py does the work).

A vault key is written to ``vaultbrain.yml`` (shared by every machine), a machine key to
this machine's state dir; ``get`` says which, and where each value comes from.
"""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.help import examples
from vaultbrain.cli.render import echo_json, echo_table, human, table_width, terminal_width


@click.group(
    "settings",
    epilog=examples(
        "vaultbrain settings get",
        "vaultbrain settings set endpoint http://localhost:11434/v1   # Ollama",
        "vaultbrain settings get auto_confidence --where",
        "vaultbrain settings unset auto_confidence",
    ),
)
def settings_cmd() -> None:
    """Show or change settings: the vault's in vaultbrain.yml, this machine's in its state
    dir."""


def _scope(name: str) -> str:
    from vaultbrain.settings import KEYS

    key = KEYS.get(name)
    return key.scope if key is not None else "vault"


@settings_cmd.command("get")
@click.argument("key", required=False)
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--where", is_flag=True, help="With --json: each key's value, scope and where it comes from."
)
@click.pass_obj
def settings_get(obj: Any, key: str | None, as_json: bool, where: bool) -> None:
    """Every setting, or one KEY's value.

    Each with its value, scope (vault or machine) and where the value comes from (default,
    vaultbrain.yml, state dir, or an environment variable).
    """
    from vaultbrain.settings import KEYS

    app = obj.app()
    settings = app.settings
    if key:
        value = settings.get(key)
        if as_json:
            detail = {"value": value, "scope": _scope(key), "from": settings.source(key)}
            echo_json({key: detail if where else value})
        elif where:
            click.echo(f"{human(value)}  ({_scope(key)} setting, from {settings.source(key)})")
        else:
            click.echo(human(value))
        return
    items = list(settings.items())
    if as_json:
        if where:
            echo_json({n: {"value": v, "scope": _scope(n), "from": src} for n, v, src in items})
        else:
            echo_json({name: value for name, value, _ in items})
        return
    rows = [(n, v, _scope(n), src, KEYS[n].help if n in KEYS else "") for n, v, src in items]
    headers = ["key", "value", "scope", "from", "what"]
    width = terminal_width()
    if width is None or table_width(rows, headers) <= width:
        echo_table(rows, headers)
    else:
        _echo_each(rows, width)
    for line in settings.problems() + settings.notes():
        click.echo(hint(f"note: {line}"), err=True)


def _echo_each(rows: list[tuple[str, Any, str, str, str]], width: int) -> None:
    """The settings one by one, for a terminal too narrow for the table: a key or a value is
    what the person types into `settings set`, so neither is ever cut; the rest wraps."""
    import textwrap

    for name, value, scope, source, what in rows:
        click.echo(f"{name} = {human(value)}".rstrip())
        about = f"{scope}, from {source}" + (f": {what}" if what else "")
        for line in textwrap.wrap(about, max(width - 4, 20)):
            click.echo(f"    {line}")


def _where_it_went(name: str) -> str:
    return (
        "vaultbrain.yml: every machine" if _scope(name) == "vault" else "this machine's state dir"
    )


# ignore_unknown_options: `settings set retry_seconds -1` is a value to check, not an option.
@settings_cmd.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
@click.pass_obj
def settings_set(obj: Any, key: str, value: str) -> None:
    """Set KEY to VALUE (checked against the key's type). A vault key goes to vaultbrain.yml
    (only its line changes), a machine key to this machine's state dir."""
    app = obj.app()
    parsed = app.settings.set(key, value)
    click.echo(f"{key} = {parsed}  ({_where_it_went(key)})")


@settings_cmd.command("unset")
@click.argument("key")
@click.pass_obj
def settings_unset(obj: Any, key: str) -> None:
    """Forget KEY's value: it goes back to its default."""
    app = obj.app()
    was_set = app.settings.unset(key)
    value = app.settings.get(key)
    now = "" if value in (None, "") else f" ({human(value)})"
    click.echo(f"{key}: back to the default{now}" if was_set else f"{key} was not set{now}")


@settings_cmd.command("migrate")
@click.pass_obj
def settings_migrate(obj: Any) -> None:
    """Move vault settings from the state dir into vaultbrain.yml.

    An earlier version kept them in the state dir; in vaultbrain.yml every machine reads
    them. A value vaultbrain.yml already has wins.
    """
    app = obj.app()
    done = app.settings.migrate()
    for line in done:
        click.echo(line)
    if not done:
        click.echo("nothing to move: this machine's state dir holds only machine settings")
