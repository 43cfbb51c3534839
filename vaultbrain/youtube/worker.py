"""yt-dlp in a worker process, so a cancel stops it at once, whatever it is doing.

yt-dlp checks for a cancel only in its progress hooks, which run while bytes arrive. While
it fetches the metadata, waits on a slow server or retries, no hook runs, and a cancel
waited for the next hook: 50 s at the metadata step, minutes on a stalled download. Here
each yt-dlp call (``extract_info``, one ``download``) runs in a child process,
``python -m vaultbrain.youtube.worker``, in its own session (so a terminal's Ctrl-C reaches
only vaultbrain, and ffmpeg goes with the worker). The parent watches the cancel event
while it waits and kills the worker's whole process group when it is set: a cancel takes
effect within a fraction of a second at any step.

The protocol is one JSON request on the worker's stdin and JSON lines on its stdout:
``{"progress": 42.0}`` while it works, then ``{"result": …, "warnings": […]}`` or
``{"error": {"message": …, "kind": …}}``. Anything yt-dlp or ffmpeg print goes to stderr.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .backend import CaptionTrack, IngestCancelled, IngestError, Kind, ProgressFn, YtDlpBackend

POLL_SECONDS = 0.05


class WorkerBackend:
    """The production backend: :class:`YtDlpBackend`, each call in a killable worker."""

    def __init__(
        self,
        *,
        socket_timeout: float = 30.0,
        ffmpeg_location: str | None = None,
        extra_options: Mapping[str, Any] | None = None,
    ) -> None:
        # The same backend is built in the worker from its settings; here it only answers
        # what needs no yt-dlp (is ffmpeg there).
        self.local = YtDlpBackend(
            socket_timeout=socket_timeout,
            ffmpeg_location=ffmpeg_location,
            extra_options=extra_options,
        )
        self.warnings: list[str] = []

    def ffmpeg_available(self) -> bool:
        return self.local.ffmpeg_available()

    def extract_info(self, url: str, *, cancel: threading.Event | None = None) -> dict[str, Any]:
        result = self._call("extract_info", {"url": url}, cancel, None)
        if not isinstance(result, dict):
            raise IngestError(f"yt-dlp returned no metadata for {url}", kind="error")
        return result

    def download(
        self,
        info: Mapping[str, Any],
        *,
        kind: Kind,
        dest: Path,
        track: CaptionTrack | None = None,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> Path | None:
        args = {
            "info": dict(info),
            "kind": kind,
            "dest": str(dest),
            "track": None if track is None else [track.language, track.ext, track.source],
        }
        result = self._call("download", args, cancel, progress)
        return None if result is None else Path(result)

    # -- the parent side -------------------------------------------------------------------
    def _call(
        self,
        method: str,
        args: dict[str, Any],
        cancel: threading.Event | None,
        progress: ProgressFn | None,
    ) -> Any:
        if cancel is not None and cancel.is_set():
            raise IngestCancelled()
        request = json.dumps({"method": method, "args": args, "options": self.local.settings()})
        proc = subprocess.Popen(
            [sys.executable, "-m", "vaultbrain.youtube.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C is the parent's to handle; killpg takes ffmpeg too
        )
        reply: dict[str, Any] = {}
        reader = threading.Thread(
            target=_read_replies, args=(proc, reply, progress), name="yt-dlp-worker", daemon=True
        )
        reader.start()
        try:
            assert proc.stdin is not None
            try:
                proc.stdin.write(request.encode("utf-8"))
                proc.stdin.close()
            except BrokenPipeError:
                pass  # it died at once; the exit status below says so
            while proc.poll() is None:
                if cancel is None:
                    _sleep_on(proc)
                elif cancel.wait(POLL_SECONDS):
                    _kill(proc)
                    raise IngestCancelled()
            reader.join(5)
        except BaseException:
            _kill(proc)  # Ctrl-C, or any failure here: the worker never outlives the call
            raise
        if cancel is not None and cancel.is_set():
            raise IngestCancelled()
        if "error" in reply:
            err = reply["error"]
            if err.get("kind") == "cancelled":
                raise IngestCancelled()
            raise IngestError(str(err.get("message")), kind=str(err.get("kind") or "error"))
        if "result" not in reply:
            raise IngestError(
                f"the yt-dlp worker ended without an answer (exit {proc.returncode})", kind="error"
            )
        self.warnings.extend(reply.get("warnings") or [])
        return reply["result"]


def _sleep_on(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.wait(POLL_SECONDS)
    except subprocess.TimeoutExpired:
        pass


def _read_replies(
    proc: subprocess.Popen[bytes], reply: dict[str, Any], progress: ProgressFn | None
) -> None:
    assert proc.stdout is not None
    for raw in proc.stdout:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if "progress" in message:
            if progress is not None:
                progress(float(message["progress"]))
            continue
        reply.update(message)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


# -- the worker side -----------------------------------------------------------------------


def _serve(stdin: Any, out: Any) -> None:
    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, ensure_ascii=False, default=str) + "\n")
        out.flush()

    request = json.loads(stdin.read())
    backend = YtDlpBackend(**request["options"])
    args = request["args"]
    try:
        result = backend.call(request["method"], args, lambda p: send({"progress": p}))
    except IngestError as exc:
        send({"error": {"message": str(exc), "kind": exc.kind}})
        return
    except Exception as exc:  # a bug in yt-dlp or here: one line for the parent to report
        send({"error": {"message": f"yt-dlp worker: {type(exc).__name__}: {exc}", "kind": "error"}})
        return
    send({"result": result, "warnings": backend.warnings})


def main() -> None:
    # The protocol owns stdout; whatever else prints goes to stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    _serve(sys.stdin, out)


if __name__ == "__main__":
    main()
