"""The production backend driving the real yt-dlp, against an HTTP server on 127.0.0.1.

YouTube itself is never contacted: the info dicts point their caption and format URLs at
the local server, which is how yt-dlp's own downloaders, file naming, progress hooks and
error texts get exercised for real.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from vaultbrain.youtube.backend import CaptionTrack, IngestCancelled, IngestError, YtDlpBackend
from vaultbrain.youtube.worker import WorkerBackend

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "youtube" / "captions"
VID = "l0calServ01"
BIG = 4 * 1024 * 1024


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, bytes, str]]] = {}
    held = threading.Event()
    release = threading.Event()

    def log_message(self, *args: Any) -> None:
        pass

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._serve(body=True)

    def _serve(self, body: bool) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/hold":  # answers only once the test lets it
            _Handler.held.set()
            _Handler.release.wait(60)
            return
        if path == "/hang":
            time.sleep(3)
            return
        if path == "/slow.mp4":
            self.send_response(200)
            self.send_header("Content-Type", "video/mp4")
            self.send_header("Content-Length", str(BIG))
            self.end_headers()
            if body:
                chunk = b"\x00" * 65536
                try:
                    for _ in range(BIG // len(chunk)):
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        time.sleep(0.02)
                except (BrokenPipeError, ConnectionResetError):
                    pass
            return
        status, data, ctype = self.routes.get(path, (404, b"not found", "text/plain"))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    vtt = (FIXTURES / "rolling_auto.en.vtt").read_bytes()
    _Handler.routes = {
        "/subs/en.vtt": (200, vtt, "text/vtt"),
        "/subs/auto-en.vtt": (200, b"WEBVTT\n\n00:01.000 --> 00:02.000\nauto words\n", "text/vtt"),
        "/video.mp4": (200, b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 5000, "video/mp4"),
        "/limited.mp4": (429, b"Too Many Requests", "text/plain"),
    }
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def info(base: str, fmt_path: str = "/video.mp4") -> dict[str, Any]:
    return {
        "id": VID,
        "title": "Local server video",
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "webpage_url": f"https://www.youtube.com/watch?v={VID}",
        "duration": 20,
        "formats": [
            {
                "format_id": "18",
                "url": base + fmt_path,
                "ext": "mp4",
                "vcodec": "avc1.42001E",
                "acodec": "mp4a.40.2",
                "protocol": "http",
            }
        ],
        "subtitles": {"en": [{"ext": "vtt", "url": base + "/subs/en.vtt"}]},
        "automatic_captions": {"en": [{"ext": "vtt", "url": base + "/subs/auto-en.vtt"}]},
    }


def test_captions_are_fetched_by_ytdlp_and_named_alike_for_both_kinds(
    server: str, tmp_path: Path
) -> None:
    backend = YtDlpBackend(socket_timeout=5)
    seen: list[float] = []
    human = backend.download(
        info(server),
        kind="captions",
        dest=tmp_path / "h",
        track=CaptionTrack("en", "vtt", "captions"),
        progress=seen.append,
    )
    assert human == tmp_path / "h" / f"{VID}.en.vtt"
    assert human.read_bytes() == (FIXTURES / "rolling_auto.en.vtt").read_bytes()
    auto = backend.download(
        info(server),
        kind="captions",
        dest=tmp_path / "a",
        track=CaptionTrack("en", "vtt", "auto-captions"),
    )
    assert auto is not None and auto.name == human.name  # same file name for both kinds
    assert "auto words" in auto.read_text()


def test_a_video_download_and_its_progress(server: str, tmp_path: Path) -> None:
    seen: list[float] = []
    path = YtDlpBackend(socket_timeout=5).download(
        info(server), kind="video", dest=tmp_path, progress=seen.append
    )
    assert path is not None and path.read_bytes().startswith(b"\x00\x00\x00\x18ftyp")
    assert seen and seen[-1] >= 95


def test_cancel_stops_ytdlp_mid_download(server: str, tmp_path: Path) -> None:
    cancel = threading.Event()

    def progress(percent: float) -> None:
        if percent > 1:
            cancel.set()

    with pytest.raises(IngestCancelled):
        YtDlpBackend(socket_timeout=5).download(
            info(server, "/slow.mp4"), kind="video", dest=tmp_path, progress=progress,
            cancel=cancel,
        )  # fmt: skip
    finished = [p for p in tmp_path.iterdir() if not p.name.endswith((".part", ".ytdl"))]
    assert finished == []  # only yt-dlp's partial file, which the ingest's scratch cleanup removes


def test_http_429_from_ytdlp_becomes_the_rate_limit_message(server: str, tmp_path: Path) -> None:
    with pytest.raises(IngestError) as err:
        YtDlpBackend(socket_timeout=5).extract_info(server + "/limited.mp4")
    assert err.value.kind == "rate-limited" and "HTTP 429" in str(err.value)


def test_a_server_that_never_answers_is_a_timeout(server: str) -> None:
    with pytest.raises(IngestError) as err:
        YtDlpBackend(socket_timeout=0.5, extra_options={"retries": 0, "extractor_retries": 0}) \
            .extract_info(server + "/hang")  # fmt: skip
    assert err.value.kind == "timeout"


def test_metadata_through_ytdlp(server: str) -> None:
    got = YtDlpBackend(socket_timeout=5).extract_info(server + "/video.mp4")
    assert got["id"] == "video" and got["formats"]


class _LocalMetadata(YtDlpBackend):
    """The real downloads, with metadata that points at the local server instead of YouTube."""

    def __init__(self, base: str) -> None:
        super().__init__(socket_timeout=5)
        self.base = base

    def extract_info(self, url: str, *, cancel: threading.Event | None = None) -> dict[str, Any]:
        return info(self.base)


def test_a_whole_ingest_with_ytdlp_doing_the_downloads(server: str, vault: Path) -> None:
    from vaultbrain.brain import Brain
    from vaultbrain.vault.note import parse_note
    from vaultbrain.youtube import IngestRequest, ingest

    app = Brain(vault)
    result = ingest(
        app, IngestRequest.for_url(f"https://youtu.be/{VID}"), backend=_LocalMetadata(server)
    )
    assert result.status == "complete" and result.transcript_source == "captions"
    note = parse_note((vault / result.note_path).read_text())
    assert "welcome back to the channel today" in note.body


# -- yt-dlp in a worker process (issue 18: a cancel stops it at any step) -----------------


def test_the_worker_fetches_metadata_and_downloads_with_progress(
    server: str, tmp_path: Path
) -> None:
    backend = WorkerBackend(socket_timeout=5)
    got = backend.extract_info(server + "/video.mp4")
    assert got["id"] == "video" and got["formats"]
    seen: list[float] = []
    path = backend.download(info(server), kind="video", dest=tmp_path, progress=seen.append)
    assert path is not None and path.read_bytes().startswith(b"\x00\x00\x00\x18ftyp")
    assert seen and seen[-1] >= 95
    captions = backend.download(
        info(server),
        kind="captions",
        dest=tmp_path / "c",
        track=CaptionTrack("en", "vtt", "captions"),
    )
    assert captions == tmp_path / "c" / f"{VID}.en.vtt"


def test_the_worker_reports_ytdlp_errors_as_one_line(server: str) -> None:
    with pytest.raises(IngestError) as err:
        WorkerBackend(socket_timeout=5).extract_info(server + "/limited.mp4")
    assert err.value.kind == "rate-limited" and "HTTP 429" in str(err.value)


def test_a_cancel_stops_the_metadata_step_while_the_server_is_silent(server: str) -> None:
    # No progress hook runs while yt-dlp waits for the page: only killing the worker stops it.
    _Handler.held.clear()
    _Handler.release.clear()
    cancel = threading.Event()
    outcome: dict[str, BaseException] = {}

    def call() -> None:
        try:
            WorkerBackend(socket_timeout=60).extract_info(server + "/hold", cancel=cancel)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=call)
    thread.start()
    try:
        assert _Handler.held.wait(30), "yt-dlp never asked the server"
        cancel.set()
        thread.join(30)
        # It ended while the server was still holding the request: the cancel stopped it.
        assert not thread.is_alive() and not _Handler.release.is_set()
        assert isinstance(outcome.get("error"), IngestCancelled)
    finally:
        _Handler.release.set()
        thread.join(30)
