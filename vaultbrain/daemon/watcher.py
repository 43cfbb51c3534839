"""A watchdog observer on the vault, turning file events into (time, path) changes.

Recursive and on folders, so an editor's atomic save (write temp, rename over) is seen as a
change of the note it replaces. The vault root is watched on its own and each visible
top-level folder recursively, so dot-folders — the state dir with its thousands of record
folders, ``.obsidian``, ``.git``, ``.trash`` — are never watched at all; and only the events
that can change a note are asked of the kernel (no opens, no reads: our own scans must not
fill the inotify queue). Ignored paths never reach the daemon. An inotify queue overflow
is reported by watchdog only as a log line, so a log handler turns it into a rescan.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from vaultbrain.vault import is_ignored

RESCAN = "<rescan>"
EVENTS = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


class _Handler(FileSystemEventHandler):
    def __init__(
        self, root: Path, out: queue.Queue[tuple[float, str]], watcher: VaultWatcher | None = None
    ) -> None:
        self.root = str(root)
        self.out = out
        self.watcher = watcher

    def _rel(self, path: str | bytes) -> str | None:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        try:
            rel = os.path.relpath(path, self.root).replace(os.sep, "/")
        except ValueError:
            return None
        if rel == "." or rel.startswith("../"):
            return None
        return rel

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        now = time.monotonic()
        paths = [event.src_path]
        dest = getattr(event, "dest_path", None)
        if dest:
            paths.append(dest)
        for path in paths:
            rel = self._rel(path)
            if rel is None or is_ignored(rel):
                continue
            if event.is_directory:
                if event.event_type in ("moved", "deleted", "created"):
                    self.out.put((now, RESCAN))
                    if self.watcher is not None and "/" not in rel:
                        self.watcher.top_level_changed()
                continue
            if rel.lower().endswith(".md"):
                self.out.put((now, rel))


class _OverflowLog(logging.Handler):
    def __init__(self, out: queue.Queue[tuple[float, str]]) -> None:
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.out.put((time.monotonic(), RESCAN))


class VaultWatcher:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.events: queue.Queue[tuple[float, str]] = queue.Queue()
        self._observer: BaseObserver | None = None
        self._overflow = _OverflowLog(self.events)
        self._lock = threading.Lock()

    def start(self) -> None:
        observer = Observer()
        observer.daemon = True
        self._observer = observer
        self._handler = _Handler(self.root, self.events, self)
        observer.schedule(self._handler, str(self.root), recursive=False, event_filter=EVENTS)
        self._watched: dict[str, object] = {}
        self.top_level_changed()
        observer.start()
        logging.getLogger("watchdog").addHandler(self._overflow)

    def top_level_changed(self) -> None:
        """Watch every visible top-level folder recursively (new ones too); drop gone ones."""
        with self._lock:
            if self._observer is None:
                return
            try:
                names = {
                    e.name
                    for e in os.scandir(self.root)
                    if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
                }
            except OSError:
                return
            for name in names - set(self._watched):
                try:
                    self._watched[name] = self._observer.schedule(
                        self._handler, str(self.root / name), recursive=True, event_filter=EVENTS
                    )
                except OSError:
                    continue
            for name in set(self._watched) - names:
                watch = self._watched.pop(name)
                try:
                    self._observer.unschedule(watch)  # type: ignore[arg-type]
                except (KeyError, OSError):
                    pass

    def stop(self) -> None:
        logging.getLogger("watchdog").removeHandler(self._overflow)
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
