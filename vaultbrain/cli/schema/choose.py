"""``schema use/downgrade/install``: choose this vault's (or your default) pack, install one.

What a switch would make records of is said, and nothing is written in any note
(``vaultbrain/packs/config.py``, ``vaultbrain/filing/adopt.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vaultbrain.cli import hint
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
    from vaultbrain.filing.adopt import preview_switch

    for line in preview_switch(brain, pack).lines():
        click.echo(line)


_DEFAULT_HELP = "Set your per-user default (~/.vaultbrain/config.json), not this vault's pack."


@schema.command("use")
@click.argument("name")
@click.option("--default", "as_default", is_flag=True, help=_DEFAULT_HELP)
@click.pass_obj
@tracked("use")
def use_cmd(obj: Any, name: str, as_default: bool) -> None:
    """Make NAME this vault's pack, or your default.

    Inside a vault: `schema:` in its vaultbrain.yml; outside a vault or with --default: your
    per-user default. Says which notes would become records; writes nothing in notes.
    """
    from vaultbrain.packs.config import use_pack

    brain = None if as_default else vault_brain(obj)
    vault = brain.vault.root if brain is not None else None
    switch = use_pack(name, at=_now(obj), vault=vault)
    _switch_message(obj, switch, 5 if vault is not None else 6)
    if brain is not None:
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
@click.pass_obj
@tracked("install")
def install_cmd(obj: Any, source: Path, force: bool) -> None:
    """Install a pack from a folder or a tarball.

    A .vaultbrain-schema tarball or a pack folder goes into ~/.vaultbrain/schema-packs/.
    """
    from vaultbrain.packs.install import install_pack

    done = install_pack(source, force=force)
    verb = "replaced" if done.replaced else "installed"
    click.echo(f"{verb} {done.pack.identity} at {done.path}")
    if done.shadows_bundled:
        click.echo(f"  note: it shadows the bundled pack {done.name}")
    click.echo(hint(f"  use it with `vaultbrain schema use {done.name}`"))
