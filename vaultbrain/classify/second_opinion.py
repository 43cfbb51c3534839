"""A second opinion for the LLM: when the embedded classifier disagrees on the primary type,
a result the LLM would have filed on its own (``auto``) becomes a suggestion the person
confirms. A pure function: the caller (capture's classify step) runs the embedded classifier
beside the LLM, applies the band it returns and puts :attr:`SecondOpinion.audit` into the
classification's audit entry under :data:`AUDIT_KEY`, which ``trust --summary`` counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vaultbrain.classify.result import UNKNOWN, Band, Classification

AUDIT_KEY = "second_opinion"
SURE = 0.7  # the embedded classifier's confidence (capped at 0.75) that makes it a veto


@dataclass(frozen=True)
class SecondOpinion:
    agree: bool | None  # None: the embedded classifier had no opinion (unknown)
    band: Band
    audit: dict[str, Any]


def _primary(c: Classification) -> str | None:
    for d in c.destinations:
        return d.type if d.type != UNKNOWN else None
    return None


def second_opinion(llm: Classification, embedded: Classification, band: Band) -> SecondOpinion:
    """The band to file the LLM's result in, given the embedded classifier's answer.

    Disagreement on the primary type lowers ``auto`` to ``suggest`` (one step, never below:
    the LLM's own confidence decides between suggest and review). No opinion (the embedded
    classifier said unknown) and agreement leave the band alone.
    """
    mine, theirs = _primary(embedded), _primary(llm)
    agree = None if mine is None or theirs is None else mine == theirs
    # Only a sure second opinion overrules: an embedded reading near its cap. An unsure one
    # (a thought it has seen nothing like) is recorded but lowers nothing.
    lowered = band is Band.AUTO and agree is False and embedded.confidence >= SURE
    new_band = Band.SUGGEST if lowered else band
    audit = {
        "agree": agree,
        "llm_type": theirs,
        "embedded_type": mine,
        "embedded_confidence": embedded.confidence,
        "band": band.value,
        "lowered_to": new_band.value if lowered else None,
    }
    if lowered:
        audit["note"] = (
            f"the embedded classifier read it as {mine}, the LLM as {theirs}: "
            "filed as a suggestion to confirm"
        )
    return SecondOpinion(agree, new_band, audit)


def agreement(entries: list[dict[str, Any]] | Any) -> dict[str, Any]:
    """How often the two classifiers agreed, from audit entries carrying :data:`AUDIT_KEY`."""
    compared = agreed = lowered = 0
    for e in entries:
        op = e.get(AUDIT_KEY) if isinstance(e, dict) else None
        if not isinstance(op, dict) or op.get("agree") is None:
            continue
        compared += 1
        agreed += bool(op["agree"])
        lowered += bool(op.get("lowered_to"))
    return {
        "compared": compared,
        "agreed": agreed,
        "lowered": lowered,
        "agreement_rate": round(agreed / compared, 3) if compared else None,
    }
