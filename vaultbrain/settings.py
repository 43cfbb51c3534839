"""Settings: documented defaults, stored in the state dir's ``settings.json``.

Every key is declared once here, with its type, default and help text, so ``settings get``,
``settings set`` and the code agree. Environment variables override the LLM keys.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.vault.files import atomic_write_file

_CRON_FIELD = re.compile(r"^[\w*/,\-]+$")


def _float01(v: str) -> float:
    x = float(v)
    if not 0.0 <= x <= 1.0:
        raise ValueError("must be between 0 and 1")
    return x


def _pos_float(v: str) -> float:
    x = float(v)
    if x < 0:
        raise ValueError("must not be negative")
    return x


def _pos_int(v: str) -> int:
    x = int(v)
    if x < 1:
        raise ValueError("must be at least 1")
    return x


def _bool(v: str) -> bool:
    low = str(v).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError("must be true or false")


def _cron(v: str) -> str:
    parts = v.split()
    if len(parts) != 5 or not all(_CRON_FIELD.match(p) for p in parts):
        raise ValueError("must be a 5-field cron expression such as '0 18 * * *'")
    return " ".join(parts)


def _choice(*values: str) -> Callable[[str], str]:
    def check(v: str) -> str:
        if v not in values:
            raise ValueError(f"must be one of {', '.join(values)}")
        return v

    return check


def _text(v: str) -> str:
    return str(v)


def _note_path(v: str) -> str:
    v = str(v).strip()
    if not v or v.startswith(("/", "\\")) or ".." in Path(v).parts:
        raise ValueError("must be a path inside the vault")
    return v


@dataclass(frozen=True)
class Key:
    name: str
    default: Any
    parse: Callable[[str], Any]
    help: str
    env: str | None = None


KEYS: dict[str, Key] = {
    k.name: k
    for k in [
        Key(
            "provider",
            "lmstudio",
            _choice("lmstudio", "heuristic"),
            "lmstudio (any OpenAI-compatible server) or heuristic (embedded, no model)",
            "VAULTBRAIN_PROVIDER",
        ),
        Key(
            "endpoint",
            "http://localhost:1234/v1",
            _text,
            "the LLM server's /v1 URL",
            "VAULTBRAIN_ENDPOINT",
        ),
        Key(
            "model",
            "",
            _text,
            "model id; empty: the first model the server lists",
            "VAULTBRAIN_MODEL",
        ),
        Key(
            "fallback",
            "heuristic",
            _choice("heuristic", "none"),
            "when the server is unreachable: heuristic files suggestions, none keeps lines pending",
        ),
        Key("auto_confidence", 0.8, _float01, "confidence at or above which a thought is filed"),
        Key(
            "min_confidence",
            0.5,
            _float01,
            "confidence at or above which a thought is filed as a suggestion",
        ),
        Key("digest_schedule", "0 18 * * *", _cron, "daily digest, standard cron, local time"),
        Key("review_schedule", "0 9 * * 0", _cron, "weekly review, standard cron (0 = Sunday)"),
        Key("inbox_note", "Inbox.md", _note_path, "the capture note, relative to the vault"),
        Key("inbox_settle_seconds", 10.0, _pos_float, "quiet time before a finished line is taken"),
        Key(
            "inbox_idle_seconds",
            120.0,
            _pos_float,
            "quiet time before a line without a newline is taken",
        ),
        Key("llm_timeout_seconds", 60.0, _pos_float, "timeout of one LLM request"),
        Key("llm_concurrency", 2, _pos_int, "LLM requests in flight at once"),
        Key("rescan_seconds", 300.0, _pos_float, "the daemon's periodic rescan of the vault"),
        Key(
            "retry_seconds",
            5.0,
            _pos_float,
            "first retry of a pending capture; doubles each time, at most 10 minutes",
        ),
        Key(
            "correction_examples",
            8,
            _pos_int,
            "past corrections shown to the classifier as examples",
        ),
        Key("schema_pack", "", _text, "the vault's schema pack (tier 4 of the resolution chain)"),
        Key(
            "daily_notes_folder",
            "",
            _text,
            "your daily notes folder; the day's note gets a link to the digest",
        ),
        Key("youtube.folder", "Consumed/YouTube", _note_path, "where YouTube transcript notes go"),
        Key("youtube.transcript", True, _bool, "ingest the transcript by default"),
        Key("youtube.video", False, _bool, "download the video by default"),
        Key("youtube.audio", False, _bool, "keep an mp3 by default"),
        Key("idealoom.enabled", False, _bool, "exchange IdeaLoom lists with the vault"),
        Key("idealoom.auto_export", False, _bool, "export a list automatically after an edit"),
        Key("idealoom.folder", "Idea Loom", _note_path, "the vault folder of IdeaLoom notes"),
        Key(
            "classify_max_tokens",
            600,
            _pos_int,
            "longest answer the classifier takes from the LLM, in tokens; a reply cut off "
            "here is an error (length), never half-parsed",
        ),
        Key("digest_max_tokens", 700, _pos_int, "longest answer of the daily digest's LLM summary"),
        Key(
            "review_max_tokens", 900, _pos_int, "longest answer of the weekly review's LLM summary"
        ),
    ]
}
_PREFIX_KEYS = ("schema_pack.source.",)


class Settings:
    """The settings of one state dir, with environment overrides applied on read."""

    def __init__(self, state_dir: Path, env: dict[str, str] | None = None) -> None:
        self.path = Path(state_dir) / "settings.json"
        self.env = os.environ if env is None else env
        self._data: dict[str, Any] = {}
        self._mtime: int | None = None
        self.reload()

    def reload(self) -> None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._data, self._mtime = {}, None
            return
        if st.st_mtime_ns == self._mtime:
            return
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except ValueError as exc:
            raise UserError(f"{self.path} is not valid JSON; fix or delete it ({exc})") from exc
        self._data = data if isinstance(data, dict) else {}
        self._mtime = st.st_mtime_ns

    def get(self, name: str) -> Any:
        key = KEYS.get(name)
        if key is None:
            if name.startswith(_PREFIX_KEYS):
                return self._data.get(name)
            raise UserError(f"unknown setting {name!r}; `vaultbrain settings get` lists them")
        if key.env and self.env.get(key.env):
            return key.parse(self.env[key.env])
        if name in self._data:
            return self._data[name]
        return key.default

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def set(self, name: str, value: str) -> Any:
        key = KEYS.get(name)
        if key is None and not name.startswith(_PREFIX_KEYS):
            raise UserError(f"unknown setting {name!r}; `vaultbrain settings get` lists them")
        try:
            parsed = key.parse(value) if key else _text(value)
        except ValueError as exc:
            raise UserError(f"{name}: {value!r} {exc}") from exc
        self.reload()
        data = dict(self._data)
        data[name] = parsed
        if name in ("auto_confidence", "min_confidence"):
            lo = data.get("min_confidence", KEYS["min_confidence"].default)
            hi = data.get("auto_confidence", KEYS["auto_confidence"].default)
            if lo > hi:
                raise UserError("min_confidence must not be above auto_confidence")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_file(self.path, json.dumps(data, indent=1, ensure_ascii=False))
        self._data = data
        self._mtime = self.path.stat().st_mtime_ns
        return parsed

    def items(self) -> Iterator[tuple[str, Any, str]]:
        """(name, effective value, where it comes from) for every key."""
        for name, key in KEYS.items():
            if key.env and self.env.get(key.env):
                yield name, self.get(name), f"env {key.env}"
            elif name in self._data:
                yield name, self._data[name], "set"
            else:
                yield name, key.default, "default"
        for name in sorted(self._data):
            if name.startswith(_PREFIX_KEYS):
                yield name, self._data[name], "set"
