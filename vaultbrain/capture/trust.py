"""The trust trail: every classification, resolution, correction and sync decision, and the
``Brain/Trust.md`` summary (counts by status, filing and correction rates, calibration)."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from vaultbrain.capture.model import STATUS_NAMES, CaptureStatus
from vaultbrain.errors import UserError

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

TRUST_NOTE = "Brain/Trust.md"
# Who decided a capture without a model: the URL handler (a bare URL is a link), YouTube's,
# the person (a resolution), the embedded classifier. None of them is "by the model".
HANDLERS = ("url", "youtube", "person")
NOT_THE_MODEL = (None, "heuristic", *HANDLERS)
BANDS = [(0.0, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01)]

S = CaptureStatus
WROTE = frozenset({S.FILED, S.SUGGESTED, S.CORRECTED})  # the captures that wrote notes
FILED, CORRECTED = S.FILED.value, S.CORRECTED.value  # the counts' names


def parse_since(text: str | None, today: dt.date) -> str | None:
    """``2026-11-01``, or a span back from today: ``7d``, ``4w``."""
    if not text:
        return None
    from vaultbrain.bounds import since_day  # (bounded: one line, never an OverflowError)

    return since_day(text.strip().lower(), today).isoformat()


def trail(
    brain: Brain,
    status: str | None = None,
    type_name: str | None = None,
    since: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Audit records, newest first, filtered by the capture's status, a type, and a date."""
    statuses: dict[str, str] = {}
    if status:
        statuses = {s["id"]: s.get("status", "") for s in brain.store.inbox.summaries()}
    out = []
    for e in brain.store.read_jsonl("audit.jsonl"):
        if since and str(e.get("at", "")) < since:
            continue
        if status and statuses.get(str(e.get("capture"))) != status:
            continue
        if type_name and type_name not in _types_of(e):
            continue
        out.append(e)
    out.reverse()
    return out[:limit] if limit else out


def _types_of(e: dict[str, Any]) -> set[str]:
    types = {str(e.get("type") or ""), str(e.get("from") or ""), str(e.get("to") or "")}
    for d in (e.get("parsed") or {}).get("destinations", []) + list(e.get("destinations") or []):
        types.add(str(d.get("type")))
    return {t for t in types if t}


def summary(brain: Brain) -> dict[str, Any]:
    """The numbers of Brain/Trust.md, computed from the store."""
    by_status: Counter[str] = Counter()
    per_type: dict[str, Counter[str]] = defaultdict(Counter)
    bands: dict[str, Counter[str]] = {f"{lo:.1f}–{min(hi, 1.0):.1f}": Counter() for lo, hi in BANDS}
    for rec in brain.store.inbox.all():
        status = CaptureStatus.of(rec.get("status")) or S.PENDING
        by_status[status.value] += 1
        cls = rec.get("classification") or {}
        if cls.get("classified_by") in HANDLERS:
            cls = rec.get("classification_before") or {}
        conf = cls.get("confidence")
        filed = status in WROTE and rec.get("destinations")
        corrected = status is S.CORRECTED or bool(rec.get("corrections"))
        for d in rec.get("destinations", []) if filed else []:
            original = next((c["from"] for c in rec.get("corrections", [])), d["type"])
            per_type[original][FILED] += 1
            if corrected:
                per_type[original][CORRECTED] += 1
        if filed and isinstance(conf, int | float):
            for lo, hi in BANDS:
                if lo <= conf < hi:
                    key = f"{lo:.1f}–{min(hi, 1.0):.1f}"
                    bands[key][FILED] += 1
                    if corrected:
                        bands[key][CORRECTED] += 1
    total = sum(by_status.values())
    done = sum(by_status[s.value] for s in WROTE)
    return {
        **llm_counts(brain),
        "captures": total,
        "by_status": dict(by_status),
        "filing_rate": round(done / total, 3) if total else None,
        "correction_rate": {
            t: round(c[CORRECTED] / c[FILED], 3) for t, c in sorted(per_type.items()) if c[FILED]
        },
        "per_type": {t: dict(c) for t, c in sorted(per_type.items())},
        "second_opinion": second_opinion_summary(brain),
        "reliability": reliability_summary(brain),
        "llm_measured": measured_summary(brain),
        "calibration": [
            {
                "band": k,
                FILED: c[FILED],
                CORRECTED: c[CORRECTED],
                "corrected_share": round(c[CORRECTED] / c[FILED], 3) if c[FILED] else None,
            }
            for k, c in bands.items()
        ],
    }


def llm_counts(brain: Brain) -> dict[str, Any]:
    """From the audit trail: classifications the model made, ones the embedded classifier made
    because the LLM failed (by kind of failure, with the latest cause), and failed attempts
    that left a thought waiting."""
    by_model = 0
    by_handler: Counter[str] = Counter()
    fallbacks: Counter[str] = Counter()
    waits: Counter[str] = Counter()
    causes: dict[str, str] = {}
    for e in classifications(brain):
        kind = e.get("kind")
        if kind == "classification":
            if e.get("fallback_from"):
                fk = str(e.get("fallback_kind") or "error")
                fallbacks[fk] += 1
                causes[fk] = str(e.get("fallback_cause") or "")
            elif e.get("provider") in HANDLERS:
                by_handler[str(e["provider"])] += 1
            elif e.get("provider") not in NOT_THE_MODEL:
                by_model += 1
        elif kind == "classification_failed":
            waits[str(e.get("error_kind") or "error")] += 1
    return {
        "classified_by_model": by_model,
        "classified_by_handler": dict(by_handler.most_common()),
        "fallbacks": sum(fallbacks.values()),
        "fallbacks_by_cause": [
            {"kind": k, "count": n, "cause": causes.get(k, "")} for k, n in fallbacks.most_common()
        ],
        "llm_failed_attempts": dict(waits.most_common()),
    }


def render_trust(brain: Brain, s: dict[str, Any]) -> str:
    now = brain.now().isoformat()
    # Counts end in _count: a property name has one type vault-wide, and record types may
    # use these words for their own fields.
    lines = ["---", "type: vaultbrain-trust", f"updated: {now}", f"captures_count: {s['captures']}"]
    rate = s["filing_rate"]
    lines.append(f"filing_rate: {rate if rate is not None else ''}".rstrip())
    lines.append(f"fallbacks: {s.get('fallbacks', 0)}")
    for status in STATUS_NAMES:
        lines.append(f"{status}_count: {s['by_status'].get(status, 0)}")
    lines += [
        "tags:",
        "  - vaultbrain",
        "---",
        "# Trust",
        "",
        "What vaultbrain did with your thoughts, and how often you had to correct it.",
        "`vaultbrain trust` shows every decision with its input, model and reasoning.",
        "",
        "## By status",
        "",
        "| status | captures |",
        "|---|---|",
    ]
    for status, n in sorted(s["by_status"].items()):
        lines.append(f"| {status} | {n} |")
    lines += [
        "",
        f"Filing rate: {'–' if rate is None else f'{rate:.0%}'} of captures filed or suggested.",
        "",
        "## Corrections by type",
        "",
        "| type | filed | corrected | rate |",
        "|---|---|---|---|",
    ]
    for t, c in s["per_type"].items():
        lines.append(
            f"| {t} | {c.get('filed', 0)} | {c.get('corrected', 0)} | {s['correction_rate'].get(t, 0):.0%} |"
        )
    lines += [
        "",
        "## The LLM",
        "",
        f"Classified by the model: {s.get('classified_by_model', 0)}. "
        f"By the embedded classifier because the LLM failed: {s.get('fallbacks', 0)}.",
    ]
    handled = s.get("classified_by_handler") or {}
    if handled:
        said = ", ".join(f"{n} by the {kind} handler" for kind, n in handled.items())
        lines += ["", f"Taken without asking a model: {said}."]
    if s.get("fallbacks_by_cause"):
        lines += ["", "| failure | fallbacks | latest cause |", "|---|---|---|"]
        for f in s["fallbacks_by_cause"]:
            lines.append(f"| {f['kind']} | {f['count']} | {_cell(f['cause'])} |")
    if s.get("llm_failed_attempts"):
        waited = ", ".join(f"{k} {n}" for k, n in s["llm_failed_attempts"].items())
        lines += ["", f"Failed attempts that left a thought waiting: {waited}."]
    lines += [
        "",
        "## Calibration",
        "",
        "Of the thoughts filed at each confidence, the share you later corrected.",
        "",
        "| confidence | filed | corrected | share |",
        "|---|---|---|---|",
    ]
    for b in s["calibration"]:
        share = "–" if b["corrected_share"] is None else f"{b['corrected_share']:.0%}"
        lines.append(f"| {b['band']} | {b['filed']} | {b['corrected']} | {share} |")
    lines += render_second_opinion(s.get("second_opinion") or {})
    return "\n".join(lines) + "\n"


def second_opinion_summary(brain: Brain) -> dict[str, Any]:
    """How often the LLM and the embedded classifier agreed on the primary type and who
    decided, from the ``second_opinion`` field of classification audit entries (see
    classify/arbiter.py)."""
    from vaultbrain.classify.arbiter import agreement

    return agreement(e for e in classifications(brain) if e.get("kind") == "classification")


# the state dir -> (the audit trail's mark read to, what it held of classifications)
_CLASSIFIED: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
_CLASSIFYING = ("classification", "classification_failed")
# What the counts read of a classification entry (a model's whole reply stays on disk).
_COUNTED_KEYS = (
    "kind",
    "provider",
    "fallback_from",
    "fallback_kind",
    "fallback_cause",
    "error_kind",
    "second_opinion",
)


def classifications(brain: Brain) -> list[dict[str, Any]]:
    """The trail's classifications and failed attempts, oldest first, with the fields the
    counts read. The trail only grows: a process reads it once, then what was appended since
    (the daemon redraws Trust after every capture, and a first import writes an entry per
    record: 10,000 entries parsed at each redraw)."""
    key = str(brain.store.root)
    mark, entries = _CLASSIFIED.get(key, (None, []))
    now, appended = brain.store.read_jsonl_since("audit.jsonl", mark)
    if appended is None:  # (another database, or never read: from the start)
        entries = []
        now, appended = brain.store.read_jsonl_since("audit.jsonl", [now[0], 0])
    new = [
        {k: e[k] for k in _COUNTED_KEYS if k in e}
        for e in appended or []
        if e.get("kind") in _CLASSIFYING
    ]
    if new:
        entries = entries + new  # (a new list: one being read elsewhere stays as it was)
    _CLASSIFIED[key] = (now, entries)
    return entries


def reliability_summary(brain: Brain) -> dict[str, Any]:
    """Per voter and type, how often it named the type and was right, as the pair weighs
    them (classify/reliability.py)."""
    from vaultbrain.classify.adapt import vault_learning

    try:  # a read: what is learnt is not written back to the state dir
        rel = vault_learning(brain.store, brain.pack, save=False).reliability
    except OSError:
        return {}
    out = rel.summary()
    # the person's bar: types that earned (or lost) filing alone in this vault
    out["person_bar"] = rel.person_summary(float(brain.settings.get("auto_confidence")))
    return out


def measured_summary(brain: Brain) -> list[dict[str, Any]]:
    """Every model measured on the probe on this vault (classify/probe.py), newest first."""
    from vaultbrain.classify.probe import all_kept

    try:
        return [m.summary() for m in all_kept(brain.store)]
    except OSError:
        return []


def render_second_opinion(op: dict[str, Any]) -> list[str]:
    if not op.get("compared"):
        return []
    return [
        "",
        "## Second opinion",
        "",
        f"The embedded classifier agreed with the LLM on {op['agreed']} of {op['compared']} "
        f"thoughts ({op['agreement_rate']:.0%}); {op['lowered']} were filed lower than the LLM "
        f"alone would have (they disagreed), {op.get('raised', 0)} higher (they agreed).",
        *_decided_by(op.get("decided_by") or {}),
    ]


def _decided_by(decided: dict[str, int]) -> list[str]:
    if not decided:
        return []
    names = {
        "agreement": "both agreed",
        "llm": "the LLM",
        "embedded": "the embedded classifier",
        "review": "neither: review",
        "noise": "not a thought (noise)",
    }
    parts = [f"{names.get(k, k)} {n}" for k, n in sorted(decided.items(), key=lambda x: -x[1])]
    return ["", "Decided by: " + ", ".join(parts) + "."]


def write_trust_note(brain: Brain) -> bool:
    numbers = summary(brain)
    text = render_trust(brain, numbers)

    def build(current: Any) -> str | None:
        if current is None and not numbers["captures"]:
            return None  # Brain/ notes appear the first time they have something to show
        if current is not None and (
            current.text.split("\n# Trust", 1)[-1] == text.split("\n# Trust", 1)[-1]
        ):
            return None
        return text

    try:
        return brain.vault.edit(TRUST_NOTE, build).written
    except UserError:
        return False  # the person is editing it: next time


def _cell(text: str) -> str:
    """Text safe inside a table cell of the note: one line, no pipes."""
    return " ".join(str(text).split()).replace("|", "/")[:160]
