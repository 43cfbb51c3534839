"""The keys of the settings: each declared once, with its parser, default, help text and
scope (the vault's, in ``vaultbrain.yml``, or this machine's, in the state dir), so
``settings get``, ``settings set`` and the code agree (vaultbrain/settings.py reads and
writes them)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vaultbrain.errors import UserError

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


# The longest wait a setting may name: a week (a line that settles for longer is never taken).
MAX_SECONDS = 7 * 24 * 3600


def _seconds(v: str) -> float:
    """A wait that may be zero (``inbox_settle_seconds 0``: take a line at once)."""
    expected = f"a number of seconds from 0 to {MAX_SECONDS} (a week), such as 10"
    x = _number(v, expected)
    if x < 0:
        raise ValueError(f"{v!r} is negative; expected {expected}")
    if x > MAX_SECONDS:
        raise ValueError(f"{v!r} is more than a week; expected {expected}")
    return x


def _pos_seconds(v: str) -> float:
    """A period or timeout: zero would spin or give up before asking."""
    expected = f"a number of seconds above 0, at most {MAX_SECONDS} (a week), such as 60"
    x = _number(v, expected)
    if x <= 0:
        raise ValueError(f"{v!r} is not above 0; expected {expected}")
    if x > MAX_SECONDS:
        raise ValueError(f"{v!r} is more than a week; expected {expected}")
    return x


def _whole(most: int) -> Callable[[str], int]:
    """A whole number from 1 to ``most``: a count past it (``10^12`` LLM requests at once, a
    daily note of every day since year 1) would exhaust the machine, not serve the person."""

    def parse(v: str) -> int:
        expected = f"a whole number from 1 to {most}"
        text = str(v).strip()
        if len(text.lstrip("+-0")) > 12:  # (not even turned into a number)
            raise ValueError(f"{text[:20]!r}… is out of range; expected {expected}")
        try:
            x = int(text)
        except (TypeError, ValueError):
            raise ValueError(f"{v!r} is not a whole number; expected {expected}") from None
        if x < 1:
            raise ValueError(f"{v!r} is below 1; expected {expected}")
        if x > most:
            raise ValueError(f"{v!r} is out of range; expected {expected}")
        return x

    return parse


_pos_int = _whole(1_000_000)


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


def _heading(v: str) -> str:
    """A Markdown heading's text (``## Inbox`` or ``Inbox``: any level), or "" for off."""
    text = " ".join(str(v).split())
    if "\n" in str(v) or len(text) > 200:
        raise ValueError(f"{v!r} must be one heading, such as `## Inbox`")
    return text


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
    # "vault": shared by every machine, kept in vaultbrain.yml; "machine": this machine's,
    # kept in the state dir's settings.json (MACHINE_KEYS says which, and why).
    scope: str = "vault"
    yml: str | None = None  # its name in vaultbrain.yml when not the key's own

    @property
    def yml_name(self) -> str:
        return self.yml or self.name


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
            "the embedded classifier reads every thought too, and one decision is made from "
            "both: agreement files higher, disagreement goes by each one's record on this vault",
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
        Key(
            "embedding_model",
            "",
            _text,
            "model for search by meaning (the endpoint's /embeddings); empty: an embedding "
            "model the server lists, else the chat model; off: keyword search only",
            "VAULTBRAIN_EMBEDDING_MODEL",
        ),
        Key("llm_timeout_seconds", 60.0, _pos_seconds, "timeout of one LLM request"),
        Key("llm_concurrency", 2, _whole(64), "LLM requests in flight at once"),
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
        Key(
            "schema_pack",
            "",
            _text,
            "the vault's schema pack (its `schema:` line; `vaultbrain schema use` sets it too)",
        ),
        Key(
            "note_style",
            "minimal",
            _choice("minimal", "full"),
            "new notes: minimal (no machine properties, no H1 under an inline title) or full",
        ),
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
        Key(
            "daily_capture_heading",
            "",
            _heading,
            "the daily note's section taken as thoughts, e.g. `## Inbox`; empty: off",
        ),
        Key("daily_capture_days", 3, _whole(366), "the daily notes of this many days are read"),
        Key(
            "tend_schedule",
            "0 3 * * *",
            _cron_or_off,
            "the nightly `tend` cycle and its morning report, standard cron; empty: off",
        ),
        Key(
            "stale_days",
            30,
            _whole(36_500),
            "days without activity before `tend` calls a project quiet",
        ),
    ]
}
_PREFIX_KEYS = ("schema_pack.source.",)  # vault keys: a pack per folder

# The split (issue 15): what one machine has, in its state dir; everything else is the
# vault's, in vaultbrain.yml, the same for every machine that opens it. A machine key is
# about this machine's LLM server and its capacity (where it is, which model, how much of
# it to use, how long to wait, how often this daemon looks again): another machine has a
# different one. A vault key decides what lands in the notes (the pack, the inbox, the
# bands, the fallback and second opinion, the schedules, the folders), which must not
# depend on the machine that happens to file. The filer role is not a setting: it is
# ``filer:`` in vaultbrain.yml (vaultbrain/machine.py), because every machine must agree on
# which one files, and the machine's own id stays in its state dir (machine.json).
MACHINE_KEYS = (
    "provider",
    "endpoint",
    "model",
    "embedding_model",  # the embedding model this machine's server has
    "llm_timeout_seconds",
    "llm_concurrency",
    "rescan_seconds",
    "retry_seconds",
    "correction_examples",  # examples in the prompt: sized to this machine's model
    "classify_max_tokens",
    "digest_max_tokens",
    "review_max_tokens",
)
KEYS = {
    name: replace(key, scope="machine" if name in MACHINE_KEYS else "vault")
    for name, key in KEYS.items()
}
KEYS["schema_pack"] = replace(KEYS["schema_pack"], yml="schema")  # what `schema use` writes
# What else vaultbrain.yml holds that is not a setting (written by their own commands).
YML_OTHER = ("filer", "vault_id", "packs_folder")


def _checked(name: str, value: Any) -> Any:
    """The stored ``value`` of ``name`` as its key reads it; ValueError when its check
    refuses it. Schedules are left to the scheduler and ``doctor``, which already show one
    that cannot run, so reading settings never loads the cron machinery."""
    key = KEYS.get(name)
    if key is None:  # schema_pack.source.<folder>: the pack is looked up when used
        return str(value).strip() if value is not None else ""
    if name == "schema_pack" and isinstance(value, dict):  # `schema: {pack: name}`
        value = value.get("pack") or value.get("name") or ""
    if key.parse in (_cron, _cron_or_off):
        return "" if value is None else str(value)
    if value is None:
        raise ValueError("is empty")
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    if name == "schema_pack" or key.parse is _text:
        return text
    return key.parse(text)


def _is_vault_key(name: str) -> bool:
    key = KEYS.get(name)
    return key.scope == "vault" if key is not None else name.startswith(_PREFIX_KEYS)


_YML_TO_KEY = {k.yml_name: k.name for k in KEYS.values()}
