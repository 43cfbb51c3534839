"""Where a vault's state dir lives (issue 15): this machine's cache, outside the vault.

The state dir (``state.db``: records, caches, audit trail, this machine's settings and id) is
this machine's, so by default it is not inside the synced vault: it lives in the per-user state
folder (what platformdirs' ``user_state_dir("vaultbrain")`` names: ``~/.local/state`` or
``$XDG_STATE_HOME`` on Linux, ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%``
on Windows), one folder per vault under ``vaults/<vault id>``. The vault id is kept in
``vaultbrain.yml`` (``vault_id:``, written by the daemon with the filer role), so a vault
moved or synced to another path keeps its state; ``init`` writes it, and until it is
written it is derived from the vault's path (the same value that is then written). The
state dir records the id and the vault's path (``vault.json``, see
vaultbrain/vault/identity.py), so a deleted ``vaultbrain.yml`` finds its state again. That
record is the one file of its own beside ``state.db`` (as git's ``HEAD`` beside its objects):
:func:`recorded_vault_id` reads it in every state dir of the per-user folder to find the one
of a path, which must not open (nor make, nor migrate) a database in each.

An existing ``<vault>/.vaultbrain/`` (what earlier versions made) is moved out by
:func:`vaultbrain.vault.relocate.move_state_dir`: ``vaultbrain statedir move``, or the daemon at start when no other
vaultbrain process holds it. Until then it keeps being used (``doctor`` says so). Once the
per-user folder exists it is used, whatever ``.vaultbrain/`` a sync tool brings back into
the vault. ``VAULTBRAIN_STATE_IN_VAULT=1`` keeps the state in the vault (the test suite
does); ``--state-dir`` / ``VAULTBRAIN_STATE_DIR`` override all of this, and nothing given that
way is ever moved.

"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

from vaultbrain.patterns import LazyPattern

IN_VAULT = ".vaultbrain"
MOVED_AWAY = ".vaultbrain.moved-away"  # the old folder between the copy and its deletion
MOVED_FROM = "moved-from.json"  # in a state dir made by a copying move: what it came from
RECORD = "vault.json"  # in a state dir: the vault it serves (id, path, host; identity.py)
_VAULT_ID = LazyPattern(r"^[A-Za-z0-9_-]{6,64}$")
# The line init and the filer write: `vault_id: <id>` (a comment after it allowed).
_ID_LINE = LazyPattern(r"^vault_id:[ \t]*([A-Za-z0-9_-]{6,64})[ \t]*(?:#.*)?$", re.M)


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
    from vaultbrain.vault.yml import parse_lenient

    try:
        # Read key by key: a typo on another line must not change the id (and with it
        # the state dir this machine uses).
        text = (Path(root) / "vaultbrain.yml").read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = _ID_LINE.search(text)
    if found is not None and text.count("vault_id") == 1:
        return found.group(1)  # the usual file: no YAML parse at every command's start
    doc, _ = parse_lenient(text)
    value = doc.get("vault_id") if isinstance(doc, dict) else None
    return str(value) if value is not None and _VAULT_ID.match(str(value)) else None


def vault_id(root: Path) -> str:
    """The vault's id: the one ``vaultbrain.yml`` keeps, else the one a per-user state dir
    recorded for this path (a deleted ``vaultbrain.yml``), else derived from its path."""
    return written_vault_id(root) or recorded_vault_id(root) or derived_vault_id(root)


def derived_vault_id(root: Path) -> str:
    path = str(Path(root).resolve())
    return hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def read_record(state_dir: Path) -> dict[str, object] | None:
    """The state dir's record of the vault it serves (vaultbrain/vault/identity.py)."""
    try:
        doc = json.loads((Path(state_dir) / RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not _VAULT_ID.match(str(doc.get("id", ""))):
        return None
    return doc


def recorded_vault_id(root: Path) -> str | None:
    """The id of the per-user state dir that records ``root`` as its vault on this host."""
    import socket

    path, here = str(Path(root).resolve()), socket.gethostname() or "?"
    try:
        folders = sorted((user_state_root() / "vaults").iterdir())
    except OSError:
        return None
    for folder in folders:
        doc = read_record(folder)
        if doc is not None and doc.get("path") == path and doc.get("host") == here:
            return str(doc["id"])
    return None


def in_vault_pinned() -> bool:
    return os.environ.get("VAULTBRAIN_STATE_IN_VAULT", "") not in ("", "0", "false", "no")


def per_user_state_dir(root: Path) -> Path:
    """Where the vault at ``root`` keeps its state on this machine by default."""
    return user_state_root() / "vaults" / vault_id(root)


def default_state_dir(root: Path) -> Path:
    """The state dir of the vault at ``root`` when none is given: the per-user folder, or
    ``<vault>/.vaultbrain`` while that is not moved yet (or pinned there)."""
    root = Path(root)
    legacy = root / IN_VAULT
    if in_vault_pinned():
        return legacy
    mine = per_user_state_dir(root)
    if legacy.is_dir() and not mine.is_dir():
        return legacy
    return mine


def resolve_state_dir(root: Path, state_dir: Path | str | None) -> Path:
    """``state_dir`` as given (``--state-dir``), else $VAULTBRAIN_STATE_DIR, else the default."""
    given = state_dir or os.environ.get("VAULTBRAIN_STATE_DIR")
    if given:
        return Path(given).expanduser().resolve()
    return default_state_dir(root)


# -- moving <vault>/.vaultbrain out of the vault ----------------------------------------------


def legacy_note(root: Path, state_dir: Path) -> str | None:
    """What ``doctor`` says of a ``.vaultbrain/`` inside the vault, or None."""
    root = Path(root)
    legacy = root / IN_VAULT
    if in_vault_pinned() or not legacy.is_dir():
        return None
    if Path(state_dir) == legacy:
        return (
            f"the state dir is {legacy}, inside the vault (kept from before), where sync tools "
            "carry it; `vaultbrain statedir move` (or the next daemon start) moves it to "
            f"{per_user_state_dir(root)}"
        )
    return (
        f"{legacy} is inside the vault but this machine's state dir is {state_dir}; it may be "
        "another machine's, brought by a sync tool: remove it once no machine uses it"
    )
