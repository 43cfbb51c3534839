"""The daemon's door: ``vaultbrain capture`` hands its thought to the daemon watching the
vault, over a local socket in the state dir, and prints what the daemon says of it.

A capture run as its own process (a phone shortcut over ssh, a script: one process per
thought) loads the classifier, the pack, the record index and the name index before it can
file one line; the daemon has them loaded. So the command asks the daemon first, as
Mercurial's ``chg`` asks its command server: the daemon makes the capture exactly as the
command would have (:func:`vaultbrain.capture.said.capture_said`, on a thread of its own)
and sends back what the command prints.

Exactly once, whatever stops where. The command chooses the capture's id before it asks,
and whenever the daemon did not answer (no daemon, a socket left by a killed one, a daemon
that refused: another vault, other ``VAULTBRAIN_*`` settings; or one that stopped while
filing) it makes the capture itself under that same id: a line that already carries the id
is not added again, and a capture the daemon journaled goes on from where it is, the
daemon's lease respected (:func:`vaultbrain.capture.pipeline.capture`).

The protocol: one JSON line from the command (``{"v", "op": "capture", "id", "text",
"root", "env"}``); the daemon answers ``{"refused": why}`` (nothing done) or
``{"taken": id}``, then ``{"said": …}`` or ``{"error": message}`` (a UserError, as the
command would have said it). The socket is the person's alone (mode 0600, and on Linux the
peer's uid is checked).

This module is what a capture command imports to ask: os, json, socket and the id maker
(vaultbrain/ids.py), nothing more.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.ids import ALPHABET, LETTERS, new_id

if TYPE_CHECKING:
    from vaultbrain.daemon.runner import Daemon

log = logging.getLogger("vaultbrain.daemon")
SOCKET_NAME = "daemon.sock"
# How long the command waits for the daemon to take the thought (it answers at once unless
# it is stuck); once taken, it waits for the capture as long as the capture takes.
TAKE_WAIT = 5.0
MAX_REQUEST = 1 << 20
# Settings that name the vault and the state dir are compared as the paths they resolve to.
_PATH_ENV = frozenset({"VAULTBRAIN_VAULT", "VAULTBRAIN_STATE_DIR"})


def new_capture_id() -> str:
    """A capture id as the journal makes them (:meth:`Journal.new_id`)."""
    return new_id(6)


def valid_capture_id(cid: Any) -> bool:
    return (
        isinstance(cid, str)
        and len(cid) == 6
        and cid[0] in LETTERS
        and all(c in ALPHABET for c in cid)
    )


def address(state_dir: Path) -> str | None:
    """The socket's path, or None where it is too long for a socket's address (108 bytes
    on Linux, 104 on macOS) or there are no local sockets: then every capture is made in
    its own process."""
    if not hasattr(socket, "AF_UNIX"):
        return None  # (a Python without local sockets)
    path = os.path.join(state_dir, SOCKET_NAME)
    return path if len(os.fsencode(path)) < 100 else None


def settings_env() -> dict[str, str]:
    """The ``VAULTBRAIN_*`` settings of this process's environment that the daemon must
    share with a command for the capture to be the one the command would make."""
    return {
        k: v for k, v in os.environ.items() if k.startswith("VAULTBRAIN_") and k not in _PATH_ENV
    }


# -- the command's side -----------------------------------------------------------------------


def hand_over(vault_dir: Path, state_dir: str | None, text: str, cid: str) -> dict[str, Any] | None:
    """What the daemon said of ``text`` captured as ``cid`` (see
    :func:`vaultbrain.capture.said.capture_said`), or None when no daemon took it or it
    stopped before it answered. Raises UserError with the daemon's words for a capture that
    failed there."""
    from vaultbrain.vault.statedir import resolve_state_dir

    root = os.path.realpath(vault_dir)
    where = address(resolve_state_dir(Path(root), state_dir))
    if where is None or not os.path.exists(where):
        return None
    request = {
        "v": 1,
        "op": "capture",
        "id": cid,
        "text": text,
        "root": root,
        "env": settings_env(),
    }
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    taken = False
    try:
        sock.settimeout(TAKE_WAIT)
        sock.connect(where)
        sock.sendall(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
        answers = sock.makefile("rb")
        first = _read_doc(answers)
        if first.get("taken") != cid:
            return None  # refused (or not understood): nothing was done, it is made here
        taken = True
        sock.settimeout(None)
        second = _read_doc(answers)
    except (OSError, ValueError):
        return None  # (made here, under the same id: once, whatever the daemon did)
    except KeyboardInterrupt:
        if not taken:
            raise
        from vaultbrain.errors import UserError

        raise UserError(
            f"interrupted; the daemon goes on filing the thought (capture {cid}): "
            "`vaultbrain inbox` shows how it ends"
        ) from None
    finally:
        sock.close()
    if isinstance(second.get("said"), dict):
        return second["said"]
    if isinstance(second.get("error"), str):
        from vaultbrain.errors import UserError

        raise UserError(second["error"])
    return None


def listening(where: str) -> bool:
    """Whether a daemon takes connections at the socket ``where`` (one left by a daemon that
    stopped does not): a connection made and closed, nothing sent (`vaultbrain doctor`)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(2.0)
        sock.connect(where)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def _read_doc(stream: Any) -> dict[str, Any]:
    line = stream.readline(MAX_REQUEST)
    if not line:
        raise ValueError("the daemon closed the connection")
    got = json.loads(line)
    if not isinstance(got, dict):
        raise ValueError("not an answer")
    return got


# -- the daemon's side ------------------------------------------------------------------------


class Door:
    """The daemon's end: a thread that takes connections, one short thread per capture
    (at most :data:`AT_ONCE` at a time; more wait their turn). ``busy``: the ids of the
    captures being made here, which the daemon's own workers leave alone."""

    AT_ONCE = 4

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.app = daemon.app
        self.busy: set[str] = set()
        self._lock = threading.Lock()
        self._turns = threading.BoundedSemaphore(self.AT_ONCE)
        self._stop = threading.Event()
        self._sock: socket.socket | None = None
        self._path: str | None = None
        self._ino: int | None = None
        self._env = settings_env()
        self._root = os.path.realpath(self.app.vault.root)
        self._thread: Any = None

    def open(self) -> bool:
        """Listen (False where the state dir's path is too long for a socket). The daemon's
        lock is held: a socket found in the state dir is a dead daemon's, and goes."""
        path = address(self.app.state_dir)
        if path is None:
            return False
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
            os.chmod(path, 0o600)
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        sock.settimeout(0.5)  # (a look at the stop flag twice a second)
        self._sock, self._path, self._ino = sock, path, os.lstat(path).st_ino
        self._thread = threading.Thread(target=self._serve, name="vb-door", daemon=True)
        self._thread.start()
        return True

    def close(self) -> None:
        """No more captures taken; the ones being made finish (the daemon waits for them)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._sock is not None:
            self._sock.close()
        if self._path is not None:
            try:
                if os.lstat(self._path).st_ino == self._ino:  # (not a newer daemon's)
                    os.unlink(self._path)
            except OSError:
                pass
        for _ in range(self.AT_ONCE):  # every capture under way finished
            self._turns.acquire()

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    return
                continue
            self._turns.acquire()
            threading.Thread(target=self._take, args=(conn,), name="vb-door-capture").start()

    def _take(self, conn: socket.socket) -> None:
        try:
            with conn:
                self._answer(conn)
        except OSError:
            pass  # the command went away: what was taken is made all the same
        finally:
            self._turns.release()

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(TAKE_WAIT)
        try:
            request = _read_doc(conn.makefile("rb"))
        except (OSError, ValueError):
            return
        why = self._refusal(conn, request)
        if why is not None:
            _send(conn, {"refused": why})
            return
        cid, text = request["id"], request["text"]
        with self._lock:
            if cid in self.busy:
                _send(conn, {"refused": "that capture is being made"})
                return
            self.busy.add(cid)
        try:
            _send(conn, {"taken": cid})
            conn.settimeout(None)
            answer = self._capture(cid, text)
        finally:
            with self._lock:
                self.busy.discard(cid)
        _send(conn, answer)

    def _capture(self, cid: str, text: str) -> dict[str, Any]:
        from vaultbrain.capture.said import capture_said
        from vaultbrain.errors import UserError

        try:
            said = capture_said(self.app, text, cid)
        except UserError as exc:
            log.warning("capture %s (handed over): %s", cid, exc)
            return {"error": str(exc)}
        except Exception:
            # Made again by the command, under the same id: once, from where it stopped.
            log.exception("capture %s (handed over) failed here", cid)
            return {"failed": True}
        log.info(
            "capture %s (handed over by `vaultbrain capture`): %s", cid, said["summary"]["status"]
        )
        return {"said": said}

    def _refusal(self, conn: socket.socket, request: dict[str, Any]) -> str | None:
        """Why this daemon must not make this capture (None: it may)."""
        if sys.platform.startswith("linux"):
            import struct

            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            if struct.unpack("3i", creds)[1] != os.getuid():
                return "another user"
        if request.get("v") != 1 or request.get("op") != "capture":
            return "not a request this daemon knows"
        if not valid_capture_id(request.get("id")) or not isinstance(request.get("text"), str):
            return "not a capture"
        if request.get("root") != self._root:
            return f"this daemon watches {self._root}"
        if request.get("env") != self._env:
            return "the command's VAULTBRAIN_* settings are not the daemon's"
        known = self.app.store.inbox.summary(request["id"], include_deleted=True)
        if known is not None:
            return "that id is taken"
        return None


def _send(conn: socket.socket, doc: dict[str, Any]) -> None:
    conn.sendall(json.dumps(doc, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
