"""Making a vault skeleton: folders of the active pack and the inbox note. Never overwrites."""

from __future__ import annotations

from typing import Any

from vaultbrain.filing.inbox import ensure_inbox


def init_vault(app: Any) -> list[str]:
    """Create what is missing; return what was created (paths relative to the vault)."""
    vault = app.vault
    made: list[str] = []
    vault.root.mkdir(parents=True, exist_ok=True)
    for folder in [*app.pack.folders(), "Brain", "Brain/Digests", "Brain/Reviews"]:
        path = vault.resolve(folder)
        if not path.exists():
            path.mkdir(parents=True)
            made.append(folder + "/")
    inbox = str(app.settings.get("inbox_note"))
    if vault.try_read(inbox) is None:
        ensure_inbox(vault, inbox)
        made.append(inbox)
    app.state_dir.mkdir(parents=True, exist_ok=True)
    return made
