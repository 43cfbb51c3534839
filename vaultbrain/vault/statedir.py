"""Where a vault's state dir lives (issue 15): this machine's cache, outside the vault.

The state dir (JSON store, caches, audit trail, this machine's settings and id) is this
machine's, so by default it is not inside the synced vault: it lives in the per-user state
folder (what platformdirs' ``user_state_dir("vaultbrain")`` names: ``~/.local/state`` or
``$XDG_STATE_HOME`` on Linux, ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%``
on Windows), one folder per vault under ``vaults/<vault id>``. The vault id is kept in
``vaultbrain.yml`` (``vault_id:``, written by the daemon with the filer role), so a vault
moved or synced to another path keeps its state; until it is written it is derived from
the vault's path (the same value that is then written).

An existing ``<vault>/.vaultbrain/`` keeps being used (``doctor`` says so), and
``VAULTBRAIN_STATE_IN_VAULT=1`` keeps new vaults' state there too (the test suite does).
``--state-dir`` / ``VAULTBRAIN_STATE_DIR`` override all of this.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

import yaml

IN_VAULT = ".vaultbrain"
_VAULT_ID = re.compile(r"^[A-Za-z0-9_-]{6,64}$")


def user_state_root() -> Path:
    """The per-user state folder for vaultbrain (as platformdirs' ``user_state_dir``)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "vaultbrain"
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "vaultbrain"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "vaultbrain"


def written_vault_id(root: Path) -> str | None:
    """``vault_id:`` of the vault's ``vaultbrain.yml``, or None."""
    try:
        doc = yaml.safe_load((Path(root) / "vaultbrain.yml").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    value = doc.get("vault_id") if isinstance(doc, dict) else None
    return str(value) if value is not None and _VAULT_ID.match(str(value)) else None


def vault_id(root: Path) -> str:
    """The vault's id: the one ``vaultbrain.yml`` keeps, else derived from its path."""
    return (
        written_vault_id(root)
        or hashlib.sha256(str(Path(root).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[
            :16
        ]
    )


def in_vault_pinned() -> bool:
    return os.environ.get("VAULTBRAIN_STATE_IN_VAULT", "") not in ("", "0", "false", "no")


def default_state_dir(root: Path) -> Path:
    """The state dir of the vault at ``root`` when none is given."""
    root = Path(root)
    legacy = root / IN_VAULT
    if legacy.is_dir() or in_vault_pinned():
        return legacy
    return user_state_root() / "vaults" / vault_id(root)


def resolve_state_dir(root: Path, state_dir: Path | str | None) -> Path:
    """``state_dir`` as given (``--state-dir``), else $VAULTBRAIN_STATE_DIR, else the default."""
    given = state_dir or os.environ.get("VAULTBRAIN_STATE_DIR")
    if given:
        return Path(given).expanduser().resolve()
    return default_state_dir(root)
