"""Set-up checks behind ``vaultbrain doctor``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    level: str = "error"  # "error" fails doctor; "warn" only informs


def run_checks(app: Any) -> list[Check]:
    checks: list[Check] = []
    root = app.vault.root
    if root.is_dir():
        writable = os.access(root, os.W_OK)
        checks.append(
            Check("vault", writable, f"{root}" + ("" if writable else " is not writable"))
        )
    else:
        checks.append(
            Check("vault", False, f"{root} does not exist; run `vaultbrain --vault {root} init`")
        )
    inbox = app.vault.root / str(app.settings.get("inbox_note"))
    from vaultbrain.vault.inbox import inbox_problem

    unusable = inbox_problem(app.vault, str(app.settings.get("inbox_note")))
    checks.append(
        Check(
            "inbox",
            inbox.is_file() and not unusable,
            unusable
            or (
                str(inbox)
                if inbox.is_file()
                else f"{inbox} is missing (`vaultbrain init` makes it)"
            ),
            "warn",
        )
    )
    checks.append(_state_check(app.state_dir))
    try:
        active = app.active
        checks.append(
            Check(
                "schema pack", True, f"{active.pack.identity} (tier {active.tier}: {active.source})"
            )
        )
        consistency = _pack_consistency(app)
        if consistency is not None:
            checks.append(consistency)
    except Exception as exc:  # any pack failure is a finding, not a crash
        checks.append(Check("schema pack", False, str(exc)))
    checks.append(_llm_check(app))
    checks.append(_settings_check(app))
    checks.extend(_youtube_checks())
    return checks


def _state_check(state: Any) -> Check:
    """Whether the state dir can be written, found without creating anything: doctor only
    looks (the nearest folder that exists must let vaultbrain make the rest)."""
    probe = state
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        return Check("state dir", False, f"{state}: {probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        return Check("state dir", False, f"{state}: {probe} is not writable")
    if probe != state:
        return Check("state dir", True, f"{state} (made on first use)")
    return Check("state dir", True, str(state))


def _settings_check(app: Any) -> Check:
    from vaultbrain.digest.cron import schedules_without_next_run

    keys = ("digest_schedule", "review_schedule")
    problems = schedules_without_next_run({k: app.settings.get(k) for k in keys})
    problems += app.settings.problems()  # stored values refused (NaN, a dot-folder inbox)
    return Check("settings", not problems, "; ".join(problems) or "every value makes sense")


def _llm_check(app: Any) -> Check:
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.errors import LLMError

    s = app.settings
    if s.get("provider") == "heuristic":
        return Check(
            "llm", True, "provider is heuristic: the embedded classifier, no server needed"
        )
    client = LLMClient(
        s.get("endpoint"),
        s.get("model"),
        timeout=min(5.0, float(s.get("llm_timeout_seconds"))),
        retries=0,
    )
    fallback = s.get("fallback")
    try:
        models = client.models()
    except LLMError as exc:
        detail = f"{exc}; " + (
            "the embedded classifier files suggestions meanwhile"
            if fallback == "heuristic"
            else "captures wait as pending (fallback: none)"
        )
        return Check("llm", False, detail, "warn")
    finally:
        client.close()
    if not models:
        return Check(
            "llm", False, f"{s.get('endpoint')} has no models loaded; load one in LM Studio", "warn"
        )
    wanted = s.get("model")
    if wanted and wanted not in models:
        return Check("llm", False, f"model {wanted!r} is not among {', '.join(models)}", "warn")
    return Check(
        "llm",
        True,
        f"{s.get('endpoint')}: {', '.join(models[:5])}"
        + (f" (using {wanted})" if wanted else f" (using {models[0]})"),
    )


def _pack_consistency(app: Any) -> Check | None:
    try:
        from vaultbrain.packs import schema_pack_consistency  # type: ignore[attr-defined]
    except ImportError:
        return None
    ok, detail = schema_pack_consistency(app)
    return Check("schema_pack_consistency", ok, detail, "warn")


def _youtube_checks() -> list[Check]:
    try:
        from vaultbrain.youtube import doctor_checks  # type: ignore[attr-defined]
    except ImportError:
        return []
    return [Check(name, ok, detail, "warn") for name, ok, detail in doctor_checks()]
