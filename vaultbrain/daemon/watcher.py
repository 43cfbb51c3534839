"""A watchdog observer on the vault, turning file events into (time, path) changes.

Recursive and on folders, so an editor's atomic save (write temp, rename over) is seen as a
change of the note it replaces. Ignored paths (dot-folders, the state dir, our temp files,
sync-conflict copies) never reach the daemon. An inotify queue overflow is reported by
watchdog only as a log line, so a log handler turns it into a request for a full rescan.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from vaultbrain.vault import is_ignored

RESCAN = "<rescan>"


class _Handler(FileSystemEventHandler):
    def __init__(self, root: Path, out: queue.Queue[tuple[float, str]]) -> None:
        self.root = str(root)
        self.out = out

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
        self._observer: Observer | None = None
        self._overflow = _OverflowLog(self.events)
        self._lock = threading.Lock()

    def start(self) -> None:
        observer = Observer()
        observer.schedule(_Handler(self.root, self.events), str(self.root), recursive=True)
        observer.daemon = True
        observer.start()
        logging.getLogger("watchdog").addHandler(self._overflow)
        self._observer = observer

    def stop(self) -> None:
        logging.getLogger("watchdog").removeHandler(self._overflow)
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
