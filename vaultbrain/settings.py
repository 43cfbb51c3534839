"""Settings: documented defaults, stored in the state dir's ``settings.json``.

Every key is declared once here, with its type, default and help text, so ``settings get``,
``settings set`` and the code agree. Environment variables override the LLM keys.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError
from vaultbrain.vault.atomic import atomic_write_file

# A parser turns the text a person typed into the value, or raises ValueError with what was
# expected, naming the value ("'high' is not a number; expected …"). Settings.set puts the
# key in front, so every refusal is one line that names the key and the expected form.


def _number(v: str, expected: str) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{v!r} is not a number; expected {expected}") from None
    # nan compares false with everything, so a nan wait is never over (or always over).
    if not math.isfinite(x):
        raise ValueError(f"{v!r} is not a finite number; expected {expected}")
    return x


def _float01(v: str) -> float:
    expected = "a number from 0 to 1, such as 0.8"
    x = _number(v, expected)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{v!r} is out of range; expected {expected}")
    return x


def _seconds(v: str) -> float:
    """A wait that may be zero (``inbox_settle_seconds 0``: take a line at once)."""
    expected = "a number of seconds, 0 or more, such as 10"
    x = _number(v, expected)
    if x < 0:
        raise ValueError(f"{v!r} is negative; expected {expected}")
    return x


def _pos_seconds(v: str) -> float:
    """A period or timeout: zero would spin or give up before asking."""
    expected = "a number of seconds above 0, such as 60"
    x = _number(v, expected)
    if x <= 0:
        raise ValueError(f"{v!r} is not above 0; expected {expected}")
    return x


def _pos_int(v: str) -> int:
    expected = "a whole number, 1 or more"
    try:
        x = int(v)
    except (TypeError, ValueError):
        raise ValueError(f"{v!r} is not a whole number; expected {expected}") from None
    if x < 1:
        raise ValueError(f"{v!r} is below 1; expected {expected}")
    return x


def _bool(v: str) -> bool:
    low = str(v).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{v!r} must be true or false")


def _cron(v: str) -> str:
    """A schedule that parses and fires: ``60 0 * * *`` and ``0 0 31 2 *`` are refused here,
    not found later as a job whose next run is never."""
    from vaultbrain.cron import CronExpr  # APScheduler: only when a schedule is set

    try:
        return CronExpr.parse(str(v)).text
    except UserError as exc:
        raise ValueError(str(exc)) from None


def _cron_or_off(v: str) -> str:
    """A schedule as :func:`_cron` checks it, or empty: the job is off."""
    return "" if not str(v).strip() else _cron(v)


def _choice(*values: str) -> Callable[[str], str]:
    def check(v: str) -> str:
        if v not in values:
            raise ValueError(f"{v!r} must be one of {', '.join(values)}")
        return v

    return check


def _text(v: str) -> str:
    return str(v)


def _note_path(v: str) -> str:
    """A path inside the vault, never in a dot-folder (``.obsidian/app.json`` is Obsidian's
    own configuration: vaultbrain never writes there)."""
    text = str(v).strip()
    parts = Path(text.replace("\\", "/")).parts
    if not text or text.startswith(("/", "\\", "~")) or ".." in parts or re.match(r"^\w:", text):
        raise ValueError(f"{v!r} must be a path inside the vault")
    if any(part.startswith(".") for part in parts):
        raise ValueError(f"{v!r} must not be in a dot-folder (vaultbrain never writes there)")
    return text


def _pack_name(v: str, env: Mapping[str, str] | None = None) -> str:
    """A schema pack that exists (installed or bundled), or a pack file/folder; empty unsets."""
    from vaultbrain.packs.loader import find_pack, home_dir, looks_like_path

    name = str(v).strip()
    if not name:
        return ""
    if looks_like_path(name):
        if not Path(name).expanduser().exists():
            raise ValueError(f"{v!r}: no such pack file or folder")
    elif find_pack(name, home_dir(env)) is None:
        raise ValueError(f"{v!r} is not a schema pack here (`vaultbrain schema list` shows them)")
    return name


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
        Key(
            "second_opinion",
            True,
            _bool,
            "the embedded classifier reads every thought too; when it is sure the LLM's type is "
            "wrong, a thought the LLM would file alone becomes a suggestion to confirm",
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
        Key("inbox_settle_seconds", 10.0, _seconds, "quiet time before a finished line is taken"),
        Key(
            "inbox_idle_seconds",
            120.0,
            _seconds,
            "quiet time before a line without a newline is taken",
        ),
        Key("llm_timeout_seconds", 60.0, _pos_seconds, "timeout of one LLM request"),
        Key("llm_concurrency", 2, _pos_int, "LLM requests in flight at once"),
        Key("rescan_seconds", 300.0, _pos_seconds, "the daemon's periodic rescan of the vault"),
        Key(
            "retry_seconds",
            5.0,
            _pos_seconds,
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
        Key(
            "enrich_schedule",
            "",
            _cron_or_off,
            "the daemon's `enrich` of records from the vault, standard cron; empty: off",
        ),
    ]
}
_PREFIX_KEYS = ("schema_pack.source.",)


def _stored_problems(data: dict[str, Any]) -> dict[str, str]:
    """Stored values their key's check refuses (a ``NaN`` wait, ``.obsidian/app.json`` as
    the inbox), by key. Schedules are left to the scheduler and ``doctor``, which already
    show one that cannot run, so reading settings never loads the cron machinery."""
    out: dict[str, str] = {}
    for name, value in data.items():
        key = KEYS.get(name)
        if key is None or key.parse in (_cron, _cron_or_off):
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        try:
            key.parse(text)
        except ValueError as exc:
            out[name] = str(exc)
    return out


class Settings:
    """The settings of one state dir, with environment overrides applied on read."""

    def __init__(self, state_dir: Path, env: dict[str, str] | None = None) -> None:
        self.path = Path(state_dir) / "settings.json"
        self.env = os.environ if env is None else env
        self._data: dict[str, Any] = {}
        self._invalid: dict[str, str] = {}
        self._mtime: int | None = None
        self.reload()

    @property
    def version(self) -> int | None:
        """Changes whenever the settings file does (None: no file)."""
        return self._mtime

    def reload(self) -> None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._data, self._mtime, self._invalid = {}, None, {}
            return
        if st.st_mtime_ns == self._mtime:
            return
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except ValueError as exc:
            raise UserError(f"{self.path} is not valid JSON; fix or delete it ({exc})") from exc
        self._data = data if isinstance(data, dict) else {}
        self._invalid = _stored_problems(self._data)
        self._mtime = st.st_mtime_ns

    def problems(self) -> list[str]:
        """Stored values that fail their key's check (written by hand, or before the check
        existed); each is ignored in favour of the default. ``doctor`` shows them."""
        self.reload()
        return [
            f"{name}: {message}; the default is used" for name, message in self._invalid.items()
        ]

    def get(self, name: str) -> Any:
        key = KEYS.get(name)
        if key is None:
            if name.startswith(_PREFIX_KEYS):
                return self._data.get(name)
            raise UserError(f"unknown setting {name!r}; `vaultbrain settings get` lists them")
        if key.env and self.env.get(key.env):
            try:
                return key.parse(self.env[key.env])
            except ValueError as exc:
                raise UserError(f"${key.env}: {exc}") from exc
        if name in self._data and name not in self._invalid:
            return self._data[name]
        return key.default

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def set(self, name: str, value: str) -> Any:
        key = KEYS.get(name)
        if key is None and not name.startswith(_PREFIX_KEYS):
            raise UserError(f"unknown setting {name!r}; `vaultbrain settings get` lists them")
        try:
            if name == "schema_pack":  # a pack that does not exist would break every command
                parsed = _pack_name(value, self.env)
            elif key is not None:
                parsed = key.parse(value)
            else:  # schema_pack.source.<folder>
                if not name[len(_PREFIX_KEYS[0]) :].strip("/\\"):
                    raise ValueError("name a folder: schema_pack.source.<folder>")
                parsed = _pack_name(value, self.env)
        except ValueError as exc:
            raise UserError(f"{name}: {exc}") from exc
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
        self._invalid = _stored_problems(data)
        self._mtime = self.path.stat().st_mtime_ns
        return parsed

    def unset(self, name: str) -> bool:
        """Back to the default (or, for a per-folder pack, gone); False when it was not set."""
        if name not in KEYS and not name.startswith(_PREFIX_KEYS):
            raise UserError(f"unknown setting {name!r}; `vaultbrain settings get` lists them")
        self.reload()
        if name not in self._data:
            return False
        data = {k: v for k, v in self._data.items() if k != name}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_file(self.path, json.dumps(data, indent=1, ensure_ascii=False))
        self._data = data
        self._invalid = _stored_problems(data)
        self._mtime = self.path.stat().st_mtime_ns
        return True

    def items(self) -> Iterator[tuple[str, Any, str]]:
        """(name, effective value, where it comes from) for every key."""
        for name, key in KEYS.items():
            if key.env and self.env.get(key.env):
                yield name, self.get(name), f"env {key.env}"
            elif name in self._invalid:
                yield name, key.default, "default (the stored value is refused)"
            elif name in self._data:
                yield name, self._data[name], "set"
            else:
                yield name, key.default, "default"
        for name in sorted(self._data):
            if name.startswith(_PREFIX_KEYS):
                yield name, self._data[name], "set"
