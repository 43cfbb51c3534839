"""Set-up checks behind ``vaultbrain doctor``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultbrain.brain import Brain


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    level: str = "error"  # "error" fails doctor; "warn" only informs


def run_checks(app: Brain) -> list[Check]:
    checks: list[Check] = []
    root = app.vault.root
    from vaultbrain.brain import looks_like_vault

    if root.is_dir() and not looks_like_vault(root, app.state_dir):
        checks.append(
            Check(
                "vault",
                False,
                f"{root} is not a vault (no .obsidian/, no Inbox.md, no vaultbrain.yml, no "
                f"state); run `vaultbrain --vault {root} init` to make it one",
            )
        )
    elif root.is_dir():
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
    if not unusable and inbox.is_file():
        unusable = _inbox_bytes(app)
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
    from vaultbrain.capture.daily import capture_heading, daily_status

    if capture_heading(app):  # which daily notes are read as inboxes (issue 45)
        checks.append(Check("daily notes", True, daily_status(app), "warn"))
    checks.append(_state_check(app.state_dir))
    from vaultbrain.machine import doctor_line, state_dir_note, synced_state_dir

    checks.append(Check("filer", True, doctor_line(app.vault, app.state_dir), "warn"))
    checks.append(_daemon_check(app))
    tasks = _tasks_plugin_check(app)
    if tasks is not None:
        checks.append(tasks)
    synced = synced_state_dir(app.vault, app.state_dir)
    if synced:
        checks.append(Check("state dir sync", False, synced, "warn"))
    note = state_dir_note(app.vault, app.state_dir)
    if note:
        checks.append(Check("state dir place", True, note, "warn"))
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
        from vaultbrain.schema.rename import unfinished_line  # (a rename-field cut short)

        unfinished = unfinished_line(app)
        if unfinished:
            checks.append(Check("schema verb", False, unfinished, "warn"))
    except Exception as exc:  # any pack failure is a finding, not a crash
        checks.append(Check("schema pack", False, str(exc)))
    checks.append(_damaged_state_check(app))
    checks.append(_store_read("records", _records_check, app))
    checks.append(_store_read("unreadable notes", _unreadable_check, app))
    checks.append(_llm_check(app))
    checks.extend(_measured_checks(app))
    checks.append(_embeddings_check(app))
    from vaultbrain.graph.embed import doctor_lines  # (notes waiting to be embedded, and why)

    checks += [Check("embeddings waiting", ok, line, "warn") for ok, line in doctor_lines(app)]
    from vaultbrain.vault.atomic import sweep_leftovers  # (temps a killed write left)

    stuck = sweep_leftovers(app.vault.root, app.vault.state_dir).stuck
    if stuck:
        shown = "; ".join(stuck[:5]) + (f" (and {len(stuck) - 5} more)" if len(stuck) > 5 else "")
        checks.append(
            Check("leftovers", False, f"temp files that could not be removed: {shown}", "warn")
        )
    checks.append(_settings_check(app))
    if app.settings.notes():  # works, but should change (vaultbrain/settings.py)
        checks.append(Check("settings place", True, "; ".join(app.settings.notes()), "warn"))
    checks.extend(_youtube_checks())
    return checks


def _tasks_plugin_check(app: Brain) -> Check | None:
    """Whether Obsidian Tasks keeps vaultbrain's own checkboxes out of its queries, and the
    one Global Query line to add when it does not (vaultbrain/vault/tasks_plugin.py); None
    when the plugin is not installed."""
    from vaultbrain.vault.obsidian import config_folder
    from vaultbrain.vault.tasks_plugin import own_checkboxes_finding

    found = own_checkboxes_finding(config_folder(app.vault.root), app.inbox_rel)
    if found is None:
        return None
    return Check("obsidian tasks", found[0], found[1], "warn")


def _daemon_check(app: Brain) -> Check:
    """Whether a daemon watches the vault, and so takes the thoughts `vaultbrain capture`
    hands over (vaultbrain/daemon/door.py); a look at its socket, nothing sent."""
    from vaultbrain.daemon.door import address, listening

    where = address(app.state_dir)
    if where is None:
        return Check(
            "daemon",
            True,
            "each `vaultbrain capture` files its thought itself: the state dir's path is too "
            "long for the daemon's socket",
            "warn",
        )
    if not os.path.exists(where):
        return Check(
            "daemon",
            True,
            "not running: each `vaultbrain capture` files its thought itself (`vaultbrain "
            "service install` keeps one running, and captures are handed to it)",
            "warn",
        )
    if not listening(where):
        return Check(
            "daemon",
            True,
            "not running (its socket was left by one that stopped): each `vaultbrain capture` "
            "files its thought itself",
            "warn",
        )
    try:
        pid = (app.state_dir / "daemon.lock").read_text().strip()
    except OSError:
        pid = ""
    said = f" (pid {pid})" if pid.isdigit() else ""
    return Check(
        "daemon",
        True,
        f"watching this vault{said}: `vaultbrain capture` hands its thoughts to it",
        "warn",
    )


def _inbox_bytes(app: Brain) -> str | None:
    """The inbox's lines that are not UTF-8 (never filed; kept byte for byte), or None."""
    from vaultbrain.errors import VaultbrainError
    from vaultbrain.filing.unreadable import inbox_problem as bytes_problem

    try:
        note = app.vault.try_read(app.inbox_rel)
    except VaultbrainError as exc:
        return str(exc)
    problem = bytes_problem(note.text) if note is not None else None
    return f"{app.inbox_rel}: {problem}" if problem else None


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


def _records_check(brain: Brain) -> Check:
    """One record per path, one path per record, across the live records of the store."""
    from vaultbrain.filing.index import collections_of

    if not brain.state_dir.is_dir():
        return Check("records", True, "no store yet")
    by_path: dict[str, list[str]] = {}
    shown: dict[str, str] = {}  # a path as the store has it (the key is case-folded)
    by_id: dict[str, set[str]] = {}
    try:
        names = collections_of(brain.pack, list(brain.folder_packs))
    except Exception:  # a broken pack is its own finding
        return Check("records", True, "not checked (the pack did not load)", "warn")
    for name in names:
        for s in brain.store.collection(name).summaries():
            if s.get("path"):
                by_path.setdefault(s["path"].lower(), []).append(f"{name}/{s['id']}")
                shown.setdefault(s["path"].lower(), s["path"])
                by_id.setdefault(s["id"], set()).add(s["path"])
    problems = [f"{shown[p]}: records {', '.join(i)}" for p, i in by_path.items() if len(i) > 1]
    problems += [f"{rid}: on {', '.join(sorted(ps))}" for rid, ps in by_id.items() if len(ps) > 1]
    if problems:
        return Check(
            "records", False, "two records on one path or one on two: " + "; ".join(problems)
        )
    return Check("records", True, f"{sum(len(v) for v in by_path.values())} records, one path each")


def _store_read(name: str, check: Any, brain: Brain) -> Check:
    """A check that reads the state database: its failure (a damaged database) is the
    finding, not the end of `doctor` (the "state database" check says what to do)."""
    from vaultbrain.errors import StorageError

    try:
        result: Check = check(brain)
    except StorageError as exc:
        return Check(name, False, f"not checked: {exc}", "warn")
    return result


def _damaged_state_check(brain: Brain) -> Check:
    """The state database's health (``PRAGMA quick_check``), and what to do when it is
    damaged: the notes are the truth, so a state dir set aside is made again by a rescan."""
    from vaultbrain.errors import VaultbrainError

    try:
        problems = brain.store.quick_check()
    except VaultbrainError as exc:
        return Check("state database", False, f"cannot be read: {exc}", "warn")
    where = brain.store.path or "the state database"
    if not problems:
        return Check("state database", True, f"{where}: sound (quick_check ok)", "warn")
    shown = "; ".join(problems[:3]) + (
        f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    )
    return Check(
        "state database",
        False,
        f"{where} is damaged ({shown}): stop the daemon, move {where} aside, and run"
        " `vaultbrain reindex` (the notes are the truth; captures still in Inbox.md are taken"
        " again)",
    )


def _unreadable_check(brain: Brain) -> Check:
    """Notes a scan could not read, kept until fixed (vaultbrain/filing/unreadable.py)."""
    from vaultbrain.filing.unreadable import describe, listed

    bad = listed(brain)
    if not bad:
        return Check("unreadable notes", True, "none", "warn")
    shown = "; ".join(describe(u) for u in bad[:10])
    more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
    return Check("unreadable notes", False, f"{len(bad)}: {shown}{more}", "warn")


def _settings_check(app: Brain) -> Check:
    from vaultbrain.cron import schedules_without_next_run

    keys = ("digest_schedule", "review_schedule")
    problems = schedules_without_next_run({k: app.settings.get(k) for k in keys})
    problems += app.settings.problems()  # stored values refused (NaN, a dot-folder inbox)
    return Check("settings", not problems, "; ".join(problems) or "every value makes sense")


DOCTOR_THOUGHT = "Call Bob tomorrow about the roof"


def _llm_check(app: Brain) -> Check:
    """One tiny classification, in the form negotiated with the server (and remembered for
    the daemon): the server's kind, the model, the form, the latency and tokens/s, or the
    server's exact refusal. With no server: which one the endpoint's port suggests and how
    to start it."""
    import datetime as dt

    from vaultbrain.classify.classifier import LLMClassifier
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.classify.servers import START_HINTS, guess_server_by_port
    from vaultbrain.errors import LLMError

    s = app.settings
    if s.get("provider") == "heuristic":
        return Check(
            "llm", True, "provider is heuristic: the embedded classifier, no server needed"
        )
    endpoint = str(s.get("endpoint"))
    client = LLMClient.from_settings(s, app.state_dir)
    client.retries = 0
    meanwhile = (
        "the embedded classifier files suggestions meanwhile"
        if s.get("fallback") == "heuristic"
        else "captures wait as pending meanwhile (fallback: none)"
    )
    try:
        pack = app.pack
    except Exception:  # a broken pack is its own finding; classify against the default one
        from vaultbrain.packs import load_pack

        pack = load_pack("vaultbrain-base")
    try:
        result, audit = LLMClassifier(client).classify(
            pack, DOCTOR_THOUGHT, dt.date.today(), [], []
        )
    except LLMError as exc:
        if exc.kind == "unreachable":
            guess = guess_server_by_port(endpoint)
            looks = {
                "lmstudio": "LM Studio's port",
                "ollama": "Ollama's port",
                "llama.cpp": "llama.cpp's port",
                "llama-cpp-python": "llama-cpp-python's and vLLM's port",
            }.get(guess)
            detail = f"nothing answers at {endpoint}" + (f" ({looks})" if looks else "")
            return Check("llm", False, f"{detail}; {START_HINTS[guess]}; {meanwhile}", "warn")
        return Check("llm", False, f"{exc} [{exc.kind}]; {meanwhile}", "warn")
    finally:
        client.close()
    tokens = result.usage.get("completion_tokens")
    seconds = result.elapsed_ms / 1000
    speed = f", {tokens / seconds:.1f} tokens/s" if isinstance(tokens, int) and seconds else ""
    return Check(
        "llm",
        True,
        f"{endpoint}: {audit['server']} serving {result.model}; one classification in form "
        f"{audit['form']} took {seconds:.1f}s"
        + (f" ({tokens} tokens{speed})" if isinstance(tokens, int) else "")
        + f"; captures are classified_by {result.classified_by}",
    )


def _embeddings_check(app: Brain) -> Check:
    """Search by meaning: one embedding asked of the server (vaultbrain/classify/embeddings.py)."""
    from vaultbrain.classify.embeddings import doctor_line

    ok, detail = doctor_line(app.settings, app.state_dir)
    return Check("embeddings", ok, detail, "warn")


def _pack_consistency(app: Brain) -> Check | None:
    try:
        from vaultbrain.packs.survey import schema_pack_consistency
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


def _measured_checks(app: Brain) -> list[Check]:
    """The LLM's record on the probe (classify/probe.py), the pair's prior: one line per model
    measured on this vault (a note only: nothing here fails doctor)."""
    from vaultbrain.classify.probe import all_kept, describe

    if str(app.settings.get("provider")) == "heuristic":
        return []
    found = all_kept(app.store)
    if not found:
        why = "not yet: the daemon measures a model on the probe the first time it meets it"
        return [Check("llm measured", True, why, "warn")]
    return [Check("llm measured", True, describe(m), "warn") for m in found]
