"""The file store before ``state.db`` (vaultbrain up to ede95fa), read once by the
migration that imports it (vaultbrain/store/migrations.py's ``m002_import_files``).

What it held, and what is read of it:

- a collection was a folder with ``index.json`` and ``index.log.jsonl`` (the summaries:
  not read, they are made again from the records), each record in ``<id>/index.json`` or as
  a line ``<id>\\t<json>`` of ``records.pack`` (a later line wins, an empty one says gone; a
  record's own file wins over its lines); a torn or damaged line or file is skipped, as the
  old store skipped it;
- JSONL sidecars (``audit.jsonl`` and the other logs the store appended to) and JSON
  documents (the notes cache, the review state, ...), read as the old store read them;
- snapshots (``.snap/``, ``names.snap``), the lock file and set-aside damaged lines were
  caches or leftovers: not read, set aside with the rest.

Nothing is moved before the import was read back from the database and found whole; then
every old file goes into ``pre-sqlite/`` (:func:`set_aside`).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from vaultbrain.errors import StorageError
from vaultbrain.store.records import summarize, to_json, valid_id

ASIDE = "pre-sqlite"
AUDIT = "audit.jsonl"
# The logs and documents the old store wrote through Store.append_jsonl / write_json.
LOGS = (
    "corrections.jsonl",
    "digests.jsonl",
    "reviews.jsonl",
    "schema-events.jsonl",
    "activity.jsonl",
    "idealoom-pending.jsonl",
)
DOCS = (
    "meta.json",
    "notes-cache.json",
    "review-state.json",
    "inbox-held.json",
    "idealoom-auto-export.json",
    "schema-candidates.json",
    "names-cache.json",
    "youtube/index.json",
)
LEFTOVERS = ("store.lock", "names.snap", ".snap")
_COLLECTION_FILES = ("index.json", "index.log.jsonl", "records.pack")


def collections(root: Path) -> list[str]:
    """The folders of ``root`` that are collections of the file store."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [
        n
        for n in names
        if n != ASIDE
        and valid_id(n)
        and any(os.path.isfile(root / n / f) for f in _COLLECTION_FILES)
    ]


def read_collection(folder: Path) -> dict[str, dict[str, Any]]:
    """id -> record (tombstones too) of one collection folder."""
    out: dict[str, dict[str, Any]] = {}
    try:
        with open(folder / "records.pack", "rb") as fh:
            for raw in fh:
                rid, sep, text = raw.rstrip(b"\n").partition(b"\t")
                if not sep or not raw.endswith(b"\n"):
                    continue  # torn by a crash
                key = rid.decode("utf-8", "replace")
                if not text.strip():
                    out.pop(key, None)  # dropped
                    continue
                rec = _parse(text)
                if rec is not None and rec.get("id") == key:
                    out[key] = rec
    except FileNotFoundError:
        pass
    for child in sorted(os.listdir(folder)):
        rec = _read(folder / child / "index.json")
        if rec is not None and rec.get("id") == child:
            out[child] = rec
    return out


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The entries of a JSONL file; lines torn or damaged skipped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    out = []
    for line in data.splitlines():
        entry = _parse(line)
        if entry is not None:
            out.append(entry)
    return out


def _parse(text: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return _parse(path.read_bytes())
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _read_doc(path: Path) -> tuple[bool, Any]:
    try:
        return True, json.loads(path.read_text("utf-8"))
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return False, None


def import_state_dir(conn: sqlite3.Connection, root: Path) -> None:
    """Every record, log line and document of the file store at ``root`` into the tables
    (inside the migration's transaction), then read back and compared: a difference raises
    and the transaction is rolled back, the old files left as they are."""
    want_records: dict[tuple[str, str], str] = {}
    seq = conn.execute("SELECT seq FROM counter").fetchone()[0]
    for name in collections(root):
        for rid, rec in read_collection(root / name).items():
            seq += 1
            doc = to_json(rec)
            summary = summarize(rec)
            conn.execute(
                "INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    rid,
                    doc,
                    to_json(summary),
                    summary.get("type"),
                    summary.get("title"),
                    summary.get("path"),
                    1 if rec.get("deleted") else 0,
                    seq,
                ),
            )
            want_records[(name, rid)] = doc
    audit = [to_json(e) for e in read_lines(root / AUDIT)]
    conn.executemany("INSERT INTO audit (entry) VALUES (?)", [(e,) for e in audit])
    logs = [(n, to_json(e)) for n in LOGS for e in read_lines(root / n)]
    conn.executemany("INSERT INTO logs (name, entry) VALUES (?, ?)", logs)
    docs: dict[str, str] = {}
    for name in DOCS:
        found, value = _read_doc(root / name)
        if found:
            seq += 1
            docs[name] = to_json(value)
            conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (name, docs[name], seq))
    conn.execute("UPDATE counter SET seq = ?", (seq,))
    differs = read_back(conn, want_records, audit, logs, docs)
    if differs:
        raise StorageError(f"the import of {root} into state.db did not read back whole: {differs}")


def read_back(
    conn: sqlite3.Connection,
    records: dict[tuple[str, str], str],
    audit: list[str],
    logs: list[tuple[str, str]],
    docs: dict[str, str],
) -> str | None:
    """What of the import differs when read back from the database (None: nothing)."""
    got = {(c, i): d for c, i, d in conn.execute("SELECT collection, id, doc FROM records")}
    if got != records:
        return "the records"
    if [r[0] for r in conn.execute("SELECT entry FROM audit ORDER BY seq")] != audit:
        return "the audit trail"
    if [tuple(r) for r in conn.execute("SELECT name, entry FROM logs ORDER BY seq")] != logs:
        return "the logs"
    if dict(conn.execute("SELECT name, value FROM kv").fetchall()) != docs:
        return "the documents"
    return None


def old_files(root: Path) -> list[str]:
    """The names in ``root`` the file store made (relative paths)."""
    names = [*collections(root), AUDIT, *LOGS, *DOCS, *LEFTOVERS]
    names += [n + ".damaged" for n in (AUDIT, *LOGS)]
    return [n for n in dict.fromkeys(names) if os.path.lexists(root / n)]


def set_aside(root: Path) -> list[str]:
    """Move what the file store left in ``root`` into ``root/pre-sqlite/`` (after the import
    was committed); the names moved."""
    moved = []
    for name in old_files(root):
        target = root / ASIDE / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if os.path.lexists(target) and target.is_dir():
                import shutil  # (not at every start: it brings the compression modules)

                shutil.rmtree(target)
            elif os.path.lexists(target):
                target.unlink()
            os.replace(root / name, target)
        except OSError as exc:
            raise StorageError.from_os(exc, str(target)) from exc
        moved.append(name)
    if moved:
        youtube = root / "youtube"
        try:
            youtube.rmdir()  # (left empty by its index, when it held nothing else)
        except OSError:
            pass
    return moved


# -- files of their own beside state.db (before migration m004) ---------------------------------

SETTINGS = "settings.json"
MACHINE = "machine.json"
LLM_FORMS = "llm-forms.json"
EMBEDDING_FORMS = "embedding-forms.json"
CLASSIFY_CACHE = "classify-cache.sqlite"
# What an earlier version kept in files of their own beside state.db; each is now a document
# of the database (the classification cache: its table, m004_classify_cache).
SIDE_FILES = (SETTINGS, MACHINE, LLM_FORMS, EMBEDDING_FORMS, CLASSIFY_CACHE)
_CACHE_COLUMNS = "key, pack, model, prompt_hash, result, audit, created"


def take_side_files(conn: sqlite3.Connection, root: Path, only: str | None = None) -> list[str]:
    """Each file of :data:`SIDE_FILES` in ``root`` (``only``: that one) taken into the
    database in one transaction, then removed; the names taken. What the database already
    holds wins where the two differ on one thing (a machine id stays the one it has), except
    settings, where the file is the later word (written by hand, or by an earlier version
    still running) and replaces them whole, as it did when it was where they were kept. A settings file that is not JSON is left where it is (reading
    settings says so); a cache file that cannot be read is only removed: it was a cache."""
    names = [n for n in SIDE_FILES if (only is None or n == only) and os.path.lexists(root / n)]
    if not names or conn.in_transaction:
        return []
    taken: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for name in names:
            if name == CLASSIFY_CACHE:
                _take_cache(conn, root / name)
                taken.append(name)
                continue
            found, value = _read_doc(root / name)
            if not found and os.path.lexists(root / name):
                if name == SETTINGS:
                    continue  # (a person's file: left for them to fix)
                taken.append(name)
                continue
            if found:
                _take_doc(conn, name, value)
            taken.append(name)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    for name in taken:
        extra = ("-wal", "-shm", "-journal") if name == CLASSIFY_CACHE else ()
        for path in (root / name, *(root / (name + e) for e in extra)):
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise StorageError.from_os(exc, str(path)) from exc
    return taken


def _take_doc(conn: sqlite3.Connection, name: str, value: Any) -> None:
    row = conn.execute("SELECT value FROM kv WHERE name = ?", (name,)).fetchone()
    stored = json.loads(row[0]) if row is not None else None
    if name == SETTINGS:
        if not isinstance(value, dict):
            return
        merged: Any = value  # (the file is the later word: one written by hand or by an
        # earlier version still running; the whole of this machine's settings, as before)
    elif name == MACHINE:
        if stored is not None or not isinstance(value, dict) or not value.get("id"):
            return
        merged = {"id": str(value["id"]), "host": str(value.get("host") or "?")}
    else:  # the forms: entries the database lacks
        entries = value.get("entries") if isinstance(value, dict) else None
        if not isinstance(entries, dict):
            return
        have = stored.get("entries") if isinstance(stored, dict) else None
        merged = {"version": 1, "entries": {**entries, **(have if isinstance(have, dict) else {})}}
    seq = conn.execute("UPDATE counter SET seq = seq + 1 RETURNING seq").fetchone()[0]
    conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", (name, to_json(merged), seq))


def _take_cache(conn: sqlite3.Connection, path: Path) -> None:
    """The rows of an old ``classify-cache.sqlite`` (read only) into ``classify_cache``."""
    try:
        old = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return
    try:
        rows = old.execute(f"SELECT {_CACHE_COLUMNS} FROM classifications").fetchall()
    except sqlite3.Error:
        rows = []  # damaged, or not a cache: only a cache lost
    finally:
        old.close()
    conn.executemany(
        f"INSERT OR IGNORE INTO classify_cache ({_CACHE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
