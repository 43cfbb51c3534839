"""``vaultbrain statedir``: where this machine keeps the vault's state, and moving an old
``<vault>/.vaultbrain`` out of the vault (vaultbrain/vault/statedir.py does the work)."""

from __future__ import annotations

from typing import Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.render import echo_json
from vaultbrain.errors import UserError


@click.group("statedir")
def statedir() -> None:
    """This machine's state dir for the vault (its cache, outside the vault by default)."""


def _why(obj: Any, root: Any, path: Any) -> str:
    from vaultbrain.vault.statedir import IN_VAULT, in_vault_pinned

    if obj.state_dir:
        return "given (--state-dir or $VAULTBRAIN_STATE_DIR)"
    if in_vault_pinned():
        return "in the vault ($VAULTBRAIN_STATE_IN_VAULT)"
    if path == root / IN_VAULT:
        return "in the vault, from before: `vaultbrain statedir move` moves it out"
    return "the per-user state folder"


@statedir.command("show")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def statedir_show(obj: Any, as_json: bool) -> None:
    """Where the state dir is, and why there."""
    from vaultbrain.vault.statedir import resolve_state_dir, vault_id

    root = obj.vault_dir.expanduser().resolve()
    path = resolve_state_dir(root, obj.state_dir)
    doc = {"state_dir": str(path), "why": _why(obj, root, path), "vault_id": vault_id(root)}
    if as_json:
        echo_json(doc)
        return
    click.echo(hint(f"{path}\n  {doc['why']}; vault id {doc['vault_id']}"))


@statedir.command("move")
@click.pass_obj
def statedir_move(obj: Any) -> None:
    """Move <vault>/.vaultbrain out to the per-user state folder.

    Stop the daemon first (the daemon does it itself at start when nothing else uses it).
    Safe to interrupt.
    """
    from vaultbrain.vault.relocate import move_state_dir
    from vaultbrain.vault.statedir import in_vault_pinned

    if obj.state_dir:
        raise UserError(
            "the state dir is given (--state-dir or $VAULTBRAIN_STATE_DIR), so it is not moved"
        )
    if in_vault_pinned():
        raise UserError(
            "$VAULTBRAIN_STATE_IN_VAULT keeps the state dir in the vault; unset it first"
        )
    root = obj.vault_dir.expanduser().resolve()
    if not root.is_dir():
        raise UserError(f"{root} is not a folder")
    click.echo(move_state_dir(root).describe())
