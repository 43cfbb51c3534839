"""The lines of a collection's index log (``index.log.jsonl``) and which of them are damaged.

A line is an entry when it is JSON naming a usable record id with ``op: put`` and a summary,
or ``op: drop``. Anything else (a line a crash or a full disk tore, zeros a power cut left,
a hand edit) is damage: it is skipped, and the index is rebuilt from the record files, which
are the truth (vaultbrain/store/collection.py sets the line aside when it next folds the log).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal, overload

from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.atomic import write_all

_ID = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
# Damaged lines are set aside in ``<log>.damaged``, beside the log; ``doctor`` names the file.
DAMAGED_SUFFIX = ".damaged"


def _is_entry(entry: Any) -> bool:
    """A log line the index can take: ``put`` with a summary, or ``drop``, of a usable id."""
    if not isinstance(entry, dict):
        return False
    rid = entry.get("id")
    if not isinstance(rid, str) or not _ID.match(rid):
        return False
    op = entry.get("op")
    return op == "drop" or (op == "put" and isinstance(entry.get("summary"), dict))


@overload
def log_entries(chunk: bytes) -> list[dict[str, Any]]: ...
@overload
def log_entries(
    chunk: bytes, with_damaged: Literal[True]
) -> tuple[list[dict[str, Any]], list[bytes]]: ...
def log_entries(chunk: bytes, with_damaged: bool = False) -> Any:
    """The entries of whole log lines: parsed as one JSON array (a long tail costs one call),
    line by line only when a damaged line (torn by a crash, edited by hand) is among them:
    that line is skipped (the record file is the truth). ``with_damaged``: also the lines
    skipped (blank lines are not damage)."""
    lines = chunk.splitlines()
    try:
        parsed = json.loads(b"[" + b",".join(lines) + b"]")
        if all(_is_entry(e) for e in parsed):
            return (parsed, []) if with_damaged else parsed
    except ValueError:
        pass
    entries: list[dict[str, Any]] = []
    damaged: list[bytes] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if _is_entry(entry):
            entries.append(entry)
        else:
            damaged.append(line)
    return (entries, damaged) if with_damaged else entries


def damaged_in(log: Path, *, torn_too: bool) -> list[bytes]:
    """The damaged lines of the log file; ``torn_too``: a last line without its newline too
    (only under the write lock is such a line known to be torn, not being written)."""
    try:
        data = log.read_bytes()
    except FileNotFoundError:
        return []
    end = data.rfind(b"\n") + 1
    damaged = log_entries(data[:end], with_damaged=True)[1]
    if torn_too and data[end:].strip():
        damaged.append(data[end:])
    return damaged


def set_aside(log: Path) -> bool:
    """Append the log's damaged lines (a torn last one included) to ``<log>.damaged``; the
    caller holds the store's write lock and folds the log next. True when there were any."""
    damaged = damaged_in(log, torn_too=True)
    if not damaged:
        return False
    fd = os.open(
        log.with_name(log.name + DAMAGED_SUFFIX), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644
    )
    try:
        write_all(fd, b"".join(line + b"\n" for line in damaged))
        os.fsync(fd)
    finally:
        os.close(fd)
    return True
