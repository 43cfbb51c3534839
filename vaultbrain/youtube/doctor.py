"""What ``vaultbrain doctor`` reports about the YouTube tools: yt-dlp, ffmpeg, a JS runtime."""

from __future__ import annotations

import shutil
import subprocess


def _ytdlp() -> tuple[str, bool, str]:
    try:
        from yt_dlp.version import __version__
    except ImportError:
        return (
            "yt-dlp",
            False,
            "not installed: pip install -U yt-dlp (any YouTube ingest needs it)",
        )
    return ("yt-dlp", True, f"{__version__} (Python API); YouTube changes often: keep it current")


def _ffmpeg() -> tuple[str, bool, str]:
    path = shutil.which("ffmpeg")
    if path is None:
        return (
            "ffmpeg",
            False,
            "not found: needed for --audio and --video (transcript-only ingests work without it)",
        )
    version = _first_line([path, "-version"])
    return ("ffmpeg", True, f"{path}" + (f" ({version})" if version else ""))


def _js_runtime() -> tuple[str, bool, str]:
    """yt-dlp solves YouTube's player challenges in a JS runtime; it names the ones it takes."""
    found: list[str] = []
    try:
        import yt_dlp  # noqa: F401 - registers the runtimes yt-dlp supports
        from yt_dlp.globals import supported_js_runtimes

        runtimes = dict(supported_js_runtimes.value)
    except (ImportError, AttributeError):
        runtimes = {}
    if runtimes:
        for cls in runtimes.values():
            try:
                info = cls().info
            except Exception:  # a broken runtime must not break doctor
                info = None
            if info is None:
                continue
            if info.supported:
                return ("JS runtime", True, f"{info.name} {info.version} at {info.path}")
            found.append(f"{info.name} {info.version} (too old for yt-dlp)")
    else:
        for name in ("deno", "node", "bun"):
            path = shutil.which(name)
            if path:
                return ("JS runtime", True, f"{name} at {path}")
    detail = "none usable"
    if found:
        detail += ": found " + ", ".join(found)
    detail += "; install deno (https://deno.com) so yt-dlp can read YouTube's player"
    return ("JS runtime", False, detail)


def _first_line(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    line = (out.stdout or out.stderr or "").splitlines()
    return line[0].strip()[:80] if line else None


def doctor_checks() -> list[tuple[str, bool, str]]:
    """(name, ok, detail) for yt-dlp, ffmpeg and a JS runtime."""
    return [_ytdlp(), _ffmpeg(), _js_runtime()]
