"""Settings: documented defaults, each key the vault's or this machine's (issue 15).

Every key is declared once here, with its type, default, help text and scope, so
``settings get``, ``settings set`` and the code agree. A vault key (the pack, the inbox, the
bands, schedules, folders) lives in ``vaultbrain.yml`` at the vault root, synced with the
notes, so every machine files alike; a machine key (the LLM server, model, concurrency,
timeouts) lives in the state dir's database, as its document ``settings.json`` (a
``settings.json`` file found beside ``state.db``, an earlier version's or one written by
hand, is taken into it and removed: vaultbrain/store/legacy.py). ``MACHINE_KEYS`` says which and why.
vaultbrain/vault/yml.py is the one writer of ``vaultbrain.yml``. Environment variables
override the LLM keys.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import UserError
from vaultbrain.vault import yml
from vaultbrain.vault.yml import VAULT_YML

if TYPE_CHECKING:
    from vaultbrain.store import Store
    from vaultbrain.vault.files import Vault

import logging

from vaultbrain.setting_keys import (  # noqa: F401 (the keys, where callers look for them)
    _PREFIX_KEYS,
    _YML_TO_KEY,
    KEYS,
    MACHINE_KEYS,
    YML_OTHER,
    Key,
    _checked,
    _is_vault_key,
    _pack_name,
)

log = logging.getLogger("vaultbrain.settings")
SETTINGS_DOC = "settings.json"  # this machine's settings: a document of the state dir's store
_LOGGED: set[str] = set()  # problems already logged by this process


class Settings:
    """The settings a vault has on this machine: the vault's keys from ``vaultbrain.yml``,
    this machine's from the state dir's database (its document ``settings.json``),
    environment overrides on read.

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
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / SETTINGS_DOC  # (a file there is taken into the store)
        self.vault = vault
        self.yml_path = Path(vault.root) / VAULT_YML if vault is not None else None
        self.env = os.environ if env is None else env
        self._json: dict[str, Any] = {}
        self._json_stamp: tuple[object, ...] | None = None
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
        """Changes whenever either the stored settings or vaultbrain.yml do (None: neither
        exists)."""
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

    def _store(self) -> Store:
        from vaultbrain.store import Store

        return Store.of(self.state_dir)

    def _doc_stamp(self) -> tuple[object, ...] | None:
        """The stored settings' version (None: none stored); a ``settings.json`` file beside
        the database taken in first. A state dir not made yet holds none, and is not made
        by reading (doctor on a folder that is no vault writes nothing)."""
        if not self.state_dir.exists():
            return None
        store = self._store()
        store.take_file(SETTINGS_DOC)
        stamp = store.json_stamp(SETTINGS_DOC)
        if self.path.exists():  # (not taken: not JSON)
            return ("file", self._stamp(self.path))
        return tuple(stamp) if stamp is not None else None

    def reload(self) -> None:
        json_stamp, yml_stamp = self._doc_stamp(), self._stamp(self.yml_path)
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
        if self.path.exists():  # left beside the database: it is not JSON
            try:
                json.loads(self.path.read_text("utf-8"))
            except FileNotFoundError:
                pass
            except ValueError as exc:
                raise UserError(f"{self.path} is not valid JSON; fix or delete it ({exc})") from exc
            self._store().take_file(SETTINGS_DOC)
        data = self._store().read_json(SETTINGS_DOC)
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
        self._store().write_json(SETTINGS_DOC, data)
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
