"""Settings: documented defaults, each key the vault's or this machine's (issue 15).

Every key is declared once here, with its type, default, help text and scope, so
``settings get``, ``settings set`` and the code agree. A vault key (the pack, the inbox, the
bands, schedules, folders) lives in ``vaultbrain.yml`` at the vault root, synced with the
notes, so every machine files alike; a machine key (the LLM server, model, concurrency,
timeouts) lives in the state dir's ``settings.json``. ``MACHINE_KEYS`` says which and why.
vaultbrain/vault/yml.py is the one writer of ``vaultbrain.yml``. Environment variables
override the LLM keys.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.vault import yml
from vaultbrain.vault.atomic import atomic_write_file
from vaultbrain.vault.yml import VAULT_YML

if TYPE_CHECKING:
    from vaultbrain.vault.files import Vault

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
        Key(
            "schema_pack",
            "",
            _text,
            "the vault's schema pack (its `schema:` line; `vaultbrain schema use` sets it too)",
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
YML_OTHER = ("filer", "vault_id")


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
log = logging.getLogger("vaultbrain.settings")
_LOGGED: set[str] = set()  # problems already logged by this process


class Settings:
    """The settings a vault has on this machine: the vault's keys from ``vaultbrain.yml``,
    this machine's from the state dir's ``settings.json``, environment overrides on read.

    Where a value comes from, first match wins: the environment (the LLM keys), then
    ``settings.json`` (machine keys; and a vault key an earlier version stored there, which
    keeps applying on this machine until ``settings migrate`` or ``settings set`` moves it,
    so an upgrade changes nothing silently), then ``vaultbrain.yml``, then the default. A
    value its key's check refuses, in either file, is skipped for the default and reported
    by :meth:`problems` (doctor) and the log, never raised: a typo in vaultbrain.yml must not
    stop the daemon."""

    def __init__(
        self, state_dir: Path, env: Mapping[str, str] | None = None, vault: Vault | None = None
    ) -> None:
        self.path = Path(state_dir) / "settings.json"
        self.vault = vault
        self.yml_path = Path(vault.root) / VAULT_YML if vault is not None else None
        self.env = os.environ if env is None else env
        self._json: dict[str, Any] = {}
        self._json_stamp: tuple[int, int] | None = None
        self._yml: dict[str, Any] = {}
        self._yml_broken: dict[str, str] = {}
        self._yml_stamp: tuple[int, int] | None = None
        self._values: dict[str, tuple[Any, str]] = {}
        self._problems: list[str] = []
        self._legacy: list[str] = []
        self._refused: dict[str, str] = {}
        self._notes: list[str] = []
        self._loaded = False
        self.reload()

    @property
    def version(self) -> tuple[object, object] | None:
        """Changes whenever either file does (None: neither exists)."""
        if self._json_stamp is None and self._yml_stamp is None:
            return None
        return (self._json_stamp, self._yml_stamp)

    # -- reading -------------------------------------------------------------------------
    @staticmethod
    def _stamp(path: Path | None) -> tuple[int, int] | None:
        if path is None:
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def reload(self) -> None:
        json_stamp, yml_stamp = self._stamp(self.path), self._stamp(self.yml_path)
        if self._loaded and (json_stamp, yml_stamp) == (self._json_stamp, self._yml_stamp):
            return
        if json_stamp != self._json_stamp or not self._loaded:
            self._json = self._read_json() if json_stamp is not None else {}
        if yml_stamp != self._yml_stamp or not self._loaded:
            self._yml, self._yml_broken = {}, {}
            if yml_stamp is not None and self.yml_path is not None:
                try:
                    self._yml, self._yml_broken = yml.read(self.yml_path.parent)
                except UserError as exc:
                    self._yml_broken = {"": str(exc)}
        self._json_stamp, self._yml_stamp, self._loaded = json_stamp, yml_stamp, True
        self._resolve()

    def _read_json(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as exc:
            raise UserError(f"{self.path} is not valid JSON; fix or delete it ({exc})") from exc
        return data if isinstance(data, dict) else {}

    def _resolve(self) -> None:
        values: dict[str, tuple[Any, str]] = {}
        problems: list[str] = []
        legacy: list[str] = []
        refused: dict[str, str] = {}
        notes: list[str] = []
        for yname, why in self._yml_broken.items():
            name = _YML_TO_KEY.get(yname, yname)
            if name == "schema_pack":
                why += "; the vault's pack cannot be read until it is fixed"
            elif name in KEYS or name.startswith(_PREFIX_KEYS):
                why += f"; {name} has its default until it is fixed"
                refused[name] = VAULT_YML
            problems.append(why)
        for yname, raw in self._yml.items():
            name = _YML_TO_KEY.get(yname, yname)
            key = KEYS.get(name)
            if yname in YML_OTHER or (key is None and not name.startswith(_PREFIX_KEYS)):
                if yname not in YML_OTHER:
                    notes.append(f"{VAULT_YML}: {yname!r} is not a setting (a typo?); ignored")
                continue
            if key is not None and key.scope == "machine":
                notes.append(
                    f"{VAULT_YML}: {name} is each machine's own setting, not the vault's; "
                    f"ignored there (`vaultbrain settings set {name} …` on each machine)"
                )
                continue
            try:
                values[name] = (_checked(name, raw), VAULT_YML)
            except ValueError as exc:
                problems.append(f"{VAULT_YML}: {name}: {exc}; the default is used")
                refused[name] = VAULT_YML
        for name, raw in self._json.items():
            if name not in KEYS and not name.startswith(_PREFIX_KEYS):
                continue
            try:
                value = _checked(name, raw)
            except ValueError as exc:
                problems.append(f"{name}: {exc}; the default is used")
                refused[name] = "state dir"
                continue
            values[name] = (value, "state dir")
            if _is_vault_key(name):
                legacy.append(name)
        if legacy:
            notes.append(
                f"{', '.join(legacy)}: vault settings an earlier version kept in this machine's "
                "state dir; they apply on this machine only (and win over vaultbrain.yml here) "
                "until `vaultbrain settings migrate` moves them to vaultbrain.yml"
            )
        self._values, self._problems, self._legacy = values, problems, legacy
        self._refused, self._notes = refused, notes
        for line in problems:
            if line not in _LOGGED:  # once while it lasts: the daemon rereads often
                _LOGGED.add(line)
                log.warning("%s", line)
        if self.vault is not None:  # a problem fixed, then made again, is said again
            _LOGGED.intersection_update(problems)

    def problems(self) -> list[str]:
        """Stored values that are refused (a typo in vaultbrain.yml, a NaN written by hand,
        a key that is not one); each is ignored in favour of the default. ``doctor`` and the
        log show them."""
        self.reload()
        return list(self._problems)

    def notes(self) -> list[str]:
        """What works but should change: keys in vaultbrain.yml that are not settings (or
        are each machine's own), vault keys still in this machine's settings.json."""
        self.reload()
        return list(self._notes)

    def legacy_keys(self) -> list[str]:
        """Vault keys this machine's settings.json still holds (stored there by an earlier
        version): they apply on this machine only, until ``settings migrate`` moves them."""
        self.reload()
        return list(self._legacy)

    def legacy(self, name: str) -> Any:
        """The value of ``name`` in this machine's settings.json (None: not there), for
        the pack resolution chain's tier 4 (vaultbrain/packs/loader.py)."""
        value = self._values.get(name)
        return value[0] if value is not None and value[1] == "state dir" else None

    def _key(self, name: str) -> Key | None:
        key = KEYS.get(name)
        if key is None and not name.startswith(_PREFIX_KEYS):
            raise UserError(f"unknown setting {name!r}; `vaultbrain settings get` lists them")
        return key

    def get(self, name: str) -> Any:
        key = self._key(name)
        if key is None:
            found = self._values.get(name)
            return found[0] if found is not None else None
        if key.env and self.env.get(key.env):
            try:
                return key.parse(self.env[key.env])
            except ValueError as exc:
                raise UserError(f"${key.env}: {exc}") from exc
        found = self._values.get(name)
        return found[0] if found is not None else key.default

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def source(self, name: str) -> str:
        """Where ``name``'s value comes from: default, vaultbrain.yml, state dir, or the
        environment variable's name."""
        key = self._key(name)
        if key is not None and key.env and self.env.get(key.env):
            return f"${key.env}"
        found = self._values.get(name)
        if found is not None:
            return found[1]
        if name in self._refused:
            return f"default (the stored value is refused: {self._refused[name]})"
        return "default"

    def items(self) -> Iterator[tuple[str, Any, str]]:
        """(name, effective value, where it comes from) for every key."""
        for name in KEYS:
            yield name, self.get(name), self.source(name)
        for name in sorted(self._values):
            if name.startswith(_PREFIX_KEYS):
                yield name, self._values[name][0], self._values[name][1]

    # -- writing -------------------------------------------------------------------------
    def _parse_new(self, name: str, value: str) -> Any:
        key = self._key(name)
        try:
            if name == "schema_pack":  # a pack that does not exist would break every command
                return _pack_name(value, self.env)
            if key is not None:
                return key.parse(value)
            if not name[len(_PREFIX_KEYS[0]) :].strip("/\\"):
                raise ValueError("name a folder: schema_pack.source.<folder>")
            return _pack_name(value, self.env)
        except ValueError as exc:
            raise UserError(f"{name}: {exc}") from exc

    def set(self, name: str, value: str) -> Any:
        """Check ``value`` and store it: a vault key in vaultbrain.yml (its line only, a
        ``# comment`` above it the first time), a machine key in settings.json."""
        parsed = self._parse_new(name, value)
        self.reload()
        if name in ("auto_confidence", "min_confidence"):
            lo = parsed if name == "min_confidence" else self.get("min_confidence")
            hi = parsed if name == "auto_confidence" else self.get("auto_confidence")
            if lo > hi:
                raise UserError("min_confidence must not be above auto_confidence")
        if not _is_vault_key(name):
            self._write_json({**self._json, name: parsed})
        else:
            key = KEYS.get(name)
            if parsed == "" and (name == "schema_pack" or key is None):
                yml.remove_key(self._vault(), key.yml_name if key else name)
            else:
                about = key.help if key else "the schema pack of the notes under this folder"
                yml.set_key(self._vault(), key.yml_name if key else name, parsed, comment=about)
            self._drop_json(name)  # this machine's old copy would hide the vault's value
        self.reload()
        return parsed

    def unset(self, name: str) -> bool:
        """Back to the default (or, for a per-folder pack, gone); False when it was not set."""
        key = self._key(name)
        self.reload()
        removed = False
        if _is_vault_key(name) and self.vault is not None:
            removed = yml.remove_key(self.vault, key.yml_name if key else name)
        removed = self._drop_json(name) or removed
        self.reload()
        return removed

    def migrate(self) -> list[str]:
        """Move the vault keys this machine's settings.json holds into vaultbrain.yml (a
        value vaultbrain.yml already has wins: it is what every other machine uses), then
        drop them from settings.json. What was done, one line a key."""
        self.reload()
        done = []
        for name in self.legacy_keys():
            mine = self._json[name]
            theirs = self._yml_value(name)
            if theirs is None:
                key = KEYS.get(name)
                about = key.help if key else "the schema pack of the notes under this folder"
                value = _checked(name, mine)
                yml.set_key(self._vault(), key.yml_name if key else name, value, comment=about)
                done.append(f"{name}: moved to {VAULT_YML} ({human_value(value)})")
            elif theirs == _checked(name, mine):
                done.append(f"{name}: {VAULT_YML} already has it")
            else:
                done.append(
                    f"{name}: {VAULT_YML} says {human_value(theirs)}; this machine's "
                    f"{human_value(mine)} is dropped"
                )
            self._drop_json(name)
        self.reload()
        return done

    def _yml_value(self, name: str) -> Any:
        key = KEYS.get(name)
        raw = self._yml.get(key.yml_name if key else name)
        if raw is None:
            return None
        try:
            return _checked(name, raw)
        except ValueError:
            return None

    def _vault(self) -> Vault:
        if self.vault is None:
            raise UserError("a vault setting needs a vault (--vault)")
        return self.vault

    def _write_json(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_file(self.path, json.dumps(data, indent=1, ensure_ascii=False))
        self._json_stamp = None  # read again on reload
        self._loaded = False

    def _drop_json(self, name: str) -> bool:
        self._json = self._read_json()
        if name not in self._json:
            return False
        self._write_json({k: v for k, v in self._json.items() if k != name})
        return True


def human_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value) if value not in (None, "") else "(empty)"
