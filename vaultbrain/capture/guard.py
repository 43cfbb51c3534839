"""Whether this process may file now: its state dir is the one it trusted, and this machine
still holds the filer role. Asked under the store's lock, just before a plan is made."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.machine import still_filer
from vaultbrain.vault.atomic import atomic_write_file

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

# The token the daemon wrote into its state dir when it last knew the store whole: a state
# dir deleted while running (and made again by the next write) has none, or another one.
STATE_TOKEN = "store.token"
_KNOWN_STATE: dict[str, str] = {}
# The token file's stat when it last read as ours: the daemon asks at every turn, and a stat
# is all it needs while nothing touched the file (a file written anew has another ctime).
_KNOWN_STAT: dict[str, tuple[int, int, int, int]] = {}


class StateLost(VaultbrainError):
    """The state dir was deleted while this process ran: nothing is filed until the store
    is rebuilt from the vault (a plan made against an empty store would file known people
    and projects as new notes)."""


class NotFiler(UserError):
    """Another machine holds the filer role: this one files nothing (a daemon that lost the
    role a moment ago leaves its waiting lines to the new filer)."""


def trust_state(state_dir: Path) -> None:
    """The store in ``state_dir`` is whole as of now (the daemon's startup scan, or the
    rebuild after a loss): from here on, :func:`state_lost` notices if it is replaced."""
    token = os.urandom(8).hex()
    try:
        atomic_write_file(Path(state_dir) / STATE_TOKEN, token + "\n")
    except (OSError, VaultbrainError):
        _KNOWN_STATE.pop(str(state_dir), None)  # a full disk: nothing to compare with
        return
    _KNOWN_STATE[str(state_dir)] = token
    _KNOWN_STAT.pop(str(state_dir), None)


def state_lost(state_dir: Path) -> bool:
    """Whether the state dir trusted by :func:`trust_state` was deleted (or replaced) since.
    Never true in a process that trusted none (a CLI command works on what it finds).
    An inode would not do: a folder made again at once often gets the same one."""
    key = str(state_dir)
    known = _KNOWN_STATE.get(key)
    if known is None:
        return False
    path = os.path.join(key, STATE_TOKEN)
    try:
        st = os.stat(path)
        stamp = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)
        if _KNOWN_STAT.get(key) == stamp:
            return False
        with open(path, encoding="utf-8") as fh:
            lost = fh.read().strip() != known
    except OSError:
        return True
    if not lost:
        _KNOWN_STAT[key] = stamp
    return lost


def check_may_file(brain: Brain) -> None:
    """Raise unless this process may plan and write a capture's notes now: not when its
    state dir was deleted under it (:class:`StateLost`), nor when this machine is no
    longer the filer (:class:`NotFiler`; the capture stays pending, its line waiting,
    and the filer takes it)."""
    if state_lost(brain.state_dir):
        raise StateLost(
            f"the state dir {brain.state_dir} was deleted while running: "
            "filing waits until the store is rebuilt from the vault"
        )
    if not still_filer(brain.vault, brain.state_dir):
        raise NotFiler(
            "this machine is not the filer (vaultbrain.yml names another); the filer "
            "files the line. `vaultbrain filer claim` makes this machine the filer"
        )
