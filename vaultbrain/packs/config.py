"""The person's pack choice in ``~/.vaultbrain/config.json`` and its history.

``schema use`` writes tier 6 of the resolution chain and appends one line to
``schema-pack-history.jsonl`` beside it; ``schema downgrade`` restores a named pack or the
one in force before the last change. Other keys of ``config.json`` are kept as they are.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.packs.loader import (
    DEFAULT_PACK,
    home_config_path,
    home_dir,
    load_pack,
    looks_like_path,
    read_home_config,
)
from vaultbrain.packs.model import ResolvedPack
from vaultbrain.vault.files import atomic_write_file

HISTORY = "schema-pack-history.jsonl"


def history_path(home: Path | None = None) -> Path:
    return (home or home_dir()) / HISTORY


def read_history(home: Path | None = None) -> list[dict[str, Any]]:
    try:
        lines = history_path(home).read_text("utf-8").splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line from a crash is skipped, not fatal
        if isinstance(entry, dict):
            out.append(entry)
    return out


@dataclass
class PackSwitch:
    """What ``use`` / ``downgrade`` did: the pack now set (None: unset) and the one before."""

    to: str | None
    previous: str | None
    pack: ResolvedPack
    config: Path


def set_home_pack(
    name: str | None, *, verb: str, at: dt.datetime, home: Path | None = None
) -> PackSwitch:
    """Write ``schema_pack`` (None removes it) to config.json and append to the history."""
    home = home or home_dir()
    if name is not None and looks_like_path(name):
        raise UserError(
            f"{name!r} is a path; install it first (`vaultbrain schema install {name}`), "
            "then use it by name"
        )
    pack = load_pack(name or DEFAULT_PACK, home)  # refuse a pack that does not resolve
    config = read_home_config(home)
    previous = config.get("schema_pack") or None
    if name is None:
        config.pop("schema_pack", None)
    else:
        config["schema_pack"] = name
    path = home_config_path(home)
    atomic_write_file(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    entry = {
        "at": at.isoformat(timespec="seconds"),
        "verb": verb,
        "from": previous,
        "to": name,
        "identity": pack.identity,
    }
    _append(history_path(home), entry)
    return PackSwitch(name, previous, pack, path)


def use_pack(name: str, *, at: dt.datetime, home: Path | None = None) -> PackSwitch:
    return set_home_pack(name, verb="use", at=at, home=home)


def downgrade_pack(
    to: str | None = None, *, at: dt.datetime, home: Path | None = None
) -> PackSwitch:
    """Restore ``to``, or the pack in force before the last recorded change."""
    if to is None:
        history = read_history(home)
        if not history:
            raise UserError(
                "no pack history to go back to; name one: `vaultbrain schema downgrade --to "
                f"{DEFAULT_PACK}`"
            )
        to = history[-1].get("from") or None
    return set_home_pack(to, verb="downgrade", at=at, home=home)


def _append(path: Path, entry: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
