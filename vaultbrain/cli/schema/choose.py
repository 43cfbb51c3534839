"""``schema use/downgrade/install``: choose this vault's (or your default) pack, install one.

What a switch would make records of is said, and nothing is written in any note
(``vaultbrain/packs/config.py``, ``vaultbrain/filing/adopt.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vaultbrain.cli.context import hint
from vaultbrain.cli.schema.common import (
    active_of,
    schema,
    tracked,
    vault_brain,
)
from vaultbrain.errors import UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs import ResolvedPack


def _switch_message(obj: Any, switch: Any, tier: int = 6) -> None:
    now = switch.to or "(unset: the default chain applies)"
    click.echo(f"using {now} ({switch.pack.identity}); was {switch.previous or '(unset)'}")
    click.echo(f"  wrote {switch.config}")
    try:
        active = active_of(obj)
    except UserError:
        return
    if active.tier < tier:
        click.echo(
            f"  note: here {active.pack.name} still wins (tier {active.tier}: {active.source})"
        )


def _now(obj: Any) -> Any:
    import datetime as dt

    brain = vault_brain(obj)
    return brain.now() if brain else dt.datetime.now().replace(microsecond=0)


def _switch_preview(brain: Brain, pack: ResolvedPack) -> None:
    """What the vault's notes become under ``pack``: records, and nothing written in them."""
    from vaultbrain.filing.preview import preview_switch

    for line in preview_switch(brain, pack).lines():
        click.echo(line)


_DEFAULT_HELP = "Set your per-user default (~/.vaultbrain/config.json), not this vault's pack."


_IN_VAULT_HELP = (
    "Also keep the pack in the vault (the folder `packs_folder:` of vaultbrain.yml names, "
    "Brain/Packs by default), so every machine that files the vault has it."
)


def _keep_in_vault(brain: Brain, name: str) -> None:
    from vaultbrain.packs.config import keep_in_vault

    written = keep_in_vault(brain.vault, name)
    shown = ", ".join(written) if written else "nothing to copy: it is there already"
    click.echo(f"  kept in the vault for every machine: {shown}")


def _visible_elsewhere(brain: Brain, name: str) -> None:
    """Say so when only this machine has the pack: another machine filing the vault would
    keep filing with the pack it had, and list the pack in Needs Review."""
    from vaultbrain.packs.config import only_here

    path = only_here(name, brain.vault.root)
    if path is not None:
        click.echo(
            f"  note: {path.parent} is only on this machine; a machine without it keeps "
            f"filing with its last pack: `vaultbrain schema use {name} --in-vault` keeps "
            "it in the vault so every machine has it"
        )


@schema.command("use")
@click.argument("name")
@click.option("--default", "as_default", is_flag=True, help=_DEFAULT_HELP)
@click.option("--in-vault", "in_vault", is_flag=True, help=_IN_VAULT_HELP)
@click.pass_obj
@tracked("use")
def use_cmd(obj: Any, name: str, as_default: bool, in_vault: bool) -> None:
    """Make NAME this vault's pack, or your default.

    Inside a vault: `schema:` in its vaultbrain.yml; outside a vault or with --default: your
    per-user default. Says which notes would become records; writes nothing in notes.
    """
    from vaultbrain.packs.config import use_pack

    brain = None if as_default else vault_brain(obj)
    if in_vault and brain is None:
        raise UserError("--in-vault keeps a pack in a vault: run it inside one (--vault DIR)")
    if in_vault and brain is not None:
        _keep_in_vault(brain, name)
    vault = brain.vault.root if brain is not None else None
    switch = use_pack(name, at=_now(obj), vault=vault)
    _switch_message(obj, switch, 5 if vault is not None else 6)
    if brain is not None:
        _visible_elsewhere(brain, name)
        _switch_preview(brain.refresh(), switch.pack)


@schema.command("downgrade")
@click.option("--to", "to", metavar="PACK", help="The pack to restore (default: the previous one).")
@click.option("--default", "as_default", is_flag=True, help=_DEFAULT_HELP)
@click.pass_obj
@tracked("downgrade")
def downgrade_cmd(obj: Any, to: str | None, as_default: bool) -> None:
    """Restore an earlier pack.

    --to PACK, or the one before the last change in the history (this vault's pack inside
    a vault; with --default or outside one, your per-user default).
    """
    from vaultbrain.packs.config import downgrade_pack

    brain = None if as_default else vault_brain(obj)
    vault = brain.vault.root if brain is not None else None
    switch = downgrade_pack(to, at=_now(obj), vault=vault)
    _switch_message(obj, switch, 5 if vault is not None else 6)
    if brain is not None:
        _switch_preview(brain.refresh(), switch.pack)


@schema.command("install")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace an installed pack of the same name.")
@click.option("--to-vault", "to_vault", is_flag=True, help=_IN_VAULT_HELP)
@click.pass_obj
@tracked("install")
def install_cmd(obj: Any, source: Path, force: bool, to_vault: bool) -> None:
    """Install a pack from a folder or a tarball.

    A .vaultbrain-schema tarball or a pack folder goes into ~/.vaultbrain/schema-packs/
    (--to-vault: and into the vault, for every machine).
    """
    from vaultbrain.packs.install import install_pack

    brain = vault_brain(obj) if to_vault else None
    if to_vault and brain is None:
        raise UserError("--to-vault keeps a pack in a vault: run it inside one (--vault DIR)")
    done = install_pack(source, force=force)
    verb = "replaced" if done.replaced else "installed"
    click.echo(f"{verb} {done.pack.identity} at {done.path}")
    if done.shadows_bundled:
        click.echo(f"  note: it shadows the bundled pack {done.name}")
    if brain is not None:
        _keep_in_vault(brain, done.name)
    click.echo(hint(f"  use it with `vaultbrain schema use {done.name}`"))
