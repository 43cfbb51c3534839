"""The schema of ``state.db`` as named steps (simonw/llm's pattern): each function
registered with :func:`migration` runs once, in the order registered, in the same
transaction as the row in ``_migrations`` that says it ran."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path

Migration = Callable[[sqlite3.Connection, Path | None], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(fn: Migration) -> Migration:
    """Register ``fn`` as the next migration, by its name."""
    MIGRATIONS.append((fn.__name__, fn))
    return fn


def migrate(conn: sqlite3.Connection, root: Path | None) -> list[str]:
    """Apply the migrations not applied yet (``root``: the state dir, None in memory); the
    names applied now. Each under ``BEGIN IMMEDIATE``: two processes opening a new state dir
    at once apply each step once."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    applied: list[str] = []
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    for name, fn in MIGRATIONS:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")  # another process applied it while we waited
                continue
            fn(conn, root)
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


def _script(conn: sqlite3.Connection, sql: str) -> None:
    """Each statement of ``sql`` (``executescript`` would commit the migration's
    transaction first)."""
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


@migration
def m001_initial(conn: sqlite3.Connection, root: Path | None) -> None:
    """The tables: records (a JSON document each, its summary and the columns looked up),
    the ids dropped, the change sequence, the audit trail, the other logs and the small
    JSON documents (key-value)."""
    _script(
        conn,
        """
        CREATE TABLE counter (
            one INTEGER PRIMARY KEY CHECK (one = 1),
            seq INTEGER NOT NULL,
            store_id TEXT NOT NULL
        );
        CREATE TABLE records (
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            doc TEXT NOT NULL,
            summary TEXT NOT NULL,
            type TEXT,
            title TEXT,
            path TEXT,
            deleted INTEGER NOT NULL DEFAULT 0,
            seq INTEGER NOT NULL,
            PRIMARY KEY (collection, id)
        ) WITHOUT ROWID;
        CREATE INDEX records_seq ON records (collection, seq);
        CREATE INDEX records_path ON records (lower(path));
        CREATE INDEX records_title ON records (lower(title));
        CREATE TABLE dropped (
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (collection, id)
        ) WITHOUT ROWID;
        CREATE INDEX dropped_seq ON dropped (collection, seq);
        CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry TEXT NOT NULL);
        CREATE TABLE logs (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            entry TEXT NOT NULL
        );
        CREATE INDEX logs_name ON logs (name, seq);
        CREATE TABLE kv (name TEXT PRIMARY KEY, value TEXT NOT NULL, seq INTEGER NOT NULL);
        """,
    )
    conn.execute("INSERT INTO counter VALUES (1, 0, ?)", (uuid.uuid4().hex,))


@migration
def m002_import_files(conn: sqlite3.Connection, root: Path | None) -> None:
    """A state dir of the file store (records as files and ``records.pack``, index logs,
    JSONL and JSON sidecars): imported once, read back whole, and only then set aside in
    ``pre-sqlite/`` (vaultbrain/store/legacy.py)."""
    if root is None:
        return
    from vaultbrain.store import legacy

    legacy.import_state_dir(conn, root)


@migration
def m003_blobs(conn: sqlite3.Connection, root: Path | None) -> None:
    """Caches kept as bytes (the classifier's learning, a pack's parsed form) move into
    the database: the folders of files they had before are dropped (each is rebuilt on
    first use: nothing in them was the person's)."""
    conn.execute(
        "CREATE TABLE blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL, seq INTEGER NOT NULL)"
    )
    if root is None:
        return
    import shutil

    for folder in ("classifier", "packs-cache"):
        shutil.rmtree(root / folder, ignore_errors=True)


@migration
def m004_classify_cache(conn: sqlite3.Connection, root: Path | None) -> None:
    """The LLM's answers kept by thought (vaultbrain/classify/cache.py), in the database
    rather than a ``classify-cache.sqlite`` of their own; that file, and the other files an
    earlier version kept beside state.db (settings, machine id, the LLM's forms), are taken
    in and removed each time a store opens and finds one (``legacy.take_side_files``)."""
    _script(
        conn,
        """
        CREATE TABLE classify_cache (
            key TEXT PRIMARY KEY,
            pack TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_hash TEXT NOT NULL,
            result TEXT NOT NULL,
            audit TEXT NOT NULL,
            created REAL NOT NULL
        );
        CREATE INDEX classify_cache_created ON classify_cache (created);
        """,
    )


@migration
def m005_tend_cards(conn: sqlite3.Connection, root: Path | None) -> None:
    """What each note gave tend's last cycle, by its stat (vaultbrain/tend/cards.py), in the
    database rather than a ``tend-cards.sqlite`` of its own beside it: that file was only a
    cache, so it is removed, not taken in (the first cycle reads the notes again)."""
    _script(
        conn,
        """
        CREATE TABLE tend_cards (
            rel TEXT PRIMARY KEY,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            card TEXT,
            links TEXT
        ) WITHOUT ROWID;
        CREATE TABLE tend_cards_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    )
    if root is None:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            (root / ("tend-cards.sqlite" + suffix)).unlink()
        except OSError:
            pass  # (gone already, or not ours to remove: a cache nobody reads again)


@migration
def m006_record_names(conn: sqlite3.Connection, root: Path | None) -> None:
    """``record_names``: each record's names keyed as they are looked up (folded, lower-cased:
    :mod:`vaultbrain.store.namekeys`), kept with the record in one transaction, so a capture
    asks for the keys one thought could name rather than loading every record's names; and
    an index of the live records' paths that answers "which notes are records" without
    reading a record's document. The records already stored are keyed here, from their
    summaries."""
    import json

    from vaultbrain.store.namekeys import key_rows

    _script(
        conn,
        """
        CREATE TABLE record_names (
            key TEXT NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            how TEXT NOT NULL,
            PRIMARY KEY (key, collection, id)
        ) WITHOUT ROWID;
        CREATE INDEX record_names_record ON record_names (collection, id);
        CREATE INDEX records_live_paths ON records (deleted, collection, path);
        """,
    )
    rows = conn.execute("SELECT collection, id, summary FROM records")
    conn.executemany(
        "INSERT OR IGNORE INTO record_names VALUES (?, ?, ?, ?)",
        (
            (key, collection, rid, how)
            for collection, rid, summary in rows
            for key, how in key_rows(json.loads(summary))
        ),
    )
