"""What Obsidian's own configuration says about a vault: which folders hold templates.

Template notes look like records (a Templater template for a meeting has ``type: meeting``)
but are the person's scaffolding: vaultbrain never makes them records and never writes them.
They are the core Templates plugin's folder (``.obsidian/templates.json``), Templater's
``templates_folder`` (``.obsidian/plugins/templater-obsidian/data.json``), and any folder
named ``Templates`` or ``_templates``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

TEMPLATE_FOLDER_NAMES = frozenset({"templates", "_templates"})
_CONFIG_FILES = (
    (".obsidian/templates.json", "folder"),
    (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
)
_MAX_CONFIG = 1_000_000


class TemplateFolders:
    """The template folders of one vault, re-read only when a config file changes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._stamp: tuple[int | None, ...] | None = None
        self._configured: tuple[str, ...] = ()

    def refresh(self) -> None:
        stamp = tuple(_mtime(self.root / rel) for rel, _ in _CONFIG_FILES)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        found = []
        for rel, key in _CONFIG_FILES:
            folder = _configured_folder(self.root / rel, key)
            if folder:
                found.append(folder.lower() + "/")
        self._configured = tuple(found)

    def holds(self, rel: str) -> bool:
        """Whether the note ``rel`` is a template (inside a template folder)."""
        low = rel.lower()
        if low.startswith(self._configured):
            return True
        parts = low.split("/")[:-1]
        return any(part in TEMPLATE_FOLDER_NAMES for part in parts)

    @property
    def configured(self) -> tuple[str, ...]:
        return self._configured


def _configured_folder(path: Path, key: str) -> str | None:
    try:
        if path.stat().st_size > _MAX_CONFIG:
            return None
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str):
        return None
    folder = value.replace("\\", "/").strip().strip("/")
    return folder or None


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
