"""Whether this process may file now: its state dir is the one it trusted, and this machine
still holds the filer role. Asked under the store's lock, just before a plan is made."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.machine import still_filer

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.store import Store

# The id of the database a process trusted (each ``state.db`` gets its own when it is
# made): a state dir deleted while running, or only its ``state.db``, and made again by
# the next write has another one. Kept with the store object, so it goes with it.
_TRUSTED: weakref.WeakKeyDictionary[Store, str] = weakref.WeakKeyDictionary()


class StateLost(VaultbrainError):
    """The state dir was deleted while this process ran: nothing is filed until the store
    is rebuilt from the vault (a plan made against an empty store would file known people
    and projects as new notes)."""


class NotFiler(UserError):
    """Another machine holds the filer role: this one files nothing (a daemon that lost the
    role a moment ago leaves its waiting lines to the new filer)."""


def trust_state(store: Store) -> None:
    """The store is whole as of now (the daemon's startup scan, or the rebuild after a
    loss): from here on, :func:`state_lost` notices if its database is deleted or replaced."""
    try:
        ident = store.identity()
    except VaultbrainError:  # (a full disk or an unreadable file: nothing to compare with)
        ident = None
    if ident is None:
        _TRUSTED.pop(store, None)
    else:
        _TRUSTED[store] = ident


def state_lost(store: Store) -> bool:
    """Whether the database trusted by :func:`trust_state` was deleted (or replaced) since.
    Never true for a store no one trusted (a CLI command works on what it finds). An inode
    would not do: a file made again at once often gets the same one; the id inside does."""
    known = _TRUSTED.get(store)
    if known is None:
        return False
    try:
        return store.identity() != known
    except VaultbrainError:
        return True


def check_may_file(brain: Brain) -> None:
    """Raise unless this process may plan and write a capture's notes now: not when its
    state dir was deleted under it (:class:`StateLost`), nor when this machine is no
    longer the filer (:class:`NotFiler`; the capture stays pending, its line waiting,
    and the filer takes it)."""
    if state_lost(brain.store):
        raise StateLost(
            f"the state dir {brain.state_dir} was deleted while running: "
            "filing waits until the store is rebuilt from the vault"
        )
    if not still_filer(brain.vault, brain.state_dir):
        raise NotFiler(
            "this machine is not the filer (vaultbrain.yml names another); the filer "
            "files the line. `vaultbrain filer claim` makes this machine the filer"
        )
