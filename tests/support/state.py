"""Reading a state dir's ``state.db`` in tests, as the files it replaced were read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vaultbrain.store import Store


def entries(state: Path, name: str = "audit.jsonl") -> list[dict[str, Any]]:
    """The entries of a log of the state dir (``audit.jsonl``: the audit trail)."""
    store = Store(state)
    try:
        return list(store.read_jsonl(name))
    finally:
        store.close()


def lines(state: Path, name: str = "audit.jsonl") -> list[str]:
    """The entries of a log as the JSON lines its file held."""
    return [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in entries(state, name)]


def text(state: Path, name: str = "audit.jsonl") -> str:
    """A log as the text its file held."""
    return "".join(line + "\n" for line in lines(state, name))


def document(state: Path, name: str) -> Any:
    store = Store(state)
    try:
        return store.read_json(name)
    finally:
        store.close()


def forget(state: Path, name: str) -> None:
    """The document ``name`` removed from the state dir's database (what deleting its file
    did: the notes cache forgotten, so the next scan reads every note)."""
    store = Store(state)
    try:
        store.remove_json(name)
    finally:
        store.close()


def dump(state: Path) -> list[str]:
    """What the state dir's database holds, as SQL (a read-only look: nothing made)."""
    import sqlite3

    path = state / "state.db"
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def sound(state: Path) -> bool:
    """Whether the state dir's database passes ``PRAGMA quick_check`` (or there is none)."""
    import sqlite3

    path = state / "state.db"
    if not path.exists():
        return True
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("PRAGMA quick_check")] == ["ok"]
    finally:
        conn.close()
