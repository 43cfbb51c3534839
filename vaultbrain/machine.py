"""Which machine files this vault's inbox lines: one filer per vault (issue 15).

A machine is its state dir: its database's document ``machine.json`` holds an id made once
with the state dir, and the host's name to show with it (two state dirs on one host are two
machines). ``vaultbrain.yml`` at the vault root, synced with the notes, names the filer
(``filer: <machine id>``). Only the filer takes inbox lines and files captures; a daemon on
any other machine is an observer: it follows notes ↔ store and never takes a line, so two
devices syncing one vault never file a thought twice nor fight over ``Inbox.md``.

The ``filer:`` line is edited in place (compare-and-swap) by vaultbrain.yml's one writer,
vaultbrain/vault/yml.py, so what else the person or ``init`` wrote in ``vaultbrain.yml``
(``schema:``, settings, comments) stays byte for byte.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from vaultbrain.errors import UserError, VaultbrainError
from vaultbrain.patterns import LazyPattern
from vaultbrain.store import Store
from vaultbrain.vault import yml
from vaultbrain.vault.statedir import legacy_note, vault_id, written_vault_id

if TYPE_CHECKING:
    from vaultbrain.vault.files import NoteFile, Vault

MACHINE_FILE = "machine.json"  # a document of the state dir's database
VAULT_YML = "vaultbrain.yml"
_ID = LazyPattern(r"^[a-z0-9]{6,32}$")
log = logging.getLogger("vaultbrain.daemon")


@dataclass(frozen=True)
class Machine:
    id: str
    host: str

    def __str__(self) -> str:
        return f"{self.id} ({self.host})"


@dataclass(frozen=True)
class Role:
    machine: Machine
    filer: str | None  # the machine id vaultbrain.yml names, after any claim
    claimed: bool = False  # this call named this machine the filer

    @property
    def is_filer(self) -> bool:
        return self.filer == self.machine.id

    def describe(self) -> str:
        if self.is_filer:
            how = "claimed the role just now" if self.claimed else "named in vaultbrain.yml"
            return f"this machine {self.machine} is the filer ({how})"
        return (
            f"this machine {self.machine} is an observer: the filer is {self.filer} "
            "(vaultbrain.yml); it follows notes and never takes inbox lines "
            "(`vaultbrain filer claim` makes this machine the filer)"
        )


def stored_machine(state_dir: Path) -> Machine | None:
    """The machine this state dir's database names, or None (none made yet, or damaged).
    Makes nothing but the database itself."""
    doc = Store.of(state_dir).read_json(MACHINE_FILE)
    if isinstance(doc, dict) and _ID.match(str(doc.get("id", ""))):
        return Machine(str(doc["id"]), str(doc.get("host") or "?"))
    if doc is not None:
        log.warning("the machine id in %s is damaged (%.60s); a new one is made", state_dir, doc)
    return None


def this_machine(state_dir: Path) -> Machine:
    """This state dir's machine, made (and kept) on first use."""
    machine = stored_machine(state_dir)
    if machine is not None:
        return machine
    store = Store.of(state_dir)
    with store.locked():  # (two processes starting at once make one id)
        machine = stored_machine(state_dir)
        if machine is None:
            machine = Machine(os.urandom(6).hex(), socket.gethostname() or "?")
            keep(state_dir, machine)
    return machine


def _unsaved_machine(state_dir: Path) -> Machine:
    try:
        return this_machine(state_dir)
    except VaultbrainError:
        return Machine(os.urandom(6).hex(), socket.gethostname() or "?")


def keep(state_dir: Path, machine: Machine) -> None:
    """Write the machine's id into its state dir's database."""
    Store.of(state_dir).write_json(MACHINE_FILE, {"id": machine.id, "host": machine.host})


def _has_machine(state_dir: Path) -> bool:
    return stored_machine(state_dir) is not None


def named_filer(vault: Vault) -> str | None:
    """The machine id ``vaultbrain.yml`` names as the filer, or None."""
    note = vault.try_read(VAULT_YML)
    return _filer_in(note.text) if note is not None else None


@lru_cache(maxsize=4)  # (each capture checks the role: vaultbrain.yml is parsed once per text)
def _filer_in(text: str) -> str | None:
    doc, broken = yml.parse_lenient(text)  # a typo on another line leaves `filer:` readable
    if "filer" in broken:
        raise UserError(broken["filer"])
    if not isinstance(doc, dict) or not doc.get("filer"):
        return None
    return str(doc["filer"]).strip() or None


def name_filer(vault: Vault, machine: Machine, *, only_if_none: bool) -> str | None:
    """Write ``filer: <id>`` into vaultbrain.yml (compare-and-swap; the rest stays as it is).
    ``only_if_none``: leave a filer already named alone (the daemon's first start). The
    filer named afterwards."""
    host = machine.host.replace("#", "")

    def build(note: NoteFile | None) -> str | None:
        text = note.text if note is not None else ""
        current = _filer_in(text) if text else None
        if current == machine.id or (only_if_none and current):
            return None
        # The vault's id goes with it: it keys this vault's state dir on every machine
        # (vaultbrain/vault/statedir.py); written once, the value in use until then.
        # (the id the vault was opened with: the state dir keeps it, so a vaultbrain.yml
        # deleted meanwhile is written back with the same id, not one derived from the path)
        if written_vault_id(vault.root) is None and not re.search(r"^vault_id:", text, re.M):
            text = yml.with_key(
                text, "vault_id", getattr(vault, "vault_id", None) or vault_id(vault.root)
            )
        return yml.with_key(text, "filer", machine.id, trailing=f"{host}, set by vaultbrain")

    vault.edit(VAULT_YML, build)
    return named_filer(vault)


def role(vault: Vault, state_dir: Path, *, claim_if_none: bool = False) -> Role:
    """This machine's role for the vault; with ``claim_if_none`` a vault with no filer named
    gets this machine as its filer (the first daemon to start files)."""
    machine = this_machine(state_dir)
    filer = named_filer(vault)
    if filer is None and claim_if_none:
        filer = name_filer(vault, machine, only_if_none=True)
        return Role(machine, filer, claimed=filer == machine.id)
    return Role(machine, filer)


class FilerWatch:
    """The daemon's view of its role, read again only when ``vaultbrain.yml`` changes (a
    ``filer claim`` here or on another device takes effect without a restart)."""

    def __init__(self, vault: Vault, state_dir: Path) -> None:
        self.vault = vault
        self.state_dir = Path(state_dir)
        self._stamp: tuple[int, int] | None = None
        self.role = self._claim()
        self._stamp = self._mtime()

    def _mtime(self) -> tuple[int, int] | None:
        try:
            st = (self.vault.root / VAULT_YML).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _claim(self) -> Role:
        # This process stays the machine it started as, even if its state dir is deleted
        # while it runs (the id is written back, not made anew).
        known = getattr(self, "role", None)
        if known is not None and not _has_machine(self.state_dir):
            keep(self.state_dir, known.machine)
        try:
            return role(self.vault, self.state_dir, claim_if_none=True)
        except VaultbrainError as exc:
            # A read-only vault or a full disk: nothing can be written anyway, so this run
            # acts as it did before there were roles; the role is written once it can be.
            log.warning("the filer role is not settled (%s); this run files as before", exc)
            machine = known.machine if known is not None else _unsaved_machine(self.state_dir)
            return Role(machine, named_filer_or_none(self.vault) or machine.id)

    def is_filer(self) -> bool:
        try:
            if not _has_machine(self.state_dir):
                keep(self.state_dir, self.role.machine)  # the state dir was deleted under us
        except VaultbrainError as exc:
            log.warning("the machine id could not be written back: %s", exc)
        stamp = self._mtime()
        if stamp != self._stamp:
            self._stamp = stamp
            before = self.role.is_filer
            self.role = self._claim()
            if self.role.is_filer != before:
                log.info("%s", self.role.describe())
        return self.role.is_filer


def named_filer_or_none(vault: Vault) -> str | None:
    try:
        return named_filer(vault)
    except VaultbrainError:
        return None


def doctor_line(vault: Vault, state_dir: Path) -> str:
    """What ``doctor`` says of the filer role, without making anything (doctor only looks)."""
    try:
        filer = named_filer(vault)
        known = stored_machine(state_dir)
    except VaultbrainError as exc:
        return str(exc)
    if known is None:
        return (
            f"this state dir has no machine id yet; the filer is {filer or 'not named yet'}"
            if filer
            else "no filer named yet: the first daemon to start takes the role"
        )
    if filer is None:
        return f"no filer named yet; this machine is {known}"
    return Role(known, filer).describe()


def filed_elsewhere(vault: Vault, state_dir: Path) -> str | None:
    """Why a capture made on this machine is left to another (the filer vaultbrain.yml
    names is not this machine), or None: then this machine files it."""
    filer = named_filer_or_none(vault)
    if filer is None or filer == this_machine(state_dir).id:
        return None
    return f"this machine is an observer; the filer ({filer}) files the line when it syncs"


def still_filer(vault: Vault, state_dir: Path) -> bool:
    """Whether this state dir's machine may file now: checked just before a capture's notes
    are planned and written, so a machine that lost the role a moment ago (a `filer claim`
    elsewhere) files nothing more; its waiting lines are the new filer's. Makes nothing: a
    machine id that cannot be read (a state dir deleted under the daemon) decides nothing."""
    try:
        known = stored_machine(state_dir)
    except VaultbrainError:
        known = None
    mine = known.id if known is not None else None
    filer = named_filer_or_none(vault)
    return mine is None or filer is None or filer == mine


def state_dir_note(vault: Vault, state_dir: Path) -> str | None:
    """A doctor note for a ``.vaultbrain/`` inside the vault: this machine's from before
    (``vaultbrain statedir move`` moves it), or one a sync tool brought."""
    return legacy_note(vault.root, Path(state_dir))


def synced_state_dir(vault: Vault, state_dir: Path) -> str | None:
    """A warning when this state dir sits inside a vault that a tool syncing dot-folders
    carries to other machines (two machines must never write one state dir), or None."""
    root = Path(vault.root)
    try:
        Path(state_dir).resolve().relative_to(root.resolve())
    except ValueError:
        return None  # outside the vault: not synced with it
    tool = None
    if (root / ".stfolder").exists():
        tool = "Syncthing"
    elif "Mobile Documents" in root.parts or "iCloud" in str(root):
        tool = "iCloud Drive"
    elif any(part.lower() == "dropbox" for part in root.parts):
        tool = "Dropbox"
    elif (root / ".git").exists():
        tool = "git"
    if tool is None:
        return None
    if tool == "git":
        return (
            f"the state dir {state_dir} is inside a git repository: keep `.vaultbrain/` "
            "out of it (.gitignore)"
        )
    return (
        f"the state dir {state_dir} is inside a vault {tool} syncs: give each machine its "
        "own state dir outside the vault (--state-dir or VAULTBRAIN_STATE_DIR)"
    )
