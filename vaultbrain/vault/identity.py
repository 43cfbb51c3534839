"""Which vault this is: its id (``vault_id:`` in ``vaultbrain.yml``) plus where it lives.

The state dir records, in ``vault.json``, the id, the path of the vault it serves on this
machine and the host's name (whether the id was ever in ``vaultbrain.yml`` too). Every
process checks that record once, when it opens the vault (:func:`settle`, called by
:class:`~vaultbrain.vault.files.Vault`), before it writes anything:

- the record names this path: nothing to do;
- it names another path on this host that no longer holds a vault with this id: the vault
  was moved (or renamed); the record follows, the id and the state stay;
- it names another path on this host that still holds a vault with this id: this folder is
  a copy (``cp -r``, a backup restored beside the original, a template cloned). The copy
  gets an id of its own, written into its ``vaultbrain.yml``, and a state dir of its own (a
  copy of the original's, so it knows what it held when it was copied); one line says so;
- the record was made on another host (a state dir inside a vault that a sync tool carried
  here): not this machine's paths, so never a copy; the record is made this machine's;
- the record names this path on this host but the folder is a new vault made there (it holds
  another id, or neither its ``vaultbrain.yml`` nor ``Brain/`` where the old one had its yml):
  the old state dir is set aside (kept, never deleted), the new vault starts a fresh one,
  and one line says so.

Two machines syncing one vault each have their own state dir, recording their own path, so
neither ever sees the other's path: they are one vault, not copies. The state dir keeps the
id, so a ``vaultbrain.yml`` that was deleted (a sync tool's conflict, a tidy-up) is written
back with the same id, and the per-user state folder is found again by the path it records
(``Brain/`` is still there: the same vault).
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.vault import yml
from vaultbrain.vault.statedir import (
    MOVED_FROM,
    RECORD,
    per_user_state_dir,
    read_record,
    vault_id,
    written_vault_id,
)

if TYPE_CHECKING:
    from vaultbrain.vault.files import Vault

log = logging.getLogger("vaultbrain.vault")


@dataclass(frozen=True)
class Identity:
    id: str
    state_dir: Path
    notice: str | None = None  # what changed, in one line (a copy given its own id)


def host() -> str:
    return socket.gethostname() or "?"


def settle(vault: Vault, given: Path | str | None) -> Identity:
    """The vault's identity and state dir, with the record brought in step (see the module
    docstring). ``vault.state_dir`` is the state dir as resolved from the id; ``given``: a
    state dir named by ``--state-dir`` / ``$VAULTBRAIN_STATE_DIR`` (never moved or copied).
    UserError when this folder is a copy whose state dir was given (it cannot have one of
    its own without being told where)."""
    root = vault.root
    state = Path(vault.state_dir)
    written = written_vault_id(root)
    record = read_record(state)
    vid = written or (str(record["id"]) if record else None) or vault_id(root)
    if record is not None and record.get("host") == host() and record.get("path") != str(root):
        other = Path(str(record.get("path")))
        if _still_a_vault(other, root, vid):
            return _copy(vault, given, state, vid, other)
        log.info("the vault moved from %s to %s; it keeps its id %s and its state", other, root)
    if record is not None and _new_vault(root, state, written, record):
        return _fresh(vault, state, written, record)
    if written is None and record is not None and record.get("in_yml"):
        _write_back(vault, vid)  # a deleted vaultbrain.yml comes back with the same id
        written = written_vault_id(root)
    keep(state, vid, root, in_yml=written == vid, record=record)
    return Identity(vid, state)


def keep(
    state: Path, vid: str, root: Path, *, in_yml: bool, record: dict[str, Any] | None = None
) -> None:
    """Write the record when it says something else (only into a state dir that exists:
    a command that only reads makes none)."""
    want = {"id": vid, "path": str(root), "host": host(), "in_yml": in_yml}
    if record == want or not state.is_dir():
        return
    from vaultbrain.vault.atomic import atomic_write_file

    try:
        atomic_write_file(state / RECORD, json.dumps(want) + "\n", durable=False)
    except (OSError, VaultbrainError) as exc:
        log.debug("the vault's record in %s is not written (%s)", state, exc)


def _new_vault(root: Path, state: Path, written: str | None, record: dict[str, Any]) -> bool:
    """Whether the vault at ``root`` is a new one made where the vault the state dir served
    was (deleted, then made again at the same path), not that vault: the record names this
    path on this host, and the folder holds another id than the record's, or none of what
    that vault had (it had its ``vaultbrain.yml``, and there is neither one nor ``Brain/``).
    A deleted ``vaultbrain.yml`` alone (a sync tool's conflict, a tidy-up) leaves ``Brain/``:
    the same vault, its state kept. A state dir inside the vault came with the folder."""
    if record.get("host") != host() or record.get("path") != str(root):
        return False
    own = Path(state).resolve()
    if own == root / ".vaultbrain" or root in own.parents or not own.is_dir():
        return False
    if written is not None:
        return written != str(record.get("id"))
    return bool(record.get("in_yml")) and not (root / "Brain").is_dir()


def _fresh(vault: Vault, state: Path, written: str | None, record: dict[str, Any]) -> Identity:
    """A new vault where another was: the old vault's state dir is set aside (kept, never
    deleted: it holds what that vault knew, its learnt model included) and the new vault
    starts a state of its own; one line says so."""
    import time

    from vaultbrain.vault.statedir import derived_vault_id, user_state_root

    root = vault.root
    stamp = time.strftime("%Y%m%d-%H%M%S")
    vaults = user_state_root() / "vaults"
    per_user = state.parent == vaults
    if per_user:
        aside = user_state_root() / "set-aside" / f"{state.name}-{stamp}"
    else:  # a state dir that was given: set aside beside it
        aside = state.with_name(f"{state.name}.set-aside-{stamp}")
    notice = (
        f"{root} is a new vault where the vault {record.get('id')} was: it starts with a "
        f"fresh state; the old vault's state is kept aside in {aside}"
    )
    try:
        aside.parent.mkdir(parents=True, exist_ok=True)
        os.rename(state, aside)
        log.warning("%s", notice)
    except OSError as exc:
        if state.is_dir() and read_record(state) == record:
            raise UserError(
                f"{root} is a new vault where the vault {record.get('id')} was, and that "
                f"vault's state dir {state} cannot be set aside ({exc}); until it can, it is "
                "not used, so as not to give the new vault the old one's state"
            ) from exc
        notice = ""  # another process set it aside a moment ago
    vid = written or derived_vault_id(root)
    if per_user:
        state = vaults / vid
    return Identity(vid, state, notice or None)


def _still_a_vault(other: Path, root: Path, vid: str) -> bool:
    """Whether ``other`` (the path the record names) is another folder holding this vault."""
    try:
        if not other.is_dir() or os.path.samefile(other, root):
            return False  # gone (a move), or this very folder by another path
    except OSError:
        return False
    return written_vault_id(other) == vid


def _copy(vault: Vault, given: Path | str | None, state: Path, vid: str, other: Path) -> Identity:
    root = vault.root
    new = os.urandom(8).hex()

    def rewrite(text: str) -> str | None:
        found = re.search(r"^vault_id:[ \t]*['\"]?([A-Za-z0-9_-]+)", text, re.M)
        if found is not None and found.group(1) != vid:
            return None  # another process gave this copy its id a moment ago
        return yml.with_key(text, "vault_id", new, trailing="this vault's own id")

    try:
        yml.edit(vault, rewrite)
    except VaultbrainError as exc:
        raise UserError(
            f"{root} is a copy of the vault at {other} (same vault id {vid}) and its own id "
            f"cannot be written ({exc}); until it can, it is not used, so as not to mix the two"
        ) from exc
    new = written_vault_id(root) or new
    notice = (
        f"{root} is a copy of the vault at {other} (both had the vault id {vid}): "
        f"this copy now has its own id {new} and its own state"
    )
    own = Path(state).resolve()
    inside = own == root / ".vaultbrain" or root in own.parents
    if inside:
        target = state  # the copy brought its own state dir along
    elif given:
        raise UserError(
            f"{notice}; but the state dir {state} was given (--state-dir or "
            f"$VAULTBRAIN_STATE_DIR) and is {other}'s: give this copy a state dir of its own"
        )
    else:
        target = per_user_state_dir(root)
        copy_state_dir(state, target)
    log.warning("%s", notice)
    keep(target, new, root, in_yml=True, record=read_record(target))
    return Identity(new, target, notice)


def _write_back(vault: Vault, vid: str) -> None:
    def add(text: str) -> str | None:
        if re.search(r"^vault_id:", text, re.M):
            return None
        return yml.with_key(text, "vault_id", vid)

    try:
        yml.edit(vault, add)
    except VaultbrainError as exc:
        log.warning("vaultbrain.yml was deleted; its vault id %s is not written back: %s", vid, exc)
        return
    log.info("vaultbrain.yml was missing its vault id: written back (%s)", vid)


def copy_state_dir(source: Path, target: Path) -> None:
    """A copy of a vault gets a copy of its state dir (vaultbrain/vault/identity.py): what
    the original knew when the copy is first opened, this machine's id and settings included
    (the copy is filed here as the original is). Made beside the target and renamed into
    place in one step, under the original's store lock (a consistent store); a target that
    is already there (another process made it a moment ago) is kept."""
    import fcntl
    import shutil

    from vaultbrain.vault.atomic import fsync_dir

    if target.exists() or not source.is_dir():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.partial-{os.getpid()}"
    skip = shutil.ignore_patterns("daemon.lock", "store.lock", MOVED_FROM, RECORD, ".vb-tmp-*")
    fd = os.open(source / "store.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if staging.exists():
            shutil.rmtree(staging)
        shutil.copytree(source, staging, symlinks=True, ignore=skip)
    finally:
        os.close(fd)
    try:
        os.rename(staging, target)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not target.is_dir():
            raise
    fsync_dir(target.parent)
