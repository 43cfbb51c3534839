"""The machine-local ingest index, ``<state>/youtube/index.json``.

Never synced or federated: every entry holds local paths (the transcript and mp3 in the
state dir, the video file, the vault note), the vault (its path and, when Obsidian knows
it, Obsidian's vault id) and the local video-history id (the ``media.watch`` activity
event). Title, channel and status are kept beside them so ``youtube list`` needs no other
file. The durable "saved for reference" record is the Links record, not this index.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from vaultbrain.store import Store

INDEX_NAME = "youtube/index.json"
SCHEMA_VERSION = 1


class VideoIndex:
    def __init__(self, store: Store) -> None:
        self.store = store

    def load(self) -> dict[str, dict[str, Any]]:
        doc = self.store.read_json(INDEX_NAME, None)
        if not isinstance(doc, dict):
            return {}
        videos = doc.get("videos")
        return dict(videos) if isinstance(videos, dict) else {}

    def get(self, video_id: str) -> dict[str, Any] | None:
        entry = self.load().get(video_id)
        return dict(entry) if isinstance(entry, dict) else None

    def update(
        self, video_id: str, change: Callable[[dict[str, Any] | None], dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        """Read-modify-write one entry under the store's lock; ``None`` removes it."""
        with self.store.locked():
            videos = self.load()
            current = videos.get(video_id)
            new = change(dict(current) if isinstance(current, dict) else None)
            if new is None:
                videos.pop(video_id, None)
            else:
                videos[video_id] = new
            self.store.write_json(INDEX_NAME, {"schema_version": SCHEMA_VERSION, "videos": videos})
            return new

    def entries(self) -> list[dict[str, Any]]:
        """Every entry, newest first."""
        items = [dict(v) for v in self.load().values() if isinstance(v, dict)]
        items.sort(key=lambda e: str(e.get("updated") or e.get("captured") or ""), reverse=True)
        return items


def obsidian_vault_id(vault_root: Path, env: Mapping[str, str]) -> str | None:
    """The id Obsidian gave this vault (from its ``obsidian.json``), if Obsidian knows it."""
    home = Path(env.get("HOME") or Path.home())
    candidates = [
        Path(env["XDG_CONFIG_HOME"]) / "obsidian" if env.get("XDG_CONFIG_HOME") else None,
        home / ".config" / "obsidian",
        home / "Library" / "Application Support" / "obsidian",
        Path(env["APPDATA"]) / "obsidian" if env.get("APPDATA") else None,
        home / ".var" / "app" / "md.obsidian.Obsidian" / "config" / "obsidian",
    ]
    target = os.path.realpath(vault_root)
    for folder in candidates:
        if folder is None:
            continue
        try:
            doc = json.loads((folder / "obsidian.json").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        vaults = doc.get("vaults") if isinstance(doc, dict) else None
        if not isinstance(vaults, dict):
            continue
        for vault_id, spec in vaults.items():
            path = spec.get("path") if isinstance(spec, dict) else None
            if isinstance(path, str) and os.path.realpath(path) == target:
                return str(vault_id)
    return None
