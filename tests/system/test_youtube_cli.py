"""The ``youtube`` commands through click, replaying recorded yt-dlp results."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.cli import frontmatter, run, run_json

from vaultbrain.youtube import REPLAY_ENV

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "youtube"
TALK = "cach3Talk01"


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(REPLAY_ENV, str(FIXTURES / "recordings"))
    root = tmp_path / "Vault"
    run(root, "init")
    return root


def test_ingest_prints_what_it_saved(vault: Path) -> None:
    result = run(vault, "youtube", "ingest", f"https://youtu.be/{TALK}", "--tag", "caching")
    lines = result.stdout.splitlines()
    assert re.fullmatch(
        rf"saved Consumed/YouTube/\d{{4}}-\d\d-\d\d Caching- why it's hard \({TALK}\)\.md", lines[0]
    )
    assert "transcript from auto-captions" in lines[1]
    stages = [line for line in result.stderr.splitlines() if line.endswith("…")]
    assert stages == ["metadata…", "transcript…", "saving…"]  # one line per stage, no TTY
    note = vault / lines[0].removeprefix("saved ")
    assert frontmatter(note)["tags"] == ["youtube", "caching"]


def test_ingest_json_and_the_management_commands(vault: Path) -> None:
    doc = json.loads(
        run(
            vault, "youtube", "ingest", f"https://www.youtube.com/shorts/{TALK}", "--audio",
            "--prompt", "Summarise it", "--json",
        ).stdout
    )  # fmt: skip
    assert doc["status"] == "complete" and doc["agent_task_path"].startswith("Brain/Agent Queue/")
    assert doc["audio_path"] == f"youtube/{TALK}.mp3"

    rows = run_json(vault, "youtube", "list")
    assert [(r["video_id"], r["status"]) for r in rows] == [(TALK, "complete")]
    table = run(vault, "youtube", "list").stdout
    assert "video" in table and TALK in table and "complete" in table

    shown = run_json(vault, "youtube", "show", TALK)
    assert shown["note_path"] == doc["note_path"]
    text = run(vault, "youtube", "show", f"https://youtu.be/{TALK}").stdout
    assert f"note_path: {doc['note_path']}" in text and "agent task: Brain/Agent Queue/" in text

    transcript = run(vault, "youtube", "transcript", TALK).stdout
    assert "welcome back to the channel" in transcript

    forgot = run(vault, "youtube", "forget", TALK).stdout
    assert f"removed youtube/{TALK}.md" in forgot and f"removed youtube/{TALK}.mp3" in forgot
    assert "kept Links/" in forgot and f"forgot {TALK}" in forgot
    assert run_json(vault, "youtube", "list") == []
    assert run(vault, "youtube", "list").stdout.startswith("no YouTube ingests yet")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["https://www.youtube.com/playlist?list=PL123"], "is a playlist"),
        (["https://www.youtube.com/@somebody"], "is a channel"),
        (["https://vimeo.com/1234"], "vimeo.com is not YouTube"),
        ([f"https://youtu.be/{TALK}", "--no-transcript"], "turn on at least one"),
        (["https://youtu.be/pr1vateVid0"], "the video is private"),
        (["https://youtu.be/b0tCheck000"], "not a bot"),
    ],
)
def test_ingest_errors_are_one_line(vault: Path, args: list[str], says: str) -> None:
    result = run(vault, "youtube", "ingest", *args, ok=False)
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and says in errors[0]
    assert not (vault / "Consumed" / "YouTube").exists() or not any(
        (vault / "Consumed" / "YouTube").iterdir()
    )


def test_audio_without_ffmpeg_names_it(vault: Path, tmp_path: Path) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(FIXTURES / "recordings", replay)
    (replay / "replay.json").write_text('{"ffmpeg": false}')
    from click.testing import CliRunner

    from vaultbrain.cli.group import cli

    result = CliRunner(env={REPLAY_ENV: str(replay)}).invoke(
        cli, ["--vault", str(vault), "youtube", "ingest", f"https://youtu.be/{TALK}", "--audio"]
    )
    assert result.exit_code == 1 and "needs ffmpeg, which is not installed" in result.stderr


def test_no_captions_warns_and_completes(vault: Path) -> None:
    result = run(vault, "youtube", "ingest", "https://youtu.be/n0CapsAtAll")
    assert result.stdout.startswith("saved Consumed/YouTube/")
    assert "warning: n0CapsAtAll: the video has no English captions" in result.stderr


def test_cancel_of_an_unknown_job(vault: Path) -> None:
    result = run(vault, "youtube", "cancel", "nosuchjob", ok=False)
    assert result.exit_code == 1 and "no running YouTube ingest 'nosuchjob'" in result.stderr


def test_settings(vault: Path) -> None:
    assert run_json(vault, "youtube", "settings") == {
        "youtube.folder": "Consumed/YouTube",
        "youtube.transcript": True,
        "youtube.video": False,
        "youtube.audio": False,
    }
    out = run(vault, "youtube", "settings", "--folder", "Talks", "--audio").stdout
    assert "youtube.folder = Talks" in out and "youtube.audio = true" in out
    doc = run_json(vault, "youtube", "ingest", f"https://youtu.be/{TALK}")
    assert doc["note_path"].startswith("Talks/") and doc["audio_path"]
    bad = run(vault, "youtube", "settings", "--folder", "../outside", ok=False)
    assert bad.exit_code == 1 and "must be a path inside the vault" in bad.stderr


def test_vtt_prints_prose(vault: Path) -> None:
    out = run(vault, "youtube", "vtt", str(FIXTURES / "captions" / "rolling_auto.en.vtt")).stdout
    assert out.startswith("hi everyone and welcome back to the channel today")
    srt = run(vault, "youtube", "vtt", str(FIXTURES / "captions" / "numbers.en.srt")).stdout
    assert "count? 42 Forty-two." in srt
    notes = vault / "Inbox.md"
    bad = run(vault, "youtube", "vtt", str(notes), ok=False)
    assert bad.exit_code == 1 and "not a WebVTT or SRT caption file" in bad.stderr


def test_help_documents_the_inbox_options_and_cancel(vault: Path) -> None:
    assert "#no-transcript" in run(vault, "youtube", "--help").stdout
    assert "youtube/cancel/<job>" in run(vault, "youtube", "cancel", "--help").stdout


def _start_slow_ingest(vault: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    """``vaultbrain youtube ingest`` in its own process, slowed down, once it is running."""
    replay = tmp_path / "slow"
    shutil.copytree(FIXTURES / "recordings", replay)
    (replay / "replay.json").write_text('{"steps": 200, "step_seconds": 0.05}')
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "youtube", "ingest",
         f"https://youtu.be/{TALK}", "--audio"],
        env={**os.environ, REPLAY_ENV: str(replay)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a shell may start background jobs with SIGINT ignored; Ctrl-C must reach this one
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rows = [r for r in run_json(vault, "youtube", "list") if r["status"] == "running"]
        if rows and rows[0].get("stage") in ("transcript", "audio"):
            return proc, rows[0]["job"]
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the ingest never showed up as running")


def _assert_cancelled(vault: Path, proc: subprocess.Popen[str]) -> None:
    try:
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "cancelled: nothing was saved"
    youtube_dir = vault / "Consumed" / "YouTube"
    assert not youtube_dir.exists() or not any(youtube_dir.iterdir())
    assert not list((vault / "Links").iterdir())
    assert run_json(vault, "youtube", "show", TALK)["status"] == "cancelled"
    assert run_json(vault, "youtube", "list")[0]["status"] == "cancelled"


def test_cancel_a_running_ingest_from_another_process(vault: Path, tmp_path: Path) -> None:
    """The daemon case: the ingest runs in another process; `youtube cancel JOB` stops it."""
    proc, job = _start_slow_ingest(vault, tmp_path)
    out = run(vault, "youtube", "cancel", job).stdout
    assert f"asked job {job} ({TALK}) to stop" in out and f"job {job} ended: cancelled" in out
    _assert_cancelled(vault, proc)


def test_ctrl_c_cancels_the_ingest(vault: Path, tmp_path: Path) -> None:
    proc, _ = _start_slow_ingest(vault, tmp_path)
    proc.send_signal(signal.SIGINT)
    _assert_cancelled(vault, proc)


# -- the real yt-dlp worker, held at the metadata step (issue 18) --------------------------


class _HoldingProxy:
    """An HTTPS proxy on 127.0.0.1 that accepts yt-dlp's CONNECT and never answers: yt-dlp
    sits in its metadata step with no progress hook running. Nothing reaches the internet."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connected = threading.Event()
        self.conns: list[Any] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            self.connected.set()

    def close(self) -> None:
        import socket

        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept (a close alone does not)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(5)  # no thread outlives the test
        for conn in self.conns:
            conn.close()


@pytest.fixture
def held(vault: Path) -> Any:
    proxy = _HoldingProxy()
    yield proxy
    proxy.close()


def _start_held_ingest(vault: Path, proxy: _HoldingProxy) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "all_proxy")}
    env.pop(REPLAY_ENV, None)
    env.update({"HTTPS_PROXY": proxy.url, "HTTP_PROXY": proxy.url})
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "youtube", "ingest",
         f"https://youtu.be/{TALK}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    if not proxy.connected.wait(60):
        proc.kill()
        raise AssertionError("yt-dlp never reached the proxy")
    return proc


def _assert_cancelled_at_metadata(vault: Path, proc: subprocess.Popen[str]) -> None:
    try:
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    # 130; or killed by a second Ctrl-C that came once the attempt was recorded and the
    # process was already exiting
    assert proc.returncode in (130, -signal.SIGINT), stderr
    assert "cancelled: nothing was saved" in stderr.splitlines()
    rows = run_json(vault, "youtube", "list")
    assert [(r["video_id"], r["status"]) for r in rows] == [(TALK, "cancelled")]
    assert "cancelled" in run(vault, "youtube", "list").stdout


def test_ctrl_c_stops_ytdlp_at_the_metadata_step(vault: Path, held: _HoldingProxy) -> None:
    proc = _start_held_ingest(vault, held)
    proc.send_signal(signal.SIGINT)
    _assert_cancelled_at_metadata(vault, proc)


def test_a_second_ctrl_c_still_leaves_the_job_listed_as_cancelled(
    vault: Path, held: _HoldingProxy
) -> None:
    proc = _start_held_ingest(vault, held)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _assert_cancelled_at_metadata(vault, proc)


def test_cancel_from_another_process_stops_the_metadata_step(
    vault: Path, held: _HoldingProxy
) -> None:
    proc = _start_held_ingest(vault, held)
    deadline = time.monotonic() + 30
    job = None
    while job is None and time.monotonic() < deadline:
        rows = [r for r in run_json(vault, "youtube", "list") if r["status"] == "running"]
        job = rows[0]["job"] if rows else None
        time.sleep(0.05)
    assert job is not None
    # The default wait is 15 s: the job must end well within it, not "still running".
    out = run(vault, "youtube", "cancel", job).stdout
    assert f"job {job} ended: cancelled" in out
    _assert_cancelled_at_metadata(vault, proc)


def test_the_progress_bar_shows_the_time_spent() -> None:
    from vaultbrain.cli.youtube import _ProgressBar
    from vaultbrain.youtube.jobs import Progress

    now = [100.0]
    bar = _ProgressBar(enabled=True, tty=True, clock=lambda: now[0])
    bar.update(Progress("job1", TALK, "metadata", 0.0, 0.0))
    now[0] += 75
    assert bar.line().endswith("0% metadata   1:15")
    now[0] += 3600
    assert bar.line().endswith("1:01:15")
