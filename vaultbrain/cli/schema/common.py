"""The ``schema`` group and what its verbs share: the vault's brain if there is one, the
active pack (or the one a PACK argument names), and the local usage count.

Every verb records its own use in ``<state dir>/schema-events.jsonl`` (see ``schema usage``,
``vaultbrain/packs/usage.py``); nothing leaves the machine. Verbs marked experimental may
change or go. The verbs live beside this file, one module per concern.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from vaultbrain.cli.help import ExperimentalApart
from vaultbrain.errors import UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs import ActivePack, ResolvedPack

EXPERIMENTAL = "(experimental) "


def vault_brain(obj: Any) -> Brain | None:
    """The brain when there is a vault to speak of; None for a verb run outside any vault."""
    try:
        return obj.app()
    except UserError:
        return None


def _record(obj: Any, verb: str, ok: bool) -> None:
    # Record only where a vault is meant: an explicit --vault / $VAULTBRAIN_VAULT /
    # --state-dir, or a folder that already has a state dir. `schema list` run in some
    # random folder must not leave a .vaultbrain/ behind.
    explicit = bool(obj.vault_arg or os.environ.get("VAULTBRAIN_VAULT") or obj.state_dir)
    brain = vault_brain(obj)
    if brain is None or not (explicit or brain.state_dir.is_dir()):
        return
    from vaultbrain.packs.usage import record_event

    try:
        record_event(brain.store, verb, brain.now(), ok)
    except OSError:
        pass  # usage counting never fails a verb


def tracked(verb: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def run(obj: Any, *args: Any, **kwargs: Any) -> None:
            ok = False
            try:
                fn(obj, *args, **kwargs)
                ok = True
            finally:
                _record(obj, verb, ok)

        return run

    return wrap


def active_of(obj: Any, rel: str | None = None) -> ActivePack:
    """The pack in force: the brain's (refreshed) inside a vault, for the note ``rel`` when
    given (tier 3 may apply); outside a vault, what the per-user tiers choose."""
    from vaultbrain.packs.choice import active_pack

    brain = vault_brain(obj)
    if brain is None:
        return active_pack(None, None, obj.schema_pack, rel=rel)
    brain.refresh()
    if rel is None:
        return brain.active
    return active_pack(brain.vault.root, brain.settings, brain.schema_override, brain.env, rel=rel)


def pack_of(obj: Any, ref: str | None) -> ResolvedPack:
    """PACK argument: a name or a manifest path; the active pack when omitted."""
    from vaultbrain.packs.loader import load_ref

    return load_ref(ref) if ref else active_of(obj).pack


@click.group("schema", cls=ExperimentalApart)
def schema() -> None:
    """Schema packs: which folders, note types and fields the brain has.

    The active pack comes from the first of: --schema-pack, $VAULTBRAIN_SCHEMA_PACK, the
    per-folder setting schema_pack.source.<folder>, the setting schema_pack, vaultbrain.yml
    (schema: NAME), ~/.vaultbrain/config.json (what `schema use` writes), vaultbrain-base.
    """
