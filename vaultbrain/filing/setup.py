"""Making a vault skeleton: folders of the active pack and the inbox note. Never overwrites.

An inbox note that already holds thoughts when vaultbrain is first set up is the person's
history, not a queue: its lines are held (their text hashes kept in the state dir) and filed
only when the person asks (``init --file-existing``) or edits a line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultbrain.filing.inbox import ensure_inbox
from vaultbrain.vault import content_hash
from vaultbrain.vault.inbox import scan_inbox

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.vault import Vault

HELD = "inbox-held.json"


def init_vault(brain: Brain, file_existing: bool = False) -> tuple[list[str], int]:
    """Create what is missing. Returns what was created (paths relative to the vault) and how
    many thoughts already in the inbox note are held back (0 with ``file_existing``)."""
    vault = brain.vault
    made: list[str] = []
    vault.root.mkdir(parents=True, exist_ok=True)
    for folder in [*brain.pack.folders(), "Brain", "Brain/Digests", "Brain/Reviews"]:
        path = vault.resolve(folder)
        if not path.exists():
            path.mkdir(parents=True)
            made.append(folder + "/")
    inbox = str(brain.settings.get("inbox_note"))
    note = vault.try_read(inbox)
    held: list[str] = []
    if note is None:
        ensure_inbox(vault, inbox)
        made.append(inbox)
    elif not file_existing:
        held = [content_hash(line.text) for line in scan_inbox(note.text) if not line.block_id]
    brain.state_dir.mkdir(parents=True, exist_ok=True)
    brain.store.write_json(HELD, {"note": inbox, "hashes": held})
    if _write_vault_id(vault):  # a rename before the first daemon keeps the state
        made.append("vaultbrain.yml")
    return made, len(held)


def _write_vault_id(vault: Vault) -> bool:
    """``vault_id:`` into vaultbrain.yml (its one line added; nothing else changes) and the
    state dir's record of the vault (vaultbrain/vault/identity.py). True when the file was
    made."""
    import re

    from vaultbrain.vault import yml
    from vaultbrain.vault.identity import keep

    existed = (vault.root / yml.VAULT_YML).is_file()

    def add(text: str) -> str | None:
        if re.search(r"^vault_id:", text, re.M):
            return None
        return yml.with_key(text, "vault_id", vault.vault_id, comment=VAULT_ID_COMMENT)

    written = yml.edit(vault, add)
    keep(vault.state_dir, vault.vault_id, vault.root, in_yml=True)
    return written and not existed


VAULT_ID_COMMENT = (
    "The vault's id: this machine's state for the vault is found by it (keep it when you move "
    "or sync the vault; a copy is given its own)."
)


def held_lines(brain: Brain) -> dict[str, int]:
    """Text hash -> how many lines with that text are held back from filing."""
    doc = brain.store.read_json(HELD, {}) or {}
    if doc.get("note") != brain.inbox_rel:
        return {}
    counts: dict[str, int] = {}
    for h in doc.get("hashes") or []:
        counts[h] = counts.get(h, 0) + 1
    return counts


@dataclass(frozen=True)
class Existing:
    """The notes a vault had before vaultbrain read it (what `init` tells the person)."""

    notes: int  # Markdown notes, the inbox and Brain/ left out
    in_pack_folders: int  # of which in the pack's folders: records once a reindex reads them
    scanned: bool  # a reindex or a daemon has read the vault into this state dir


def scanned(brain: Brain) -> bool:
    """Whether a reindex (or a daemon's scan) has read the vault into this state dir: until
    then the store knows only what vaultbrain filed, not the notes the vault already had."""
    from vaultbrain.filing.scan import CACHE_FILE

    return brain.store.json_stamp(CACHE_FILE) is not None


def existing_notes(brain: Brain) -> Existing:
    """How many notes the vault holds (the one count: vaultbrain/vault/counted.py), and
    how many of them lie in the pack's folders (a README or folder note there aside)."""
    from vaultbrain.packs.survey import generated_folders
    from vaultbrain.vault.counted import counter, index_note

    counted = counter(brain.inbox_rel, generated_folders(brain.settings), brain.templates.holds)
    notes = typed = 0
    for rel, _entry in brain.vault.iter_notes():
        if not counted(rel):
            continue
        notes += 1
        typed += not index_note(rel) and brain.pack.type_for_path(rel) is not None
    return Existing(notes, typed, scanned(brain))
