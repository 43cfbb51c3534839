"""The journal of captures: every change to a capture goes through :meth:`Journal.advance`.

It owns the store's lock, the fresh read, the write and the audit line, so no step of the
pipeline writes a capture from a stale copy, and a step that finds its own effect already
recorded (another worker, or a run before a crash) leaves it alone.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import Capture, CaptureStatus
from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.filing.records import new_id
from vaultbrain.machine import still_filer
from vaultbrain.procs import pid_alive
from vaultbrain.vault import content_hash
from vaultbrain.vault.files import atomic_write_file

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

LEASE_SECONDS = 300.0
# The token the daemon wrote into its state dir when it last knew the store whole: a state
# dir deleted while running (and made again by the next write) has none, or another one.
STATE_TOKEN = "store.token"
_KNOWN_STATE: dict[str, str] = {}


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
    token = secrets.token_hex(8)
    try:
        atomic_write_file(Path(state_dir) / STATE_TOKEN, token + "\n")
    except (OSError, VaultbrainError):
        _KNOWN_STATE.pop(str(state_dir), None)  # a full disk: nothing to compare with
        return
    _KNOWN_STATE[str(state_dir)] = token
    _KNOWN_STAT.pop(str(state_dir), None)


# The token file's stat when it last read as ours: the daemon asks at every turn, and a stat
# is all it needs while nothing touched the file (a file written anew has another ctime).
_KNOWN_STAT: dict[str, tuple[int, int, int, int]] = {}


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


class Journal:
    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.store = brain.store

    def new_id(self) -> str:
        while True:
            cid = new_id(6)
            if self.store.inbox.summary(cid, include_deleted=True) is None:
                return cid

    def get(self, capture_id: str) -> Capture | None:
        record = self.store.inbox.get(capture_id)
        return Capture.from_record(record) if record is not None else None

    def check_may_file(self) -> None:
        """Raise unless this process may plan and write a capture's notes now: not when its
        state dir was deleted under it (:class:`StateLost`), nor when this machine is no
        longer the filer (:class:`NotFiler`; the capture stays pending, its line waiting,
        and the filer takes it). Called under the store's lock, just before the plan."""
        brain = self.brain
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

    def require(self, capture_id: str) -> Capture:
        cap = self.get(capture_id)
        if cap is None:
            raise UserError(f"no capture {capture_id!r}")
        return cap

    def open(
        self,
        capture_id: str,
        text: str,
        origin: str,
        note: str | None,
        **initial: Any,
    ) -> Capture:
        """The capture of an anchored line: created once, returned as it is after that."""
        return self._create_once(
            capture_id, text, note, origin=origin, status=CaptureStatus.PENDING, **initial
        )

    def rebuild(
        self,
        capture_id: str,
        text: str,
        note: str,
        status: CaptureStatus,
        destinations: list[dict[str, Any]],
        line_suffix: str | None,
        line_done: bool,
    ) -> Capture:
        """The capture of an anchored line this store does not know (a lost or new state
        dir, a second machine), rebuilt from the line: it was filed already, so it is
        recorded as what the line says it became and is never filed again."""
        return self._create_once(
            capture_id,
            text,
            note,
            origin="inbox",
            status=status,
            destinations=destinations,
            line_suffix=line_suffix,
            line_done=line_done,
            extra={"rebuilt_from_line": True},
        )

    def _create_once(self, capture_id: str, text: str, note: str | None, **fields: Any) -> Capture:
        """A capture record made under the store lock, unless one exists already (then it is
        returned as it is: a line is taken once)."""
        with self.store.locked():
            existing = self.store.inbox.get(capture_id, include_deleted=True)
            if existing is not None:
                return Capture.from_record(existing)
            now = self.brain.now().isoformat()
            cap = Capture(
                id=capture_id,
                text=text,
                text_hash=content_hash(text),
                note=note,
                created=now,
                updated=now,
                **fields,
            )
            self.store.inbox.put(cap.to_record())
            return cap

    def advance(
        self,
        capture_id: str,
        change: Callable[[Capture], bool | None],
        *,
        durable: bool = True,
        audit: Callable[[Capture], dict[str, Any] | None] | None = None,
        touch: bool = True,
    ) -> Capture:
        """Apply ``change`` to the capture as it is now, under the store's lock, and record it.

        ``change`` returns False when it found nothing to do (nothing is written). With
        ``durable=False`` the write is not fsynced: for steps whose loss a rerun repairs.
        ``audit`` builds the audit-trail entry for the change that went through.
        """
        with self.store.locked():
            record = self.store.inbox.get(capture_id, include_deleted=True)
            if record is None:
                raise UserError(f"no capture {capture_id!r}")
            cap = Capture.from_record(record)
            if change(cap) is False:
                return cap
            if touch:
                cap.updated = self.brain.now().isoformat()
            self.store.inbox.put(cap.to_record(), durable=durable)
        entry = audit(cap) if audit is not None else None
        if entry:
            self.store.audit({"at": self.brain.now().isoformat(), "capture": capture_id, **entry})
        return cap

    # -- leases: one process works on a capture at a time ---------------------------------
    @staticmethod
    def lease() -> dict[str, Any]:
        return {"pid": os.getpid(), "until": time.time() + LEASE_SECONDS}

    @staticmethod
    def leased_elsewhere(cap: Capture) -> bool:
        lease = cap.lease
        if not lease or lease.get("pid") == os.getpid() or lease.get("until", 0) < time.time():
            return False
        try:
            return pid_alive(int(lease["pid"]))
        except (ValueError, TypeError):
            return False
