"""The LLM measured, not guessed: the first time vaultbrain meets a model (an endpoint and a
model id) it asks it the labelled thoughts of ``corpus/probe.txt`` (every type, some noise),
in the background, and keeps how often it was right about each type it named.

That record is the LLM's prior in the pair (:class:`~vaultbrain.classify.reliability.
Reliability`, ``measured``): a strong model starts trusted for what it has shown, a small one
distrusted, instead of either being judged by how often it agrees with the embedded
classifier (which scores a strong model down for being right where the embedded classifier
is confidently wrong). The person's own confirmations and corrections outweigh it as they
come (``MEASURED_WEIGHT`` outcomes per type at most).

Kept in the store (``llm-probe.json``), one entry per endpoint and the model id the server
reports serving (not the configured name: another server on the same port is another
model, :meth:`LLMClient.served_model`); a model met
again is not asked again. The daemon runs the probe (vaultbrain/daemon/service.py);
``doctor`` and ``trust --summary`` show the figures.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultbrain.classify.corpus import Example, parse_line
from vaultbrain.classify.result import UNKNOWN
from vaultbrain.errors import LLMError
from vaultbrain.resources import data_dir

if TYPE_CHECKING:
    from vaultbrain.classify.llm import LLMClient
    from vaultbrain.packs import ResolvedPack
    from vaultbrain.store import Store

__all__ = [
    "STORE_KEY",
    "Measured",
    "all_kept",
    "describe",
    "keep",
    "kept",
    "load_probe",
    "measure",
    "measure_once",
    "model_key",
    "prior_for",
]

STORE_KEY = "llm-probe.json"
PROBE_FILE = "probe.txt"
# Failures that end a probe: nothing to measure now (it is tried again the next time).
_STOP = ("unreachable", "no_models", "cancelled", "auth", "not_found")


@dataclass(frozen=True)
class Measured:
    """A model's record on the probe: per type it named, [times named, times right]."""

    endpoint: str
    model: str
    per_type: dict[str, list[float]] = field(default_factory=dict)
    asked: int = 0
    answered: int = 0
    right: int = 0
    at: str = ""

    @property
    def key(self) -> str:
        return model_key(self.endpoint, self.model)

    @property
    def accuracy(self) -> float | None:
        """Share of the probe's thoughts whose primary type it named right."""
        return self.right / self.asked if self.asked else None

    def precision(self, type_name: str) -> float | None:
        row = self.per_type.get(type_name)
        return row[1] / row[0] if row and row[0] > 0 else None

    def overall(self) -> tuple[float, float]:
        """(times named, times right) over every type it named."""
        named = sum(r[0] for r in self.per_type.values())
        right = sum(r[1] for r in self.per_type.values())
        return named, right

    def to_dict(self) -> dict[str, Any]:
        return {
            "endpoint": self.endpoint,
            "model": self.model,
            "per_type": {t: list(r) for t, r in sorted(self.per_type.items())},
            "asked": self.asked,
            "answered": self.answered,
            "right": self.right,
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Measured:
        per_type = {
            str(t): [float(r[0]), float(r[1])]
            for t, r in (d.get("per_type") or {}).items()
            if isinstance(r, list) and len(r) >= 2
        }
        return cls(
            str(d.get("endpoint") or ""),
            str(d.get("model") or ""),
            per_type,
            int(d.get("asked") or 0),
            int(d.get("answered") or 0),
            int(d.get("right") or 0),
            str(d.get("at") or ""),
        )

    def summary(self) -> dict[str, Any]:
        """The figures ``doctor`` and ``trust --summary`` show."""
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "measured_at": self.at,
            "asked": self.asked,
            "answered": self.answered,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 3),
            "precision": {
                t: {"named": int(r[0]), "right": int(r[1]), "p": round(r[1] / r[0], 3)}
                for t, r in sorted(self.per_type.items())
                if r[0] > 0
            },
        }


def model_key(endpoint: str, model: str) -> str:
    """One model at one endpoint (``http://localhost:1234/v1|qwen2.5-7b-instruct``)."""
    return f"{endpoint.rstrip('/')}|{model}"


def load_probe() -> list[Example]:
    """The probe's labelled thoughts, in file order."""
    path = data_dir("corpus") / PROBE_FILE
    with open(path, encoding="utf-8") as fh:
        return [ex for ex in map(parse_line, fh) if ex is not None]


def measure(
    client: LLMClient,
    pack: ResolvedPack,
    today: dt.date,
    examples: list[Example] | None = None,
    stop: threading.Event | None = None,
) -> Measured | None:
    """Ask the model every probe thought and count, per type it named, how often it was
    right (a thought of no type is right when it names none). None when the probe could not
    run to its end (the server went away, ``stop`` was set): nothing half-measured is kept.
    A reply that is no classification counts as "unknown"."""
    from vaultbrain.classify.classifier import LLMClassifier

    llm = LLMClassifier(client)
    model = client.served_model()
    per_type: dict[str, list[float]] = {}
    asked = answered = right = 0
    for ex in examples if examples is not None else load_probe():
        if stop is not None and stop.is_set():
            return None
        truth = ex.labels[0] if ex.labels else UNKNOWN
        try:
            result, _ = llm.classify(pack, ex.text, today, [], [])
            said = next((d.type for d in result.destinations), UNKNOWN)
            answered += 1
        except LLMError as exc:
            if exc.kind in _STOP:
                return None
            said = UNKNOWN
        asked += 1
        row = per_type.setdefault(said, [0.0, 0.0])
        row[0] += 1
        row[1] += said == truth
        right += said == truth
    return Measured(
        client.endpoint,
        model,
        per_type,
        asked,
        answered,
        right,
        dt.datetime.now().replace(microsecond=0).isoformat(),
    )


def kept(store: Store, endpoint: str, model: str) -> Measured | None:
    """The model's record, if it was measured at this endpoint."""
    data = store.read_json(STORE_KEY, {}) or {}
    found = data.get(model_key(endpoint, model)) if isinstance(data, dict) else None
    return Measured.from_dict(found) if isinstance(found, dict) else None


def keep(store: Store, measured: Measured) -> None:
    """Keep the model's record (beside the records of the other models met)."""
    data = store.read_json(STORE_KEY, {}) or {}
    if not isinstance(data, dict):
        data = {}
    data[measured.key] = measured.to_dict()
    store.write_json(STORE_KEY, data)


def measure_once(
    store: Store,
    client: LLMClient,
    pack: ResolvedPack,
    today: dt.date,
    stop: threading.Event | None = None,
) -> tuple[Measured | None, bool]:
    """The record of the model ``client`` reaches: kept from before, or measured now and
    kept. Returns (the record or None when it could not be had, whether it was measured
    now). Raises LLMError when the server cannot even say which model it serves."""
    model = client.served_model()
    found = kept(store, client.endpoint, model)
    if found is not None:
        return found, False
    measured = measure(client, pack, today, stop=stop)
    if measured is not None:
        keep(store, measured)
    return measured, measured is not None


def prior_for(store: Store, endpoint: str, model: str) -> dict[str, list[float]] | None:
    """The probe's per-type record of a model, as the pair's prior takes it (None: the
    model is not measured yet)."""
    found = kept(store, endpoint, model)
    return dict(found.per_type) if found is not None and found.asked else None


def describe(m: Measured) -> str:
    """One line of a model's record: ``qwen2.5-7b at …: 41 of 44 right; person 0.90 …``."""
    precision = ", ".join(
        f"{t} {r[1] / r[0]:.2f}" for t, r in sorted(m.per_type.items()) if r[0] > 0
    )
    return (
        f"{m.model} at {m.endpoint}: {m.right} of {m.asked} probe thoughts right "
        f"(precision when it names a type: {precision}; measured {m.at})"
    )


def all_kept(store: Store) -> list[Measured]:
    """Every model measured on this vault, newest first."""
    data = store.read_json(STORE_KEY, {}) or {}
    found = [Measured.from_dict(v) for v in data.values() if isinstance(v, dict)]
    return sorted(found, key=lambda m: m.at, reverse=True)
